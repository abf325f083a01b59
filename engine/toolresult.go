package engine

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/agent-lsp/agent-lsp/diffs"
	"github.com/agent-lsp/agent-lsp/schema"
)

// What a file-changing tool call did is stored beside its result in
// Claude Code's toolUseResult shape, so that a replay (ours, or Claude
// Code's resume screen) shows the change as it was, without reading the
// file as it is now. Claude Code writes the same for its own calls.

// editInput is the input of Edit, MultiEdit and Write.
type editInput struct {
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

// toolUseResult is Claude Code's toolUseResult of Edit, MultiEdit and
// Write (the union of their fields).
type toolUseResult struct {
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

// editResult returns the toolUseResult of a finished call of a
// file-changing tool, from its input and the diff it showed; nil for other
// tools and calls that changed nothing.
func editResult(name string, input json.RawMessage, display []schema.ToolCallContent) json.RawMessage {
	var diff *schema.ToolCallContent
	for i := range display {
		if display[i].Type == "diff" {
			diff = &display[i]
			break
		}
	}
	if diff == nil {
		return nil
	}
	var in editInput
	if json.Unmarshal(input, &in) != nil {
		return nil
	}
	old := ""
	if diff.OldText != nil {
		old = *diff.OldText
	}
	r := toolUseResult{FilePath: diff.Path, StructuredPatch: diffs.Hunks(old, diff.NewText)}
	switch name {
	case "Edit":
		r.OldString, r.NewString, r.ReplaceAll = &in.OldString, &in.NewString, &in.ReplaceAll
		r.OriginalFile = &old
		r.UserModified = !strings.Contains(diff.NewText, in.NewString)
	case "MultiEdit":
		r.Edits = in.Edits
		r.OriginalFileContents = &old
	case "Write":
		r.Type, r.Content = "update", &diff.NewText
		if diff.OldText == nil {
			r.Type = "create"
		} else {
			r.OriginalFile = &old
		}
		r.UserModified = diff.NewText != in.Content
	default:
		return nil
	}
	raw, err := json.Marshal(r)
	if err != nil {
		return nil
	}
	return raw
}

// replayDiffs returns the diffs a replayed Edit, MultiEdit or Write shows:
// the whole-file change when the stored toolUseResult has the original
// file, else the strings of the call's input (as claude-agent-acp shows
// them). ok is false for other tools.
func replayDiffs(name string, input, stored json.RawMessage) (out []schema.ToolCallContent, path string, ok bool) {
	if name != "Edit" && name != "MultiEdit" && name != "Write" {
		return nil, "", false
	}
	var in editInput
	_ = json.Unmarshal(input, &in)
	path = in.FilePath
	var r struct {
		Type                 string       `json:"type"`
		FilePath             string       `json:"filePath"`
		OldString            *string      `json:"oldString"`
		NewString            *string      `json:"newString"`
		ReplaceAll           bool         `json:"replaceAll"`
		Content              *string      `json:"content"`
		OriginalFile         *string      `json:"originalFile"`
		OriginalFileContents *string      `json:"originalFileContents"`
		StructuredPatch      []diffs.Hunk `json:"structuredPatch"`
	}
	if len(stored) > 0 && stored[0] == '{' && json.Unmarshal(stored, &r) == nil {
		if r.FilePath != "" {
			path = r.FilePath
		}
		orig := r.OriginalFile
		if orig == nil {
			orig = r.OriginalFileContents
		}
		switch {
		case name == "Write" && r.Content != nil:
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
	}
	if path == "" {
		return nil, "", true
	}
	switch name {
	case "Write":
		out = append(out, schema.DiffContent(path, "", in.Content, true))
	case "Edit":
		out = append(out, schema.DiffContent(path, in.OldString, in.NewString, in.OldString == ""))
	case "MultiEdit":
		for _, e := range in.Edits {
			out = append(out, schema.DiffContent(path, e.OldString, e.NewString, false))
		}
	}
	return out, path, true
}

// readLine is one line of Read's output: its number and text ("   12\tx").
var readLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ *(\d+)\t(.*)$`) })

// viewResult returns Claude Code's toolUseResult of a finished Read,
// Bash, Grep or Glob call, rebuilt from what the model saw, so Claude
// Code's resume screen renders the call as it renders its own; nil for
// other tools and output that does not parse. A Read's totalLines is the
// last line read (the file's length is not known here).
func viewResult(name string, input json.RawMessage, content string) json.RawMessage {
	var v any
	switch name {
	case "Bash":
		v = map[string]any{"stdout": content, "stderr": "", "interrupted": false, "isImage": false}
	case "Read":
		var in struct {
			FilePath string `json:"file_path"`
		}
		if json.Unmarshal(input, &in) != nil || in.FilePath == "" {
			return nil
		}
		var text []string
		start, last := 0, 0
		for _, l := range strings.Split(strings.TrimSuffix(content, "\n"), "\n") {
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
		v = map[string]any{"type": "text", "file": map[string]any{
			"filePath": in.FilePath, "content": strings.Join(text, "\n"),
			"numLines": len(text), "startLine": start, "totalLines": last,
		}}
	case "Grep":
		var in struct {
			OutputMode string `json:"output_mode"`
		}
		json.Unmarshal(input, &in)
		lines := strings.Split(strings.TrimSpace(content), "\n")
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
			v = map[string]any{"mode": "files_with_matches", "filenames": nonNil(files), "numFiles": len(files)}
			break
		}
		v = map[string]any{"mode": in.OutputMode, "filenames": []string{}, "numFiles": 0, "content": content, "numLines": len(lines)}
	case "Glob":
		var files []string
		if content != "No files found" {
			for _, l := range strings.Split(strings.TrimSpace(content), "\n") {
				if l == "" || strings.HasPrefix(l, "(Results are truncated") {
					break
				}
				files = append(files, l)
			}
		}
		v = map[string]any{"filenames": nonNil(files), "durationMs": 0, "numFiles": len(files), "truncated": strings.Contains(content, "(Results are truncated")}
	default:
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
