// Package testenv is the one place where tests meet what they need from
// outside Go: programs (rg, bwrap, node, Neovim), npm packages, Python
// modules, kernel features. A test that lacks one calls Missing (or a Need
// helper, which calls it): in a plain `go test` the test is skipped, so that a
// developer without the tools can still run the rest; when `make test`
// (and CI) set AGENT_LSP_REQUIRE_EDITORS, the test fails instead, so a
// missing dependency never passes unnoticed. scripts/install-*.sh install
// what these helpers look for.
package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// RequireEnv is the environment variable that turns missing dependencies
// into failures. `make test` sets it.
const RequireEnv = "AGENT_LSP_REQUIRE_EDITORS"

// Required reports whether missing dependencies fail tests.
func Required() bool { return os.Getenv(RequireEnv) != "" }

// Missing ends the test because something it needs is missing: skipped in
// a plain `go test`, failed when Required. The message says what is
// missing and how to install it.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if Required() {
		t.Fatalf("%s (%s is set: every dependency must be present)", msg, RequireEnv)
		return
	}
	t.Skip(msg)
}

// NeedTool returns the path of the program name on PATH, or ends the test
// through Missing.
func NeedTool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Missing(t, "%s is not on PATH: %s", name, installHint(name))
	}
	return p
}

// installHint says how to install a program the tests need.
func installHint(name string) string {
	switch name {
	case "rg", "bwrap":
		return "run scripts/install-tools.sh"
	case "nvim":
		return "run scripts/install-nvim.sh"
	case "node", "npm":
		return "install Node.js 20 or later"
	}
	return "install it"
}

// NeedPython returns a python3 that can import module: Debian's
// /usr/bin/python3 (where scripts/install-tools.sh installs python3-*
// packages), else python3 on PATH. Without one it ends the test through
// Missing, naming the Debian package pkg that provides the module.
func NeedPython(t testing.TB, module, pkg string) string {
	t.Helper()
	var candidates []string
	if p, err := exec.LookPath("/usr/bin/python3"); err == nil {
		candidates = append(candidates, p)
	}
	if p, err := exec.LookPath("python3"); err == nil {
		candidates = append(candidates, p)
	}
	for _, py := range candidates {
		if exec.Command(py, "-c", "import "+module).Run() == nil {
			return py
		}
	}
	Missing(t, "python3 with the %s module is not installed: run scripts/install-tools.sh (it installs %s)", module, pkg)
	return ""
}

// CacheDir is where scripts/install-*.sh put what Debian does not
// package (Neovim 0.10, npm packages): $AGENT_LSP_CACHE, or
// ~/.cache/agent-lsp.
func CacheDir() string {
	if c := os.Getenv("AGENT_LSP_CACHE"); c != "" {
		return c
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "agent-lsp-cache")
	}
	return filepath.Join(home, ".cache", "agent-lsp")
}

// NeedFile returns path when it exists (an installed npm package's entry
// point, a binary in CacheDir), or ends the test through Missing, naming
// what is missing and how to install it.
func NeedFile(t testing.TB, path, what, hint string) string {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		Missing(t, "%s is not installed (%v): %s", what, err, hint)
	}
	return path
}

// BuildAgent returns the agent-lsp binary that a package's end-to-end
// tests run: $AGENT_LSP_BIN when set, else one built into a temporary
// directory for the package (named after it). Call it from TestMain; the
// returned cleanup removes what it built.
func BuildAgent(pkg string) (binary string, cleanup func(), err error) {
	if bin := os.Getenv("AGENT_LSP_BIN"); bin != "" {
		return bin, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "agent-lsp-"+pkg+"-")
	if err != nil {
		return "", nil, err
	}
	cleanup = func() { os.RemoveAll(dir) }
	binary = filepath.Join(dir, "agent-lsp")
	build := exec.Command("go", "build", "-o", binary, "github.com/agent-lsp/agent-lsp/cmd/agent-lsp")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("building agent-lsp: %w", err)
	}
	return binary, cleanup, nil
}

// Repository makes root a git repository of n small Go files in 100
// folders (pkgNN/fileNNNNN.go), committed, each last modified an hour
// ago: the workspace of the checkpoint benchmarks. The file Repository
// names i is RepositoryFile(root, i).
func Repository(tb testing.TB, root string, n int) {
	tb.Helper()
	NeedTool(tb, "git")
	old := time.Now().Add(-time.Hour)
	for i := range n {
		p := RepositoryFile(root, i)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		data := fmt.Sprintf("package pkg\n\n// File %d.\nvar x%d = %d\n", i, i, i*i)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			tb.Fatal(err)
		}
		os.Chtimes(p, old, old)
	}
	for _, args := range [][]string{
		{"init", "-q"},
		{"add", "-A"},
		{"-c", "gc.auto=0", "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "init"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			tb.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// RepositoryFile is the path of the i-th file of a Repository.
func RepositoryFile(root string, i int) string {
	return filepath.Join(root, fmt.Sprintf("pkg%02d", i%100), fmt.Sprintf("file%05d.go", i))
}
