package adversarial_test

import (
	"fmt"
	"os"
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
	bin, cleanup, err := testenv.BuildAgent("adversarial")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer cleanup()
	binary = bin
	return proctest.RunReaped(m)
}

// requireBwrap ends the test through testenv.Missing when bubblewrap is
// missing: the
// corpus counts on the sandbox behind the classifier (issue 17, point 3).
func requireBwrap(t *testing.T) {
	t.Helper()
	testenv.NeedTool(t, "bwrap")
}
