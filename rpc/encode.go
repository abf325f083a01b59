package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"go.lsp.dev/jsonrpc2"
)

// idOf extracts a request id from a frame that is JSON but not a valid
// message, or returns the zero (null) id.
func idOf(frame []byte) jsonrpc2.ID {
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	if frame == nil || json.Unmarshal(frame, &probe) != nil || len(probe.ID) == 0 {
		return jsonrpc2.ID{}
	}
	var n int64
	if err := json.Unmarshal(probe.ID, &n); err == nil {
		return jsonrpc2.NewNumberID(n)
	}
	var s string
	if err := json.Unmarshal(probe.ID, &s); err == nil {
		return jsonrpc2.NewStringID(s)
	}
	return jsonrpc2.ID{}
}

// Raw encodes v for the wire: with json v2 when v implements
// jsonv2.MarshalerTo (go.lsp.dev/protocol's types, and the server's lists
// of them in server/wire.go), else with encoding/json. jsonrpc2 passes a
// RawMessage through verbatim, so every value we send is encoded by our
// rules (json tags, MarshalJSON and MarshalJSONTo methods), not by
// jsonrpc2's.
func Raw(v any) (jsonrpc2.RawMessage, error) {
	if v == nil {
		return jsonrpc2.RawMessage("null"), nil
	}
	var b []byte
	var err error
	if _, ok := v.(jsonv2.MarshalerTo); ok {
		b, err = jsonv2.Marshal(v)
	} else {
		b, err = json.Marshal(v)
	}
	if err != nil {
		return nil, fmt.Errorf("encoding %T: %w", v, err)
	}
	return jsonrpc2.RawMessage(b), nil
}

// Decode decodes params into v. A problem is reported as an invalid
// params error naming the offending field.
func Decode(method string, params jsonrpc2.RawMessage, v any) error {
	p := bytes.TrimSpace(params)
	if len(p) == 0 || bytes.Equal(p, []byte("null")) {
		return InvalidParams("%s: params are missing", method)
	}
	if err := unmarshal(p, v); err != nil {
		var se2 *jsonv2.SemanticError
		if errors.As(err, &se2) {
			var reason error = se2
			if se2.Err != nil {
				reason = se2.Err
			}
			field := strings.TrimPrefix(string(se2.JSONPointer), "/")
			if field == "" {
				return InvalidParams("%s: invalid params: %v", method, reason)
			}
			return InvalidParams("%s: field %q: %v", method, strings.ReplaceAll(field, "/", "."), reason)
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			field := te.Field
			if field == "" {
				return InvalidParams("%s: params must be a JSON %s, got %s", method, jsonType(te.Type.Kind().String()), te.Value)
			}
			return InvalidParams("%s: field %q must be %s, got %s", method, field, jsonType(te.Type.Kind().String()), te.Value)
		}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return InvalidParams("%s: params are not valid JSON at offset %d: %v", method, se.Offset, err)
		}
		return InvalidParams("%s: %v", method, err)
	}
	return nil
}

// jsonType names a Go kind the way a JSON user would.
func jsonType(kind string) string {
	switch {
	case kind == "string":
		return "a string"
	case kind == "bool":
		return "a boolean"
	case strings.HasPrefix(kind, "int"), strings.HasPrefix(kind, "uint"), strings.HasPrefix(kind, "float"):
		return "a number"
	case kind == "slice", kind == "array":
		return "an array"
	case kind == "struct", kind == "map":
		return "an object"
	}
	return "a " + kind
}

// unmarshal decodes data into v: with go-json-experiment for the
// go.lsp.dev/protocol types, which implement its interfaces, and with
// encoding/json for everything else.
func unmarshal(data []byte, v any) error {
	if _, ok := v.(jsonv2.UnmarshalerFrom); ok {
		return jsonv2.Unmarshal(data, v)
	}
	return json.Unmarshal(data, v)
}

// Required returns an invalid params error when value is empty.
func Required(method, field, value string) error {
	if value == "" {
		return InvalidParams("%s: field %q is required", method, field)
	}
	return nil
}

// InvalidParams returns a -32602 error.
func InvalidParams(format string, args ...any) error {
	return jsonrpc2.Errorf(jsonrpc2.InvalidParams, format, args...)
}

// MethodNotFound returns a -32601 error naming the method.
func MethodNotFound(method string) error {
	return jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "method not found: %s", method)
}

// Peer is the far end of a connection, with values encoded by
// encoding/json.
type Peer struct {
	Conn jsonrpc2.Conn
	// CancelNotice, if set, names the notification and params that
	// cancel an abandoned call with id; nil means LSP's
	// $/cancelRequest {"id": id}. ACP peers use ACPCancelNotice.
	CancelNotice func(id any) (method string, params any)
	// Nudge, if set, is called while a call waits for its answer: after
	// nudgeFirst, then at doubling intervals up to nudgeMax. It should
	// write something harmless. Emacs 28's jsonrpc (eglot 1.9) leaves
	// the messages that arrive in the same read as the answer to one of
	// its synchronous requests unread until the peer writes again: a
	// request of ours among them would wait forever.
	Nudge func(ctx context.Context)
}

// Nudge intervals: the first wait is short enough that a stranded
// approval shows almost at once, the longest keeps an unanswered
// question (the user thinking) from filling the editor's log.
const (
	nudgeFirst = time.Second
	nudgeMax   = 30 * time.Second
)

// trailNudges is how many times NudgeAfter nudges: at 1, 2, 4, 8 and
// 16 s, half a minute in all.
const trailNudges = 5

// nudgeWhileWaiting calls nudge at growing intervals until stop closes,
// or limit times when limit is positive.
func nudgeWhileWaiting(ctx context.Context, stop <-chan struct{}, nudge func(context.Context), limit int) {
	wait := nudgeFirst
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for n := 1; ; n++ {
		select {
		case <-stop:
			return
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		nudge(ctx)
		if n == limit {
			return
		}
		wait = min(2*wait, nudgeMax)
		timer.Reset(wait)
	}
}

// NudgeAfter calls nudge a few times at growing intervals (1 s to 16 s)
// unless stop closes or ctx ends first, and returns when done. Call it
// after the last message of a burst that followed the answer to one of
// the peer's requests, such as a turn's end after the command that
// started it was answered: an Emacs 28 jsonrpc that read them all with
// that answer leaves them unread until we write again (Peer.Nudge).
func NudgeAfter(ctx context.Context, stop <-chan struct{}, nudge func(context.Context)) {
	nudgeWhileWaiting(ctx, stop, nudge, trailNudges)
}

// ACPCancelNotice is ACP's $/cancel_request {"requestId": id}.
func ACPCancelNotice(id any) (string, any) {
	return "$/cancel_request", map[string]any{"requestId": id}
}

// Notify sends a notification.
func (p Peer) Notify(ctx context.Context, method string, params any) error {
	raw, err := Raw(params)
	if err != nil {
		return err
	}
	return p.Conn.Notify(ctx, method, raw)
}

// Call sends a request and decodes its result into result (which may be
// nil). When ctx ends first, it sends $/cancelRequest for the call, as LSP
// peers expect (or CancelNotice's notification), and returns ctx's error.
func (p Peer) Call(ctx context.Context, method string, params, result any) error {
	raw, err := Raw(params)
	if err != nil {
		return err
	}
	if p.Nudge != nil {
		stop := make(chan struct{})
		nudged := make(chan struct{})
		go func() {
			defer close(nudged)
			nudgeWhileWaiting(ctx, stop, p.Nudge, 0)
		}()
		defer func() { close(stop); <-nudged }()
	}
	var out jsonrpc2.RawMessage
	id, err := p.Conn.Call(ctx, method, raw, &out)
	if err != nil {
		if ctx.Err() != nil && id.IsValid() {
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), defaultNotifyTimeout)
			method, params := "$/cancelRequest", any(map[string]any{"id": idValue(id)})
			if p.CancelNotice != nil {
				method, params = p.CancelNotice(idValue(id))
			}
			_ = p.Notify(cctx, method, params)
			cancel()
		}
		return err
	}
	if result == nil || len(out) == 0 {
		return nil
	}
	if err := unmarshal(out, result); err != nil {
		return fmt.Errorf("decoding result of %s: %w", method, err)
	}
	return nil
}

func idValue(id jsonrpc2.ID) any {
	if n, ok := id.Number(); ok {
		return n
	}
	s, _ := id.StringValue()
	return s
}

// ParseID decodes a JSON-RPC id as $/cancelRequest carries it.
func ParseID(raw json.RawMessage) (jsonrpc2.ID, bool) {
	var n int64
	if err := json.Unmarshal(raw, &n); err == nil {
		return jsonrpc2.NewNumberID(n), true
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return jsonrpc2.NewStringID(s), true
	}
	return jsonrpc2.ID{}, false
}
