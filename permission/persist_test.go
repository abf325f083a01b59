package permission

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/settings"
)

// TestAllowAlwaysDoesNotWriteThroughLinks: a repository whose .claude (or
// .claude/settings.local.json) is a link out of the workspace does not get
// the user's "always allow" written there; the rule holds for the session
// and the error says why it was not saved.
func TestAllowAlwaysDoesNotWriteThroughLinks(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, project, outside string)
	}{
		{".claude links out", func(t *testing.T, project, outside string) {
			mustLink(t, outside, filepath.Join(project, ".claude"))
		}},
		{"settings.local.json links out", func(t *testing.T, project, outside string) {
			os.MkdirAll(filepath.Join(project, ".claude"), 0o755)
			mustLink(t, filepath.Join(outside, "settings.local.json"), filepath.Join(project, ".claude", "settings.local.json"))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			project, home := workspace(t)
			outside := filepath.Join(t.TempDir(), "claudedir")
			if err := os.MkdirAll(outside, 0o755); err != nil {
				t.Fatal(err)
			}
			tt.setup(t, project, outside)
			p := NewPolicy(project, &settings.Settings{Home: home}, Default)
			call := Call{Tool: "Bash", Command: "npm install lodash"}
			d := p.Decide(call)
			err := p.AllowAlways(call, d)
			if err == nil || !strings.Contains(err.Error(), "outside the project") {
				t.Errorf("AllowAlways = %v, want an error saying the rule was not saved", err)
			}
			if got := p.Decide(call); got.Verdict != Allow {
				t.Errorf("after allow always: %v, want the rule to hold for the session", got.Verdict)
			}
			if entries, _ := os.ReadDir(outside); len(entries) != 0 {
				t.Errorf("the rule was written outside the workspace: %v", entries)
			}
		})
	}
}

func mustLink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}
