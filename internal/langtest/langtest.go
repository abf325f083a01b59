// Package langtest finds the real language servers the tests drive
// (gopls, pyright), installed by scripts/install-langservers.sh under
// ~/.cache/agent-lsp/langservers or found on PATH.
package langtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/agent-lsp/agent-lsp/internal/testenv"
)

// Dir is where scripts/install-langservers.sh installs the servers.
func Dir() string {
	if d := os.Getenv("AGENT_LSP_LANGSERVERS"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "agent-lsp", "langservers")
}

// Find returns the path of the program name, or "".
func Find(name string) string {
	for _, p := range []string{filepath.Join(Dir(), "bin", name), filepath.Join(Dir(), "node_modules", ".bin", name)} {
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	return ""
}

// Require returns the path of the program name. When it is missing the
// test ends through testenv.Missing: skipped, or failed under `make test`
// (after `make deps` installed it).
func Require(t testing.TB, name string) string {
	t.Helper()
	p := Find(name)
	if p == "" {
		testenv.Missing(t, "%s is not installed: run scripts/install-langservers.sh (make deps)", name)
	}
	return p
}

// GoModule writes a Go module with files into a new temporary directory
// and returns its (symlink-free) path.
func GoModule(t testing.TB, files map[string]string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := files["go.mod"]; !ok {
		files["go.mod"] = "module example.com/m\n\ngo 1.21\n"
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// GoEnv returns environment settings that keep gopls offline and its
// caches inside the test's temporary directories.
func GoEnv(t testing.TB) {
	t.Helper()
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOTOOLCHAIN", "local")
}
