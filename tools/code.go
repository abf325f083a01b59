package tools

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
)

// CodeIntel is what the session's language servers (its own, or the
// editor's) know about its files. Paths are absolute; text is the file's
// current content as the session sees it (the editor's buffer).
type CodeIntel interface {
	// Handles reports whether some language server covers path.
	Handles(path string) bool
	// Touch lets the server of path know the file in the background, so
	// that later questions are answered quickly.
	Touch(path string, text []byte)
	// Diagnostics returns the problems of path with content text,
	// waiting a bounded time for the server to look at that text. ok is
	// false when no answer came in time.
	Diagnostics(ctx context.Context, path string, text []byte) (diags []Diagnostic, ok bool, err error)
	// Published returns the last known problems of every file.
	Published(ctx context.Context) []Diagnostic
	// Ask asks the language server of q.Path about it and returns the
	// answer as text for the model.
	Ask(ctx context.Context, q CodeQuery) (string, error)
}

// Diagnostic is one problem a language server reported. Its fields are
// those of langserver.Diagnostic, so either converts to the other.
type Diagnostic struct {
	Path         string
	Line, Column int // 1-based
	Severity     string
	Message      string
	Source       string
	Code         string
}

// CodeQuery is a question of the LSP tool.
type CodeQuery struct {
	Op              string
	Path            string
	Text            []byte
	Line, Character int // 1-based
	Symbol          string
	// Hidden reports the files the Read rules keep from the model (nil
	// for none): the answer leaves them out.
	Hidden func(path string) bool
}

// EditDiagnosticsCap is the most diagnostics an edit result lists.
const EditDiagnosticsCap = 10

// isProblem reports whether d is an error or a warning.
func isProblem(d Diagnostic) bool { return d.Severity == "error" || d.Severity == "warning" }

// diagKey identifies a diagnostic across edits, whose lines move.
func diagKey(d Diagnostic) string {
	return d.Severity + "\x00" + d.Source + "\x00" + d.Code + "\x00" + d.Message
}

// NewProblems returns the errors and warnings of after that before does
// not have: each diagnostic of before cancels one of after with the same
// severity, source, code and message, wherever they are.
func NewProblems(before, after []Diagnostic) []Diagnostic {
	seen := map[string]int{}
	for _, d := range before {
		seen[diagKey(d)]++
	}
	var out []Diagnostic
	for _, d := range after {
		if !isProblem(d) {
			continue
		}
		if k := diagKey(d); seen[k] > 0 {
			seen[k]--
			continue
		}
		out = append(out, d)
	}
	return out
}

// FormatDiagnostics lists diags, at most limit of them (0: all), with
// paths relative to cwd.
func FormatDiagnostics(diags []Diagnostic, cwd string, limit int) string {
	var b strings.Builder
	for i, d := range diags {
		if limit > 0 && i == limit {
			fmt.Fprintf(&b, "... and %d more\n", len(diags)-limit)
			break
		}
		p := d.Path
		if r, err := filepath.Rel(cwd, p); err == nil && !strings.HasPrefix(r, "..") {
			p = r
		}
		fmt.Fprintf(&b, "%s:%d:%d: %s: %s", p, d.Line, d.Column, d.Severity, d.Message)
		if d.Source != "" {
			fmt.Fprintf(&b, " [%s]", d.Source)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// editDiagnostics is what an edit's result adds about the problems the
// change introduced: "" when there are none, or no server answered.
type editDiagnostics struct {
	before   []Diagnostic
	beforeOK bool
}

// diagnoseBefore records the problems of path before a change, when a
// language server covers it.
func (e *Env) diagnoseBefore(ctx context.Context, path string, old []byte, created bool) *editDiagnostics {
	if e.Code == nil || !e.Code.Handles(path) {
		return nil
	}
	ed := &editDiagnostics{beforeOK: created}
	if !created {
		ed.before, ed.beforeOK, _ = e.Code.Diagnostics(ctx, path, old)
	}
	return ed
}

// after returns the text to append to an edit's result: the errors and
// warnings that the change introduced in path.
func (ed *editDiagnostics) after(ctx context.Context, e *Env, path string, text []byte) string {
	if ed == nil {
		return ""
	}
	diags, ok, err := e.Code.Diagnostics(ctx, path, text)
	if err != nil || !ok {
		return ""
	}
	if !ed.beforeOK {
		// Nothing to compare with: report every problem of the file.
		fresh := NewProblems(nil, diags)
		if len(fresh) == 0 {
			return ""
		}
		return "\n\nProblems in the file after this edit (the language server did not answer before it):\n" + FormatDiagnostics(fresh, e.Cwd, EditDiagnosticsCap)
	}
	fresh := NewProblems(ed.before, diags)
	if len(fresh) == 0 {
		return ""
	}
	return "\n\nThis edit introduced new problems; fix them before going on:\n" + FormatDiagnostics(fresh, e.Cwd, EditDiagnosticsCap)
}
