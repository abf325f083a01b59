package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/agent-lsp/agent-lsp/schema"
)

//go:embed diagnostics.md
var diagnosticsDescription string

// diagnosticsTool is the Diagnostics tool.
type diagnosticsTool struct{ env *Env }

type diagnosticsInput struct {
	FilePath string `json:"file_path,omitempty" jsonschema:"The absolute path of the file to check; omit it for every file the language servers know"`
}

var diagnosticsSchema = InputSchema[diagnosticsInput](nil)

// WorkspaceDiagnosticsCap is the most problems the Diagnostics tool lists
// for the whole workspace.
const WorkspaceDiagnosticsCap = 200

func (t *diagnosticsTool) Spec() Spec {
	return Spec{
		Name:        "Diagnostics",
		Description: diagnosticsDescription,
		InputSchema: diagnosticsSchema(),
		Kind:        schema.KindRead,
		ReadOnly:    true,
		Access:      AccessRead,
		PathFields:  []string{"file_path"},
	}
}

func (t *diagnosticsTool) parse(input json.RawMessage) (string, error) {
	var in diagnosticsInput
	if err := DecodeInput(input, &in); err != nil {
		return "", err
	}
	if in.FilePath == "" {
		return "", nil
	}
	return t.env.Resolve(in.FilePath)
}

// Preview names the file, for the permission gate.
func (t *diagnosticsTool) Preview(_ context.Context, input json.RawMessage) (*Preview, error) {
	path, err := t.parse(input)
	if err != nil {
		return nil, err
	}
	if path == "" {
		return &Preview{Title: "Diagnostics of the workspace"}, nil
	}
	return &Preview{Title: "Diagnostics " + path, Paths: []string{path}, Locations: []schema.Location{{Path: path}}}, nil
}

func (t *diagnosticsTool) Run(ctx context.Context, input json.RawMessage) *Result {
	path, err := t.parse(input)
	if err != nil {
		return inputError(err)
	}
	if path == "" {
		all := t.visible(t.env.Code.Published(ctx))
		if len(all) == 0 {
			return Text("No problems reported in the files the language servers have looked at.")
		}
		return Text(fmt.Sprintf("%d problem(s):\n%s", len(all), FormatDiagnostics(all, t.env.Cwd, WorkspaceDiagnosticsCap)))
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
	diags, ok, err := t.env.Code.Diagnostics(ctx, path, content)
	switch {
	case err != nil:
		return Errorf("%v", err)
	case !ok:
		return Errorf("the language server did not report on %s in time; try again", path)
	case len(diags) == 0:
		return Text("No problems in " + path)
	}
	return Text(fmt.Sprintf("%d problem(s):\n%s", len(diags), FormatDiagnostics(diags, t.env.Cwd, WorkspaceDiagnosticsCap)))
}

// visible drops the problems of files a Read deny (or ask) rule keeps
// from the model, and of files outside the workspace folders: Diagnostics
// is in Read's family, a problem's message can quote the file, and the
// workspace-wide list is given without a question. (The editor publishes
// the problems of every file it has open, ~/.ssh/config or another
// project's .env included.)
func (t *diagnosticsTool) visible(all []Diagnostic) []Diagnostic {
	hidden := t.env.hider("Read")
	return slices.DeleteFunc(slices.Clone(all), func(d Diagnostic) bool {
		real, err := resolveExisting(d.Path)
		if err != nil || !slices.ContainsFunc(t.env.Roots, func(r string) bool { return Within(r, real) }) {
			return true
		}
		return hidden != nil && (hidden(d.Path) || hidden(real))
	})
}
