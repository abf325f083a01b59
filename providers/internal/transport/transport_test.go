package transport

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/providers"
)

func TestWatchdog(t *testing.T) {
	ctx, wd := NewWatchdog(context.Background(), 100*time.Millisecond)
	defer wd.Stop()
	for range 5 {
		time.Sleep(40 * time.Millisecond)
		wd.Kick()
	}
	if ctx.Err() != nil {
		t.Fatal("fired while kicked")
	}
	<-ctx.Done()
	if !wd.Fired() || !retryable(wd.Err()) || !errors.Is(wd.Err(), errStalled) {
		t.Errorf("fired %v err %v", wd.Fired(), wd.Err())
	}
}

func TestWatchdogDisabledAndStopped(t *testing.T) {
	ctx, wd := NewWatchdog(context.Background(), 0)
	wd.Kick()
	wd.Stop()
	if ctx.Err() == nil || wd.Fired() {
		t.Errorf("after Stop: err %v fired %v", ctx.Err(), wd.Fired())
	}
}

func TestSleep(t *testing.T) {
	if err := Sleep(context.Background(), time.Millisecond); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	start := time.Now()
	if err := Sleep(ctx, time.Minute); !errors.Is(err, context.Canceled) || time.Since(start) > time.Second {
		t.Errorf("err %v after %v", err, time.Since(start))
	}
}

// retryable reports whether err is a *providers.Error marked retryable.
func retryable(err error) bool {
	var e *providers.Error
	return errors.As(err, &e) && e.Retryable
}
