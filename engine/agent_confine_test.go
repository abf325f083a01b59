package engine

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/settings"
	"github.com/agent-lsp/agent-lsp/tools"
)

// TestSubagentCallsConfinedAsParents: a subagent shares its parent's
// gate, so a call must be held the same way in both. A subagent session
// had no confiner of its own: commands that the user's allow rule let
// through ran outside the rule sandbox there (writing outside, reaching
// the network, reading the home's credentials and the API key), and git
// commands in a repository holding a Read-denied file did not ask.
func TestSubagentCallsConfinedAsParents(t *testing.T) {
	h := newHarness(t, newScript(t), nil, func(c *Config) {
		c.Settings.Permissions.Allow = []settings.Rule{{Text: "Bash(make test:*)"}}
		c.Settings.Permissions.Deny = []settings.Rule{{Text: "Read(./.env)"}}
	})
	parent := h.sess
	child := parent.child(generalPurpose, "toolu_parent")
	bash := tools.Find(parent.tools.all(), "Bash")
	if bash == nil {
		t.Fatal("no Bash tool")
	}
	for _, command := range []string{"make test", "ls", "git log -1"} {
		input, _ := json.Marshal(map[string]string{"command": command})
		p := &tools.Preview{Command: command}
		call := &schema.ToolCall{ToolCallID: "toolu_1", Title: command}
		want := parent.authorize(context.Background(), bash, call, input, p, "")
		got := child.authorize(context.Background(), bash, call, input, p, "")
		if got.confine != want.confine || (got.refusal == nil) != (want.refusal == nil) {
			t.Errorf("%s: subagent confine %v (refused %v), parent %v (refused %v)", command, got.confine, got.refusal != nil, want.confine, want.refusal != nil)
		}
	}
}
