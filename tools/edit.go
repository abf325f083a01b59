package tools

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/google/jsonschema-go/jsonschema"
)

//go:embed edit.md
var editDescription string

// editTool is the Edit tool.
type editTool struct{ env *Env }

type editInput struct {
	FilePath   string `json:"file_path" jsonschema:"The absolute path to the file to modify"`
	OldString  string `json:"old_string" jsonschema:"The text to replace"`
	NewString  string `json:"new_string" jsonschema:"The text to replace it with (must be different from old_string)"`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"Replace all occurrences of old_string (default false)"`
}

var editSchema = InputSchema[editInput](func(s *jsonschema.Schema) {
	Property(s, "replace_all").Default = json.RawMessage("false")
})

func (t *editTool) Spec() Spec {
	return Spec{
		Name:        "Edit",
		Description: editDescription,
		InputSchema: editSchema(),
		Kind:        schema.KindEdit,
		Access:      AccessEdit,
		PathFields:  []string{"file_path"},
	}
}

func (t *editTool) plan(input json.RawMessage) (*change, error) {
	var in editInput
	if err := DecodeInput(input, &in); err != nil {
		return nil, fmt.Errorf("invalid input: %w", err)
	}
	if in.OldString == in.NewString {
		return nil, fmt.Errorf("no changes to make: old_string and new_string are exactly the same")
	}
	path, err := t.env.Resolve(in.FilePath)
	if err != nil {
		return nil, err
	}
	old, exists, err := t.env.readCurrent(path)
	if err != nil {
		return nil, err
	}
	if !exists {
		if in.OldString != "" {
			return nil, fmt.Errorf("file does not exist: %s. To create a file, use Write, or Edit with an empty old_string", path)
		}
		return &change{path: path, new: []byte(in.NewString), created: true,
			summary: "File created successfully at: " + path}, nil
	}
	if err := t.env.checkFresh(path, old); err != nil {
		return nil, err
	}
	edited, off, n, err := replace(old, in.OldString, in.NewString, in.ReplaceAll)
	if err != nil {
		return nil, fmt.Errorf("%v in %s", err, path)
	}
	c := &change{path: path, old: old, new: edited, line: lineOf(edited, off)}
	c.summary = editSnippet(path, edited, c.line)
	if n > 1 {
		c.summary = fmt.Sprintf("Replaced %d occurrences. %s", n, c.summary)
	}
	return c, nil
}

// Preview returns the file change the call would make; it fails as Run
// would.
func (t *editTool) Preview(_ context.Context, input json.RawMessage) (*Preview, error) {
	return previewChange(t.plan, "Edit", input)
}

func (t *editTool) Run(ctx context.Context, input json.RawMessage) *Result {
	return runChange(ctx, t.env, t.plan, "Edit", input)
}

// replace replaces oldS by newS in content: the single occurrence, or
// every one when all is set. It returns the new text, the offset of the
// first replacement in it and the number of replacements. When content
// uses CRLF line endings and oldS, written with LF, matches only once
// converted, both strings are converted.
func replace(content []byte, oldS, newS string, all bool) (out []byte, first, n int, err error) {
	if oldS == "" {
		if len(content) > 0 {
			return nil, 0, 0, fmt.Errorf("old_string is empty but the file is not; give the text to replace, or use Write to replace the whole file")
		}
		return []byte(newS), 0, 1, nil
	}
	n = bytes.Count(content, []byte(oldS))
	if n == 0 && strings.Contains(oldS, "\n") && !strings.Contains(oldS, "\r\n") && bytes.Contains(content, []byte("\r\n")) {
		oldS = strings.ReplaceAll(oldS, "\n", "\r\n")
		newS = strings.ReplaceAll(strings.ReplaceAll(newS, "\r\n", "\n"), "\n", "\r\n")
		n = bytes.Count(content, []byte(oldS))
	}
	switch {
	case n == 0:
		return nil, 0, 0, fmt.Errorf("old_string was not found; it must match the file's text exactly, including whitespace and indentation (Read the file again to see its current text)")
	case n > 1 && !all:
		return nil, 0, 0, fmt.Errorf("found %d matches of old_string but replace_all is false; add more surrounding context to old_string to make it unique, or set replace_all to true to replace every occurrence", n)
	}
	first = bytes.Index(content, []byte(oldS))
	if all {
		return bytes.ReplaceAll(content, []byte(oldS), []byte(newS)), first, n, nil
	}
	out = make([]byte, 0, len(content)-len(oldS)+len(newS))
	out = append(out, content[:first]...)
	out = append(out, newS...)
	out = append(out, content[first+len(oldS):]...)
	return out, first, 1, nil
}
