package session

import (
	"encoding/json"
	"testing"

	"github.com/agent-lsp/agent-lsp/providers"
)

// TestPermissionsAndUsageAreLoaded: the answers to permission requests
// and each response's usage (once per response, though Claude Code
// writes a line per content block) come back with Load, and a permission
// line is no message.
func TestPermissionsAndUsageAreLoaded(t *testing.T) {
	s, _ := newTestStore(t)
	l, err := s.Create(fixtureCwd, "s1")
	must(t, err)
	must(t, l.Append(text(providers.RoleUser, "go")))
	use := providers.Message{Role: providers.RoleAssistant, Content: []providers.Block{{Type: providers.BlockToolUse, ID: "t1", Name: "Edit", Input: json.RawMessage(`{}`)}}}
	must(t, l.AppendResponse(use, ResponseInfo{Model: "m", Usage: &providers.Usage{InputTokens: 10, OutputTokens: 2}}))
	must(t, l.SetPermission("t1", Permission{Outcome: "rejected", OptionID: "reject_once", Name: "Reject"}))
	must(t, l.SetPermission("t1", Permission{Outcome: "allowed", OptionID: "allow_once", Name: "Allow"}))
	must(t, l.Append(providers.Message{Role: providers.RoleUser, Content: []providers.Block{providers.ToolResultBlock("t1", "done", false)}}))
	must(t, l.AppendResponse(text(providers.RoleAssistant, "ok"), ResponseInfo{Model: "m", Usage: &providers.Usage{InputTokens: 30, OutputTokens: 4}}))
	must(t, l.Close())

	h, err := s.Load(fixtureCwd, "s1")
	must(t, err)
	if got := h.Permissions["t1"]; got != (Permission{Outcome: "allowed", OptionID: "allow_once", Name: "Allow"}) {
		t.Errorf("permission of t1 = %+v, want the last answer", got)
	}
	if len(h.Usage) != 2 || h.Usage[0].Usage.InputTokens != 10 || h.Usage[1].Usage.InputTokens != 30 || h.Usage[1].Model != "m" {
		t.Errorf("usage = %+v, want the two responses'", h.Usage)
	}
	if len(h.Messages) != 4 {
		t.Errorf("%d messages, want 4 (the permission lines are not messages)", len(h.Messages))
	}
}

// TestUsageOnceForAResponseSplitOverLines: Claude Code writes one line
// per content block of a response, each with the response's usage.
func TestUsageOnceForAResponseSplitOverLines(t *testing.T) {
	u := &providers.Usage{InputTokens: 5}
	entries := []parsed{
		{e: entry{Type: typeAssistant, MessageID: "msg_1", Model: "m", Usage: u}},
		{e: entry{Type: typeAssistant, MessageID: "msg_1", Model: "m", Usage: u}},
		{e: entry{Type: typeAssistant, MessageID: "msg_2", Model: "<synthetic>", Usage: u}},
		{e: entry{Type: typeAssistant, MessageID: "msg_3", Model: "m", Usage: u, Sidechain: true}},
	}
	got := usageOf(entries)
	if len(got) != 2 || got[0].Sidechain || !got[1].Sidechain {
		t.Errorf("usageOf = %+v, want msg_1 once and the subagent's msg_3", got)
	}
}
