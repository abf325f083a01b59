package adversarial_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/agent-lsp/agent-lsp/internal/proctest"
	"github.com/agent-lsp/agent-lsp/internal/testenv"
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

// requireBwrap ends the test through testenv.Missing when bubblewrap is
// missing: the
// corpus counts on the sandbox behind the classifier (issue 17, point 3).
func requireBwrap(t *testing.T) {
	t.Helper()
	testenv.NeedTool(t, "bwrap")
}
