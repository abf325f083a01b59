package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/google/jsonschema-go/jsonschema"
)

//go:embed lsp.md
var lspDescription string

// lspTool is the LSP tool: code navigation through the language servers.
type lspTool struct{ env *Env }

// lspInput is Claude Code's LSP tool input, plus query for
// workspaceSymbol.
type lspInput struct {
	Operation string `json:"operation" jsonschema:"What to ask"`
	FilePath  string `json:"filePath" jsonschema:"The absolute path of the file"`
	Line      int    `json:"line,omitempty" jsonschema:"1-based line of the symbol"`
	Character int    `json:"character,omitempty" jsonschema:"1-based column of the symbol"`
	Query     string `json:"query,omitempty" jsonschema:"The symbol name to look for (workspaceSymbol)"`
}

// LSPOperations are the operations of the LSP tool.
var LSPOperations = []string{"goToDefinition", "findReferences", "hover", "documentSymbol", "workspaceSymbol", "goToImplementation"}

var lspSchema = InputSchema[lspInput](func(s *jsonschema.Schema) {
	Property(s, "operation").Enum = Enum(LSPOperations)
	Property(s, "line").Minimum = jsonschema.Ptr(1.0)
	Property(s, "character").Minimum = jsonschema.Ptr(1.0)
})

func (t *lspTool) Spec() Spec {
	return Spec{
		Name:        "LSP",
		Description: lspDescription,
		InputSchema: lspSchema(),
		Kind:        schema.KindSearch,
		ReadOnly:    true,
		Access:      AccessRead,
		PathFields:  []string{"filePath"},
	}
}

func (t *lspTool) parse(input json.RawMessage) (lspInput, string, error) {
	var in lspInput
	if err := DecodeInput(input, &in); err != nil {
		return in, "", err
	}
	if !slices.Contains(LSPOperations, in.Operation) {
		return in, "", fmt.Errorf("unknown operation %q; use one of %s", in.Operation, strings.Join(LSPOperations, ", "))
	}
	needsPos := in.Operation != "documentSymbol" && in.Operation != "workspaceSymbol"
	if needsPos && (in.Line < 1 || in.Character < 1) {
		return in, "", fmt.Errorf("%s needs line and character (1-based)", in.Operation)
	}
	path, err := t.env.Resolve(in.FilePath)
	return in, path, err
}

// Preview names the file, for the permission gate.
func (t *lspTool) Preview(_ context.Context, input json.RawMessage) (*Preview, error) {
	in, path, err := t.parse(input)
	if err != nil {
		return nil, err
	}
	loc := schema.Location{Path: path}
	if in.Line > 0 {
		loc.Line = intPtr(in.Line - 1)
	}
	return &Preview{Title: "LSP " + in.Operation + " " + path, Paths: []string{path}, Locations: []schema.Location{loc}}, nil
}

func (t *lspTool) Run(ctx context.Context, input json.RawMessage) *Result {
	in, path, err := t.parse(input)
	if err != nil {
		return inputError(err)
	}
	if !t.env.Code.Handles(path) {
		return Errorf("no language server covers %s", path)
	}
	content, exists, err := t.env.readCurrent(path)
	switch {
	case err != nil:
		return Errorf("%v", err)
	case !exists:
		return Errorf("file does not exist: %s", path)
	}
	q := CodeQuery{Op: in.Operation, Path: path, Text: content, Line: in.Line, Character: in.Character, Symbol: in.Query}
	if hidden := t.env.hider("Read"); hidden != nil {
		// LSP is in Read's family: what a Read rule hides is not shown
		// through a definition, a reference, a symbol or a hover.
		q.Hidden = func(p string) bool {
			if hidden(p) {
				return true
			}
			real, err := resolveExisting(p)
			return err != nil || hidden(real)
		}
	}
	out, err := t.env.Code.Ask(ctx, q)
	if err != nil {
		return Errorf("%s: %v", in.Operation, err)
	}
	return Text(out)
}
