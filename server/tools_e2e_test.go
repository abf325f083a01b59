package server_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/settings"
)

// TestToolSuiteEndToEnd drives Glob, Grep, Bash and MultiEdit through the
// fake editor and the fake model, read-only calls of one message in
// parallel.
func TestToolSuiteEndToEnd(t *testing.T) {
	files := map[string]string{
		"src/a.go":     "package src\n\nfunc Alpha() int { return 1 }\n",
		"src/b.go":     "package src\n\nfunc Beta() int { return Alpha() + 1 }\n",
		"notes.txt":    "Alpha is the first letter\n",
		".gitignore":   "build/\n",
		"build/gen.go": "package build // Alpha generated\n",
	}
	e := newEnv(t, files,
		fake.Turn{
			fake.ToolUse("toolu_glob", "Glob", `{"pattern":"**/*.go"}`),
			fake.ToolUse("toolu_grep", "Grep", `{"pattern":"Alpha\\(\\)","output_mode":"content","-n":true}`),
		},
		fake.Turn{fake.ToolUse("toolu_read", "Read", `{"file_path":"src/b.go"}`)},
		fake.Turn{fake.ToolUse("toolu_multi", "MultiEdit", `{"file_path":"src/b.go","edits":[{"old_string":"Beta","new_string":"Bravo"},{"old_string":"+ 1","new_string":"+ 2"}]}`)},
		fake.Turn{fake.ToolUse("toolu_bash", "Bash", `{"command":"touch made.txt && echo out; echo err >&2; exit 3","description":"test exit codes"}`)},
		fake.Turn{fake.Text("All done.")},
	)
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	stop, err := e.editor.Prompt(sid, "rename Beta")
	if err != nil || stop != schema.StopEndTurn {
		t.Fatalf("prompt = %q, %v", stop, err)
	}
	res := e.toolResults(1)
	if len(res) != 2 {
		t.Fatalf("got %d results for the parallel Glob+Grep, want 2 in the model's order", len(res))
	}
	if res[0]["tool_use_id"] != "toolu_glob" || res[1]["tool_use_id"] != "toolu_grep" {
		t.Errorf("results out of order: %v, %v", res[0]["tool_use_id"], res[1]["tool_use_id"])
	}
	glob := resultText(res[0])
	if !strings.Contains(glob, "src/a.go") || !strings.Contains(glob, "src/b.go") || strings.Contains(glob, "build/gen.go") {
		t.Errorf("Glob (gitignore respected) = %q", glob)
	}
	grep := resultText(res[1])
	if !strings.Contains(grep, "b.go:3:") || strings.Contains(grep, "notes.txt") {
		t.Errorf("Grep = %q", grep)
	}
	if r := e.toolResults(3); r[0]["is_error"] == true {
		t.Fatalf("MultiEdit failed: %s", resultText(r[0]))
	}
	buf, _ := e.editor.Buffer(e.path("src/b.go"))
	if want := "package src\n\nfunc Bravo() int { return Alpha() + 2 }\n"; buf.Text != want {
		t.Errorf("buffer after MultiEdit = %q, want %q", buf.Text, want)
	}
	bash := e.toolResults(4)
	if len(bash) != 1 {
		t.Fatalf("bash results = %v", bash)
	}
	out := resultText(bash[0])
	for _, want := range []string{"out", "err", "3"} {
		if !strings.Contains(out, want) {
			t.Errorf("Bash result %q lacks %q", out, want)
		}
	}
	// MultiEdit and Bash each asked; the read-only tools did not.
	var asked []string
	for _, p := range e.editor.Permissions() {
		asked = append(asked, p.ToolCall.ToolCallID)
	}
	if strings.Join(asked, ",") != "toolu_multi,toolu_bash" {
		t.Errorf("permission asked for %v, want MultiEdit and Bash only", asked)
	}
}

// denyTurns make the model look for a secret a Read(./.env) deny rule
// protects, through every search tool, then try Read.
func denyTurns() []fake.Turn {
	return []fake.Turn{
		{
			fake.ToolUse("toolu_grep", "Grep", `{"pattern":"SECRET|TOKEN","path":".","output_mode":"content"}`),
			fake.ToolUse("toolu_files", "Grep", `{"pattern":"TOKEN","glob":".env"}`),
			fake.ToolUse("toolu_glob", "Glob", `{"pattern":"**/.env*"}`),
			fake.ToolUse("toolu_ls", "LS", `{"path":"."}`),
			fake.ToolUse("toolu_read", "Read", `{"file_path":".env"}`),
			fake.ToolUse("toolu_link", "Read", `{"file_path":"envlink"}`),
		},
		{fake.Text("nothing found")},
	}
}

var denyFiles = map[string]string{
	".env":         "TOKEN=SECRET-VALUE\n",
	"app/.env":     "TOKEN=not denied, ./ anchors the rule at the root\n",
	"app/main.go":  "package main // reads TOKEN from the environment\n",
	".env.example": "TOKEN=\n",
}

// checkDenied fails when a result of denyTurns shows the denied file.
func checkDenied(t *testing.T, root string, results []string) {
	t.Helper()
	denied := root + "/.env"
	if len(results) != 6 {
		t.Fatalf("got %d results, want 6: %q", len(results), results)
	}
	for i, r := range results[:4] {
		if strings.Contains(r, "SECRET-VALUE") || strings.Contains(r, denied+"\n") || strings.Contains(r, denied+":") || strings.Contains(r, "\n  - .env\n") {
			t.Errorf("search %d shows the denied .env: %s", i, r)
		}
	}
	if !strings.Contains(results[0], "app/main.go") || !strings.Contains(results[0], "app/.env") {
		t.Errorf("Grep hid more than the rule denies: %s", results[0])
	}
	if !strings.Contains(results[3], ".env.example") {
		t.Errorf("LS hid more than the rule denies: %s", results[3])
	}
	for _, r := range results[4:] {
		if !strings.Contains(r, "denied") || strings.Contains(r, "SECRET-VALUE") {
			t.Errorf("Read of the denied file, or of a link to it: %s", r)
		}
	}
}

// linkToEnv adds envlink -> .env under root: a link to a denied file.
func linkToEnv(t *testing.T, root string) {
	t.Helper()
	if err := os.Symlink(filepath.Join(root, ".env"), filepath.Join(root, "envlink")); err != nil {
		t.Fatal(err)
	}
}

func denySettings(root string) *settings.Settings {
	st := &settings.Settings{Project: root, Home: root}
	st.Permissions.Deny = []settings.Rule{{Text: "Read(./.env)"}}
	return st
}

// TestReadDenyHidesFilesFromSearches: a Read(./.env) deny rule keeps the
// file from Grep, Glob and LS too, not only from Read, even while it is
// open in the editor.
func TestReadDenyHidesFilesFromSearches(t *testing.T) {
	var e *env
	e = newEnvWith(t, denyFiles, func(cfg *engine.Config) { cfg.Settings = denySettings(e.root) }, denyTurns()...)
	linkToEnv(t, e.root)
	e.editor.Initialize(e.root, nil)
	e.editor.Open(e.path(".env"), "TOKEN=SECRET-VALUE unsaved\n")
	sid := e.editor.NewSession(e.root)
	if _, err := e.editor.Prompt(sid, "find the token"); err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, r := range e.toolResults(1) {
		texts = append(texts, resultText(r))
	}
	checkDenied(t, e.root, texts)
}
