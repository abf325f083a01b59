package server_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/internal/testenv"
	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/settings"
)

// TestBashRunsInTheSandbox enables the sandbox in settings and checks that
// the model's shell commands can write the workspace and nothing else.
func TestBashRunsInTheSandbox(t *testing.T) {
	testenv.NeedTool(t, "bwrap")
	// /tmp is writable inside the sandbox (as in Claude Code's): use a
	// directory elsewhere.
	outside, err := os.MkdirTemp("/var/tmp", "agent-lsp-sandbox-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(outside) })
	e := newEnv(t, map[string]string{".claude/settings.json": `{"sandbox": {"enabled": true}, "permissions": {"allow": ["Bash"]}}`},
		fake.Turn{fake.ToolUse("toolu_1", "Bash", `{"command":"echo inside > in.txt && cat in.txt"}`)},
		fake.Turn{fake.ToolUse("toolu_2", "Bash", `{"command":"echo escape > `+filepath.Join(outside, "out.txt")+`"}`)},
		fake.Turn{fake.Text("done")},
	)
	st, problems := settings.Load(settings.Options{Project: e.root, Home: t.TempDir(), TrustProject: true})
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	e.configure(func(c *engine.Config) { c.Settings = st })
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	if _, err := e.editor.Prompt(sid, "write files"); err != nil {
		t.Fatal(err)
	}
	if r := e.toolResults(1); !strings.Contains(resultText(r[0]), "inside") {
		t.Errorf("writing inside the workspace failed: %v", r)
	}
	if _, err := os.Stat(filepath.Join(outside, "out.txt")); err == nil {
		t.Error("a sandboxed command wrote outside the workspace")
	}
	if r := e.toolResults(2); !strings.Contains(strings.ToLower(resultText(r[0])), "read-only") {
		t.Errorf("the refused write was not reported to the model: %s", resultText(r[0]))
	}
}
