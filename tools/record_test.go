package tools

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
			got, path := replayer(t, tt.tool).Replay(json.RawMessage(tt.input), stored)
			if path != "/p/calc.py" || len(got) != len(tt.want) {
				t.Fatalf("Replay = %+v, %q", got, path)
			}
			for i, w := range tt.want {
				g := got[i]
				if g.Type != "diff" || g.NewText != w.new || (g.OldText == nil) != (w.old == nil) || g.OldText != nil && *g.OldText != *w.old {
					t.Errorf("diff %d = %q -> %q, want %v -> %q", i, deref(g.OldText), g.NewText, deref(w.old), w.new)
				}
			}
		})
	}
	if _, ok := Find(New(&Env{}), "Bash").(Replayer); ok {
		t.Error("Bash replays as a file change")
	}
}

// replayer returns the built-in tool named name as a Replayer.
func replayer(t *testing.T, name string) Replayer {
	t.Helper()
	r, ok := Find(New(&Env{}), name).(Replayer)
	if !ok {
		t.Fatalf("%s is not a Replayer", name)
	}
	return r
}

// record returns the record the built-in tool named name keeps of a call.
func record(t *testing.T, name, input string, res *Result) json.RawMessage {
	t.Helper()
	tool := Find(New(&Env{}), name)
	r, ok := tool.(Recorder)
	if !ok {
		return nil
	}
	return r.Record(json.RawMessage(input), res)
}

// TestChangeRecordReplays: what a finished edit stores replays as the
// change it made, even when the user changed the proposal.
func TestChangeRecordReplays(t *testing.T) {
	const before, after = "a\nb\nc\n", "a\nB, as the user wrote it\nc\n"
	for _, tool := range []string{"Edit", "MultiEdit", "Write"} {
		input := `{"file_path":"/p/f","old_string":"b","new_string":"B","content":"x","edits":[{"old_string":"b","new_string":"B"}]}`
		stored := record(t, tool, input, &Result{Display: []schema.ToolCallContent{schema.DiffContent("/p/f", before, after, false)}})
		got, _ := replayer(t, tool).Replay(json.RawMessage(input), stored)
		if len(got) != 1 || deref(got[0].OldText) != before || got[0].NewText != after {
			t.Errorf("%s: stored %s replays as %+v", tool, stored, got)
		}
	}
	if r := record(t, "Edit", `{}`, &Result{Display: []schema.ToolCallContent{schema.TextContent("no diff")}}); r != nil {
		t.Errorf("Edit's record without a diff = %s, want nil", r)
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// TestViewRecord: Read, Bash, Grep and Glob calls are stored with Claude
// Code's toolUseResult shapes, rebuilt from our tools' output.
func TestViewRecord(t *testing.T) {
	for _, tc := range []struct {
		name, input, content, want string
	}{
		{"Read", `{"file_path":"/p/a.txt"}`, "     1\tx = 1\n     2\ty = 2\n",
			`{"file":{"content":"x = 1\ny = 2","filePath":"/p/a.txt","numLines":2,"startLine":1,"totalLines":2},"type":"text"}`},
		{"Read", `{"file_path":"/p/a.txt","offset":9}`, "     9\tnine\n\n(File truncated.)\n",
			`{"file":{"content":"nine","filePath":"/p/a.txt","numLines":1,"startLine":9,"totalLines":9},"type":"text"}`},
		{"Bash", `{"command":"echo hi"}`, "hi\n", `{"interrupted":false,"isImage":false,"stderr":"","stdout":"hi\n"}`},
		{"Grep", `{"pattern":"x"}`, "Found 2 files\na.txt\nb.txt\n", `{"filenames":["a.txt","b.txt"],"mode":"files_with_matches","numFiles":2}`},
		{"Grep", `{"pattern":"x"}`, "No files found", `{"filenames":[],"mode":"files_with_matches","numFiles":0}`},
		{"Grep", `{"pattern":"x","output_mode":"content"}`, "a.txt:1:x = 1\n", `{"content":"a.txt:1:x = 1\n","filenames":[],"mode":"content","numFiles":0,"numLines":1}`},
		{"Glob", `{"pattern":"*.txt"}`, "/p/a.txt\n/p/b.txt\n(Results are truncated: showing ...)\n", `{"durationMs":0,"filenames":["/p/a.txt","/p/b.txt"],"numFiles":2,"truncated":true}`},
		{"Glob", `{"pattern":"*.go"}`, "No files found", `{"durationMs":0,"filenames":[],"numFiles":0,"truncated":false}`},
		{"Read", `{"file_path":"/p/img.png"}`, "(an image)", ``},
		{"LS", `{}`, "a.txt", ``},
	} {
		got := string(record(t, tc.name, tc.input, &Result{Content: tc.content}))
		if got != tc.want {
			t.Errorf("%s %s:\n got %s\nwant %s", tc.name, tc.input, got, tc.want)
		}
	}
}
