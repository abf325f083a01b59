package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/sandbox"
	"github.com/agent-lsp/agent-lsp/settings"
)

// TestEditDenyHoldsInTheRuleSandbox: a command the user's rule allows
// runs a script that writes a file an Edit deny rule covers. The
// classifier sees only "sh build.sh"; the rule sandbox keeps the file
// read-only, and the rest of the workspace stays writable.
func TestEditDenyHoldsInTheRuleSandbox(t *testing.T) {
	if bwrap, why := sandbox.Probe(); bwrap == "" {
		if os.Getenv("AGENT_LSP_REQUIRE_EDITORS") != "" {
			t.Fatalf("bubblewrap: %s", why)
		}
		t.Skipf("bubblewrap: %s", why)
	}
	model := newScript(t,
		use("toolu_1", "Bash", map[string]any{"command": "sh build.sh", "description": "Build"}),
		say("built"),
	)
	h := newHarness(t, model, nil, func(c *Config) {
		c.Settings.Permissions.Allow = []settings.Rule{{Text: "Bash(sh build.sh)"}}
		c.Settings.Permissions.Deny = []settings.Rule{{Text: "Edit(./.env)"}, {Text: "Write(secrets/**)"}}
	})
	files := map[string]string{
		".env":            "KEY=1\n",
		"secrets/key.pem": "pem\n",
		"build.sh":        "echo pwned > .env; echo pwned > secrets/key.pem; echo out > out.txt\n",
	}
	for name, content := range files {
		p := filepath.Join(h.dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h.prompt(t, "build it")
	res := h.toolResult(t, "toolu_1")
	for _, name := range []string{".env", "secrets/key.pem"} {
		if data, _ := os.ReadFile(filepath.Join(h.dir, name)); string(data) != files[name] {
			t.Errorf("%s = %q after the rule-allowed script, want it unchanged; result:\n%s", name, data, resultText(res))
		}
	}
	if data, _ := os.ReadFile(filepath.Join(h.dir, "out.txt")); strings.TrimSpace(string(data)) != "out" {
		t.Errorf("out.txt = %q: the rest of the workspace must stay writable; result:\n%s", data, resultText(res))
	}
}
