package server

import (
	"context"
	"reflect"
	"runtime/debug"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/agent-lsp/agent-lsp/rpc"
)

// Dispatch. jsonrpc2 reads messages on one goroutine and runs a handler
// there unless the handler releases it: a handler that calls the editor
// and waits for the answer on that goroutine waits forever, since the
// answer is never read. So no handler runs there. handle only orders the
// message and hands it on:
//
//   - Notifications (document sync, cancellations, initialized, exit,
//     session/cancel) go to one queue, run one at a time in the order
//     received by the dispatcher's worker.
//   - Requests run concurrently, each on its own goroutine, but first
//     wait until every ordered message received before them has been
//     applied: a request never overtakes a didChange sent before it.
//   - The lifecycle requests (lifecycleMethods) are ordered too: a
//     message received after initialize sees the initialized state, and
//     one after shutdown sees the shutdown.
//
// Ordered messages form a chain: each carries the done channel of the
// ordered message before it, waits for it and closes its own when
// applied, so waiting for the last one is waiting for all of them.

// lifecycleMethods are the requests that later messages wait for, as they
// wait for notifications.
var lifecycleMethods = map[string]bool{"initialize": true, "shutdown": true}

// dispatcher orders one connection's messages.
type dispatcher struct {
	mu    sync.Mutex
	last  chan struct{}  // done channel of the latest ordered message, guarded by mu
	queue []notification // notifications not yet run, guarded by mu
	wake  chan struct{}  // signals the worker that queue has work (capacity 1)
}

// notification is a queued notification.
type notification struct {
	ctx   context.Context
	req   *jsonrpc2.Request // cloned: valid after the read loop moves on
	after <-chan struct{}
	done  chan struct{}
}

func newDispatcher() *dispatcher {
	closed := make(chan struct{})
	close(closed)
	return &dispatcher{last: closed, wake: make(chan struct{}, 1)}
}

// order returns the done channel of the latest ordered message, and makes
// a new ordered message the latest when ordered is set (its done channel
// is returned too; the caller closes it once the message is applied).
func (d *dispatcher) order(ordered bool) (after <-chan struct{}, done chan struct{}) {
	d.mu.Lock()
	defer d.mu.Unlock()
	after = d.last
	if ordered {
		done = make(chan struct{})
		d.last = done
	}
	return after, done
}

// enqueue queues a notification for the worker.
func (d *dispatcher) enqueue(ctx context.Context, req *jsonrpc2.Request) {
	after, done := d.order(true)
	d.mu.Lock()
	d.queue = append(d.queue, notification{ctx: ctx, req: req, after: after, done: done})
	d.mu.Unlock()
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// run runs queued notifications in order until stop is closed.
func (d *dispatcher) run(stop <-chan struct{}, serve func(context.Context, *jsonrpc2.Request)) {
	for {
		select {
		case <-d.wake:
		case <-stop:
			return
		}
		for {
			d.mu.Lock()
			if len(d.queue) == 0 {
				d.mu.Unlock()
				break
			}
			n := d.queue[0]
			d.queue[0] = notification{}
			d.queue = d.queue[1:]
			d.mu.Unlock()
			select {
			case <-n.after:
			case <-stop:
				return
			}
			serve(n.ctx, n.req)
			close(n.done)
		}
	}
}

// handle is the connection's handler. It runs on jsonrpc2's read loop,
// so it never runs a method itself: see the comment at the top.
func (c *core) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	if !req.IsCall() {
		c.dispatch.enqueue(jsonrpc2.DetachContext(ctx), req.Clone())
		return nil, nil
	}
	after, done := c.dispatch.order(lifecycleMethods[req.Method()])
	if done != nil {
		defer close(done)
	}
	// jsonrpc2 recycles the request context when the handler returns, so
	// the method gets a context of its own, cancelled by $/cancelRequest.
	// It is registered before the read loop moves on, so a cancellation
	// read next finds it.
	hctx, cancel := context.WithCancel(jsonrpc2.DetachContext(ctx))
	hctx, ticket := c.takePromptTicket(hctx, req)
	if ticket != nil {
		defer ticket.release() // if the method ends before the engine took the prompt in
	}
	id := req.ID()
	hctx = context.WithValue(hctx, requestIDKey{}, id)
	c.callsMu.Lock()
	c.calls[id] = cancel
	c.received++
	c.callsMu.Unlock()
	defer func() {
		c.callsMu.Lock()
		delete(c.calls, id)
		c.callsMu.Unlock()
		cancel()
	}()
	// Release the read loop: from here the request runs concurrently
	// with the messages that follow it.
	jsonrpc2.Async(ctx)
	if err := c.waitTurn(hctx, req.Method(), after); err != nil {
		return nil, err
	}
	return c.serve(hctx, req)
}

// waitTurn waits until the ordered messages before a request have been
// applied. A request whose turn has come runs even if it was cancelled
// meanwhile (the method sees its context's end).
func (c *core) waitTurn(ctx context.Context, method string, after <-chan struct{}) error {
	select {
	case <-after:
		return nil
	default:
	}
	select {
	case <-after:
		return nil
	case <-ctx.Done():
		return jsonrpc2.Errorf(codeRequestCancelled, "%s was cancelled", method)
	case <-c.closing:
		return jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%s: the connection is closing", method)
	}
}

// drain lets the requests in flight answer when the editor's input ends
// (it may still read the answers: a pipe, a script): they get up to
// bound (closeWait) for their answers to be written. What is still running then
// (a prompt) is cancelled when the sessions close, unanswered: the editor
// has quit. jsonrpc2 writes nothing once its reader
// has seen the end of the input, so watchInput holds that end back until
// drain returns.
func (c *core) drain(bound time.Duration) {
	deadline := time.Now().Add(bound)
	for time.Now().Before(deadline) {
		c.callsMu.Lock()
		done := c.answered >= c.received
		c.callsMu.Unlock()
		if done {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// answerCounter counts the responses written, for drain.
type answerCounter struct {
	jsonrpc2.Stream
	c *core
}

// countAnswers wraps the connection's stream so that drain knows when
// every request received has been answered.
func (c *core) countAnswers(stream jsonrpc2.Stream) jsonrpc2.Stream {
	return answerCounter{Stream: stream, c: c}
}

func (c answerCounter) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	n, err := c.Stream.Write(ctx, msg)
	if isResponse(msg) {
		var then func()
		c.c.callsMu.Lock()
		c.c.answered++
		if len(c.c.answerHooks) > 0 {
			if id, ok := responseID(msg); ok {
				then = c.c.answerHooks[id]
				delete(c.c.answerHooks, id)
			}
		}
		c.c.callsMu.Unlock()
		if then != nil {
			then()
		}
	}
	return n, err
}

// requestIDKey is the context key of the id of the request a method
// answers.
type requestIDKey struct{}

// afterAnswer runs f once the response to the request ctx belongs to has
// been written (at once when ctx belongs to no request). f runs on the
// writing goroutine: it must not block.
func (c *core) afterAnswer(ctx context.Context, f func()) {
	id, ok := ctx.Value(requestIDKey{}).(jsonrpc2.ID)
	if !ok {
		f()
		return
	}
	c.callsMu.Lock()
	if c.answerHooks == nil {
		c.answerHooks = make(map[jsonrpc2.ID]func())
	}
	c.answerHooks[id] = f
	c.callsMu.Unlock()
}

// responseID returns the id a response answers. jsonrpc2 writes its
// handlers' answers as its unexported responseWire: the id is read back
// from the encoding.
func responseID(msg jsonrpc2.Message) (jsonrpc2.ID, bool) {
	if r, ok := msg.(*jsonrpc2.Response); ok {
		return r.ID(), true
	}
	b, err := jsonrpc2.EncodeMessage(msg)
	if err != nil {
		return jsonrpc2.ID{}, false
	}
	m, err := jsonrpc2.DecodeMessage(b)
	if err != nil {
		return jsonrpc2.ID{}, false
	}
	r, ok := m.(*jsonrpc2.Response)
	if !ok {
		return jsonrpc2.ID{}, false
	}
	return r.ID(), true
}

// isResponse reports whether msg is a response. jsonrpc2 writes its
// handlers' answers as a value of its unexported responseWire type; should
// that change, drain waits out its bound instead of returning early.
func isResponse(msg jsonrpc2.Message) bool {
	if _, ok := msg.(*jsonrpc2.Response); ok {
		return true
	}
	t := reflect.TypeOf(msg)
	return t.PkgPath() == "go.lsp.dev/jsonrpc2" && t.Name() == "responseWire"
}

// serveNotification runs a queued notification. Its error is logged,
// never returned to jsonrpc2 (which would end the connection).
func (c *core) serveNotification(ctx context.Context, req *jsonrpc2.Request) {
	if _, err := c.serve(ctx, req); err != nil {
		c.logf("notification %s: %v", req.Method(), err)
	}
}

// serve runs a method, recovering from panics so one bad message never
// ends the connection.
func (c *core) serve(ctx context.Context, req *jsonrpc2.Request) (result any, err error) {
	method := req.Method()
	defer func() {
		if r := recover(); r != nil {
			c.logf("panic handling %s: %v\n%s", method, r, debug.Stack())
			result, err = nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "internal error handling %s: %v", method, r)
		}
	}()
	m, ok := c.methods[method]
	if !ok {
		if !req.IsCall() {
			return nil, nil // unknown notifications ($/setTrace, ...) are ignored
		}
		return nil, rpc.MethodNotFound(method)
	}
	if err := c.checkState(method); err != nil {
		return nil, err
	}
	result, err = m(ctx, req)
	if err != nil || !req.IsCall() {
		return result, err
	}
	raw, err := rpc.Raw(result)
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "encoding result of %s: %v", method, err)
	}
	return raw, nil
}

// codeRequestCancelled is LSP's RequestCancelled.
const codeRequestCancelled jsonrpc2.Code = -32800
