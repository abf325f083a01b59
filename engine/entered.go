package engine

import (
	"context"
	"sync"
)

// enteredKey keys the callback of WithEntered.
type enteredKey struct{}

// WithEntered returns a context whose Prompt calls f, once, as soon as
// the session has taken the prompt in: started its turn with it, queued
// it to steer the running turn, or refused it. Requests run
// concurrently, so a door uses it to hand a session its prompts in the
// order they arrived: the next prompt waits for the previous one's f.
func WithEntered(ctx context.Context, f func()) context.Context {
	return context.WithValue(ctx, enteredKey{}, sync.OnceFunc(f))
}

// entered calls ctx's WithEntered callback, if any.
func entered(ctx context.Context) {
	if f, ok := ctx.Value(enteredKey{}).(func()); ok {
		f()
	}
}
