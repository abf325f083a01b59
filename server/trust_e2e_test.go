package server_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/langserver"
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

// TestTrustAskedForLanguageServers: an untrusted folder whose settings
// hold nothing back still asks at the first prompt when a language server
// would start for its files (they run the project's code), and names it;
// a folder with no file the servers serve is not asked about.
func TestTrustAskedForLanguageServers(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		ask   bool
	}{
		{"go files", map[string]string{"calc.go": "package calc\n", "node_modules/x/y.py": "", ".hidden/z.py": ""}, true},
		{"no file it serves", map[string]string{"calc.rb": "x = 1\n", "node_modules/x/y.go": "", ".hidden/z.go": ""}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.files, fake.Turn{fake.Text("one")}, fake.Turn{fake.Text("two")})
			grants := 0
			e.configure(func(c *engine.Config) {
				st, problems := settings.Load(settings.Options{Project: e.root, Home: t.TempDir()})
				if len(problems) > 0 || !st.ProjectRestricted || len(st.HeldBack) > 0 {
					t.Fatalf("settings: restricted %v, held %v, problems %v", st.ProjectRestricted, st.HeldBack, problems)
				}
				c.Settings = st
				c.LangServers = []langserver.ServerConfig{{Name: "go", Command: []string{"/nonexistent/bin/gopls"}, Filetypes: []string{"go"}}}
				c.Trust = &engine.Trust{Folder: e.root, Grant: func(context.Context) (engine.Config, error) {
					grants++
					return *c, nil
				}}
			})
			e.editor.OnPermission(func(p *schema.RequestPermissionParams) schema.RequestPermissionResult {
				return schema.RequestPermissionResult{Outcome: schema.PermissionOutcome{Outcome: "selected", OptionID: "not_now"}}
			})
			e.editor.Initialize(e.root, nil)
			sid := e.editor.NewSession(e.root)
			for _, prompt := range []string{"first", "second"} {
				if _, err := e.editor.Prompt(sid, prompt); err != nil {
					t.Fatal(err)
				}
			}
			var asked []schema.RequestPermissionParams
			for _, p := range e.editor.Permissions() {
				if engine.IsTrustRequest(&p) {
					asked = append(asked, p)
				}
			}
			if !tc.ask {
				if len(asked) != 0 {
					t.Fatalf("asked %d times about a folder with nothing held back: %q", len(asked), asked[0].ToolCall.Title)
				}
				return
			}
			if len(asked) != 1 || grants != 0 {
				t.Fatalf("trust questions %d, grants %d; want one question (not again after \"not now\") and no grant", len(asked), grants)
			}
			want := "Trust the folder " + e.root + "? A language server would run code from it: gopls"
			if got := asked[0].ToolCall.Title; got != want {
				t.Errorf("question = %q, want %q", got, want)
			}
			if len(asked[0].ToolCall.Locations) != 0 {
				t.Errorf("locations = %v, want none (no settings file is involved)", asked[0].ToolCall.Locations)
			}
			said, _ := json.Marshal(e.editor.Notifications())
			if !strings.Contains(string(said), "1 language server (gopls) for its files is off in this session") {
				t.Errorf("after \"not now\", no notice names the language server:\n%s", said)
			}
		})
	}
}
