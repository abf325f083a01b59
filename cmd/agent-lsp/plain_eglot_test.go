package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/internal/proctest"
	"github.com/agent-lsp/agent-lsp/internal/testenv"
	"github.com/agent-lsp/agent-lsp/providers/fake"
)

// emacsWithEglot returns the Emacs that has eglot (Debian's emacs-nox and
// elpa-eglot, installed by scripts/install-test-deps.sh). Without it the
// test is skipped, unless AGENT_LSP_REQUIRE_EDITORS is set (as `make
// test` does), when it fails.
func emacsWithEglot(t *testing.T) string {
	t.Helper()
	emacs, err := exec.LookPath("emacs")
	if err == nil {
		err = exec.Command(emacs, "--batch", "--no-init-file", "--eval", "(require 'eglot)").Run()
	}
	if err != nil {
		testenv.Missing(t, "Emacs with eglot is not installed (%v): run scripts/install-test-deps.sh", err)
	}
	return emacs
}

// TestPlainDoorInEglot drives the plain-LSP door from real eglot in batch
// Emacs (testdata/eglot_door.el): a code action from eglot's menu, a
// free-form agent.prompt, an approval answered in the showMessageRequest
// (which must show the tool and the changed lines), the answer as the
// final showMessage, a prompt right after "agent: done", and an exit that
// does not wait.
func TestPlainDoorInEglot(t *testing.T) {
	emacs := emacsWithEglot(t)
	root, _ := filepath.EvalSymlinks(t.TempDir())
	os.Mkdir(filepath.Join(root, ".git"), 0o755) // a project for project.el
	file := filepath.Join(root, "calc.py")
	os.WriteFile(file, []byte("def average(values):\n    return sum(values) / 2\n"), 0o644)
	model := fake.NewAnthropic(t,
		fake.Turn{fake.Text("It averages the values.")},
		fake.Turn{fake.ToolUse("toolu_1", "Read", `{"file_path":"calc.py"}`)},
		fake.Turn{fake.ToolUse("toolu_2", "Edit", `{"file_path":"calc.py","old_string":"/ 2","new_string":"/ len(values)"}`)},
		fake.Turn{fake.Text("Fixed the division.")},
		fake.Turn{fake.Text("You are welcome.")},
	)
	result := filepath.Join(t.TempDir(), "result")
	script, _ := filepath.Abs("testdata/eglot_door.el")
	home := t.TempDir()
	cmd := exec.Command(emacs, "--batch", "--no-init-file", "-l", script)
	cmd.Dir = root
	cmd.Env = append(os.Environ(),
		"AGENT_LSP="+binary, "FILE="+file, "RESULT="+result, "HOME="+home,
		"ANTHROPIC_API_KEY=test", "ANTHROPIC_BASE_URL="+model.BaseURL(),
		"AGENT_LSP_HOME="+t.TempDir(), "AGENT_LSP_NO_USER_SETTINGS=1")
	proctest.Reaped(t)
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(120 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("Emacs did not finish; output:\n%s", out.String())
	}
	got, err := os.ReadFile(result)
	if err != nil || string(got) != "ok" {
		t.Fatalf("eglot: %s (%v)\noutput:\n%s", got, err, out.String())
	}
}
