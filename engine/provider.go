package engine

import (
	"context"

	"github.com/agent-lsp/agent-lsp/providers"
)

// Provider streams one model response. Implementations must be safe for
// concurrent use by many sessions.
//
// Stream sends the request, calls emit for every event in the order the
// model produced them, and returns the complete assistant message once the
// response ends. emit is called on the caller's goroutine sequence (never
// concurrently). When ctx is cancelled, Stream returns promptly with
// ctx.Err(). An error of type *Error describes an API failure.
type Provider interface {
	Stream(ctx context.Context, req *providers.Request, emit func(providers.Event)) (*providers.Response, error)
}
