package tools

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/agent-lsp/agent-lsp/schema"
)

// terminalCleanupTimeout bounds each request that stops or frees a
// terminal after its command ended, was cancelled or timed out: an editor
// that does not answer must not hold the turn.
const terminalCleanupTimeout = 10 * time.Second

// runInTerminal runs a foreground command in the editor's terminal: the
// tool call embeds the terminal while it runs, the timeout and
// cancellation kill it there, and the model gets the same result text as
// for a local command.
func (t *bashTool) runInTerminal(ctx context.Context, in bashInput, argv []string, timeout time.Duration) *Result {
	p, err := t.env.Terminal.Start(ctx, TerminalCommand{Argv: argv, Dir: t.env.Cwd, Env: maps.Clone(shellEnv), OutputLimit: BashOutputLimit})
	if err != nil {
		if ctx.Err() != nil {
			return Errorf("the command was cancelled before it started")
		}
		return Errorf("starting the command in the editor's terminal: %v", err)
	}
	display := []schema.ToolCallContent{schema.TerminalContent(p.ID())}
	reportProgress(ctx, display)

	defer detached(ctx, p.Release)

	waitCtx, cancelWait := context.WithTimeout(ctx, timeout)
	defer cancelWait()
	exit, werr := p.Wait(waitCtx)
	end := bashEnd{timeout: timeout}
	if werr != nil {
		switch {
		case ctx.Err() != nil:
			end.cancelled = true
		case errors.Is(waitCtx.Err(), context.DeadlineExceeded):
			end.timedOut = true
		}
		_ = detached(ctx, p.Kill) // Release kills it too, should this fail
		if !end.cancelled && !end.timedOut {
			return Errorf("the editor's terminal failed while the command ran (it was stopped): %v", werr)
		}
	}
	err = detached(ctx, func(c context.Context) (err error) {
		end.output, end.truncated, err = p.Output(c)
		return err
	})
	if err != nil {
		end.output = fmt.Sprintf("(its output could not be read from the editor's terminal: %v)", err)
	}
	switch {
	case exit.Code != nil:
		end.code = *exit.Code
	case exit.Signal != "":
		end.code, end.state = -1, "terminated by signal "+exit.Signal
	}
	res := bashResult(in, end)
	res.Display = display
	if !showsOutput(t.env.Terminal) && strings.TrimSpace(end.output) != "" {
		// Clients that do not render terminals show only its id: give
		// them the output as text too.
		res.Display = append(res.Display, schema.TextContent(schema.ConsoleBlock(in.Command, Truncate(end.output, terminalTextBudget))))
	}
	if end.cancelled || end.timedOut {
		// The terminal shows the output, not why the agent stopped it.
		res.Display = append(res.Display, schema.TextContent(end.note()))
	}
	return res
}

// terminalTextBudget bounds the output repeated as text in the tool call.
const terminalTextBudget = 20_000

// outputShower is a Terminal whose client says whether it renders the
// output of a terminal it embeds in a tool call (Zed does: it announces
// clientCapabilities._meta.terminal_output).
type outputShower interface{ ShowsOutput() bool }

func showsOutput(t Terminal) bool {
	s, ok := t.(outputShower)
	return ok && s.ShowsOutput()
}

// detached runs a request that stops, reads or frees a terminal: it runs
// even when the turn was cancelled, bounded by terminalCleanupTimeout.
func detached(ctx context.Context, request func(context.Context) error) error {
	c, cancel := context.WithTimeout(context.WithoutCancel(ctx), terminalCleanupTimeout)
	defer cancel()
	return request(c)
}
