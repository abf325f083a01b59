package tools

import (
	"context"

	"github.com/agent-lsp/agent-lsp/schema"
)

// Terminal runs commands where the user can watch them: the editor's own
// terminal (ACP's terminal/create and friends). When a session has one,
// Bash runs foreground commands in it; background shells stay local,
// since BashOutput and KillBash manage them.
type Terminal interface {
	// Start starts a command and returns it running.
	Start(ctx context.Context, cmd TerminalCommand) (TerminalProcess, error)
}

// TerminalCommand is a command to start in a Terminal.
type TerminalCommand struct {
	Argv        []string          // the program and its arguments
	Dir         string            // the working directory (absolute)
	Env         map[string]string // variables to set on top of the terminal's
	OutputLimit int               // bytes of output to keep (the last ones)
}

// TerminalProcess is a command running in a Terminal. Release must be
// called once it is no longer needed; the editor keeps showing its output.
type TerminalProcess interface {
	// ID is the terminal's id, for embedding it in a tool call.
	ID() string
	// Wait waits for the command to end and reports how it did.
	Wait(ctx context.Context) (TerminalExit, error)
	// Output returns the output so far and whether its start was cut.
	Output(ctx context.Context) (output string, truncated bool, err error)
	// Kill stops the command; the terminal stays until Release.
	Kill(ctx context.Context) error
	// Release kills the command if it still runs and frees the terminal.
	Release(ctx context.Context) error
}

// TerminalExit is how a terminal's command ended: an exit code, or the
// signal that stopped it.
type TerminalExit struct {
	Code   *int
	Signal string
}

// progressKey keys the progress reporter in a tool call's context.
type progressKey struct{}

// WithProgress returns ctx carrying report, which a running tool calls
// to show the editor what it is doing before it ends (Bash embeds its
// terminal that way).
func WithProgress(ctx context.Context, report func(display []schema.ToolCallContent)) context.Context {
	return context.WithValue(ctx, progressKey{}, report)
}

// reportProgress shows display in the running tool call, if the caller
// of the tool asked for progress.
func reportProgress(ctx context.Context, display []schema.ToolCallContent) {
	if report, ok := ctx.Value(progressKey{}).(func([]schema.ToolCallContent)); ok {
		report(display)
	}
}
