package adversarial_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/agent-lsp/agent-lsp/internal/proctest"
)

// binary is the agent-lsp under test: AGENT_LSP_BIN, else built once for
// the package.
var binary string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	binary = os.Getenv("AGENT_LSP_BIN")
	if binary == "" {
		dir, err := os.MkdirTemp("", "agent-lsp-adversarial-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		binary = filepath.Join(dir, "agent-lsp")
		build := exec.Command("go", "build", "-o", binary, "github.com/agent-lsp/agent-lsp/cmd/agent-lsp")
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "building agent-lsp:", err)
			return 1
		}
	}
	return proctest.RunReaped(m)
}

// requireBwrap skips the test when bubblewrap is missing, and fails it
// when AGENT_LSP_REQUIRE_EDITORS asks for every tool to be present: the
// corpus counts on the sandbox behind the classifier (issue 17, point 3).
func requireBwrap(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("bwrap"); err != nil {
		if os.Getenv("AGENT_LSP_REQUIRE_EDITORS") != "" {
			t.Fatal("bubblewrap is not installed: run scripts/install-tools.sh")
		}
		t.Skip("bubblewrap is not installed: run scripts/install-tools.sh")
	}
}
