package server_test

import (
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/internal/langtest"
	"github.com/agent-lsp/agent-lsp/langserver"
	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/schema"
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
	if !strings.Contains(broke, "introduced new problems") || !strings.Contains(broke, "main.go:9:14: error: cannot use Greet(\"you\")") {
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
