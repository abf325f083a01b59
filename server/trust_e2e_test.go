package server_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/settings"
)

// TestTrustGrantAppliesToOpenSessions: two sessions are open in an
// untrusted folder; the first prompt asks once, and after "trust" the
// folder's hooks and rules apply to both sessions, the other one's first
// prompt included, without a second question.
func TestTrustGrantAppliesToOpenSessions(t *testing.T) {
	canary := t.TempDir()
	e := newEnv(t, map[string]string{
		".claude/settings.json": `{
  "permissions": {"allow": ["Bash(echo:*)"]},
  "hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo x >> ` + filepath.Join(canary, "prompts") + `"}]}]}
}`,
	},
		fake.Turn{fake.Text("one")},
		fake.Turn{fake.ToolUse("toolu_1", "Bash", `{"command":"echo hi"}`)},
		fake.Turn{fake.Text("two")},
	)
	load := func(trusted bool) *settings.Settings {
		st, problems := settings.Load(settings.Options{Project: e.root, Home: t.TempDir(), TrustProject: trusted})
		if len(problems) > 0 {
			t.Fatalf("settings problems: %v", problems)
		}
		return st
	}
	grants := 0
	e.configure(func(c *engine.Config) {
		c.Settings = load(false)
		base := *c
		c.Trust = &engine.Trust{Folder: e.root, Grant: func(context.Context) (engine.Config, error) {
			grants++
			next := base
			next.Settings = load(true)
			return next, nil
		}}
	})
	e.editor.OnPermission(func(p *schema.RequestPermissionParams) schema.RequestPermissionResult {
		id := "reject_once"
		if engine.IsTrustRequest(p) {
			id = "trust"
		}
		return schema.RequestPermissionResult{Outcome: schema.PermissionOutcome{Outcome: "selected", OptionID: id}}
	})
	e.editor.Initialize(e.root, nil)
	a := e.editor.NewSession(e.root)
	b := e.editor.NewSession(e.root)
	if _, err := os.Stat(filepath.Join(canary, "prompts")); err == nil {
		t.Fatal("a hook ran before trust")
	}
	if _, err := e.editor.Prompt(a, "first"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.editor.Prompt(b, "second"); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(canary, "prompts"))
	if got := strings.Count(string(data), "x"); got != 2 {
		t.Errorf("the UserPromptSubmit hook ran %d times, want once per prompt after trust", got)
	}
	var trusts, others int
	for _, p := range e.editor.Permissions() {
		if engine.IsTrustRequest(&p) {
			trusts++
		} else {
			others++
		}
	}
	if trusts != 1 || grants != 1 || others != 0 {
		t.Errorf("trust requests %d, grants %d, other requests %d; want 1, 1 and 0 (echo allowed by the trusted rule)", trusts, grants, others)
	}
	if r := e.toolResults(2); len(r) != 1 || r[0]["is_error"] == true {
		t.Errorf("echo under the trusted allow rule = %v", r)
	}
}
