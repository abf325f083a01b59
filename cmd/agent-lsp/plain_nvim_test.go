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

// nvimPath returns the Neovim 0.10 that scripts/install-nvim.sh installs.
// Without it the test is skipped, unless AGENT_LSP_REQUIRE_EDITORS is set
// (as `make test` does), when it fails.
func nvimPath(t *testing.T) string {
	t.Helper()
	return testenv.NeedFile(t, filepath.Join(testenv.CacheDir(), "bin", "nvim"), "Neovim 0.10", "run scripts/install-nvim.sh")
}

// TestPlainDoorInVanillaNeovim runs the plain-LSP door in a real headless
// Neovim with no plugin: only its built-in LSP client.
func TestPlainDoorInVanillaNeovim(t *testing.T) {
	nvim := nvimPath(t)
	root, _ := filepath.EvalSymlinks(t.TempDir())
	file := filepath.Join(root, "calc.py")
	os.WriteFile(file, []byte("def average(values):\n    return sum(values) / 2\n"), 0o644)
	model := fake.NewAnthropic(t,
		fake.Turn{fake.ToolUse("toolu_1", "Read", `{"file_path":"calc.py"}`)},
		fake.Turn{fake.ToolUse("toolu_2", "Edit", `{"file_path":"calc.py","old_string":"/ 2","new_string":"/ len(values)"}`)},
		fake.Turn{fake.Text("Fixed.")},
	)
	result := filepath.Join(t.TempDir(), "result")
	script, _ := filepath.Abs("testdata/plain_door.lua")
	cmd := exec.Command(nvim, "--headless", "--clean", "-n", "-i", "NONE", "-c", "luafile "+script)
	cmd.Dir = root
	cmd.Env = append(os.Environ(),
		"AGENT_LSP="+binary, "ROOT="+root, "FILE="+file, "RESULT="+result,
		"ANTHROPIC_API_KEY=test", "ANTHROPIC_BASE_URL="+model.BaseURL(),
		"AGENT_LSP_HOME="+t.TempDir(), "AGENT_LSP_NO_USER_SETTINGS=1",
		"XDG_STATE_HOME="+t.TempDir(), "XDG_DATA_HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir())
	// Registered after the temporary directories, so it runs before they
	// are removed: Neovim may quit while the sidecar it started still
	// saves its session there.
	proctest.Reaped(t)
	done := make(chan error, 1)
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(90 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("Neovim did not finish; output:\n%s", out.String())
	}
	got, err := os.ReadFile(result)
	if err != nil || string(got) != "ok" {
		t.Fatalf("vanilla Neovim: %s (%v)\noutput:\n%s", got, err, out.String())
	}
	// The buffer changed, the disk did not: the user saves.
	if b, _ := os.ReadFile(file); string(b) != "def average(values):\n    return sum(values) / 2\n" {
		t.Errorf("the disk changed behind the editor: %q", b)
	}
}
