package tools

import (
	"context"
	"errors"
	"fmt"
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
	env := make(map[string]string, len(shellEnv))
	for _, kv := range shellEnv {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	p, err := t.env.Terminal.Start(ctx, TerminalCommand{Argv: argv, Dir: t.env.Cwd, Env: env, OutputLimit: BashOutputLimit})
	if err != nil {
		if ctx.Err() != nil {
			return Errorf("the command was cancelled before it started")
		}
		return Errorf("starting the command in the editor's terminal: %v", err)
	}
	display := []schema.ToolCallContent{schema.TerminalContent(p.ID())}
	reportProgress(ctx, display)

	// Stopping and freeing the terminal happen even when the turn was
	// cancelled; they are bounded instead.
	cleanup := func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(context.WithoutCancel(ctx), terminalCleanupTimeout)
	}
	defer func() {
		c, cancel := cleanup()
		defer cancel()
		_ = p.Release(c)
	}()

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
		c, cancel := cleanup()
		_ = p.Kill(c) // Release below kills it too, should this fail
		cancel()
		if !end.cancelled && !end.timedOut {
			return Errorf("the editor's terminal failed while the command ran (it was stopped): %v", werr)
		}
	}
	c, cancel := cleanup()
	end.output, end.truncated, err = p.Output(c)
	cancel()
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
	if end.cancelled || end.timedOut {
		// The terminal shows the output, not why the agent stopped it.
		res.Display = append(res.Display, schema.TextContent(end.note()))
	}
	return res
}
