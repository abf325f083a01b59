package server_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/internal/langtest"
	"github.com/agent-lsp/agent-lsp/langserver"
	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/settings"
)

const goMain = `package main

import "fmt"

// Greet says hello.
func Greet(name string) string { return "hello " + name }

func main() {
	fmt.Println(Greet("you"))
}
`

// withGopls makes the sessions of e use the real gopls.
func withGopls(t *testing.T) func(*engine.Config) {
	gopls := langtest.Require(t, "gopls")
	langtest.GoEnv(t)
	return func(c *engine.Config) {
		c.LangServers = []langserver.ServerConfig{{Name: "go", Command: []string{gopls}, Filetypes: []string{"go"}}}
		// gopls's first answer takes seconds on a loaded machine: wait
		// for it as long as the other language-server tests do, not the
		// default 1.5 s.
		if c.Settings == nil {
			c.Settings = &settings.Settings{}
		}
		c.Settings.LSP.DiagnosticsTimeoutMs = 30_000
	}
}

// TestEditDiagnosticsThroughTheLSPDoor: an Edit that introduces a type
// error gets the error in its result (and the editor sees it in the tool
// call), the scripted model fixes it with a second Edit without a build,
// and the Diagnostics and LSP tools answer from the unsaved buffer.
func TestEditDiagnosticsThroughTheLSPDoor(t *testing.T) {
	e := newEnvWith(t, map[string]string{"go.mod": "module example.com/m\n\ngo 1.21\n", "main.go": goMain}, withGopls(t),
		fake.Turn{fake.ToolUse("toolu_read", "Read", `{"file_path":"main.go"}`)},
		fake.Turn{fake.ToolUse("toolu_break", "Edit", `{"file_path":"main.go","old_string":"fmt.Println(Greet(\"you\"))","new_string":"var n int = Greet(\"you\")\n\tfmt.Println(n)"}`)},
		fake.Turn{fake.ToolUse("toolu_fix", "Edit", `{"file_path":"main.go","old_string":"var n int = Greet","new_string":"var n string = Greet"}`)},
		fake.Turn{
			fake.ToolUse("toolu_diag", "Diagnostics", `{"file_path":"main.go"}`),
			fake.ToolUse("toolu_hover", "LSP", `{"operation":"hover","filePath":"main.go","line":14,"character":6}`),
		},
		fake.Turn{fake.Text("Fixed.")},
	)
	e.editor.Initialize(e.root, nil)
	// The user has typed a function the disk does not have.
	e.editor.Open(e.path("main.go"), goMain+"\n// Unsaved is only in the buffer.\nfunc Unsaved() int { return 1 }\n")
	sid := e.editor.NewSession(e.root)
	stop, err := e.editor.Prompt(sid, "use an int")
	if err != nil || stop != schema.StopEndTurn {
		t.Fatalf("prompt = %q, %v", stop, err)
	}
	broke := resultText(e.toolResults(2)[0])
	if !reportsNewProblems(broke) || !strings.Contains(broke, "main.go:9:14: error: cannot use Greet(\"you\")") {
		t.Fatalf("the breaking Edit's result lacks the type error:\n%s", broke)
	}
	fixed := resultText(e.toolResults(3)[0])
	if strings.Contains(fixed, "problems") {
		t.Errorf("the fixing Edit reports problems:\n%s", fixed)
	}
	res := e.toolResults(4)
	if got := resultText(res[0]); !strings.Contains(got, "No problems") {
		t.Errorf("Diagnostics = %q", got)
	}
	if got := resultText(res[1]); !strings.Contains(got, "func Unsaved() int") || !strings.Contains(got, "only in the buffer") {
		t.Errorf("LSP hover on the unsaved function = %q", got)
	}
	// The editor saw the problems in the tool call's content.
	var shown bool
	for _, u := range e.editor.Updates(sid) {
		if u.ToolCall != nil && u.ToolCall.ToolCallID == "toolu_break" && u.ToolCall.Status == schema.StatusCompleted {
			for _, c := range u.ToolCall.Content {
				if c.Type == "content" && c.Content != nil && strings.Contains(c.Content.Text, "cannot use") {
					shown = true
				}
			}
		}
	}
	if !shown {
		t.Error("the editor was not shown the edit's new problems")
	}
	// The disk was never written: gopls read the buffer.
	if e.disk("main.go") != goMain {
		t.Error("the disk changed")
	}
}

// TestEditDiagnosticsThroughTheACPDoor: the same through ACP, the client
// serving the file from its unsaved buffer (fs/read_text_file).
func TestEditDiagnosticsThroughTheACPDoor(t *testing.T) {
	c := newACP(t, withGopls(t),
		fake.Turn{fake.ToolUse("toolu_read", "Read", `{"file_path":"main.go"}`)},
		fake.Turn{fake.ToolUse("toolu_break", "Edit", `{"file_path":"main.go","old_string":"fmt.Println(Greet(\"you\"))","new_string":"fmt.Println(Greet(42))"}`)},
		fake.Turn{fake.ToolUse("toolu_refs", "LSP", `{"operation":"findReferences","filePath":"main.go","line":6,"character":6}`)},
		fake.Turn{fake.Text("done")},
	)
	path := c.root + "/main.go"
	c.write(c.root+"/go.mod", "module example.com/m\n\ngo 1.21\n")
	c.write(path, goMain)
	c.buffers[path] = goMain + "\nfunc unsavedCaller() string { return Greet(\"buffer\") }\n"
	c.initialize(true)
	sid := c.newSession().SessionID
	if res := c.prompt(sid, "pass a number"); res.StopReason != schema.StopEndTurn {
		t.Fatalf("stop = %q", res.StopReason)
	}
	if m := lastMessage(t, c.model, 2); !reportsNewProblems(m) || !strings.Contains(m, "cannot use 42") {
		t.Errorf("the Edit's result lacks the type error: %s", m)
	}
	if m := lastMessage(t, c.model, 3); !strings.Contains(m, "main.go:12:") {
		t.Errorf("findReferences misses the caller in the unsaved buffer: %s", m)
	}
}

// TestEditDiagnosticsThroughThePlainDoor: "Agent: fix this" from a plain
// LSP client; the Edit's result carries the new error.
func TestEditDiagnosticsThroughThePlainDoor(t *testing.T) {
	e := newEnvWith(t, map[string]string{"go.mod": "module example.com/m\n\ngo 1.21\n", "main.go": goMain}, withGopls(t),
		fake.Turn{fake.ToolUse("toolu_read", "Read", `{"file_path":"main.go"}`)},
		fake.Turn{fake.ToolUse("toolu_break", "Edit", `{"file_path":"main.go","old_string":"return \"hello \" + name","new_string":"return len(name)"}`)},
		fake.Turn{fake.Text("done")},
	)
	e.editor.OnRequest(func(ctx context.Context, method string, params json.RawMessage) (any, error) {
		switch method {
		case "window/showMessageRequest":
			return map[string]string{"title": "Allow"}, nil
		case "window/workDoneProgress/create", "window/showDocument":
			return nil, nil
		}
		return nil, jsonrpc2.ErrNotHandled
	})
	e.editor.InitializeWith(map[string]any{
		"rootUri":      string(uri.File(e.root)),
		"capabilities": map[string]any{"workspace": map[string]any{"applyEdit": true, "workspaceEdit": map[string]any{"documentChanges": true}}},
	})
	path := e.path("main.go")
	e.editor.Open(path, goMain)
	rng := map[string]any{"start": map[string]int{"line": 5, "character": 0}, "end": map[string]int{"line": 5, "character": 10}}
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
		"context":      map[string]any{"diagnostics": []map[string]any{{"range": rng, "message": "Greet should count", "source": "review"}}},
	}, &actions)
	e.editor.MustCall("workspace/executeCommand", map[string]any{"command": actions[0].Command.Command, "arguments": actions[0].Command.Arguments}, nil)
	e.editor.WaitFor("the turn's end", func() bool { return len(e.model.Requests()) == 3 })
	if got := resultText(e.toolResults(2)[0]); !strings.Contains(got, "main.go:6:41: error: cannot use len(name)") {
		t.Errorf("the Edit's result lacks the type error:\n%s", got)
	}
}

// TestEditorDiagnostics: an editor that announces
// experimental.agent.diagnostics answers for its open documents through
// agent/diagnostics; no language server is started, and the edit's
// result carries what the editor reported for the new version.
func TestEditorDiagnostics(t *testing.T) {
	e := newEnvWith(t, map[string]string{"calc.py": calc}, func(c *engine.Config) {
		c.LangServers = []langserver.ServerConfig{} // none of our own
	},
		fake.Turn{fake.ToolUse("toolu_read", "Read", `{"file_path":"calc.py"}`)},
		fake.Turn{fake.ToolUse("toolu_break", "Edit", `{"file_path":"calc.py","old_string":"/ 2","new_string":"/ count"}`)},
		fake.Turn{fake.ToolUse("toolu_diag", "Diagnostics", `{"file_path":"calc.py"}`)},
		fake.Turn{fake.Text("done")},
	)
	var asked []string
	e.editor.OnRequest(func(ctx context.Context, method string, params json.RawMessage) (any, error) {
		if method != "agent/diagnostics" {
			return nil, jsonrpc2.ErrNotHandled
		}
		asked = append(asked, string(params))
		var p struct {
			URI string `json:"uri"`
		}
		json.Unmarshal(params, &p)
		buf, _ := e.editor.Buffer(uri.URI(p.URI).FsPath())
		out := []map[string]any{{"range": map[string]any{"start": map[string]int{"line": 0, "character": 4}, "end": map[string]int{"line": 0, "character": 11}}, "severity": 3, "message": "average could have a docstring", "source": "lint"}}
		if strings.Contains(buf.Text, "count") {
			out = append(out, map[string]any{"range": map[string]any{"start": map[string]int{"line": 1, "character": 28}, "end": map[string]int{"line": 1, "character": 33}}, "severity": 1, "message": `"count" is not defined`, "source": "Pyright", "code": "reportUndefinedVariable"})
		}
		return out, nil
	})
	e.editor.InitializeWith(map[string]any{
		"rootUri": string(uri.File(e.root)),
		"capabilities": map[string]any{
			"workspace":    map[string]any{"applyEdit": true, "workspaceEdit": map[string]any{"documentChanges": true}},
			"experimental": map[string]any{"agent": map[string]any{"diagnostics": map[string]any{}}},
		},
	})
	e.editor.Open(e.path("calc.py"), calc)
	sid := e.editor.NewSession(e.root)
	if stop, err := e.editor.Prompt(sid, "count"); err != nil || stop != schema.StopEndTurn {
		t.Fatalf("prompt = %q, %v", stop, err)
	}
	if got := resultText(e.toolResults(2)[0]); !strings.Contains(got, `calc.py:2:29: error: "count" is not defined [Pyright]`) || strings.Contains(got, "docstring") {
		t.Errorf("the Edit's result = %s", got)
	}
	if got := resultText(e.toolResults(3)[0]); !strings.Contains(got, "docstring") || !strings.Contains(got, "not defined") {
		t.Errorf("Diagnostics = %s", got)
	}
	// Before the edit: no version; after it: the buffer's new version.
	if len(asked) < 2 || strings.Contains(asked[0], "version") || !strings.Contains(asked[1], `"version":2`) {
		t.Errorf("agent/diagnostics params = %v", asked)
	}
}

// TestCheckOnStop: with lsp.checkOnStop, a turn that ends with a new error
// in a file the agent edited goes on once, the model being told; it ends
// when the error is fixed.
func TestCheckOnStop(t *testing.T) {
	gopls := withGopls(t)
	e := newEnvWith(t, map[string]string{"go.mod": "module example.com/m\n\ngo 1.21\n", "main.go": goMain}, func(c *engine.Config) {
		gopls(c)
		c.Settings = &settings.Settings{LSP: settings.LSP{CheckOnStop: true, DiagnosticsTimeoutMs: 30_000}}
	},
		fake.Turn{fake.ToolUse("toolu_read", "Read", `{"file_path":"main.go"}`)},
		fake.Turn{fake.ToolUse("toolu_break", "Edit", `{"file_path":"main.go","old_string":"return \"hello \" + name","new_string":"return len(name)"}`)},
		fake.Turn{fake.Text("Done.")},
		fake.Turn{fake.ToolUse("toolu_fix", "Edit", `{"file_path":"main.go","old_string":"return len(name)","new_string":"return \"hello \" + name"}`)},
		fake.Turn{fake.Text("Fixed.")},
	)
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	if stop, err := e.editor.Prompt(sid, "return the length"); err != nil || stop != schema.StopEndTurn {
		t.Fatalf("prompt = %q, %v", stop, err)
	}
	reqs := e.model.Requests()
	if len(reqs) != 5 {
		t.Fatalf("model calls = %d, want 5 (one more after the stop check)", len(reqs))
	}
	if m := lastMessage(t, e.model, 3); !strings.Contains(m, "Before you end your turn") || !strings.Contains(m, "cannot use len(name)") {
		t.Errorf("the stop check said: %s", m)
	}
}

// TestEditDiagnosticsPyright: a server from npm through the LSP door.
func TestEditDiagnosticsPyright(t *testing.T) {
	pyright := langtest.Require(t, "pyright-langserver")
	src := "def average(values: list[float]) -> float:\n    return sum(values) / len(values)\n"
	e := newEnvWith(t, map[string]string{"calc.py": src}, func(c *engine.Config) {
		c.LangServers = []langserver.ServerConfig{{Name: "python", Command: []string{pyright, "--stdio"}, Filetypes: []string{"py"}}}
		// pyright's first analysis takes seconds on a loaded machine.
		c.Settings = &settings.Settings{LSP: settings.LSP{DiagnosticsTimeoutMs: 30_000}}
	},
		fake.Turn{fake.ToolUse("toolu_read", "Read", `{"file_path":"calc.py"}`)},
		fake.Turn{fake.ToolUse("toolu_break", "Edit", `{"file_path":"calc.py","old_string":"len(values)","new_string":"len(values, 2)"}`)},
		fake.Turn{fake.Text("done")},
	)
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	if stop, err := e.editor.Prompt(sid, "divide"); err != nil || stop != schema.StopEndTurn {
		t.Fatalf("prompt = %q, %v", stop, err)
	}
	if got := resultText(e.toolResults(2)[0]); !reportsNewProblems(got) || !strings.Contains(got, "calc.py:2:") || !strings.Contains(got, "[Pyright]") {
		t.Errorf("the Edit's result lacks pyright's error:\n%s", got)
	}
}

// reportsNewProblems reports whether an edit's result lists the problems
// the edit brought. On a loaded machine the server may not have answered
// for the version before the edit, and the result then says so instead of
// comparing: both list the new error.
func reportsNewProblems(result string) bool {
	return strings.Contains(result, "introduced new problems") ||
		strings.Contains(result, "Problems in the file after this edit (the language server did not answer before it)")
}
