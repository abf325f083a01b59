package cassette

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/agent-lsp/agent-lsp/providers"
)

// Streamer is a model provider (the method of engine.Provider).
type Streamer interface {
	Stream(ctx context.Context, req *providers.Request, emit func(providers.Event)) (*providers.Response, error)
}

// Recorder is a provider that passes calls to another one and appends
// each call, its events and its response or error to a cassette as the
// call ends, so a cassette survives a crash up to the last call. A call
// cancelled by its ctx is not recorded: it has no ending to replay. It is
// safe for concurrent use.
type Recorder struct {
	p Streamer

	mu     sync.Mutex // guards w, closer, err
	w      io.Writer
	closer io.Closer
	err    error // the first write error
}

// NewRecorder records the calls of p to w, writing the header at once.
func NewRecorder(p Streamer, w io.Writer) (*Recorder, error) {
	if err := writeLine(w, header{Version: Version}); err != nil {
		return nil, err
	}
	return &Recorder{p: p, w: w}, nil
}

// Create records the calls of p to a new cassette file at path.
func Create(path string, p Streamer) (*Recorder, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("create cassette: %w", err)
	}
	r, err := NewRecorder(p, f)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.closer = f
	return r, nil
}

// Stream calls the recorded provider and records the call.
func (r *Recorder) Stream(ctx context.Context, req *providers.Request, emit func(providers.Event)) (*providers.Response, error) {
	start := time.Now()
	call := Call{Request: summarize(req)}
	resp, err := r.p.Stream(ctx, req, func(ev providers.Event) {
		call.Events = append(call.Events, recordEvent(ev, time.Since(start)))
		emit(ev)
	})
	if ctx.Err() != nil {
		return resp, err
	}
	if err != nil {
		call.Error = recordError(err)
	} else {
		call.Response = &Response{Message: resp.Message, StopReason: resp.StopReason, Usage: resp.Usage, Model: resp.Model}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil && r.w != nil {
		r.err = writeLine(r.w, call)
	}
	return resp, err
}

// Err returns the first error writing the cassette.
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Close stops recording and closes the file Create opened. It returns the
// first write error, if any.
func (r *Recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.w = nil
	if r.closer != nil {
		if err := r.closer.Close(); err != nil && r.err == nil {
			r.err = fmt.Errorf("close cassette: %w", err)
		}
		r.closer = nil
	}
	return r.err
}
