package server_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/providers/fake"
)

// TestPlainLSPDoor drives the agent with standard LSP messages only, as
// Helix or eglot would: a code action on a diagnostic, the command it
// carries, an approval through window/showMessageRequest, progress, the
// edit through workspace/applyEdit and the transcript.
func TestPlainLSPDoor(t *testing.T) {
	e := newEnv(t, map[string]string{"calc.py": calc},
		fake.Turn{fake.Text("Looking."), fake.ToolUse("toolu_1", "Read", `{"file_path":"calc.py"}`)},
		fake.Turn{fake.ToolUse("toolu_2", "Edit", `{"file_path":"calc.py","old_string":"/ 2","new_string":"/ len(values)"}`)},
		fake.Turn{fake.Text("Fixed the division.")},
	)
	var asked []string
	e.editor.OnRequest(func(ctx context.Context, method string, params json.RawMessage) (any, error) {
		switch method {
		case "window/showMessageRequest":
			asked = append(asked, string(params))
			return map[string]string{"title": "Allow"}, nil
		case "window/workDoneProgress/create":
			return nil, nil
		case "window/showDocument":
			return map[string]bool{"success": true}, nil
		}
		return nil, jsonrpc2.ErrNotHandled
	})
	res := e.editor.InitializeWith(map[string]any{
		"rootUri": string(uri.File(e.root)),
		"capabilities": map[string]any{
			"workspace": map[string]any{"applyEdit": true, "workspaceEdit": map[string]any{"documentChanges": true}},
			"window":    map[string]any{"workDoneProgress": true, "showDocument": map[string]any{"support": true}},
		},
	})
	if !strings.Contains(string(res), `"executeCommandProvider":{"commands":["agent.prompt"`) || !strings.Contains(string(res), `"codeActionProvider"`) {
		t.Fatalf("initialize did not offer code actions and commands to a client without the agent extension: %s", res)
	}
	path := e.path("calc.py")
	e.editor.Open(path, calc)
	rng := map[string]any{"start": map[string]int{"line": 1, "character": 4}, "end": map[string]int{"line": 1, "character": 26}}
	var actions []struct {
		Title   string `json:"title"`
		Command struct {
			Command   string            `json:"command"`
			Arguments []json.RawMessage `json:"arguments"`
		} `json:"command"`
	}
	e.editor.MustCall("textDocument/codeAction", map[string]any{
		"textDocument": map[string]string{"uri": string(uri.File(path))},
		"range":        rng,
		"context":      map[string]any{"diagnostics": []map[string]any{{"range": rng, "message": "average divides by 2", "source": "lint"}}},
	}, &actions)
	if len(actions) != 5 || actions[0].Title != "Agent: fix this" {
		t.Fatalf("code actions = %+v, want fix this + explain/refactor/tests/ask", actions)
	}
	e.editor.MustCall("workspace/executeCommand", map[string]any{"command": actions[0].Command.Command, "arguments": actions[0].Command.Arguments}, nil)

	e.editor.WaitFor("progress end", func() bool {
		for _, n := range e.editor.Notifications() {
			if n.Method == "$/progress" && strings.Contains(string(n.Params), `"kind":"end"`) {
				return true
			}
		}
		return false
	})
	var progress []string
	for _, n := range e.editor.Notifications() {
		if n.Method == "$/progress" {
			progress = append(progress, string(n.Params))
		}
		if n.Method == "session/update" {
			t.Errorf("the plain door sent a non-standard notification: %s", n.Params)
		}
	}
	if !strings.Contains(strings.Join(progress, "\n"), "Editing calc.py") {
		t.Errorf("progress did not report the edit step:\n%s", strings.Join(progress, "\n"))
	}
	if len(asked) != 1 || !strings.Contains(asked[0], "Edit on calc.py") {
		t.Errorf("approvals asked = %v, want one for the edit", asked)
	}
	buf, _ := e.editor.Buffer(path)
	if !strings.Contains(buf.Text, "/ len(values)") {
		t.Errorf("buffer = %q, want the fix", buf.Text)
	}
	// The model got the file and the diagnostic.
	var first struct {
		Messages []json.RawMessage `json:"messages"`
	}
	e.model.Requests()[0].Decode(&first)
	if !strings.Contains(string(first.Messages[0]), "average divides by 2") {
		t.Errorf("first request lacks the diagnostic: %s", first.Messages[0])
	}
	// The transcript was shown at the end of the turn and holds the
	// exchange.
	e.editor.WaitFor("the end of the turn", func() bool {
		for _, m := range e.editor.Requests() {
			if m == "window/showDocument" {
				return true
			}
		}
		return false
	})
	var shown string
	for _, m := range e.editor.Requests() {
		if m == "window/showDocument" {
			shown = m
		}
	}
	if shown == "" {
		t.Error("the transcript was not shown with window/showDocument")
	}
	for _, edit := range e.editor.Edits() {
		if !strings.Contains(string(edit), `"label":"Agent: Edit`) {
			t.Errorf("applyEdit is not labelled: %s", edit)
		}
	}
	files, _ := filepath.Glob(filepath.Join(e.root, ".transcripts", "*.md"))
	if len(files) != 1 {
		t.Fatalf("transcripts = %v, want one", files)
	}
	md, _ := os.ReadFile(files[0])
	for _, want := range []string{"## You", "average divides by 2", "## Agent", "Looking.", "`Edit calc.py` — done", "Fixed the division."} {
		if !strings.Contains(string(md), want) {
			t.Errorf("transcript lacks %q:\n%s", want, md)
		}
	}
}
