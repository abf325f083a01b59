package engine

import (
	"context"
	"encoding/json"
	"strings"
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

// TestSubagentSharesParentsPipeline: a subagent's calls go through its
// parent's pipeline itself, not a copy made when the subagent started:
// what the user rejects for the session, the confiner and a sandbox the
// settings replace later hold in both.
func TestSubagentSharesParentsPipeline(t *testing.T) {
	h := newHarness(t, newScript(t), nil, nil)
	parent := h.sess
	child := parent.child(generalPurpose, "toolu_parent")
	if child.pipe != parent.pipe {
		t.Fatal("the subagent has a pipeline of its own")
	}
	if child.pipe.confiner != parent.pipe.confiner {
		t.Error("the subagent has a confiner of its own")
	}

	// The settings change after the subagent started: its commands run
	// in the new sandbox too.
	parent.setSandbox(&settings.Settings{Project: parent.cwd})
	if child.pipe.sandbox.Load() != parent.pipe.sandbox.Load() {
		t.Error("the subagent kept the sandbox of when it started")
	}

	// The user rejected Bash for the session in the parent: the
	// subagent's call is refused without a question.
	parent.pipe.gate.mu.Lock()
	parent.pipe.gate.rejected["Bash(rm -rf build)"] = true
	parent.pipe.gate.mu.Unlock()
	bash := tools.Find(child.tools.all(), "Bash")
	if bash == nil {
		t.Fatal("no Bash tool")
	}
	input, _ := json.Marshal(map[string]string{"command": "rm -rf build"})
	p := &tools.Preview{Command: "rm -rf build"}
	got := child.authorize(context.Background(), bash, &schema.ToolCall{ToolCallID: "toolu_1", Title: "rm -rf build"}, input, p, "")
	if got.refusal == nil {
		t.Fatal("the subagent ran a command the user rejected for the session")
	}
	if !strings.Contains(got.refusal.Content, "for this session") {
		t.Errorf("refusal = %q, want the session's rejection", got.refusal.Content)
	}
}
