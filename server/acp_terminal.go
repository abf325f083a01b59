package server

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/tools"
)

// acpTerminal is the client's terminal on the ACP door, for clients that
// offer the terminal capability: Bash's foreground commands run there
// (terminal/create, output, wait_for_exit, kill, release), so the user
// watches them in the editor.
type acpTerminal struct {
	c   *core
	ref *sessionRef
	// shows is set when the client renders the terminals it embeds in
	// tool calls (clientCapabilities._meta.terminal_output, as Zed
	// announces it); otherwise the output is repeated as text.
	shows bool
}

// ShowsOutput reports whether the client renders the terminal's output.
func (t *acpTerminal) ShowsOutput() bool { return t.shows }

var _ tools.Terminal = (*acpTerminal)(nil)

// Wire shapes of the terminal methods.
type (
	createTerminalParams struct {
		SessionID       string               `json:"sessionId"`
		Command         string               `json:"command"`
		Args            []string             `json:"args"`
		Env             []schema.EnvVariable `json:"env"`
		Cwd             string               `json:"cwd"`
		OutputByteLimit int                  `json:"outputByteLimit,omitempty"`
	}
	terminalParams struct {
		SessionID  string `json:"sessionId"`
		TerminalID string `json:"terminalId"`
	}
	terminalExitStatus struct {
		ExitCode *int    `json:"exitCode"`
		Signal   *string `json:"signal"`
	}
	terminalOutputResult struct {
		Output     string              `json:"output"`
		Truncated  bool                `json:"truncated"`
		ExitStatus *terminalExitStatus `json:"exitStatus"`
	}
)

// Start sends terminal/create.
func (t *acpTerminal) Start(ctx context.Context, cmd tools.TerminalCommand) (tools.TerminalProcess, error) {
	if len(cmd.Argv) == 0 {
		return nil, fmt.Errorf("no command to run")
	}
	p := createTerminalParams{
		SessionID: t.ref.get(), Command: cmd.Argv[0], Args: cmd.Argv[1:], Env: []schema.EnvVariable{},
		Cwd: cmd.Dir, OutputByteLimit: cmd.OutputLimit,
	}
	for _, k := range slices.Sorted(maps.Keys(cmd.Env)) {
		p.Env = append(p.Env, schema.EnvVariable{Name: k, Value: cmd.Env[k]})
	}
	var res struct {
		TerminalID string `json:"terminalId"`
	}
	if err := t.c.peer.Call(ctx, "terminal/create", p, &res); err != nil {
		return nil, err
	}
	if res.TerminalID == "" {
		return nil, fmt.Errorf("terminal/create: the client answered without a terminalId")
	}
	return &acpTerminalProcess{c: t.c, params: terminalParams{SessionID: p.SessionID, TerminalID: res.TerminalID}}, nil
}

// acpTerminalProcess is a command running in the client's terminal.
type acpTerminalProcess struct {
	c      *core
	params terminalParams
}

func (p *acpTerminalProcess) ID() string { return p.params.TerminalID }

// Wait sends terminal/wait_for_exit; when ctx ends first the request is
// cancelled ($/cancel_request) and the command keeps running until Kill.
func (p *acpTerminalProcess) Wait(ctx context.Context) (tools.TerminalExit, error) {
	var res terminalExitStatus
	if err := p.c.peer.Call(ctx, "terminal/wait_for_exit", p.params, &res); err != nil {
		return tools.TerminalExit{}, err
	}
	return res.exit(), nil
}

// Output sends terminal/output.
func (p *acpTerminalProcess) Output(ctx context.Context) (string, bool, error) {
	var res terminalOutputResult
	if err := p.c.peer.Call(ctx, "terminal/output", p.params, &res); err != nil {
		return "", false, err
	}
	return res.Output, res.Truncated, nil
}

// Kill sends terminal/kill.
func (p *acpTerminalProcess) Kill(ctx context.Context) error {
	return p.c.peer.Call(ctx, "terminal/kill", p.params, nil)
}

// Release sends terminal/release.
func (p *acpTerminalProcess) Release(ctx context.Context) error {
	return p.c.peer.Call(ctx, "terminal/release", p.params, nil)
}

func (e terminalExitStatus) exit() tools.TerminalExit {
	x := tools.TerminalExit{Code: e.ExitCode}
	if e.Signal != nil {
		x.Signal = *e.Signal
	}
	return x
}
