package server_test

import (
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/settings"
)

// TestHooksAndRulesFromSettings runs real hook scripts and permission
// rules from a project's .claude/settings.json.
func TestHooksAndRulesFromSettings(t *testing.T) {
	e := newEnvWith(t, map[string]string{
		"hooks/no-rm.sh":   "#!/bin/sh\ncat | grep -q 'rm -rf' && { echo 'rm -rf is not allowed here' >&2; exit 2; }\nexit 0\n",
		"hooks/context.sh": "#!/bin/sh\necho 'Project rule: answer in French.'\n",
		"hooks/stop.sh":    "#!/bin/sh\nif cat | grep -q '\"stop_hook_active\":true'; then exit 0; fi\necho '{\"decision\":\"block\",\"reason\":\"Run the tests before you stop.\"}'\n",
		".claude/settings.json": `{
  "permissions": {"allow": ["Bash(make test:*)"], "deny": ["Read(secrets/**)"]},
  "hooks": {
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "sh hooks/no-rm.sh"}]}],
    "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "sh hooks/context.sh"}]}],
    "Stop": [{"hooks": [{"type": "command", "command": "sh hooks/stop.sh"}]}]
  }
}`,
		"secrets/key.txt": "hunter2\n",
		"Makefile":        "test:\n\t@echo tests pass\n",
	}, nil,
		fake.Turn{fake.ToolUse("toolu_1", "Bash", `{"command":"rm -rf build"}`)},
		fake.Turn{fake.ToolUse("toolu_2", "Read", `{"file_path":"secrets/key.txt"}`)},
		fake.Turn{fake.Text("Fini.")},
		fake.Turn{fake.ToolUse("toolu_3", "Bash", `{"command":"make test"}`)},
		fake.Turn{fake.Text("Les tests passent.")},
	)
	// The settings live in the workspace newEnvWith created: load them
	// the way the sidecar does and restart the editor connection on them.
	st, problems := settings.Load(settings.Options{Project: e.root, Home: t.TempDir(), TrustProject: true})
	if len(problems) > 0 {
		t.Fatalf("settings problems: %v", problems)
	}
	e.configure(func(c *engine.Config) { c.Settings = st })
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	stop, err := e.editor.Prompt(sid, "clean up")
	if err != nil || stop != schema.StopEndTurn {
		t.Fatalf("prompt = %q, %v", stop, err)
	}
	first := e.requestText(0)
	if !strings.Contains(first, "Project rule: answer in French.") {
		t.Error("UserPromptSubmit context did not reach the model")
	}
	if r := e.toolResults(1); r[0]["is_error"] != true || !strings.Contains(resultText(r[0]), "rm -rf is not allowed here") {
		t.Errorf("PreToolUse exit 2 did not block: %v", r)
	}
	if r := e.toolResults(2); r[0]["is_error"] != true || strings.Contains(resultText(r[0]), "hunter2") {
		t.Errorf("deny rule did not hold: %v", r)
	}
	// The Stop hook sent the model back once.
	if !strings.Contains(e.requestText(3), "Run the tests before you stop.") {
		t.Error("the Stop hook's reason did not reach the model")
	}
	if r := e.toolResults(4); r[0]["is_error"] == true || !strings.Contains(resultText(r[0]), "tests pass") {
		t.Errorf("make test (allowed by rule) = %v", r)
	}
	for _, p := range e.editor.Permissions() {
		t.Errorf("asked for permission although rules and hooks decided everything: %s", p.ToolCall.Title)
	}
}
