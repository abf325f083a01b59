package cassette

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/providers/internal/transport"
)

// ReplayOptions tune a Replayer.
type ReplayOptions struct {
	// Delay is waited before each event, to look live (zero: none).
	Delay time.Duration
	// Speed, when > 0, replays events at their recorded times divided by
	// Speed (1 is real time); it overrides Delay.
	Speed float64
	// Strict fails a call whose request does not match the recorded
	// summary (number of messages and tool names), which shows a test
	// that the conversation went another way than when it was recorded.
	Strict bool
	// Name names the cassette in errors (e.g. its path).
	Name string
}

// Replayer is a provider that plays a cassette's calls back in order.
// It is safe for concurrent use; concurrent calls take calls in the order
// they arrive.
type Replayer struct {
	c    *Cassette
	opts ReplayOptions

	mu   sync.Mutex // guards next
	next int
}

// NewReplayer returns a provider replaying c.
func NewReplayer(c *Cassette, opts ReplayOptions) *Replayer {
	if opts.Name == "" {
		opts.Name = "cassette"
	}
	return &Replayer{c: c, opts: opts}
}

// Remaining is the number of calls not yet replayed.
func (r *Replayer) Remaining() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.c.Calls) - r.next
}

// Stream emits the next recorded call's events and returns its response
// or error. When the cassette has no call left it fails with an error
// saying so; a cancelled ctx returns ctx.Err() promptly.
func (r *Replayer) Stream(ctx context.Context, req *providers.Request, emit func(providers.Event)) (*providers.Response, error) {
	r.mu.Lock()
	n := r.next
	if n < len(r.c.Calls) {
		r.next++
	}
	r.mu.Unlock()
	if n >= len(r.c.Calls) {
		return nil, fmt.Errorf("%s: no recorded model call left: it has %d and call %d was asked for (last message %q)", r.opts.Name, len(r.c.Calls), n+1, summarize(req).Last)
	}
	call := r.c.Calls[n]
	if r.opts.Strict {
		if err := match(call.Request, summarize(req)); err != nil {
			return nil, fmt.Errorf("%s: call %d: %w", r.opts.Name, n+1, err)
		}
	}
	var prev int64
	for _, e := range call.Events {
		d := r.opts.Delay
		if r.opts.Speed > 0 {
			d = time.Duration(float64(time.Duration(e.Ms-prev)*time.Millisecond) / r.opts.Speed)
			prev = e.Ms
		}
		if err := transport.Sleep(ctx, d); err != nil {
			return nil, err
		}
		emit(e.event())
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if call.Error != nil {
		return nil, call.Error.err()
	}
	msg := call.Response.Message
	msg.Content = slices.Clone(msg.Content) // the caller owns the response
	resp := &providers.Response{
		Message:    msg,
		StopReason: call.Response.StopReason,
		Usage:      call.Response.Usage,
		Model:      call.Response.Model,
	}
	if resp.Model == "" {
		resp.Model = req.Model
	}
	return resp, nil
}

func match(rec, got Request) error {
	if rec.Messages != got.Messages {
		return fmt.Errorf("request has %d messages, the recording %d (last message %q, recorded %q)", got.Messages, rec.Messages, got.Last, rec.Last)
	}
	if !slices.Equal(rec.Tools, got.Tools) {
		return fmt.Errorf("request offers tools %v, the recording %v", got.Tools, rec.Tools)
	}
	return nil
}
