package server

import (
	"context"
	"io"
	"slices"
)

// PlainAgent is the plain-LSP door as a program embeds it beside another
// language server (wrap mode, package wrap): it serves the agent to an
// in-process connection, and says which commands are the agent's and how
// to tell it that the client answers agent/diagnostics.
type PlainAgent struct {
	opts Options
}

// NewPlainAgent returns the plain door configured by opts.
func NewPlainAgent(opts Options) *PlainAgent { return &PlainAgent{opts: opts} }

// Serve serves one connection (LSP framing) on rwc as Serve does, until
// the client exits or the stream ends, and returns the exit code.
func (a *PlainAgent) Serve(ctx context.Context, rwc io.ReadWriteCloser) int {
	return Serve(ctx, rwc, a.opts)
}

// Commands returns the workspace/executeCommand commands the door serves
// in every session (prompt, cancel, new session); a session announces
// the others (its custom commands) in initialize's result.
func (a *PlainAgent) Commands() []string { return slices.Clone(plainCommands) }

// DiagnosticsCapability is the key, under a plain client's
// capabilities.experimental, that says the client answers
// agent/diagnostics without speaking the session methods: wrap mode
// tells its agent so, and answers with the wrapped server's diagnostics.
const DiagnosticsCapability = plainDiagnosticsCapability

// plainDiagnosticsCapability is DiagnosticsCapability.
const plainDiagnosticsCapability = "agentDiagnostics"
