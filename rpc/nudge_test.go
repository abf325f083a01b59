package rpc

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// strandingEditor behaves like Emacs 28's jsonrpc when our request came in
// the same read as the answer to one of its synchronous requests: it
// reads the request only once we write something else.
type strandingEditor struct {
	once     sync.Once
	released chan struct{} // closed by the first notification
}

func (e *strandingEditor) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	if !req.IsCall() {
		e.once.Do(func() { close(e.released) })
		return nil, nil
	}
	jsonrpc2.Async(ctx)
	<-e.released
	return map[string]string{"title": "Allow"}, nil
}

// TestNudgeReadsAStrandedRequest: a call to an editor that reads our
// request only when we write again is answered once Nudge writes.
func TestNudgeReadsAStrandedRequest(t *testing.T) {
	a, b := net.Pipe()
	ed := &strandingEditor{released: make(chan struct{})}
	edConn := jsonrpc2.NewConn(NewHeaderStream(b, t.Logf))
	edConn.Go(context.Background(), ed.handle)
	ours := jsonrpc2.NewConn(NewHeaderStream(a, t.Logf))
	ours.Go(context.Background(), func(ctx context.Context, req *jsonrpc2.Request) (any, error) { return nil, nil })
	t.Cleanup(func() {
		a.Close()
		b.Close()
		ours.Close()
		edConn.Close()
	})

	var nudges sync.WaitGroup
	nudges.Add(1)
	var once sync.Once
	peer := Peer{Conn: ours, Nudge: func(ctx context.Context) {
		if err := ours.Notify(ctx, "window/logMessage", map[string]any{"type": 4, "message": "waiting"}); err != nil {
			t.Errorf("nudge: %v", err)
		}
		once.Do(nudges.Done)
	}}
	// The test's own bound: without the nudge the call never returns.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var res struct {
		Title string `json:"title"`
	}
	if err := peer.Call(ctx, "window/showMessageRequest", map[string]any{"type": 2, "message": "Allow?"}, &res); err != nil {
		t.Fatalf("call: %v", err)
	}
	nudges.Wait()
	if res.Title != "Allow" {
		t.Errorf("answer = %q, want Allow", res.Title)
	}
}
