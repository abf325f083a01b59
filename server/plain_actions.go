package server

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"go.lsp.dev/jsonrpc2"
)

// textDocument/codeAction on the plain-LSP door: the agent's offers at
// the cursor, a selection or a diagnostic, each a command
// (plain_commands.go) with the prompt it sends.

type codeActionParams struct {
	TextDocument struct {
		URI string `json:"uri"`
	} `json:"textDocument"`
	Range   lspRange `json:"range"`
	Context struct {
		// TriggerKind is 1 when the user asked for code actions, 2 when
		// the editor asked on its own (cursor rest).
		TriggerKind int `json:"triggerKind"`
		Diagnostics []struct {
			Range    lspRange `json:"range"`
			Message  string   `json:"message"`
			Source   string   `json:"source"`
			Severity int      `json:"severity"`
		} `json:"diagnostics"`
	} `json:"context"`
}

type command struct {
	Title     string `json:"title"`
	Command   string `json:"command"`
	Arguments []any  `json:"arguments,omitempty"`
}

type codeAction struct {
	Title       string   `json:"title"`
	Kind        string   `json:"kind"`
	Command     *command `json:"command,omitempty"`
	IsPreferred bool     `json:"isPreferred,omitempty"`
}

func (p *plainDoor) codeAction(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var params codeActionParams
	if err := decode(req, &params); err != nil {
		return nil, err
	}
	path, err := documentPath(req.Method(), params.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	actions := []codeAction{}
	if params.Context.TriggerKind == triggerAutomatic && len(params.Context.Diagnostics) == 0 {
		// Editors ask on every cursor rest: without a problem to fix,
		// offering the agent there would put a lightbulb on every line.
		// An automatic request with diagnostics gets their fixes only.
		return actions, nil
	}
	rel := relative(p.lsp.workspaceRoots(), path)
	for _, d := range params.Context.Diagnostics {
		prompt := fmt.Sprintf("Fix this problem in %s at line %d: %s", rel, d.Range.Start.Line+1, d.Message)
		if d.Source != "" {
			prompt += " (reported by " + d.Source + ")"
		}
		actions = append(actions, codeAction{
			Title:       "Agent: fix this",
			Kind:        "quickfix",
			IsPreferred: false,
			Command:     &command{Title: "Agent: fix this", Command: cmdPrompt, Arguments: []any{prompt, params.TextDocument.URI, d.Range}},
		})
	}
	if params.Range.Start != params.Range.End && params.Context.TriggerKind != triggerAutomatic {
		where := fmt.Sprintf("%s, lines %d-%d", rel, params.Range.Start.Line+1, params.Range.End.Line+1)
		for _, a := range []struct{ title, kind, prompt string }{
			{"Agent: explain", "refactor", "Explain the selected code in " + where + "."},
			{"Agent: refactor…", "refactor.rewrite", "Refactor the selected code in " + where + " to be clearer and simpler, without changing its behaviour."},
			{"Agent: write tests", "refactor", "Write tests for the selected code in " + where + ", in the project's test style, and run them."},
		} {
			actions = append(actions, codeAction{Title: a.title, Kind: a.kind, Command: &command{Title: a.title, Command: cmdPrompt, Arguments: []any{a.prompt, params.TextDocument.URI, params.Range}}})
		}
	}
	if params.Context.TriggerKind == triggerAutomatic {
		return actions, nil
	}
	return append(actions, p.controls()...), nil
}

// triggerAutomatic is CodeActionTriggerKind.Automatic.
const triggerAutomatic = 2

// controls are the actions that control the agent itself: cancel
// the running turn, or start a new session once there is one.
func (p *plainDoor) controls() []codeAction {
	p.mu.Lock()
	running, started := p.running, p.sess != nil
	p.mu.Unlock()
	var title, cmd string
	switch {
	case running:
		title, cmd = "Agent: cancel", cmdCancel
	case started:
		title, cmd = "Agent: new session", cmdNewSession
	default:
		return nil
	}
	return []codeAction{{Title: title, Kind: "quickfix", Command: &command{Title: title, Command: cmd}}}
}

// relative returns path relative to the first of roots that holds it.
func relative(roots []string, path string) string {
	for _, r := range roots {
		if rel, err := filepath.Rel(r, path); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
	}
	return path
}
