package tools

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/agent-lsp/agent-lsp/diffs"
	"github.com/agent-lsp/agent-lsp/schema"
)

// What a file-changing call did is stored beside its result in Claude
// Code's toolUseResult shape, so that a replay (ours, or Claude Code's
// resume screen) shows the change as it was, without reading the file as
// it is now. Claude Code writes the same for its own calls. Read, Bash,
// Grep and Glob store their output in Claude Code's shapes too, rebuilt
// from what the model saw.

// changeInput is the input of Edit, MultiEdit and Write.
type changeInput struct {
	FilePath   string `json:"file_path"`
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all"`
	Content    string `json:"content"`
	Edits      []struct {
		OldString  string `json:"old_string"`
		NewString  string `json:"new_string"`
		ReplaceAll bool   `json:"replace_all,omitempty"`
	} `json:"edits"`
}

// changeRecord is Claude Code's toolUseResult of Edit, MultiEdit and
// Write (the union of their fields).
type changeRecord struct {
	Type                 string       `json:"type,omitempty"` // Write: "create" or "update"
	FilePath             string       `json:"filePath"`
	OldString            *string      `json:"oldString,omitempty"`
	NewString            *string      `json:"newString,omitempty"`
	Content              *string      `json:"content,omitempty"`
	Edits                any          `json:"edits,omitempty"`
	OriginalFile         *string      `json:"originalFile,omitempty"`
	OriginalFileContents *string      `json:"originalFileContents,omitempty"` // MultiEdit
	StructuredPatch      []diffs.Hunk `json:"structuredPatch"`
	UserModified         bool         `json:"userModified"`
	ReplaceAll           *bool        `json:"replaceAll,omitempty"`
}

// recordChange builds the record of a finished file change from its
// input and the diff it showed, with fill adding the tool's own fields;
// nil when the call showed no diff.
func recordChange(input json.RawMessage, res *Result, fill func(r *changeRecord, in *changeInput, diff *schema.ToolCallContent, old string)) json.RawMessage {
	var diff *schema.ToolCallContent
	for i := range res.Display {
		if res.Display[i].Type == "diff" {
			diff = &res.Display[i]
			break
		}
	}
	if diff == nil {
		return nil
	}
	var in changeInput
	if json.Unmarshal(input, &in) != nil {
		return nil
	}
	old := ""
	if diff.OldText != nil {
		old = *diff.OldText
	}
	r := changeRecord{FilePath: diff.Path, StructuredPatch: diffs.Hunks(old, diff.NewText)}
	fill(&r, &in, diff, old)
	raw, err := json.Marshal(r)
	if err != nil {
		return nil
	}
	return raw
}

// Record stores Edit's strings and the file before the edit.
func (t *editTool) Record(input json.RawMessage, res *Result) json.RawMessage {
	return recordChange(input, res, func(r *changeRecord, in *changeInput, diff *schema.ToolCallContent, old string) {
		r.OldString, r.NewString, r.ReplaceAll = &in.OldString, &in.NewString, &in.ReplaceAll
		r.OriginalFile = &old
		r.UserModified = !strings.Contains(diff.NewText, in.NewString)
	})
}

// Record stores MultiEdit's edits and the file before them.
func (t *multiEditTool) Record(input json.RawMessage, res *Result) json.RawMessage {
	return recordChange(input, res, func(r *changeRecord, in *changeInput, _ *schema.ToolCallContent, old string) {
		r.Edits = in.Edits
		r.OriginalFileContents = &old
	})
}

// Record stores what Write wrote and the file it replaced, if any.
func (t *writeTool) Record(input json.RawMessage, res *Result) json.RawMessage {
	return recordChange(input, res, func(r *changeRecord, in *changeInput, diff *schema.ToolCallContent, old string) {
		r.Type, r.Content = "update", &diff.NewText
		if diff.OldText == nil {
			r.Type = "create"
		} else {
			r.OriginalFile = &old
		}
		r.UserModified = diff.NewText != in.Content
	})
}

// storedChange is a change record as read back: ours or Claude Code's.
type storedChange struct {
	Type                 string       `json:"type"`
	FilePath             string       `json:"filePath"`
	Content              *string      `json:"content"`
	OriginalFile         *string      `json:"originalFile"`
	OriginalFileContents *string      `json:"originalFileContents"`
	StructuredPatch      []diffs.Hunk `json:"structuredPatch"`
}

// replayChange returns the whole-file change a stored record holds, or
// ok false when it holds none that fits; whole says the record's Content
// is the file after the call (Write).
func replayChange(in *changeInput, record json.RawMessage, whole bool) (out []schema.ToolCallContent, path string, ok bool) {
	path = in.FilePath
	var r storedChange
	if len(record) == 0 || record[0] != '{' || json.Unmarshal(record, &r) != nil {
		return nil, path, false
	}
	if r.FilePath != "" {
		path = r.FilePath
	}
	orig := r.OriginalFile
	if orig == nil {
		orig = r.OriginalFileContents
	}
	switch {
	case whole && r.Content != nil:
		// A Write of a new file has no original (null).
		old := ""
		if orig != nil {
			old = *orig
		}
		return []schema.ToolCallContent{schema.DiffContent(path, old, *r.Content, orig == nil)}, path, true
	case orig != nil:
		if after, err := diffs.ApplyHunks(*orig, r.StructuredPatch); err == nil && (len(r.StructuredPatch) > 0 || after != *orig) {
			return []schema.ToolCallContent{schema.DiffContent(path, *orig, after, false)}, path, true
		}
	}
	return nil, path, false
}

// Replay shows a stored Edit: the whole-file change its record holds,
// else the strings of its input (as claude-agent-acp shows them).
func (t *editTool) Replay(input, record json.RawMessage) ([]schema.ToolCallContent, string) {
	var in changeInput
	_ = json.Unmarshal(input, &in)
	out, path, ok := replayChange(&in, record, false)
	if ok || path == "" {
		return out, path
	}
	return []schema.ToolCallContent{schema.DiffContent(path, in.OldString, in.NewString, in.OldString == "")}, path
}

// Replay shows a stored MultiEdit: the whole-file change its record
// holds, else each edit of its input.
func (t *multiEditTool) Replay(input, record json.RawMessage) ([]schema.ToolCallContent, string) {
	var in changeInput
	_ = json.Unmarshal(input, &in)
	out, path, ok := replayChange(&in, record, false)
	if ok || path == "" {
		return out, path
	}
	for _, e := range in.Edits {
		out = append(out, schema.DiffContent(path, e.OldString, e.NewString, false))
	}
	return out, path
}

// Replay shows a stored Write: the file it wrote over the one it
// replaced, else its input's content as a new file.
func (t *writeTool) Replay(input, record json.RawMessage) ([]schema.ToolCallContent, string) {
	var in changeInput
	_ = json.Unmarshal(input, &in)
	out, path, ok := replayChange(&in, record, true)
	if ok || path == "" {
		return out, path
	}
	return []schema.ToolCallContent{schema.DiffContent(path, "", in.Content, true)}, path
}

// readLine is one line of Read's output: its number and text ("   12\tx").
var readLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ *(\d+)\t(.*)$`) })

// marshalRecord encodes a record, nil when it cannot be.
func marshalRecord(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

// Record stores what the model saw of Read's output as Claude Code's
// text file record; its totalLines is the last line read (the file's
// length is not known here). Nil for output that is not numbered lines
// (an image, a notebook).
func (t *readTool) Record(input json.RawMessage, res *Result) json.RawMessage {
	var in struct {
		FilePath string `json:"file_path"`
	}
	if json.Unmarshal(input, &in) != nil || in.FilePath == "" {
		return nil
	}
	var text []string
	start, last := 0, 0
	for _, l := range strings.Split(strings.TrimSuffix(res.Content, "\n"), "\n") {
		m := readLine().FindStringSubmatch(l)
		if m == nil {
			break // a note after the lines (truncation, ...)
		}
		n, _ := strconv.Atoi(m[1])
		if start == 0 {
			start = n
		}
		last = n
		text = append(text, m[2])
	}
	if start == 0 {
		return nil
	}
	return marshalRecord(map[string]any{"type": "text", "file": map[string]any{
		"filePath": in.FilePath, "content": strings.Join(text, "\n"),
		"numLines": len(text), "startLine": start, "totalLines": last,
	}})
}

// Record stores Bash's output as Claude Code's stdout record.
func (t *bashTool) Record(_ json.RawMessage, res *Result) json.RawMessage {
	return marshalRecord(map[string]any{"stdout": res.Content, "stderr": "", "interrupted": false, "isImage": false})
}

// Record stores Grep's output as Claude Code's record of its mode.
func (t *grepTool) Record(input json.RawMessage, res *Result) json.RawMessage {
	var in struct {
		OutputMode string `json:"output_mode"`
	}
	_ = json.Unmarshal(input, &in)
	lines := strings.Split(strings.TrimSpace(res.Content), "\n")
	if in.OutputMode == "" || in.OutputMode == "files_with_matches" {
		var files []string
		if len(lines) > 0 && strings.HasPrefix(lines[0], "Found ") {
			for _, l := range lines[1:] {
				if l == "" {
					break
				}
				files = append(files, l)
			}
		}
		return marshalRecord(map[string]any{"mode": "files_with_matches", "filenames": nonNil(files), "numFiles": len(files)})
	}
	return marshalRecord(map[string]any{"mode": in.OutputMode, "filenames": []string{}, "numFiles": 0, "content": res.Content, "numLines": len(lines)})
}

// Record stores the files Glob found as Claude Code's record.
func (t *globTool) Record(_ json.RawMessage, res *Result) json.RawMessage {
	var files []string
	if res.Content != "No files found" {
		for _, l := range strings.Split(strings.TrimSpace(res.Content), "\n") {
			if l == "" || strings.HasPrefix(l, "(Results are truncated") {
				break
			}
			files = append(files, l)
		}
	}
	return marshalRecord(map[string]any{"filenames": nonNil(files), "durationMs": 0, "numFiles": len(files), "truncated": strings.Contains(res.Content, "(Results are truncated")})
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
