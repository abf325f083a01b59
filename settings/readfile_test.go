package settings

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestSettingsFilesThatAreNotFiles: a repository's settings files and
// .mcp.json may be links to devices, FIFOs or folders. Loading must not
// block on them or read without end (a link to /dev/zero hung the agent
// before its first question); the file is reported and skipped.
func TestSettingsFilesThatAreNotFiles(t *testing.T) {
	for _, tc := range []struct {
		name string
		make func(t *testing.T, path string)
	}{
		{"dev-zero", func(t *testing.T, p string) { symlink(t, "/dev/zero", p) }},
		{"fifo", func(t *testing.T, p string) {
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Skip("no FIFOs here:", err)
			}
		}},
		{"directory", func(t *testing.T, p string) {
			if err := os.MkdirAll(filepath.Join(p, "x"), 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{"too-large", func(t *testing.T, p string) {
			if err := os.WriteFile(p, []byte(`{"env":{"A":"`+strings.Repeat("a", MaxFileBytes)+`"}}`), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			project := t.TempDir()
			if err := os.MkdirAll(filepath.Join(project, ".claude"), 0o755); err != nil {
				t.Fatal(err)
			}
			tc.make(t, LocalPath(project))
			tc.make(t, filepath.Join(project, ".mcp.json"))
			s, problems := Load(Options{Project: project, Home: t.TempDir(), NoUser: true})
			if len(problems) == 0 || !strings.Contains(problems[0].String(), "settings.local.json") {
				t.Errorf("problems = %v, want one about settings.local.json", problems)
			}
			if len(s.HeldBack) != 0 {
				t.Errorf("held back %v from a file that was not read", s.HeldBack)
			}
			if err := AddLocalRule(project, "allow", "Bash(ls:*)"); err == nil {
				t.Errorf("AddLocalRule wrote through %s", tc.name)
			}
		})
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}
