package server

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agent-lsp/agent-lsp/diffs"
)

// textDocument/codeAction on the plain-LSP door: the agent's offers at
// the cursor, a selection or a diagnostic, each a command
// (plain_commands.go) with the prompt it sends.

// codeActionParams are the parts of protocol.CodeActionParams the door
// reads. It is a copy on purpose: the diagnostics in its context echo
// what other servers published, and protocol's decoder refuses the whole
// request over a field the door never reads (a null severity or code, an
// empty Lua table {} where a list of tags or related information goes).
type codeActionParams struct {
	TextDocument struct {
		URI string `json:"uri"`
	} `json:"textDocument"`
	Range   protocol.Range `json:"range"`
	Context struct {
		// TriggerKind is 1 when the user asked for code actions, 2 when
		// the editor asked on its own (cursor rest).
		TriggerKind int `json:"triggerKind"`
		Diagnostics []struct {
			Range    protocol.Range `json:"range"`
			Message  string         `json:"message"`
			Source   string         `json:"source"`
			Severity int            `json:"severity"`
		} `json:"diagnostics"`
	} `json:"context"`
}

// agentAction is a code action that runs one of the door's commands.
func agentAction(title string, kind protocol.CodeActionKind, cmd string, args ...any) protocol.CodeAction {
	a := protocol.CodeAction{Title: title, Kind: &kind, Command: protocol.Command{Title: title, Command: cmd}}
	for _, arg := range args {
		a.Command.Arguments = append(a.Command.Arguments, lspAny(arg))
	}
	return a
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
	actions := codeActions{}
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
		actions = append(actions, agentAction("Agent: fix this", protocol.CodeActionKindQuickFix, cmdPrompt, prompt, params.TextDocument.URI, d.Range))
	}
	if params.Range.Start != params.Range.End && params.Context.TriggerKind != triggerAutomatic {
		where := fmt.Sprintf("%s, lines %d-%d", rel, params.Range.Start.Line+1, params.Range.End.Line+1)
		for _, a := range []struct {
			title  string
			kind   protocol.CodeActionKind
			prompt string
		}{
			{"Agent: explain", protocol.CodeActionKindRefactor, "Explain the selected code in " + where + "."},
			{"Agent: refactor…", protocol.CodeActionKindRefactorRewrite, "Refactor the selected code in " + where + " to be clearer and simpler, without changing its behaviour."},
			{"Agent: write tests", protocol.CodeActionKindRefactor, "Write tests for the selected code in " + where + ", in the project's test style, and run them."},
		} {
			actions = append(actions, agentAction(a.title, a.kind, cmdPrompt, a.prompt, params.TextDocument.URI, params.Range))
		}
		// A free-form prompt for editors that run commands only from
		// code actions (Kate): the user types it anywhere, selects it
		// and asks.
		if text := strings.TrimSpace(p.selectedText(path, params.Range)); text != "" {
			prompt := text + "\n\n(This prompt was written in " + where + ".)"
			actions = append(actions, agentAction("Agent: ask the selected text", protocol.CodeActionKindRefactor, cmdPrompt, prompt))
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
func (p *plainDoor) controls() []protocol.CodeAction {
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
	return []protocol.CodeAction{agentAction(title, protocol.CodeActionKindQuickFix, cmd)}
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

// selectedText is the text of rng in the document at path, as the editor
// shows it (unsaved text included), or "" when it cannot be read.
func (p *plainDoor) selectedText(path string, rng protocol.Range) string {
	text, err := p.documentText(path)
	if err != nil {
		return ""
	}
	start := diffs.Offset(text, diffs.Position{Line: rng.Start.Line, Character: rng.Start.Character})
	end := diffs.Offset(text, diffs.Position{Line: rng.End.Line, Character: rng.End.Character})
	if end <= start {
		return ""
	}
	return text[start:end]
}
