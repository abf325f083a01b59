package tools

import (
	"context"
	"os"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	te := newTestEnv(t)
	te.write(t, map[string]string{"old.txt": "one\ntwo\n", "unread.txt": "x\n", "changed.txt": "a\n"})
	te.run(t, "Read", obj{"file_path": te.path("old.txt")})
	te.run(t, "Read", obj{"file_path": te.path("changed.txt")})
	te.write(t, map[string]string{"changed.txt": "b\n"})

	tests := []struct {
		name    string
		input   any
		err     bool
		want    []string
		file    string
		content string
	}{
		{name: "create", input: obj{"file_path": te.path("new/dir/n.txt"), "content": "hi\n"},
			want: []string{"File created successfully"}, file: "new/dir/n.txt", content: "hi\n"},
		{name: "create empty", input: obj{"file_path": "e.txt", "content": ""}, file: "e.txt", content: ""},
		{name: "overwrite read file", input: obj{"file_path": te.path("old.txt"), "content": "one\nTWO\n"},
			want: []string{"has been overwritten"}, file: "old.txt", content: "one\nTWO\n"},
		{name: "overwrite unread", input: obj{"file_path": te.path("unread.txt"), "content": "y"}, err: true,
			want: []string{"has not been read yet", "Read tool"}, file: "unread.txt", content: "x\n"},
		{name: "overwrite changed", input: obj{"file_path": te.path("changed.txt"), "content": "c"}, err: true,
			want: []string{"has changed", "Read it again"}, file: "changed.txt", content: "b\n"},
		{name: "missing content", input: obj{"file_path": te.path("z.txt")}, err: true, want: []string{"content: required field is missing"}},
		{name: "content wrong type", input: obj{"file_path": te.path("z.txt"), "content": []int{1}}, err: true, want: []string{"content: expected string, got array"}},
		{name: "missing file_path", input: obj{"content": "x"}, err: true, want: []string{"file_path: required field is missing"}},
		{name: "outside", input: obj{"file_path": te.path("../escape.txt"), "content": "x"}, err: true, want: []string{"outside the workspace"}},
		{name: "directory", input: obj{"file_path": te.root, "content": "x"}, err: true, want: []string{"is a directory"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := te.run(t, "Write", tt.input)
			wantResult(t, res, tt.err, tt.want...)
			if tt.file != "" {
				if got := te.read(t, tt.file); got != tt.content {
					t.Errorf("file = %q, want %q", got, tt.content)
				}
			}
		})
	}
	if _, err := os.Stat(te.path("../escape.txt")); err == nil {
		t.Error("Write wrote outside the workspace")
	}
}

func TestWriteDisplayAndPreview(t *testing.T) {
	te := newTestEnv(t)
	in := rawInput(t, obj{"file_path": te.path("n.txt"), "content": "new\n"})
	p, err := Find(te.tools, "Write").(Previewer).Preview(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	want := FileEdit{Path: te.path("n.txt"), New: "new\n", Created: true}
	if len(p.Edits) != 1 || p.Edits[0] != want || p.Paths[0] != te.path("n.txt") {
		t.Fatalf("preview = %+v", p)
	}
	res := Find(te.tools, "Write").Run(context.Background(), in)
	d := res.Display[0]
	if d.Type != "diff" || d.Path != te.path("n.txt") || d.OldText != nil || d.NewText != "new\n" {
		t.Fatalf("display = %+v", d)
	}
	// Written text counts as read: it can be overwritten at once.
	res = te.run(t, "Write", obj{"file_path": te.path("n.txt"), "content": "a\nb\n"})
	wantResult(t, res, false)
	if *res.Locations[0].Line != 0 || *res.Display[0].OldText != "new\n" {
		t.Errorf("locations %+v display %+v", res.Locations, res.Display)
	}
}

func TestEdit(t *testing.T) {
	src := "package main\n\nfunc a() { x := 1 }\nfunc b() { x := 1 }\nfunc c() { x := 1 }\n// unique\n"
	tests := []struct {
		name    string
		files   map[string]string
		noRead  bool
		input   func(te *testEnv) any
		err     bool
		want    []string
		file    string
		content string
	}{
		{name: "replace unique", input: func(te *testEnv) any {
			return obj{"file_path": te.path("m.go"), "old_string": "// unique", "new_string": "// changed"}
		}, want: []string{"has been updated", "     6\t// changed\n"}, file: "m.go", content: strings.Replace(src, "// unique", "// changed", 1)},
		{name: "not unique", input: func(te *testEnv) any {
			return obj{"file_path": te.path("m.go"), "old_string": "x := 1", "new_string": "x := 2"}
		}, err: true, want: []string{"found 3 matches", "add more surrounding context", "replace_all"}, file: "m.go", content: src},
		{name: "replace all", input: func(te *testEnv) any {
			return obj{"file_path": te.path("m.go"), "old_string": "x := 1", "new_string": "x := 2", "replace_all": true}
		}, want: []string{"Replaced 3 occurrences"}, file: "m.go", content: strings.ReplaceAll(src, "x := 1", "x := 2")},
		{name: "not found", input: func(te *testEnv) any {
			return obj{"file_path": te.path("m.go"), "old_string": "func d()", "new_string": "func e()"}
		}, err: true, want: []string{"old_string was not found", "exactly"}, file: "m.go", content: src},
		{name: "same strings", input: func(te *testEnv) any {
			return obj{"file_path": te.path("m.go"), "old_string": "a", "new_string": "a"}
		}, err: true, want: []string{"exactly the same"}, file: "m.go", content: src},
		{name: "unread", noRead: true, input: func(te *testEnv) any {
			return obj{"file_path": te.path("m.go"), "old_string": "// unique", "new_string": "//"}
		}, err: true, want: []string{"has not been read yet"}, file: "m.go", content: src},
		{name: "changed since read", input: func(te *testEnv) any {
			writeFiles(te.root, map[string]string{"m.go": src + "// more\n"})
			return obj{"file_path": te.path("m.go"), "old_string": "// unique", "new_string": "//"}
		}, err: true, want: []string{"has changed", "Read it again"}, file: "m.go", content: src + "// more\n"},
		{name: "missing file", input: func(te *testEnv) any {
			return obj{"file_path": te.path("none.go"), "old_string": "a", "new_string": "b"}
		}, err: true, want: []string{"file does not exist"}},
		{name: "create with empty old_string", input: func(te *testEnv) any {
			return obj{"file_path": te.path("new.go"), "old_string": "", "new_string": "package new\n"}
		}, want: []string{"File created"}, file: "new.go", content: "package new\n"},
		{name: "empty old_string on non-empty file", input: func(te *testEnv) any {
			return obj{"file_path": te.path("m.go"), "old_string": "", "new_string": "x"}
		}, err: true, want: []string{"old_string is empty"}, file: "m.go", content: src},
		{name: "crlf file", files: map[string]string{"w.txt": "a\r\nb\r\nc\r\n"}, input: func(te *testEnv) any {
			return obj{"file_path": te.path("w.txt"), "old_string": "a\nb", "new_string": "A\nB"}
		}, file: "w.txt", content: "A\r\nB\r\nc\r\n"},
		{name: "missing old_string", input: func(te *testEnv) any {
			return obj{"file_path": te.path("m.go"), "new_string": "x"}
		}, err: true, want: []string{"old_string: required field is missing"}},
		{name: "missing new_string", input: func(te *testEnv) any {
			return obj{"file_path": te.path("m.go"), "old_string": "x"}
		}, err: true, want: []string{"new_string: required field is missing"}},
		{name: "replace_all wrong type", input: func(te *testEnv) any {
			return obj{"file_path": te.path("m.go"), "old_string": "x", "new_string": "y", "replace_all": "yes"}
		}, err: true, want: []string{"replace_all: expected boolean, got string"}},
		{name: "outside", input: func(te *testEnv) any {
			return obj{"file_path": "/etc/hosts", "old_string": "x", "new_string": "y"}
		}, err: true, want: []string{"outside the workspace"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			te := newTestEnv(t)
			te.write(t, map[string]string{"m.go": src})
			te.write(t, tt.files)
			if !tt.noRead {
				for name := range tt.files {
					te.run(t, "Read", obj{"file_path": te.path(name)})
				}
				te.run(t, "Read", obj{"file_path": te.path("m.go")})
			}
			res := te.run(t, "Edit", tt.input(te))
			wantResult(t, res, tt.err, tt.want...)
			if tt.file != "" {
				if got := te.read(t, tt.file); got != tt.content {
					t.Errorf("file = %q, want %q", got, tt.content)
				}
			}
		})
	}
}

func TestEditDisplayPreviewAndReedit(t *testing.T) {
	te := newTestEnv(t)
	src := "a\nb\nc\nd\n"
	te.write(t, map[string]string{"f.txt": src})
	te.run(t, "Read", obj{"file_path": te.path("f.txt")})
	edit := Find(te.tools, "Edit")
	in := rawInput(t, obj{"file_path": te.path("f.txt"), "old_string": "c", "new_string": "C"})
	p, err := edit.(Previewer).Preview(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	want := FileEdit{Path: te.path("f.txt"), Old: src, New: "a\nb\nC\nd\n"}
	if len(p.Edits) != 1 || p.Edits[0] != want || *p.Locations[0].Line != 2 {
		t.Fatalf("preview = %+v", p)
	}
	res := edit.Run(context.Background(), in)
	wantResult(t, res, false)
	d := res.Display[0]
	if d.Type != "diff" || *d.OldText != src || d.NewText != want.New || *res.Locations[0].Line != 2 {
		t.Fatalf("display %+v locations %+v", d, res.Locations)
	}
	// The edited text counts as read: a second edit needs no Read.
	res = te.run(t, "Edit", obj{"file_path": te.path("f.txt"), "old_string": "d", "new_string": "D"})
	wantResult(t, res, false)
	if got := te.read(t, "f.txt"); got != "a\nb\nC\nD\n" {
		t.Fatalf("file = %q", got)
	}
	// A bad call fails to preview with the message Run gives.
	_, err = edit.(Previewer).Preview(context.Background(), rawInput(t, obj{"file_path": te.path("f.txt"), "old_string": "zz", "new_string": "y"}))
	if err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("preview err = %v", err)
	}
}

func TestEditThroughEditor(t *testing.T) {
	te := newTestEnv(t)
	te.write(t, map[string]string{"f.txt": "disk\n"})
	fs := &overlayFS{}
	fs.open(te.path("f.txt"), "buffer\n")
	te.Files = fs
	te.run(t, "Read", obj{"file_path": te.path("f.txt")})
	res := te.run(t, "Edit", obj{"file_path": te.path("f.txt"), "old_string": "buffer", "new_string": "edited"})
	wantResult(t, res, false)
	if got, _ := fs.ReadFile(te.path("f.txt")); string(got) != "edited\n" {
		t.Fatalf("buffer = %q", got)
	}
	if te.read(t, "f.txt") != "disk\n" {
		t.Fatal("disk changed behind the editor")
	}
}
