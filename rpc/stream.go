package rpc

import (
	"bytes"
	"context"
	"errors"
	"io"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// frameReader is the raw frame access of jsonrpc2's built-in framers.
type frameReader interface {
	ReadFrame(ctx context.Context) ([]byte, int64, error)
}

// tolerantStream wraps a jsonrpc2 stream so that a frame that does not hold
// a valid JSON-RPC message is answered with an error response (parse error
// or invalid request) instead of ending the connection.
type tolerantStream struct {
	inner jsonrpc2.Stream
	raw   frameReader
	logf  func(format string, args ...any)
}

// tolerant returns a stream over inner that answers malformed frames with
// a JSON-RPC error and keeps reading. inner must come from
// jsonrpc2.NewHeaderStream or jsonrpc2.NewNDJSONStream. logf, if not nil,
// is told about every rejected frame.
func tolerant(inner jsonrpc2.Stream, logf func(format string, args ...any)) jsonrpc2.Stream {
	raw, ok := inner.(frameReader)
	if !ok {
		panic("rpc.tolerant: stream has no ReadFrame method")
	}
	if logf == nil {
		logf = func(string, ...any) {}
	}
	return &tolerantStream{inner: inner, raw: raw, logf: logf}
}

// NewHeaderStream returns a tolerant stream with LSP Content-Length framing.
func NewHeaderStream(rwc io.ReadWriteCloser, logf func(string, ...any)) jsonrpc2.Stream {
	return tolerant(jsonrpc2.NewHeaderStream(rwc), logf)
}

// NewNDJSONStream returns a tolerant stream with newline-delimited framing.
func NewNDJSONStream(rwc io.ReadWriteCloser, logf func(string, ...any)) jsonrpc2.Stream {
	return tolerant(jsonrpc2.NewNDJSONStream(rwc), logf)
}

// Read returns the next valid message.
func (s *tolerantStream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		frame, n, err := s.raw.ReadFrame(ctx)
		if err != nil {
			if errors.Is(err, jsonrpc2.ErrInvalidHeader) {
				s.logf("rejected frame: %v", err)
				s.reject(ctx, nil, jsonrpc2.NewError(jsonrpc2.ParseError, "parse error: invalid message header (expected Content-Length: N, a blank line, then N bytes of JSON)"))
				continue
			}
			return nil, 0, err
		}
		if len(bytes.TrimSpace(frame)) == 0 {
			continue // a blank line between NDJSON messages (CRLF ones too)
		}
		msg, err := jsonrpc2.DecodeMessage(frame)
		if err != nil {
			s.logf("rejected frame %.200q: %v", frame, err)
			code, what := jsonrpc2.ParseError, "parse error: the message is not valid JSON"
			if errors.Is(err, jsonrpc2.ErrInvalidRequest) || !errors.Is(err, jsonrpc2.ErrParse) {
				code, what = jsonrpc2.InvalidRequest, "invalid request: "+err.Error()
			}
			s.reject(ctx, frame, jsonrpc2.NewError(code, what))
			continue
		}
		return msg, n, nil
	}
}

// reject answers a bad frame. The id is recovered from the frame when it
// parses far enough; otherwise the response has a null id.
func (s *tolerantStream) reject(ctx context.Context, frame []byte, e *jsonrpc2.Error) {
	id := idOf(frame)
	if _, err := s.inner.Write(ctx, jsonrpc2.NewResponse(id, nil, e)); err != nil {
		s.logf("answering bad frame: %v", err)
	}
}

// Write writes a message.
func (s *tolerantStream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	return s.inner.Write(ctx, msg)
}

// Close closes the underlying connection.
func (s *tolerantStream) Close() error { return s.inner.Close() }

// defaultNotifyTimeout bounds the $/cancelRequest sent for an abandoned call.
const defaultNotifyTimeout = 5 * time.Second
