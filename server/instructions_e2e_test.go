package server_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/providers/fake"
)

// TestInstructionFilesThatLeadElsewhere: a repository's CLAUDE.md,
// CLAUDE.local.md or AGENTS.md that is a link to a secret (a file outside
// the workspace, the process's environment, a Read-denied file) does not
// go into the system prompt; a link to a file inside the workspace does.
func TestInstructionFilesThatLeadElsewhere(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("SECRET-OUTSIDE\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		file   string // the instruction file, a link
		target string // where it leads; relative to the workspace unless absolute
		denied bool   // a Read(./.env) deny rule applies
		want   string // in the system prompt, or "" for nothing of the target
		not    string
	}{
		{"outside file", "CLAUDE.md", outside, false, "", "SECRET-OUTSIDE"},
		{"process environment", "CLAUDE.local.md", "/proc/self/environ", false, "", "PATH="},
		{"read-denied file", "AGENTS.md", ".env", true, "", "TOKEN=SECRET-ENV"},
		{"file inside", "AGENTS.md", "docs/agents.md", false, "Use tabs, not spaces.", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{".env": "TOKEN=SECRET-ENV\n", "docs/agents.md": "Use tabs, not spaces.\n"}
			var e *env
			e = newEnvWith(t, files, func(cfg *engine.Config) {
				if tt.denied {
					cfg.Settings = denySettings(e.root)
				}
			}, fake.Turn{fake.Text("ok")})
			target := tt.target
			if !filepath.IsAbs(target) {
				target = e.path(target)
			}
			if err := os.Symlink(target, e.path(tt.file)); err != nil {
				t.Fatal(err)
			}
			e.editor.Initialize(e.root, nil)
			sid := e.editor.NewSession(e.root)
			if _, err := e.editor.Prompt(sid, "hello"); err != nil {
				t.Fatal(err)
			}
			body := e.requestText(0)
			if tt.want != "" && !strings.Contains(body, tt.want) {
				t.Errorf("the system prompt lacks %q from %s", tt.want, tt.file)
			}
			if tt.not != "" && strings.Contains(body, tt.not) {
				t.Errorf("the system prompt holds %q through %s -> %s", tt.not, tt.file, tt.target)
			}
		})
	}
}
