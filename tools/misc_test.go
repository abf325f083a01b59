package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/schema"
)

func TestMultiEdit(t *testing.T) {
	src := "a := 1\nb := 2\nc := 3\nb := 2\n"
	edit := func(o, n string, all ...bool) obj {
		e := obj{"old_string": o, "new_string": n}
		if len(all) > 0 {
			e["replace_all"] = all[0]
		}
		return e
	}
	tests := []struct {
		name    string
		noRead  bool
		input   func(te *testEnv) any
		err     bool
		want    []string
		file    string
		content string
	}{
		{name: "sequential edits", input: func(te *testEnv) any {
			return obj{"file_path": te.path("f.go"), "edits": []obj{edit("a := 1", "a := 10"), edit("b := 2", "B := 2", true), edit("B := 2\nc", "B := 2\nC")}}
		}, want: []string{"Applied 3 edits (4 replacements)"}, file: "f.go", content: "a := 10\nB := 2\nC := 3\nB := 2\n"},
		{name: "later edit fails: nothing applied", input: func(te *testEnv) any {
			return obj{"file_path": te.path("f.go"), "edits": []obj{edit("a := 1", "a := 10"), edit("zzz", "y")}}
		}, err: true, want: []string{"edits[1]: old_string was not found", "no edit was applied"}, file: "f.go", content: src},
		{name: "not unique", input: func(te *testEnv) any {
			return obj{"file_path": te.path("f.go"), "edits": []obj{edit("b := 2", "b := 3")}}
		}, err: true, want: []string{"edits[0]: found 2 matches"}, file: "f.go", content: src},
		{name: "earlier edit removes later target", input: func(te *testEnv) any {
			return obj{"file_path": te.path("f.go"), "edits": []obj{edit("c := 3", "d := 4"), edit("c := 3", "e")}}
		}, err: true, want: []string{"edits[1]: old_string was not found"}, file: "f.go", content: src},
		{name: "same strings", input: func(te *testEnv) any {
			return obj{"file_path": te.path("f.go"), "edits": []obj{edit("a", "a")}}
		}, err: true, want: []string{"edits[0]: no changes to make"}},
		{name: "unread", noRead: true, input: func(te *testEnv) any {
			return obj{"file_path": te.path("f.go"), "edits": []obj{edit("a := 1", "x")}}
		}, err: true, want: []string{"has not been read yet"}, file: "f.go", content: src},
		{name: "create", input: func(te *testEnv) any {
			return obj{"file_path": te.path("new.go"), "edits": []obj{edit("", "x := 1\n"), edit("1", "2")}}
		}, want: []string{"File created"}, file: "new.go", content: "x := 2\n"},
		{name: "missing file", input: func(te *testEnv) any {
			return obj{"file_path": te.path("none.go"), "edits": []obj{edit("a", "b")}}
		}, err: true, want: []string{"file does not exist"}},
		{name: "empty edits", input: func(te *testEnv) any {
			return obj{"file_path": te.path("f.go"), "edits": []obj{}}
		}, err: true, want: []string{"edits: must hold at least one edit"}},
		{name: "missing edits", input: func(te *testEnv) any { return obj{"file_path": te.path("f.go")} },
			err: true, want: []string{"edits: required field is missing"}},
		{name: "edits wrong type", input: func(te *testEnv) any { return obj{"file_path": te.path("f.go"), "edits": "x"} },
			err: true, want: []string{"edits: expected array, got string"}},
		{name: "edit missing new_string", input: func(te *testEnv) any {
			return obj{"file_path": te.path("f.go"), "edits": []obj{edit("a", "b"), {"old_string": "c"}}}
		}, err: true, want: []string{"edits[1].new_string: required field is missing"}},
		{name: "edit wrong type", input: func(te *testEnv) any {
			return obj{"file_path": te.path("f.go"), "edits": []any{edit("a", "b"), obj{"old_string": "c", "new_string": 5}}}
		}, err: true, want: []string{"edits[1].new_string: expected string, got number"}},
		{name: "edit not an object", input: func(te *testEnv) any {
			return obj{"file_path": te.path("f.go"), "edits": []any{"x"}}
		}, err: true, want: []string{"edits[0]: expected a JSON object, got string"}},
		{name: "outside", input: func(te *testEnv) any {
			return obj{"file_path": "../f.go", "edits": []obj{edit("a", "b")}}
		}, err: true, want: []string{"outside the workspace"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			te := newTestEnv(t)
			te.write(t, map[string]string{"f.go": src})
			if !tt.noRead {
				te.run(t, "Read", obj{"file_path": te.path("f.go")})
			}
			res := te.run(t, "MultiEdit", tt.input(te))
			wantResult(t, res, tt.err, tt.want...)
			if tt.file != "" {
				if got := te.read(t, tt.file); got != tt.content {
					t.Errorf("file = %q, want %q", got, tt.content)
				}
			}
			if !tt.err && (len(res.Display) != 1 || res.Display[0].Type != "diff") {
				t.Errorf("display = %+v", res.Display)
			}
		})
	}
}

// setMtimes gives the files ascending modification times in list order.
func setMtimes(t *testing.T, te *testEnv, names ...string) {
	t.Helper()
	base := time.Now().Add(-time.Hour)
	for i, n := range names {
		mt := base.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(te.path(n), mt, mt); err != nil {
			t.Fatal(err)
		}
	}
}

func TestGlob(t *testing.T) {
	te := newTestEnv(t)
	te.write(t, map[string]string{
		"a.go":               "",
		"b.go":               "",
		"README.md":          "",
		"sub/c.go":           "",
		"sub/deep/d.go":      "",
		"sub/deep/e.txt":     "",
		".hidden/h.go":       "",
		".gitignore":         "ignored/\n*.gen.go\n",
		"ignored/i.go":       "",
		"x.gen.go":           "",
		"sub/.gitignore":     "deep/d.go\n!keep.gen.go\n",
		"sub/keep.gen.go":    "",
		".git/config.go":     "",
		"vendor/v/w.go":      "",
		"sub/other/f.go":     "",
		"sub/other/g.gotmpl": "",
	})
	setMtimes(t, te, "README.md", "sub/deep/e.txt", "sub/c.go", "a.go", "b.go", "sub/keep.gen.go", "sub/other/f.go", ".hidden/h.go", "vendor/v/w.go")
	// Links in a pattern's leading directories are not followed, as
	// links met in the walk are not: this one leads out of the workspace.
	outside := filepath.Join(filepath.Dir(te.root), "outside")
	if err := writeFiles(outside, map[string]string{"secret.go": ""}); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, te.path("link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(te.path("sub"), te.path("sub/alias")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		input obj
		err   bool
		want  []string // paths relative to root, in order
		cont  []string
	}{
		{name: "all go newest first", input: obj{"pattern": "**/*.go"},
			want: []string{"vendor/v/w.go", ".hidden/h.go", "sub/other/f.go", "sub/keep.gen.go", "b.go", "a.go", "sub/c.go"}},
		{name: "top level only", input: obj{"pattern": "*.go"}, want: []string{"b.go", "a.go"}},
		{name: "static base", input: obj{"pattern": "sub/**/*.go"}, want: []string{"sub/other/f.go", "sub/keep.gen.go", "sub/c.go"}},
		{name: "path", input: obj{"pattern": "*.go", "path": "sub"}, want: []string{"sub/keep.gen.go", "sub/c.go"}},
		{name: "middle segment", input: obj{"pattern": "sub/*/*.go"}, want: []string{"sub/other/f.go"}},
		{name: "braces", input: obj{"pattern": "**/*.{md,txt}"}, want: []string{"sub/deep/e.txt", "README.md"}},
		{name: "absolute pattern", input: obj{"pattern": te.path("sub") + "/*.go"}, want: []string{"sub/keep.gen.go", "sub/c.go"}},
		{name: "no match", input: obj{"pattern": "**/*.rs"}, cont: []string{"No files found"}},
		{name: "missing base dir", input: obj{"pattern": "nope/**/*.go"}, cont: []string{"No files found"}},
		{name: "invalid pattern", input: obj{"pattern": "[a-"}, err: true, cont: []string{`pattern: invalid glob pattern "[a-"`}},
		{name: "missing pattern", input: obj{}, err: true, cont: []string{"pattern: required field is missing"}},
		{name: "pattern wrong type", input: obj{"pattern": 3}, err: true, cont: []string{"pattern: expected string, got number"}},
		{name: "path not a dir", input: obj{"pattern": "*", "path": "a.go"}, err: true, cont: []string{"path: not a directory"}},
		{name: "path missing", input: obj{"pattern": "*", "path": "nope"}, err: true, cont: []string{"path: directory does not exist"}},
		{name: "path outside", input: obj{"pattern": "*", "path": "/etc"}, err: true, cont: []string{"outside the workspace"}},
		{name: "path dotdot", input: obj{"pattern": "*", "path": "sub/../.."}, err: true, cont: []string{"outside the workspace"}},
		{name: "link out in static base", input: obj{"pattern": "link/**"}, err: true, cont: []string{"outside the workspace"}},
		{name: "link inside in static base", input: obj{"pattern": "sub/alias/*.go"}, want: []string{"sub/keep.gen.go", "sub/c.go"}},
		{name: "dotdot in pattern", input: obj{"pattern": "../outside/*.go"}, err: true, cont: []string{"outside the workspace"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := te.run(t, "Glob", tt.input)
			wantResult(t, res, tt.err, tt.cont...)
			if tt.want != nil {
				var want strings.Builder
				for _, w := range tt.want {
					want.WriteString(te.path(w) + "\n")
				}
				if res.Content != want.String() {
					t.Errorf("got:\n%s\nwant:\n%s", res.Content, want.String())
				}
			}
		})
	}
}

func TestGlobCap(t *testing.T) {
	te := newTestEnv(t)
	files := map[string]string{}
	for i := range 150 {
		files[fmt.Sprintf("d%d/f%03d.txt", i%7, i)] = ""
	}
	te.write(t, files)
	res := te.run(t, "Glob", obj{"pattern": "**/*.txt"})
	wantResult(t, res, false, "showing the 100 most recently modified of 150 files")
	if n := strings.Count(res.Content, te.root); n != 100 {
		t.Errorf("%d paths listed, want 100", n)
	}
}

func TestLS(t *testing.T) {
	te := newTestEnv(t)
	te.write(t, map[string]string{
		"a.go":              "",
		"a/b.go":            "",
		"a/z/y.txt":         "",
		"build/out.o":       "",
		"node_modules/m.js": "",
		"app.log":           "",
		".gitignore":        "build/\n",
		".git/HEAD":         "",
	})
	tests := []struct {
		name  string
		input obj
		err   bool
		exact string
		cont  []string
	}{
		{name: "tree", input: obj{"path": te.root, "ignore": []string{"node_modules", "*.log"}},
			exact: "- " + te.root + "/\n  - .gitignore\n  - a/\n    - b.go\n    - z/\n      - y.txt\n  - a.go\n"},
		{name: "default path and path ignore", input: obj{"ignore": []string{"a/*", "node_modules/", "*.log"}},
			exact: "- " + te.root + "/\n  - .gitignore\n  - a/\n  - a.go\n"},
		{name: "subdirectory", input: obj{"path": "a"}, exact: "- " + te.path("a") + "/\n  - b.go\n  - z/\n    - y.txt\n"},
		{name: "ignore wrong type", input: obj{"ignore": "x"}, err: true, cont: []string{"ignore: expected array, got string"}},
		{name: "invalid ignore", input: obj{"ignore": []string{"[x"}}, err: true, cont: []string{`ignore[0]: invalid glob pattern "[x"`}},
		{name: "outside", input: obj{"path": "/"}, err: true, cont: []string{"outside the workspace"}},
		{name: "not a dir", input: obj{"path": "a.go"}, err: true, cont: []string{"not a directory"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := te.run(t, "LS", tt.input)
			wantResult(t, res, tt.err, tt.cont...)
			if tt.exact != "" && res.Content != tt.exact {
				t.Errorf("got:\n%s\nwant:\n%s", res.Content, tt.exact)
			}
		})
	}
}

func TestLSCap(t *testing.T) {
	te := newTestEnv(t)
	files := map[string]string{"top.txt": ""}
	for i := range LSLimit + 10 {
		files[fmt.Sprintf("many/f%04d", i)] = ""
	}
	te.write(t, files)
	res := te.run(t, "LS", obj{})
	wantResult(t, res, false, "There are more than 1000", "  - top.txt\n")
}

func TestTodoWrite(t *testing.T) {
	te := newTestEnv(t)
	var got []schema.PlanEntry
	te.OnPlan = func(e []schema.PlanEntry) { got = e }
	item := func(c, s, a string) obj { return obj{"content": c, "status": s, "activeForm": a} }
	res := te.run(t, "TodoWrite", obj{"todos": []obj{item("Run tests", "in_progress", "Running tests"), item("Fix bug", "pending", "Fixing bug"), item("Read code", "completed", "Reading code")}})
	wantResult(t, res, false, "Todos have been modified successfully")
	want := []schema.PlanEntry{{Content: "Run tests", Priority: "medium", Status: "in_progress"}, {Content: "Fix bug", Priority: "medium", Status: "pending"}, {Content: "Read code", Priority: "medium", Status: "completed"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("plan = %+v, want %+v", got, want)
	}
	bad := []struct {
		input any
		want  string
	}{
		{obj{}, "todos: required field is missing"},
		{obj{"todos": "x"}, "todos: expected array, got string"},
		{obj{"todos": []obj{{"content": "a", "status": "pending"}}}, "todos[0].activeForm: required field is missing"},
		{obj{"todos": []obj{item("a", "done", "A")}}, `todos[0].status: must be pending, in_progress or completed, got "done"`},
		{obj{"todos": []obj{item("a", "pending", "A"), item(" ", "pending", "B")}}, "todos[1].content: must not be empty"},
		{obj{"todos": []any{obj{"content": 1, "status": "pending", "activeForm": "x"}}}, "todos[0].content: expected string, got number"},
	}
	for _, b := range bad {
		got = nil
		res := te.run(t, "TodoWrite", b.input)
		wantResult(t, res, true, b.want)
		if got != nil {
			t.Errorf("OnPlan called for bad input %v", b.input)
		}
	}
	// An empty list clears the plan.
	res = te.run(t, "TodoWrite", obj{"todos": []obj{}})
	wantResult(t, res, false)
	if got == nil || len(got) != 0 {
		t.Errorf("plan = %#v, want empty", got)
	}
}
