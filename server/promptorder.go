package server

import (
	"context"
	"encoding/json"
	"sync"

	"go.lsp.dev/jsonrpc2"

	"github.com/agent-lsp/agent-lsp/engine"
)

// promptOrder hands each session its prompts in the order they arrived.
// Requests run concurrently (dispatch.go), so two prompts sent back to
// back would otherwise race to the session, and the second could start
// the turn that the first then steers. A prompt takes a ticket on the
// read loop; its method waits for the previous prompt of the same
// session to be taken in by the engine (engine.WithEntered) before
// handing its own over.
type promptOrder struct {
	mu   sync.Mutex
	last map[string]chan struct{} // per session id: the latest prompt's entered channel, guarded by mu
}

// promptTicket is one prompt's place in its session's order.
type promptTicket struct {
	o       *promptOrder
	session string
	after   <-chan struct{} // the previous prompt was taken in
	mine    chan struct{}   // closed once this prompt is taken in
	once    sync.Once
}

// take returns the ticket of a prompt for session that arrives now.
func (o *promptOrder) take(session string) *promptTicket {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.last == nil {
		o.last = make(map[string]chan struct{})
	}
	t := &promptTicket{o: o, session: session, mine: make(chan struct{})}
	if prev, ok := o.last[session]; ok {
		t.after = prev
	} else {
		closed := make(chan struct{})
		close(closed)
		t.after = closed
	}
	o.last[session] = t.mine
	return t
}

// release marks the prompt as taken in (or as gone): the next one may go.
func (t *promptTicket) release() {
	t.once.Do(func() {
		close(t.mine)
		t.o.mu.Lock()
		if t.o.last[t.session] == t.mine {
			delete(t.o.last, t.session)
		}
		t.o.mu.Unlock()
	})
}

// promptTicketKey keys a request's ticket in its context.
type promptTicketKey struct{}

// takePromptTicket gives a session/prompt request its ticket, on the read
// loop, in arrival order. It returns ctx unchanged for other requests.
func (c *core) takePromptTicket(ctx context.Context, req *jsonrpc2.Request) (context.Context, *promptTicket) {
	if req.Method() != "session/prompt" {
		return ctx, nil
	}
	var p struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(req.Params(), &p) // a bad request fails later, in its method
	t := c.prompts.take(p.SessionID)
	return context.WithValue(ctx, promptTicketKey{}, t), t
}

// awaitPromptTurn waits until the previous prompt of the same session has
// been taken in, and returns the context to give the engine, which
// releases this prompt's ticket once it is taken in.
func awaitPromptTurn(ctx context.Context) (context.Context, error) {
	t, ok := ctx.Value(promptTicketKey{}).(*promptTicket)
	if !ok {
		return ctx, nil
	}
	select {
	case <-t.after:
	case <-ctx.Done():
		return nil, jsonrpc2.Errorf(codeRequestCancelled, "session/prompt was cancelled")
	}
	return engine.WithEntered(ctx, t.release), nil
}
