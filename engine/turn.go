package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/agent-lsp/agent-lsp/schema"
)

// errClosed is begin's answer once the session is closed.
var errClosed = errors.New("the session is closed")

// turnState is the running turn of a session: whether one runs and how
// to cancel it, the prompts that steer it (steer.go), a hook's request to
// stop it, and what a command or skill narrowed for it. Everything but
// the steering prompts' answers, and that a first turn ran, is forgotten
// when the turn ends. Its methods are safe for concurrent use.
type turnState struct {
	mu      sync.Mutex         // guards the fields below
	running bool               // a turn runs
	closed  bool               // the session is closed: no turn starts
	ctx     context.Context    // of the running turn, kept to tell whether it was cancelled
	cancel  context.CancelFunc // of the running turn
	queue   []*steered         // prompts sent while the turn runs, not yet given to the model
	taken   []*steered         // prompts the turn took, answered when it ends
	stop    string             // a hook asked to end the turn, with this reason
	// tools, when set, are the only tools the turn may call (a
	// command's or skill's allowed-tools, see restrictTools), and
	// toolsBy names who narrowed them; model is the model a command
	// chose for the turn.
	tools   map[string]bool
	toolsBy string
	model   string
	// started is set by the first turn, which runs the SessionStart
	// hooks; it is never forgotten.
	started bool

	wg sync.WaitGroup // the running turn, for close to wait on
}

// begin marks a turn as running and returns its context. While another
// turn runs, a prompt that can steer (steer not nil) is queued for it and
// errSteered returned; any other gets ErrBusy. A prompt queued after the
// running turn was cancelled is not cancelled with it: it runs next.
func (t *turnState) begin(ctx context.Context, steer *steered) (context.Context, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil, errClosed
	}
	if t.running {
		if steer == nil {
			return nil, ErrBusy
		}
		steer.afterCancel = t.ctx.Err() != nil
		t.queue = append(t.queue, steer)
		return nil, errSteered
	}
	ctx, cancel := context.WithCancel(ctx)
	t.running, t.ctx, t.cancel = true, ctx, cancel
	t.wg.Add(1)
	return ctx, nil
}

// end marks the running turn as done, with its outcome. Prompts it took
// end with it; those still queued run next, unless the turn was cancelled
// before they came.
func (t *turnState) end(stop string, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.cancel()
	for _, st := range t.taken {
		st.done <- steerOutcome{stop: stop, err: err}
	}
	for _, st := range t.queue {
		if stop == schema.StopCancelled && !st.afterCancel {
			st.done <- steerOutcome{stop: stop}
		} else {
			st.done <- steerOutcome{retry: true}
		}
	}
	t.taken, t.queue = nil, nil
	t.running, t.ctx, t.cancel = false, nil, nil
	t.stop, t.tools, t.toolsBy, t.model = "", nil, "", ""
	t.wg.Done()
}

// cancelRunning cancels the running turn, if any.
func (t *turnState) cancelRunning() {
	t.mu.Lock()
	cancel := t.cancel
	t.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// close refuses turns from now on and cancels the running one. It
// reports whether one was running.
func (t *turnState) close() (wasRunning bool) {
	t.mu.Lock()
	t.closed = true
	cancel := t.cancel
	t.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	return cancel != nil
}

// isClosed reports whether close ran.
func (t *turnState) isClosed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.closed
}

// wait returns when no turn runs.
func (t *turnState) wait() { t.wg.Wait() }

// hasQueued reports whether prompts wait to steer the running turn.
func (t *turnState) hasQueued() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.queue) > 0
}

// take hands the queued prompts to the running turn, which answers them
// when it ends. A cancelled turn takes none: they run after it.
func (t *turnState) take() []*steered {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ctx == nil || t.ctx.Err() != nil {
		return nil
	}
	queue := t.queue
	t.queue = nil
	t.taken = append(t.taken, queue...)
	return queue
}

// dequeue removes a prompt that gave up waiting from the queue.
func (t *turnState) dequeue(st *steered) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.queue = slices.DeleteFunc(t.queue, func(q *steered) bool { return q == st })
}

// requestStop records a request (a hook's, the user's answer to a plan)
// to end the turn after the current tool calls; reason is said to the
// user then.
func (t *turnState) requestStop(reason string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stop = reason
}

// takeStop returns and clears a request to end the turn.
func (t *turnState) takeStop() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.stop
	t.stop = ""
	return r
}

// restrict narrows the tools of the turn to set, named by source. A
// second restriction narrows further.
func (t *turnState) restrict(source string, set map[string]bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.tools != nil {
		for n := range set {
			if !t.tools[n] {
				delete(set, n)
			}
		}
		source = t.toolsBy + " and " + source
	}
	t.tools, t.toolsBy = set, source
}

// restricted returns why tool may not run in this turn, or "".
func (t *turnState) restricted(tool string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.tools == nil || t.tools[tool] {
		return ""
	}
	names := make([]string, 0, len(t.tools))
	for n := range t.tools {
		names = append(names, n)
	}
	slices.Sort(names)
	return fmt.Sprintf("%s allows only these tools in this turn: %s; %s is not one of them", t.toolsBy, strings.Join(names, ", "), tool)
}

// setModel makes the turn ask model.
func (t *turnState) setModel(model string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.model = model
}

// chosenModel returns the model a command chose for the turn, or "".
func (t *turnState) chosenModel() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.model
}

// markStarted records that the session's first turn started (and ran
// the SessionStart hooks); it reports whether one had already.
func (t *turnState) markStarted() (already bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	already, t.started = t.started, true
	return already
}

// unmarkStarted makes the next turn run the SessionStart hooks again
// (after /clear).
func (t *turnState) unmarkStarted() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.started = false
}
