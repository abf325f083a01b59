package server_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/settings"
)

// TestBuiltinCommands: /context, /export, /permissions and /hooks answer
// in the chat from the session's own state, go to no model, and change
// only what they say they change.
func TestBuiltinCommands(t *testing.T) {
	memory := strings.Repeat("Use tabs. ", 800) // about 2k tokens
	e := newEnvWith(t, map[string]string{"CLAUDE.md": memory}, func(cfg *engine.Config) {
		cfg.Settings = &settings.Settings{
			Permissions: settings.Permissions{Allow: []settings.Rule{{Text: "Bash(npm test:*)", Pos: settings.Position{File: "/etc/team/settings.json", Line: 3}}}},
			Hooks: map[string][]settings.HookMatcher{"PreToolUse": {{Matcher: "Bash", Hooks: []settings.Hook{{Type: "command", Command: "./guard.sh", If: "Bash(rm *)", Timeout: 5}}}},
				"Stop": {{Hooks: []settings.Hook{{Type: "http", URL: "http://127.0.0.1:9/stop"}}}}},
		}
	}, fake.Turn{fake.Text("Hello from the model.")})
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	say := func(prompt string) string {
		t.Helper()
		before := e.editor.Transcript(sid)
		if _, err := e.editor.Prompt(sid, prompt); err != nil {
			t.Fatalf("%s: %v", prompt, err)
		}
		return strings.TrimPrefix(e.editor.Transcript(sid), before)
	}
	say("hello there, agent")

	ctxOut := say("/context")
	for _, want := range []string{"| Memory files (CLAUDE.md, AGENTS.md) | 2", "| Messages (2) |", "| Built-in tools (", "| Free space |", "| Auto-compact buffer |"} {
		if !strings.Contains(ctxOut, want) {
			t.Errorf("/context lacks %q:\n%s", want, ctxOut)
		}
	}

	out := say("/export chat.txt")
	text, err := os.ReadFile(e.path("chat.txt"))
	if err != nil || !strings.Contains(out, "exported to "+e.path("chat.txt")) {
		t.Fatalf("/export chat.txt said %q; the file: %v", out, err)
	}
	if !strings.Contains(string(text), "> hello there, agent") || !strings.Contains(string(text), "⏺ Hello from the model.") {
		t.Errorf("the export holds:\n%s", text)
	}
	if out := say("/export chat.txt"); !strings.Contains(out, "already exists") {
		t.Errorf("a second /export chat.txt said %q", out)
	}
	say("/export")
	named, _ := filepath.Glob(e.path("*-hello-there-agent.txt"))
	if len(named) != 1 || !regexp.MustCompile(`/\d{4}-\d\d-\d\d-\d{6}-hello-there-agent\.txt$`).MatchString(named[0]) {
		t.Errorf("/export without a name wrote %v", named)
	}

	if out := say("/permissions"); !strings.Contains(out, "`Bash(npm test:*)` (/etc/team/settings.json:3)") || !strings.Contains(out, "Mode: default") {
		t.Errorf("/permissions lists:\n%s", out)
	}
	if out := say("/permissions deny Bash(rm *)"); !strings.Contains(out, "Added Bash(rm *) to the deny rules") {
		t.Errorf("/permissions deny said %q", out)
	}
	local := e.path(".claude/settings.local.json")
	if b, _ := os.ReadFile(local); !strings.Contains(string(b), `"Bash(rm *)"`) {
		t.Errorf("the local settings after /permissions deny: %s", b)
	}
	if out := say("/permissions allow Bash(npm run"); !strings.Contains(out, "Not saved") {
		t.Errorf("a broken rule: %q", out)
	}
	if out := say("/permissions remove Bash(npm test:*)"); !strings.Contains(out, "written in /etc/team/settings.json") {
		t.Errorf("removing a rule of another file: %q", out)
	}
	if out := say("/permissions remove Bash(rm *)"); !strings.Contains(out, "Removed Bash(rm *)") {
		t.Errorf("/permissions remove said %q", out)
	}
	if b, _ := os.ReadFile(local); strings.Contains(string(b), "rm *") {
		t.Errorf("the rule is still in the local settings: %s", b)
	}
	if out := say("/permissions grant x"); !strings.Contains(out, `Unknown /permissions action "grant"`) {
		t.Errorf("an unknown action: %q", out)
	}

	hooks := say("/hooks")
	for _, want := range []string{"PreToolUse:", "- Bash: `./guard.sh` if Bash(rm *) (timeout 5s)", "Stop:", "- every call: POST http://127.0.0.1:9/stop"} {
		if !strings.Contains(hooks, want) {
			t.Errorf("/hooks lacks %q:\n%s", want, hooks)
		}
	}
	if n := len(e.model.Requests()); n != 1 {
		t.Errorf("the commands went to the model: %d requests, want 1", n)
	}
}

// TestPermissionsRefusesALinkedClaudeFolder: /permissions does not write
// through a .claude folder that is a link (a repository chooses it).
func TestPermissionsRefusesALinkedClaudeFolder(t *testing.T) {
	e := newEnv(t, nil)
	outside := t.TempDir()
	if err := os.Symlink(outside, e.path(".claude")); err != nil {
		t.Fatal(err)
	}
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	if _, err := e.editor.Prompt(sid, "/permissions allow Bash(curl:*)"); err != nil {
		t.Fatal(err)
	}
	if tr := e.editor.Transcript(sid); !strings.Contains(tr, "is a link") {
		t.Errorf("the answer: %s", tr)
	}
	if _, err := os.Stat(filepath.Join(outside, "settings.local.json")); err == nil {
		t.Error("the rule was written through the link")
	}
}
