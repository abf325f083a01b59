package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/agent-lsp/agent-lsp/schema"
)

//go:embed write.md
var writeDescription string

// writeTool is the Write tool.
type writeTool struct{ env *Env }

type writeInput struct {
	FilePath string `json:"file_path" jsonschema:"The absolute path to the file to write (must be absolute, not relative)"`
	Content  string `json:"content" jsonschema:"The content to write to the file"`
}

var writeSchema = InputSchema[writeInput](nil)

func (t *writeTool) Spec() Spec {
	return Spec{
		Name:        "Write",
		Description: writeDescription,
		InputSchema: writeSchema(),
		Kind:        schema.KindEdit,
		Access:      AccessEdit,
		PathFields:  []string{"file_path"},
	}
}

func (t *writeTool) plan(input json.RawMessage) (*change, error) {
	var in writeInput
	if err := DecodeInput(input, &in); err != nil {
		return nil, fmt.Errorf("invalid input: %w", err)
	}
	path, err := t.env.Resolve(in.FilePath)
	if err != nil {
		return nil, err
	}
	old, exists, err := t.env.readCurrent(path)
	if err != nil {
		return nil, err
	}
	c := &change{path: path, old: old, new: []byte(in.Content), created: !exists}
	if !exists {
		c.summary = "File created successfully at: " + path
		return c, nil
	}
	if err := t.env.checkFresh(path, old); err != nil {
		return nil, err
	}
	c.line = firstChangedLine(c.old, c.new)
	c.summary = fmt.Sprintf("The file %s has been overwritten (%d bytes).", path, len(c.new))
	return c, nil
}

// Preview returns the file change the call would make; it fails as Run
// would.
func (t *writeTool) Preview(_ context.Context, input json.RawMessage) (*Preview, error) {
	return previewChange(t.plan, "Write", input)
}

func (t *writeTool) Run(ctx context.Context, input json.RawMessage) *Result {
	return runChange(ctx, t.env, t.plan, "Write", input)
}
