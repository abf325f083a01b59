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
	// Access is what a call does, which decides the permission rules
	// that cover it: a Read(...) rule covers every AccessRead tool, an
	// Edit(...) rule every AccessEdit tool. A tool that leaves it unset
	// (AccessUndeclared) is held as a reader when it says it is
	// ReadOnly, and otherwise as the most dangerous kind: both rule
	// families' deny and ask rules cover it and it never runs without a
	// question.
	Access Access
	// PathFields name the input fields that hold the paths a call reads
	// or changes (absolute, or relative to the working directory). The
	// permission gate checks path rules (Read(secret/**)) against them,
	// with the paths of the tool's Preview. A reading or editing tool
	// that names none has paths the gate cannot know: a path rule of its
	// family then asks about every call.
	PathFields []string
}

// Access is what a tool call does to the world, as the permission gate
// sees it. The zero value is the most restrictive.
type Access int

// The accesses.
const (
	// AccessUndeclared is a tool that did not say: unless it is
	// ReadOnly it may read and change anything, so Read and Edit deny
	// rules both cover it and it always asks (plan mode refuses it).
	AccessUndeclared Access = iota
	// AccessNone tools touch no file, command or network the rules
	// govern (TodoWrite, a subagent whose own calls are checked).
	AccessNone
	// AccessRead tools read files and change nothing.
	AccessRead
	// AccessEdit tools change files.
	AccessEdit
	// AccessExecute tools run or stop commands.
	AccessExecute
	// AccessFetch tools reach the network.
	AccessFetch
)

// String returns the access's name: "read", "edit", ..., "undeclared".
func (a Access) String() string {
	switch a {
	case AccessNone:
		return "none"
	case AccessRead:
		return "read"
	case AccessEdit:
		return "edit"
	case AccessExecute:
		return "execute"
	case AccessFetch:
		return "fetch"
	}
	return "undeclared"
}

// Recorder is implemented by tools that store, beside a call's result,
// a record of what the call did in Claude Code's toolUseResult shape,
// so a replay (ours, or Claude Code's resume screen) shows the call as it
// ran without reading any file as it is now.
type Recorder interface {
	// Record returns the record of a successful call with input and
	// result res, or nil when there is none to keep.
	Record(input json.RawMessage, res *Result) json.RawMessage
}

// Replayer is implemented by tools whose replayed call shows what it
// changed: the diffs a stored call made, from its input and its Record.
type Replayer interface {
	// Replay returns the diffs to show and the file the call changed
	// ("" when unknown).
	Replay(input, record json.RawMessage) (diffs []schema.ToolCallContent, path string)
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
