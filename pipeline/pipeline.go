package pipeline

import (
	"context"
	"encoding/json"

	"github.com/agent-lsp/agent-lsp/permission"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/tools"
)

// Call is one tool call on its way through the middleware; each layer
// fills in what it decides for the layers inside it.
type Call struct {
	// ID is the model's tool use id; Name the tool's name as the model
	// gave it (it may be an alias); Tool the tool it names.
	ID   string
	Name string
	Tool tools.Tool
	// Input is what the tool runs with: the model's, or what a
	// PreToolUse hook put in its place.
	Input json.RawMessage

	// HookDecision is a PreToolUse hook's answer to the permission
	// question ("allow", "deny", "ask" or ""); Refusal is set when a
	// hook refused the call, to be reported once the editor has seen it.
	HookDecision string
	Refusal      *tools.Result
	// HookContext is what PreToolUse hooks added for the model; it
	// follows the call's result.
	HookContext string

	// Preview is what the tool says the call would do, if it can tell;
	// Display is the call as the editor sees it.
	Preview *tools.Preview
	Display *schema.ToolCall

	// Confine is how the call's command must be held, as its plan or
	// the user's answer said; its zero value is the read-only sandbox.
	Confine permission.Confinement
	// Edited is the text the user put in place of a single-file edit
	// when approving it, or nil.
	Edited *string
}

// Handler runs a call and returns its result for the model; a refusal
// is a result with IsError set, never nil.
type Handler func(ctx context.Context, c *Call) *tools.Result

// Middleware wraps a Handler: it may change the call before passing it
// on, answer it without calling next, or change the result.
type Middleware func(next Handler) Handler

// Chain wraps h in mw, the first outermost: Chain(h, a, b) runs a, then
// b, then h.
func Chain(h Handler, mw ...Middleware) Handler {
	for i := len(mw) - 1; i >= 0; i-- {
		h = mw[i](h)
	}
	return h
}
