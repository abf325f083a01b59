package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrustCommand: `agent-lsp trust` trusts a folder the way answering
// the editor's question does (trust.json), says what it turns on, and
// refuses what is not a folder.
func TestTrustCommand(t *testing.T) {
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	state := t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".claude"), 0o755)
	os.WriteFile(filepath.Join(ws, ".claude", "settings.json"), []byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"true"}]}]}}`), 0o644)
	file := filepath.Join(ws, "a.txt")
	os.WriteFile(file, []byte("x"), 0o644)
	run := func(args ...string) (string, int) {
		t.Helper()
		cmd := exec.Command(binary, append([]string{"trust"}, args...)...)
		cmd.Dir = ws
		cmd.Env = append(os.Environ(), "AGENT_LSP_HOME="+state, "AGENT_LSP_NO_USER_SETTINGS=1", "HOME="+t.TempDir())
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}

	out, code := run()
	if code != 0 || !strings.Contains(out, ws+" is now trusted") || !strings.Contains(out, "1 hook") {
		t.Fatalf("trust in the folder: exit %d, %q", code, out)
	}
	data, err := os.ReadFile(filepath.Join(state, "trust.json"))
	if err != nil || !strings.Contains(string(data), `"`+ws+`"`) {
		t.Fatalf("trust.json = %s, %v; want %s in it", data, err, ws)
	}
	if out, code := run(filepath.Join(ws, ".claude")); code != 0 || !strings.Contains(out, "already trusted") {
		t.Errorf("a subfolder of a trusted folder: exit %d, %q", code, out)
	}
	for _, bad := range []string{file, filepath.Join(ws, "missing")} {
		if out, code := run(bad); code != 1 || !strings.Contains(out, "agent-lsp trust:") {
			t.Errorf("trust %s: exit %d, %q; want exit 1 with the reason", bad, code, out)
		}
	}
	if out, code := run("a", "b"); code != 2 {
		t.Errorf("two folders: exit %d, %q; want 2", code, out)
	}
}
