package tools

import (
	"context"
	"encoding/json"

	"github.com/agent-lsp/agent-lsp/schema"
)

// Tool is one tool the model can call. Tools are built per session by New
// and may keep per-session state.
type Tool interface {
	Spec() Spec
	// Run executes the tool. It never panics on bad input: missing or
	// wrong-typed fields come back as an error Result naming the field.
	// When ctx is cancelled, Run stops promptly (killing any process it
	// started) and returns.
	Run(ctx context.Context, input json.RawMessage) *Result
}

// Previewer is implemented by tools that can describe what a call would do
// before it runs, for the permission prompt: the diff an edit would make,
// the command a shell call would run.
type Previewer interface {
	Preview(ctx context.Context, input json.RawMessage) (*Preview, error)
}

// Spec is a tool as the model and the permission gate see it.
type Spec struct {
	Name        string
	Description string
	InputSchema json.RawMessage
	// Kind is the ACP tool kind (schema.KindRead, KindEdit, ...).
	Kind string
	// ReadOnly tools change nothing; several read-only calls from one model
	// message may run concurrently.
	ReadOnly bool
}

// Result is the outcome of a tool call.
type Result struct {
	// Content is what the model sees.
	Content string
	IsError bool
	// Images are extra image blocks for the model (base64), if any.
	Images []Image
	// Display is what the editor shows, when it differs from Content:
	// diffs of edited files, text output.
	Display []schema.ToolCallContent
	// Locations are the files (and lines) the call touched.
	Locations []schema.Location
	// Title, when set, replaces the title shown for the call once it ends.
	Title string
}

// Image is an inline image.
type Image struct {
	MediaType string
	Data      string // base64
}

// Preview describes a call before it runs.
type Preview struct {
	// Title is a one-line summary for the user ("Edit calc.py").
	Title string
	// Paths are the absolute, symlink-resolved files the call would read
	// or change.
	Paths []string
	// Command is the shell command, for Bash.
	Command string
	// Edits are the file changes the call would make.
	Edits     []FileEdit
	Locations []schema.Location
}

// FileEdit is a whole-file change: Old is the current text (empty and
// Created set for a new file), New the text after the edit.
type FileEdit struct {
	Path    string
	Old     string
	New     string
	Created bool
}

// Errorf returns an error result with a formatted message.
func Errorf(format string, args ...any) *Result {
	return &Result{Content: sprintf(format, args...), IsError: true}
}

// Text returns a successful result holding s.
func Text(s string) *Result { return &Result{Content: s} }
