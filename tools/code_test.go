package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeCode reports, for a text, one error per line containing "BAD",
// and a warning that never changes for lines containing "OLD".
type fakeCode struct {
	answers bool
	touched []string
	// published is what Published returns.
	published []Diagnostic
}

func (f *fakeCode) Handles(path string) bool    { return strings.HasSuffix(path, ".go") }
func (f *fakeCode) Touch(path string, _ []byte) { f.touched = append(f.touched, path) }
func (f *fakeCode) Diagnostics(_ context.Context, path string, text []byte) ([]Diagnostic, bool, error) {
	if !f.answers {
		return nil, false, nil
	}
	var out []Diagnostic
	for i, line := range strings.Split(string(text), "\n") {
		if strings.Contains(line, "BAD") {
			out = append(out, Diagnostic{Path: path, Line: i + 1, Column: 1, Severity: "error", Message: "undefined: " + strings.TrimSpace(line), Source: "compiler"})
		}
		if strings.Contains(line, "OLD") {
			out = append(out, Diagnostic{Path: path, Line: i + 1, Column: 1, Severity: "warning", Message: "deprecated"})
		}
		if strings.Contains(line, "HINT") {
			out = append(out, Diagnostic{Path: path, Line: i + 1, Column: 1, Severity: "hint", Message: "could be simpler"})
		}
	}
	return out, true, nil
}
func (f *fakeCode) Published(context.Context) []Diagnostic { return f.published }
func (f *fakeCode) Ask(_ context.Context, q CodeQuery) (string, error) {
	return fmt.Sprintf("%s %d:%d of %d bytes", q.Op, q.Line, q.Character, len(q.Text)), nil
}

func TestEditReportsNewProblems(t *testing.T) {
	many := strings.Repeat("BAD x\n", 13)
	tests := []struct {
		name      string
		file      string // a.go unless it ends in .txt
		old, new  string
		answers   bool
		want      []string
		wantNoNew bool
	}{
		{name: "new error", old: "OLD a\nok\n", new: "OLD a\nBAD b\n", answers: true, want: []string{"introduced new problems", "a.go:2:1: error: undefined: BAD b [compiler]"}},
		{name: "old warning not repeated, hint ignored", old: "OLD a\nok\n", new: "OLD a\nHINT\n", answers: true, wantNoNew: true},
		{name: "cap", old: "ok\n", new: many, answers: true, want: []string{"a.go:10:1", "... and 3 more"}},
		{name: "no answer in time", old: "ok\n", new: "BAD\n", answers: false, wantNoNew: true},
		{name: "file no server covers", file: "a.txt", old: "ok\n", new: "BAD\n", answers: true, wantNoNew: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			te := newTestEnv(t)
			code := &fakeCode{answers: tt.answers}
			te.Code = code
			te.tools = New(te.Env)
			name := "a.go"
			if tt.file != "" {
				name = tt.file
			}
			te.write(t, map[string]string{name: tt.old})
			te.run(t, "Read", map[string]any{"file_path": te.path(name)})
			res := te.run(t, "Edit", map[string]any{"file_path": te.path(name), "old_string": tt.old, "new_string": tt.new})
			if res.IsError {
				t.Fatalf("Edit failed: %s", res.Content)
			}
			if tt.wantNoNew && strings.Contains(res.Content, "problems") {
				t.Errorf("result reports problems:\n%s", res.Content)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.Content, w) {
					t.Errorf("result lacks %q:\n%s", w, res.Content)
				}
			}
			if len(tt.want) > 0 && len(res.Display) != 2 {
				t.Errorf("display has %d blocks, want the diff and the problems", len(res.Display))
			}
			if strings.Contains(res.Content, "a.go:11:1") {
				t.Error("the cap let an 11th problem through")
			}
		})
	}
}

func TestDiagnosticsAndLSPTools(t *testing.T) {
	te := newTestEnv(t)
	te.write(t, map[string]string{"a.go": "ok\nBAD y\n"})
	if Find(te.tools, "LSP") != nil || Find(te.tools, "Diagnostics") != nil {
		t.Fatal("a session without language servers offers their tools")
	}
	te.Code = &fakeCode{answers: true}
	te.tools = New(te.Env)
	res := te.run(t, "Diagnostics", map[string]any{"file_path": te.path("a.go")})
	if res.IsError || !strings.Contains(res.Content, "a.go:2:1: error: undefined: BAD y") {
		t.Errorf("Diagnostics = %+v", res)
	}
	res = te.run(t, "LSP", map[string]any{"operation": "hover", "filePath": te.path("a.go"), "line": 2, "character": 3})
	if res.IsError || res.Content != "hover 2:3 of 9 bytes" {
		t.Errorf("LSP = %+v", res)
	}
	for _, bad := range []map[string]any{
		{"operation": "rename", "filePath": te.path("a.go"), "line": 1, "character": 1},
		{"operation": "hover", "filePath": te.path("a.go")},
		{"operation": "hover", "filePath": "/etc/passwd", "line": 1, "character": 1},
	} {
		if res := te.run(t, "LSP", bad); !res.IsError {
			t.Errorf("LSP %v succeeded: %s", bad, res.Content)
		}
	}
}

// TestDiagnosticsHidesDeniedFiles: the workspace-wide Diagnostics keeps
// the problems of a file a Read deny rule covers from the model, as Grep
// keeps its lines.
func TestDiagnosticsHidesDeniedFiles(t *testing.T) {
	te := newTestEnv(t)
	te.write(t, map[string]string{"a.go": "ok\n", "secret.go": "ok\n"})
	te.Code = &fakeCode{published: []Diagnostic{
		{Path: te.path("a.go"), Line: 1, Column: 1, Severity: "error", Message: "visible problem"},
		{Path: te.path("secret.go"), Line: 1, Column: 1, Severity: "error", Message: "SECRET in a message"},
	}}
	te.Hide = globHider{globs: map[string][]string{"Read": {te.path("secret.go")}}}
	te.tools = New(te.Env)
	res := te.run(t, "Diagnostics", map[string]any{})
	if res.IsError || !strings.Contains(res.Content, "visible problem") || strings.Contains(res.Content, "SECRET") || strings.Contains(res.Content, "secret.go") {
		t.Errorf("Diagnostics = %+v; want a.go's problem and nothing of secret.go", res)
	}
}

// TestDiagnosticsLeavesOutOutsideFiles: the workspace-wide Diagnostics
// runs without a question, so it lists only the workspace's files. The
// editor publishes problems for every file it has open, and a message
// can quote a line of ~/.ssh/config or another project's .env.
func TestDiagnosticsLeavesOutOutsideFiles(t *testing.T) {
	te := newTestEnv(t)
	outside := t.TempDir()
	te.write(t, map[string]string{"a.go": "ok\n"})
	if err := os.WriteFile(filepath.Join(outside, "config"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "config"), te.path("link.go")); err != nil {
		t.Fatal(err)
	}
	te.Code = &fakeCode{published: []Diagnostic{
		{Path: te.path("a.go"), Line: 1, Column: 1, Severity: "error", Message: "visible problem"},
		{Path: filepath.Join(outside, "config"), Line: 1, Column: 1, Severity: "error", Message: "SECRET-OUTSIDE quoted"},
		{Path: te.path("link.go"), Line: 1, Column: 1, Severity: "error", Message: "SECRET-THROUGH-LINK quoted"},
		{Path: "/proc/self/environ", Line: 1, Column: 1, Severity: "error", Message: "SECRET-ENV quoted"},
	}}
	te.tools = New(te.Env)
	res := te.run(t, "Diagnostics", map[string]any{})
	if res.IsError || !strings.Contains(res.Content, "visible problem") || strings.Contains(res.Content, "SECRET") {
		t.Errorf("Diagnostics = %+v; want a.go's problem and nothing from outside the workspace", res)
	}
}
