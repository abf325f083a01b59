package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/google/jsonschema-go/jsonschema"
)

//go:embed multiedit.md
var multiEditDescription string

// multiEditTool is the MultiEdit tool.
type multiEditTool struct{ env *Env }

type multiEditInput struct {
	FilePath string    `json:"file_path" jsonschema:"The absolute path to the file to modify"`
	Edits    []oneEdit `json:"edits" jsonschema:"Array of edit operations to perform sequentially on the file"`
}

type oneEdit struct {
	OldString  string `json:"old_string" jsonschema:"The text to replace"`
	NewString  string `json:"new_string" jsonschema:"The text to replace it with"`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"Replace all occurrences of old_string (default false)."`
}

var multiEditSchema = InputSchema[multiEditInput](func(s *jsonschema.Schema) {
	edits := Property(s, "edits")
	edits.MinItems = jsonschema.Ptr(1)
	Property(edits.Items, "replace_all").Default = json.RawMessage("false")
})

func (t *multiEditTool) Spec() Spec {
	return Spec{
		Name:        "MultiEdit",
		Description: multiEditDescription,
		InputSchema: multiEditSchema(),
		Kind:        schema.KindEdit,
		Access:      AccessEdit,
		PathFields:  []string{"file_path"},
	}
}

func (t *multiEditTool) plan(input json.RawMessage) (*change, error) {
	var in multiEditInput
	if err := DecodeInput(input, &in); err != nil {
		return nil, fmt.Errorf("invalid input: %w", err)
	}
	edits := in.Edits
	if len(edits) == 0 {
		return nil, fmt.Errorf("invalid input: edits: must hold at least one edit")
	}
	for i := range edits {
		if edits[i].OldString == edits[i].NewString {
			return nil, fmt.Errorf("edits[%d]: no changes to make: old_string and new_string are exactly the same", i)
		}
	}
	path, err := t.env.Resolve(in.FilePath)
	if err != nil {
		return nil, err
	}
	old, exists, err := t.env.readCurrent(path)
	if err != nil {
		return nil, err
	}
	if !exists && edits[0].OldString != "" {
		return nil, fmt.Errorf("file does not exist: %s. To create a file, use Write, or make the first edit's old_string empty", path)
	}
	if exists {
		if err := t.env.checkFresh(path, old); err != nil {
			return nil, err
		}
	}
	text, first := old, -1
	total := 0
	for i, e := range edits {
		out, off, n, err := replace(text, e.OldString, e.NewString, e.ReplaceAll)
		if err != nil {
			return nil, fmt.Errorf("edits[%d]: %v in %s (after the edits before it); no edit was applied", i, err, path)
		}
		if first < 0 || off < first {
			first = off
		}
		text = out
		total += n
	}
	c := &change{path: path, old: old, new: text, created: !exists}
	c.line = firstChangedLine(old, text)
	if c.created {
		c.summary = fmt.Sprintf("File created successfully at: %s (%d edits applied)", path, len(edits))
	} else {
		c.summary = fmt.Sprintf("Applied %d edits (%d replacements). %s", len(edits), total, editSnippet(path, text, c.line))
	}
	return c, nil
}

// Preview returns the file change the call would make; it fails as Run
// would.
func (t *multiEditTool) Preview(_ context.Context, input json.RawMessage) (*Preview, error) {
	return previewChange(t.plan, "MultiEdit", input)
}

func (t *multiEditTool) Run(ctx context.Context, input json.RawMessage) *Result {
	return runChange(ctx, t.env, t.plan, "MultiEdit", input)
}
