package engine

import (
	"encoding/json"
	"testing"

	"github.com/agent-lsp/agent-lsp/diffs"
	"github.com/agent-lsp/agent-lsp/schema"
)

// TestReplayDiffs: a replayed file change shows what the transcript
// recorded: the whole-file change from a toolUseResult (ours or Claude
// Code's), else the strings of the call's input.
func TestReplayDiffs(t *testing.T) {
	const before = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
	const after = "def add(a, b):\n    \"\"\"Add.\"\"\"\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
	patch, _ := json.Marshal(diffs.Hunks(before, after))
	orig, _ := json.Marshal(before)
	afterJSON, _ := json.Marshal(after)
	type diff struct {
		old     *string
		new     string
		created bool
	}
	str := func(s string) *string { return &s }
	tests := []struct {
		name, tool, input, stored string
		want                      []diff
	}{
		{
			name: "Claude Code's Edit", tool: "Edit",
			input:  `{"file_path":"/p/calc.py","old_string":"    return a + b\n","new_string":"    \"\"\"Add.\"\"\"\n    return a + b\n"}`,
			stored: `{"filePath":"/p/calc.py","oldString":"    return a + b\n","newString":"x","originalFile":` + string(orig) + `,"structuredPatch":` + string(patch) + `,"userModified":false,"replaceAll":false}`,
			want:   []diff{{old: str(before), new: after}},
		},
		{
			name: "Claude Code's MultiEdit", tool: "MultiEdit",
			input:  `{"file_path":"/p/calc.py","edits":[{"old_string":"a","new_string":"b"}]}`,
			stored: `{"filePath":"/p/calc.py","edits":[],"originalFileContents":` + string(orig) + `,"structuredPatch":` + string(patch) + `}`,
			want:   []diff{{old: str(before), new: after}},
		},
		{
			name: "Write of a new file", tool: "Write",
			input:  `{"file_path":"/p/calc.py","content":"x"}`,
			stored: `{"type":"create","filePath":"/p/calc.py","content":` + string(afterJSON) + `,"structuredPatch":[],"originalFile":null}`,
			want:   []diff{{new: after, created: true}},
		},
		{
			name: "Write over a file", tool: "Write",
			input:  `{"file_path":"/p/calc.py","content":"x"}`,
			stored: `{"type":"update","filePath":"/p/calc.py","content":` + string(afterJSON) + `,"structuredPatch":[],"originalFile":` + string(orig) + `}`,
			want:   []diff{{old: str(before), new: after}},
		},
		{
			name: "Edit without a stored result", tool: "Edit",
			input: `{"file_path":"/p/calc.py","old_string":"a","new_string":"b"}`,
			want:  []diff{{old: str("a"), new: "b"}},
		},
		{
			name: "MultiEdit whose result is Claude Code's error string", tool: "MultiEdit",
			input:  `{"file_path":"/p/calc.py","edits":[{"old_string":"a","new_string":"b"},{"old_string":"c","new_string":"d"}]}`,
			stored: `"Error: No such tool available: MultiEdit"`,
			want:   []diff{{old: str("a"), new: "b"}, {old: str("c"), new: "d"}},
		},
		{
			name: "a patch that does not fit falls back to the input", tool: "Edit",
			input:  `{"file_path":"/p/calc.py","old_string":"a","new_string":"b"}`,
			stored: `{"filePath":"/p/calc.py","originalFile":"other\n","structuredPatch":` + string(patch) + `}`,
			want:   []diff{{old: str("a"), new: "b"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stored json.RawMessage
			if tt.stored != "" {
				stored = json.RawMessage(tt.stored)
			}
			got, path, ok := replayDiffs(tt.tool, json.RawMessage(tt.input), stored)
			if !ok || path != "/p/calc.py" || len(got) != len(tt.want) {
				t.Fatalf("replayDiffs = %+v, %q, %v", got, path, ok)
			}
			for i, w := range tt.want {
				g := got[i]
				if g.Type != "diff" || g.NewText != w.new || (g.OldText == nil) != (w.old == nil) || g.OldText != nil && *g.OldText != *w.old {
					t.Errorf("diff %d = %q -> %q, want %v -> %q", i, deref(g.OldText), g.NewText, deref(w.old), w.new)
				}
			}
		})
	}
	if _, _, ok := replayDiffs("Bash", json.RawMessage(`{}`), nil); ok {
		t.Error("replayDiffs handles Bash")
	}
}

// TestEditResultReplays: what a finished edit stores replays as the
// change it made, even when the user changed the proposal.
func TestEditResultReplays(t *testing.T) {
	const before, after = "a\nb\nc\n", "a\nB, as the user wrote it\nc\n"
	for _, tool := range []string{"Edit", "MultiEdit", "Write"} {
		input := `{"file_path":"/p/f","old_string":"b","new_string":"B","content":"x","edits":[{"old_string":"b","new_string":"B"}]}`
		stored := editResult(tool, json.RawMessage(input), []schema.ToolCallContent{schema.DiffContent("/p/f", before, after, false)})
		got, _, _ := replayDiffs(tool, json.RawMessage(input), stored)
		if len(got) != 1 || deref(got[0].OldText) != before || got[0].NewText != after {
			t.Errorf("%s: stored %s replays as %+v", tool, stored, got)
		}
	}
	if r := editResult("Edit", json.RawMessage(`{}`), []schema.ToolCallContent{schema.TextContent("no diff")}); r != nil {
		t.Errorf("editResult without a diff = %s, want nil", r)
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
