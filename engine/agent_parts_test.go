package engine

import (
	"context"
	"slices"
	"testing"

	"github.com/agent-lsp/agent-lsp/permission"
	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/tools"
)

// TestSubagentSharesParentsParts: a subagent's session is built from its
// parent's parts by pointer, not from copies made when it started: a
// change of the parent's tools, pipeline or client after the subagent
// started reaches the subagent, while what the subagent says stays in a
// conversation of its own.
func TestSubagentSharesParentsParts(t *testing.T) {
	h := newHarness(t, newScript(t), nil, nil)
	parent := h.sess
	def := generalPurpose
	def.Tools = []string{"Read", "ScratchRead"}
	child := parent.child(def, "toolu_parent")
	has := func(s *Session, name string) bool {
		_, ok := s.tools.lookup(name)
		listed := tools.Find(s.tools.all(), name) != nil
		if ok != listed {
			t.Errorf("%s: lookup says %v, the list says %v", name, ok, listed)
		}
		return ok
	}

	// Toolset: an MCP server connects after the subagent started. The
	// subagent gets the tools its definition names, and loses them when
	// the server leaves.
	parent.SetTools("mcp:scratch", scratchTools(nil))
	for name, want := range map[string]bool{"ScratchRead": true, "ScratchEdit": false, "Read": true, "Bash": false, agentToolName: false, taskToolName: false} {
		if got := has(child, name); got != want {
			t.Errorf("after the server connected, the subagent has %s: %v, want %v", name, got, want)
		}
	}
	if !has(parent, "ScratchEdit") {
		t.Error("the parent lacks the server's ScratchEdit")
	}
	if read, _ := child.tools.lookup("Read"); read == tools.Find(parent.tools.all(), "Read") {
		t.Error("the subagent's Read is its parent's, not bound to its own environment")
	}
	parent.SetTools("mcp:scratch", nil)
	if has(child, "ScratchRead") {
		t.Error("the subagent kept the tools of a server that left")
	}

	// Pipeline: the parent moves to plan mode; the subagent's calls are
	// decided in plan mode too.
	if err := parent.SetMode(context.Background(), string(permission.Plan)); err != nil {
		t.Fatal(err)
	}
	if got := child.pipe.gate.policy.Mode(); got != permission.Plan {
		t.Errorf("the subagent's mode is %s after the parent's became plan", got)
	}

	// Client: the parent's editor is replaced; the subagent's tool calls
	// reach the new one, marked with the parent's Agent call.
	next := &recordingClient{t: t}
	parent.client.Client = next
	child.update(context.Background(), schema.Update{SessionUpdate: schema.UpdateToolCall, ToolCall: &schema.ToolCall{ToolCallID: "toolu_child", Title: "Read a.go"}})
	if st := next.toolStatuses("toolu_parent"); len(st) == 0 {
		t.Error("the subagent's progress did not reach the parent's new editor")
	}

	// Conversation: what the subagent says and the model it asks stay
	// its own.
	child.appendMessage(providers.Message{Role: providers.RoleUser, Content: []providers.Block{providers.TextBlock("the subagent's task")}})
	if len(parent.History()) != 0 {
		t.Errorf("the subagent's message is in the parent's history: %v", parent.History())
	}
	if err := parent.SetModel("other-model"); err != nil {
		t.Fatal(err)
	}
	if got := child.Model(); got != "test-model" {
		t.Errorf("the subagent asks %q after the parent changed its model, want test-model", got)
	}
	if slices.Equal(child.systemPrompt(), parent.systemPrompt()) {
		t.Error("the subagent has its parent's system prompt")
	}
}
