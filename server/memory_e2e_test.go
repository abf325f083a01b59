package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/providers/fake"
)

// TestMemoryThroughTheEditor: through the LSP door, a project's CLAUDE.md
// with an import and a rule with paths reach the model as Claude Code's
// do (the rule with the result of the first Read of a matching file, a
// subfolder's CLAUDE.md too); /memory lists them with their scope and
// opens one with window/showDocument; /init sends Claude Code's prompt to
// write CLAUDE.md as a turn.
func TestMemoryThroughTheEditor(t *testing.T) {
	files := map[string]string{
		"CLAUDE.md":           "# Project\nPROJECT-MEMORY, see @docs/style.md\n",
		"docs/style.md":       "IMPORTED-STYLE",
		".claude/rules/ts.md": "---\npaths:\n  - \"src/**/*.ts\"\n---\nTS-RULE",
		"src/app.ts":          "let x = 1\n",
		"src/CLAUDE.md":       "SRC-MEMORY",
	}
	e := newEnvWith(t, files, func(c *engine.Config) { c.ManagedMemory = "-" },
		fake.Turn{fake.ToolUse("r1", "Read", fmt.Sprintf(`{"file_path":%q}`, "src/app.ts"))},
		fake.Turn{fake.Text("read it")},
		fake.Turn{fake.Text("CLAUDE.md written")},
	)
	var (
		mu    sync.Mutex
		shown []string
	)
	e.editor.OnRequest(func(ctx context.Context, method string, params json.RawMessage) (any, error) {
		if method != "window/showDocument" {
			return nil, jsonrpc2.ErrNotHandled
		}
		var p struct {
			URI string `json:"uri"`
		}
		json.Unmarshal(params, &p)
		mu.Lock()
		shown = append(shown, uri.URI(p.URI).Path())
		mu.Unlock()
		return map[string]bool{"success": true}, nil
	})
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	if _, err := e.editor.Prompt(sid, "look at src/app.ts"); err != nil {
		t.Fatal(err)
	}
	first, second := e.requestText(0), e.requestText(1)
	for _, want := range []string{"PROJECT-MEMORY", "IMPORTED-STYLE"} {
		if !strings.Contains(first, want) {
			t.Errorf("the first request lacks %s", want)
		}
	}
	if strings.Contains(first, "TS-RULE") || strings.Contains(first, "SRC-MEMORY") {
		t.Errorf("the first request holds the rule or the subfolder's memory before any file was read")
	}
	for _, want := range []string{"TS-RULE", "SRC-MEMORY", "system-reminder"} {
		if !strings.Contains(second, want) {
			t.Errorf("the request after the Read lacks %s", want)
		}
	}

	before := len(e.editor.Updates(sid))
	if _, err := e.editor.Prompt(sid, "/memory"); err != nil {
		t.Fatal(err)
	}
	list := agentText(e.editor.Updates(sid)[before:])
	for _, want := range []string{"[project] CLAUDE.md", "[project] docs/style.md", "imported by CLAUDE.md", "src/**/*.ts", "src/CLAUDE.md", "Auto memory is off"} {
		if !strings.Contains(list, want) {
			t.Errorf("/memory lacks %q:\n%s", want, list)
		}
	}
	before = len(e.editor.Updates(sid))
	if _, err := e.editor.Prompt(sid, "/memory 1"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if !slices.Contains(shown, e.path("CLAUDE.md")) {
		t.Errorf("/memory 1 showed %v, want %s", shown, e.path("CLAUDE.md"))
	}
	mu.Unlock()
	if got := agentText(e.editor.Updates(sid)[before:]); !strings.Contains(got, "Opened") {
		t.Errorf("/memory 1 said %q", got)
	}
	if n := len(e.model.Requests()); n != 2 {
		t.Errorf("/memory made model calls: %d requests, want 2", n)
	}

	if _, err := e.editor.Prompt(sid, "/init"); err != nil {
		t.Fatal(err)
	}
	if got := e.requestText(2); !strings.Contains(got, "Please analyze this codebase and create a CLAUDE.md file") {
		t.Errorf("/init did not send Claude Code's prompt: %s", got)
	}
}

// TestMemoryFilesArePickedUpWithoutRestart: a rules file and a file that
// CLAUDE.md imports, changed while the session runs, reach the next
// model call.
func TestMemoryFilesArePickedUpWithoutRestart(t *testing.T) {
	for _, file := range []string{".claude/rules/style.md", "docs/imported.md", ".claude/CLAUDE.md"} {
		t.Run(file, func(t *testing.T) {
			e := newEnvWith(t, map[string]string{"CLAUDE.md": "@docs/imported.md\n", file: "OLD-TEXT\n"},
				func(c *engine.Config) { c.ManagedMemory = "-" },
				fake.Turn{fake.Text("one")},
				fake.Turn{fake.Text("two")},
			)
			e.editor.Initialize(e.root, nil)
			sid := e.editor.NewSession(e.root)
			e.editor.Prompt(sid, "first")
			if !strings.Contains(e.requestText(0), "OLD-TEXT") {
				t.Fatalf("%s is not in the system prompt", file)
			}
			last := time.Time{}
			e.editor.WaitFor("the memory to be reloaded", func() bool {
				if time.Since(last) > 300*time.Millisecond {
					os.WriteFile(e.path(file), []byte("NEW-TEXT\n"), 0o644)
					last = time.Now()
				}
				for _, n := range e.editor.Notifications() {
					if n.Method == "agent/status" && strings.Contains(string(n.Params), "instructions reloaded") {
						return true
					}
				}
				return false
			})
			e.editor.Prompt(sid, "second")
			if got := e.requestText(1); !strings.Contains(got, "NEW-TEXT") || strings.Contains(got, "OLD-TEXT") {
				t.Errorf("the changed %s did not reach the next model call", file)
			}
		})
	}
}
