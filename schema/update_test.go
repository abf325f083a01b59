package schema

import "testing"

// TestUpdateMetaMerge: a tool call update's _meta holds both the tool
// call's and the update's fields under one key, as a subagent's calls
// carry the call's description and the subagent's ids.
func TestUpdateMetaMerge(t *testing.T) {
	u := Update{
		SessionUpdate: UpdateToolCallUpdate,
		ToolCall:      &ToolCall{ToolCallID: "t", Meta: map[string]any{"claudeCode": map[string]any{"toolName": "Bash"}, "agent-lsp": map[string]any{"description": "Run the tests"}}},
		Meta:          map[string]any{"agent-lsp": map[string]any{"agent": "reader"}},
	}
	b, err := u.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"sessionUpdate":"tool_call_update","_meta":{"agent-lsp":{"agent":"reader","description":"Run the tests"},"claudeCode":{"toolName":"Bash"}},"toolCallId":"t"}`
	if string(b) != want {
		t.Errorf("update\n%s\nwant\n%s", b, want)
	}
}
