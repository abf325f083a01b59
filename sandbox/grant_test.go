package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/settings"
)

// profile is one way to run a command in a sandbox, for tests that
// check every profile.
type profile struct {
	name string
	run  func(t *testing.T, dir, script string) (string, error)
}

// profiles returns the four sandbox profiles over ws with the settings'
// filesystem fsys: read-only, workspace-writable, rule, approved.
func profiles(t *testing.T, ws string, fsys settings.SandboxFilesystem) []profile {
	t.Helper()
	c := confiner(t, ws)
	sb := usable(t, settings.Sandbox{Filesystem: fsys}, ws)
	confined := func(o Options) func(t *testing.T, dir, script string) (string, error) {
		o.Filesystem = fsys
		return func(t *testing.T, dir, script string) (string, error) { return runConfined(t, c, o, dir, script) }
	}
	return []profile{
		{"read-only", confined(Options{})},
		{"workspace", confined(Options{Writable: true})},
		{"rule", confined(Options{Rule: true})},
		{"approved", func(t *testing.T, dir, script string) (string, error) { return run(t, sb, dir, script) }},
	}
}

// TestGrantDontMask: every profile starts with an empty home. A
// credential that no list names (a new tool's token, a dotfile of its
// own) is not there; the granted Go folders (GOPATH's module cache, the
// build cache) are, read-only.
func TestGrantDontMask(t *testing.T) {
	requireBwrap(t)
	home := t.TempDir()
	writeFiles(t, home, map[string]string{
		".config/newtool/token":            "newtool-secret\n",
		".mytoolrc":                        "machine x password rc-secret\n",
		".local/share/othertool/auth.json": "other-secret\n",
		"go/pkg/mod/example.com/m@v1/m.go": "package m // modcache-ok\n",
		".cache/go-build/00/x-d":           "gocache-ok\n",
	})
	t.Setenv("HOME", home)
	for _, v := range []string{"GOPATH", "GOMODCACHE", "GOCACHE", "GOENV", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME"} {
		t.Setenv(v, "")
	}
	ws := t.TempDir()
	for _, p := range profiles(t, ws, settings.SandboxFilesystem{}) {
		t.Run(p.name, func(t *testing.T) {
			out, _ := p.run(t, ws, "cat ~/.config/newtool/token ~/.mytoolrc ~/.local/share/othertool/auth.json; ls -a ~ ~/.config; grep -rh secret ~ 2>/dev/null")
			for _, secret := range []string{"newtool-secret", "rc-secret", "other-secret"} {
				if strings.Contains(out, secret) {
					t.Errorf("the sandbox shows %q:\n%s", secret, out)
				}
			}
			out, err := p.run(t, ws, "cat ~/go/pkg/mod/example.com/m@v1/m.go ~/.cache/go-build/00/x-d")
			if err != nil || !strings.Contains(out, "modcache-ok") || !strings.Contains(out, "gocache-ok") {
				t.Errorf("the granted Go folders are not readable: %v\n%s", err, out)
			}
			p.run(t, ws, "echo x > ~/.cache/go-build/00/new; echo x >> ~/go/pkg/mod/example.com/m@v1/m.go")
			if _, err := os.Stat(filepath.Join(home, ".cache/go-build/00/new")); err == nil {
				t.Error("the granted Go build cache is writable without allowWrite")
			}
		})
	}
}

// TestFilesystemSettings: the settings' sandbox.filesystem holds in every
// profile: allowRead shows a folder read-only, denyRead hides one (the
// workspace's too) unless allowRead shows part of it again, denyWrite
// keeps a workspace folder read-only, allowWrite makes a folder writable
// where commands may write outside the workspace (rule, approved).
func TestFilesystemSettings(t *testing.T) {
	requireBwrap(t)
	t.Setenv("HOME", t.TempDir())
	ws := t.TempDir()
	shared := outsideDir(t)
	cache := outsideDir(t)
	writeFiles(t, shared, map[string]string{"lib/a": "shared-ok\n"})
	writeFiles(t, ws, map[string]string{"private/key": "private-secret\n", "private/public/doc": "reopened-ok\n", "locked/f": "locked\n"})
	fsys := settings.SandboxFilesystem{
		AllowRead:  []string{shared, filepath.Join(ws, "private/public")},
		DenyRead:   []string{filepath.Join(ws, "private")},
		DenyWrite:  []string{filepath.Join(ws, "locked")},
		AllowWrite: []string{cache},
	}
	for _, p := range profiles(t, ws, fsys) {
		t.Run(p.name, func(t *testing.T) {
			out, _ := p.run(t, ws, "cat "+filepath.Join(shared, "lib/a")+" private/key private/public/doc")
			if !strings.Contains(out, "shared-ok") || !strings.Contains(out, "reopened-ok") || strings.Contains(out, "private-secret") {
				t.Errorf("allowRead/denyRead: want shared-ok and reopened-ok, not private-secret:\n%s", out)
			}
			p.run(t, ws, "echo x > locked/f; echo x > locked/new; echo x > "+filepath.Join(shared, "lib/new"))
			if data, _ := os.ReadFile(filepath.Join(ws, "locked/f")); string(data) != "locked\n" {
				t.Errorf("denyWrite: locked/f = %q", data)
			}
			for _, f := range []string{filepath.Join(ws, "locked/new"), filepath.Join(shared, "lib/new")} {
				if _, err := os.Stat(f); err == nil {
					t.Errorf("%s was created", f)
				}
			}
			out, err := p.run(t, ws, "echo w > "+filepath.Join(cache, p.name))
			_, statErr := os.Stat(filepath.Join(cache, p.name))
			if writable := p.name == "rule" || p.name == "approved"; writable != (statErr == nil) {
				t.Errorf("allowWrite: writable=%v, wrote=%v (%v)\n%s", writable, statErr == nil, err, out)
			}
		})
	}
}

// TestRunsLaterReadOnly: in every sandbox where the workspace is
// writable, what could run later without a question stays read-only by
// principle: the folder core.hooksPath names (existing, or missing and
// then impossible to create), any dot-file or dot-folder (.nvim.lua,
// .dir-locals.el, a nested .vscode, .github), an editor workspace file.
// Ordinary files and build dot-folders (.venv) stay writable.
func TestRunsLaterReadOnly(t *testing.T) {
	requireBwrap(t)
	t.Setenv("HOME", t.TempDir())
	for _, hooks := range []string{"tools/hooks", "githooks"} {
		ws := t.TempDir()
		writeFiles(t, ws, map[string]string{
			".nvim.lua": "-- ok\n", ".dir-locals.el": "()\n", "sub/.vscode/tasks.json": "{}\n",
			".github/workflows/ci.yml": "on: push\n", "proj.code-workspace": "{}\n", "src/main.go": "package main\n",
		})
		if hooks == "tools/hooks" {
			writeFiles(t, ws, map[string]string{"tools/hooks/pre-commit": "#!/bin/sh\n"})
		}
		cmd := exec.Command("git", "init", "-q")
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git init: %v\n%s", err, out)
		}
		cmd = exec.Command("git", "config", "core.hooksPath", hooks)
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git config: %v\n%s", err, out)
		}
		for _, p := range profiles(t, ws, settings.SandboxFilesystem{}) {
			if p.name == "read-only" {
				continue
			}
			t.Run(hooks+"/"+p.name, func(t *testing.T) {
				p.run(t, ws, strings.Join([]string{
					"mkdir -p " + hooks + " && echo 'touch /tmp/pwned' > " + hooks + "/post-checkout",
					"echo 'os.execute(\"x\")' > .nvim.lua", "echo pwned > .dir-locals.el", "echo pwned > sub/.vscode/tasks.json",
					"echo pwned > .github/workflows/ci.yml", "echo pwned > proj.code-workspace", "echo pwned > sub/.envrc",
				}, "; "))
				for rel, want := range map[string]string{".nvim.lua": "-- ok\n", ".dir-locals.el": "()\n", "sub/.vscode/tasks.json": "{}\n", ".github/workflows/ci.yml": "on: push\n", "proj.code-workspace": "{}\n"} {
					if data, _ := os.ReadFile(filepath.Join(ws, rel)); string(data) != want {
						t.Errorf("%s changed: %q", rel, data)
					}
				}
				if _, err := os.Stat(filepath.Join(ws, hooks, "post-checkout")); err == nil {
					t.Errorf("a hook was written in the folder core.hooksPath names (%s)", hooks)
				}
				if out, err := p.run(t, ws, "echo ok > src/main.go && mkdir -p .venv/lib && echo ok > .venv/lib/x.py && git status --short >/dev/null && echo WROTE"); err != nil || !strings.Contains(out, "WROTE") {
					t.Errorf("an ordinary write failed: %v\n%s", err, out)
				}
			})
		}
		if hooks == "githooks" {
			if _, err := os.Stat(filepath.Join(ws, hooks)); err == nil {
				t.Errorf("the placeholder of the missing %s was left behind", hooks)
			}
		}
	}
}
