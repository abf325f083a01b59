package transport

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agent-lsp/agent-lsp/providers"
)

// errStalled is the cancel cause of a context whose watchdog fired.
var errStalled = errors.New("stream stalled")

// Watchdog cancels a streaming call that stops making progress: a
// connection that stays open but delivers nothing would otherwise hold a
// turn until the user cancels it. It cancels its context when Kick is not
// called for the idle duration.
type Watchdog struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	idle   time.Duration
	timer  *time.Timer // nil when idle <= 0
}

// NewWatchdog returns a context derived from parent that a watchdog cancels with
// errStalled after idle without a Kick. idle <= 0 disables the watchdog.
// Call Stop when the call ends.
func NewWatchdog(parent context.Context, idle time.Duration) (context.Context, *Watchdog) {
	ctx, cancel := context.WithCancelCause(parent)
	w := &Watchdog{ctx: ctx, cancel: cancel, idle: idle}
	if idle > 0 {
		w.timer = time.AfterFunc(idle, func() { cancel(errStalled) })
	}
	return ctx, w
}

// Kick records progress and restarts the idle timer.
func (w *Watchdog) Kick() {
	if w.timer != nil {
		w.timer.Reset(w.idle)
	}
}

// Fired reports whether the watchdog cancelled the context.
func (w *Watchdog) Fired() bool {
	return errors.Is(context.Cause(w.ctx), errStalled)
}

// Err is the retryable error of a call the watchdog cancelled.
func (w *Watchdog) Err() error {
	return &providers.Error{Type: "stream_stalled", Message: fmt.Sprintf("no data from the API for %v", w.idle), Retryable: true, Err: errStalled}
}

// Stop stops the timer and releases the context.
func (w *Watchdog) Stop() {
	if w.timer != nil {
		w.timer.Stop()
	}
	w.cancel(context.Canceled)
}
