package archtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckTrackedRejectsOddNames runs scripts/check-tracked.sh in a
// scratch repository holding one file of each odd kind of name beside
// ordinary ones: it fails and names that file; with ordinary names only,
// it passes.
func TestCheckTrackedRejectsOddNames(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	script, err := filepath.Abs("../../scripts/check-tracked.sh")
	if err != nil {
		t.Fatal(err)
	}
	ordinary := []string{"main.go", "docs/a b.md", "editors/neovim/lua/x.lua", ".github/ci.yml", "a-b/c_d.txt", "v1.2/x"}
	for _, tc := range []struct{ name, odd, shown string }{
		{"none", "", ""},
		{"hash", "ith eglot. Idempotent.#", `ith\ eglot.\ Idempotent.#`},
		{"newline", "a\nb.go", `$'a\nb.go'`},
		{"tab", "dir/a\tb", `$'dir/a\tb'`},
		{"escape", "x\x1b[0m", `$'x\E[0m'`},
		{"leading dash", "dir/-rf", "dir/-rf"},
		{"leading space", " lead", `\ lead`},
		{"trailing space", "trail ", `trail\ `},
		{"trailing space in a folder", "dir /x", `dir\ /x`},
		{"trailing dot", "notes.", "notes."},
		{"windows colon", "c:d.txt", "c:d.txt"},
		{"windows backslash", `a\b`, `a\\b`},
		{"windows star", "a*b", `a\*b`},
		{"not UTF-8", "caf\xe9.txt", `$'caf\351.txt'`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := t.TempDir()
			git := func(args ...string) {
				t.Helper()
				cmd := exec.Command("git", args...)
				cmd.Dir = repo
				cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v\n%s", args, err, out)
				}
			}
			git("init", "-q")
			names := ordinary
			if tc.odd != "" {
				names = append(names[:len(names):len(names)], tc.odd)
			}
			for _, n := range names {
				p := filepath.Join(repo, n)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte("text\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			git("add", "--", ".")
			cmd := exec.Command("bash", script)
			cmd.Dir = repo
			out, err := cmd.CombinedOutput()
			if tc.odd == "" {
				if err != nil {
					t.Fatalf("ordinary names were refused: %v\n%s", err, out)
				}
				return
			}
			if err == nil {
				t.Fatalf("%q was accepted:\n%s", tc.odd, out)
			}
			if !strings.Contains(string(out), "  "+tc.shown+"\n") {
				t.Errorf("the refusal does not show %s:\n%s", tc.shown, out)
			}
			for _, n := range ordinary {
				if strings.Contains(string(out), n) {
					t.Errorf("the refusal names the ordinary %q:\n%s", n, out)
				}
			}
		})
	}
}
