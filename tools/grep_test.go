package tools

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/internal/testenv"
)

var grepTree = map[string]string{
	".gitignore":      "*.log\nbuild/\n",
	"a.go":            "package a\n\nfunc Foo() {}\n\n// TODO: fix Foo\nfunc bar() { Foo() }\nvar x = \"foo\"\n",
	"b.py":            "def foo():\n    return 1\n# todo later\nclass FooBar:\n    pass\n",
	"sub/.gitignore":  "secret.txt\n!keep.log\n",
	"sub/c.go":        "package sub\n\nimport \"fmt\"\n\nfunc Baz() {\n\tfmt.Println(\"Foo\")\n}\n",
	"sub/secret.txt":  "Foo secret\n",
	"sub/keep.log":    "Foo kept log\n",
	"sub/deep/d.ts":   "export const foo = 1;\nexport function Foo() {}\n",
	"x.log":           "Foo in log\n",
	"build/out.go":    "package build // Foo\n",
	".hidden/h.txt":   "Foo hidden\n",
	"bin.dat":         "Foo\x00binary\n",
	"crlf.txt":        "Foo\r\nbar\r\n",
	"multi.txt":       "start {\n  one\n  two\n}\nstart {\n}\nnostart\n",
	"unicode.txt":     "Straße FOO café\nnaïve foo\n",
	"notrail.txt":     "last Foo",
	"ctx.txt":         "1\n2\nFoo 3\n4\n5\n6\n7\nFoo 8\n9\nFoo 10\n11\n12\n13\n14\n15\nFoo 16\n",
	"vendor/v/v.go":   "package v // Foo vendored\n",
	"sub/deep/e.json": "{\"foo\": \"Foo\"}\n",
}

func grepCases() []struct {
	name  string
	input obj
	want  []string // lines the output must hold
	not   []string // lines it must not hold
} {
	return []struct {
		name  string
		input obj
		want  []string
		not   []string
	}{
		{name: "literal files", input: obj{"pattern": "Foo"},
			want: []string{"a.go", "sub/c.go", ".hidden/h.txt", "sub/keep.log", "crlf.txt", "notrail.txt"},
			not:  []string{"x.log", "build/out.go", "sub/secret.txt", "bin.dat", "unicode.txt"}},
		{name: "literal content", input: obj{"pattern": "Foo", "output_mode": "content"},
			want: []string{"a.go:3:func Foo() {}", "crlf.txt:1:Foo", "notrail.txt:1:last Foo"}},
		{name: "case insensitive", input: obj{"pattern": "foo", "-i": true, "output_mode": "content"},
			want: []string{"unicode.txt:1:Straße FOO café", "unicode.txt:2:naïve foo", "b.py:4:class FooBar:"}},
		{name: "case insensitive k", input: obj{"pattern": "kept", "-i": true, "output_mode": "count"}, want: []string{"keep.log:1"}},
		{name: "word regex", input: obj{"pattern": `\bfoo\b`, "output_mode": "content"},
			want: []string{"b.py:1:def foo():", `a.go:7:var x = "foo"`}, not: []string{"FooBar"}},
		{name: "regex no literal", input: obj{"pattern": `[A-Z][a-z]+\(\)`, "output_mode": "content"},
			want: []string{"a.go:3:func Foo() {}", "sub/c.go:5:func Baz() {"}},
		{name: "anchors", input: obj{"pattern": `^func \w+\(\) \{$`, "output_mode": "content"},
			want: []string{"sub/c.go:5:func Baz() {"}, not: []string{"a.go:3"}},
		{name: "end anchor", input: obj{"pattern": `Foo$`, "output_mode": "content"},
			want: []string{"notrail.txt:1:last Foo", "a.go:5:// TODO: fix Foo"}, not: []string{"crlf.txt"}},
		{name: "count", input: obj{"pattern": "Foo", "output_mode": "count"},
			want: []string{"a.go:3", "ctx.txt:4"}},
		{name: "context", input: obj{"pattern": "Foo", "output_mode": "content", "-C": 1, "path": "ctx.txt"},
			want: []string{"2-2", "3:Foo 3", "4-4", "--", "7-7", "8:Foo 8", "9-9", "10:Foo 10", "11-11", "15-15", "16:Foo 16"},
			not:  []string{"5-5", "12-12"}},
		{name: "after before", input: obj{"pattern": "Foo 8", "output_mode": "content", "-A": 2, "-B": 1, "path": "ctx.txt"},
			want: []string{"7-7", "8:Foo 8", "9-9", "10-Foo 10"}, not: []string{"6-6", "11-11"}},
		{name: "no line numbers", input: obj{"pattern": "Foo 1", "output_mode": "content", "-n": false, "path": "ctx.txt"},
			want: []string{"Foo 10", "Foo 16"}},
		{name: "glob", input: obj{"pattern": "Foo", "glob": "*.go"}, want: []string{"a.go", "sub/c.go", "vendor/v/v.go"}, not: []string{"h.txt", "d.ts"}},
		{name: "glob braces", input: obj{"pattern": "foo", "-i": true, "glob": "*.{py,ts}"}, want: []string{"b.py", "d.ts"}, not: []string{"a.go"}},
		{name: "glob negated dir", input: obj{"pattern": "Foo", "glob": "!vendor/**"}, want: []string{"a.go"}, not: []string{"v.go"}},
		{name: "glob with slash", input: obj{"pattern": "Foo", "glob": "sub/**/*.ts"}, want: []string{"d.ts"}, not: []string{"c.go", "a.go"}},
		{name: "glob whitelists ignored file", input: obj{"pattern": "Foo", "glob": "*.log"}, want: []string{"x.log", "keep.log"}},
		{name: "two globs", input: obj{"pattern": "Foo", "glob": "*.go !c.go"}, want: []string{"a.go"}, not: []string{"c.go"}},
		{name: "type", input: obj{"pattern": "foo", "-i": true, "type": "py"}, want: []string{"b.py"}, not: []string{"a.go", "d.ts"}},
		{name: "type go", input: obj{"pattern": "Foo", "type": "go"}, want: []string{"a.go", "sub/c.go"}, not: []string{"b.py", "build/out.go"}},
		{name: "head limit", input: obj{"pattern": "Foo", "output_mode": "content", "path": "ctx.txt", "head_limit": 2},
			want: []string{"3:Foo 3", "8:Foo 8", "Showing the first 2 of 4 lines"}, not: []string{"10:Foo 10"}},
		{name: "subdirectory", input: obj{"pattern": "Foo", "path": "sub"}, want: []string{"sub/c.go", "sub/keep.log", "sub/deep/d.ts"}, not: []string{"a.go"}},
		{name: "single ignored file", input: obj{"pattern": "Foo", "path": "x.log", "output_mode": "content"}, want: []string{"1:Foo in log"}},
		{name: "multiline", input: obj{"pattern": `start \{\n.*?\}`, "multiline": true, "output_mode": "content", "path": "multi.txt"},
			want: []string{"1:start {", "2:  one", "3:  two", "4:}", "5:start {", "6:}"}, not: []string{"nostart"}},
		{name: "multiline count", input: obj{"pattern": `start \{\n.*?\}`, "multiline": true, "output_mode": "count", "path": "multi.txt"},
			want: []string{"6"}},
		{name: "multiline ends on newline", input: obj{"pattern": `\}\n`, "multiline": true, "output_mode": "content", "path": "multi.txt"},
			want: []string{"4:}", "6:}"}, not: []string{"5:start", "7:nostart"}},
		{name: "no match", input: obj{"pattern": "zzzNOPE"}, want: []string{"No files found"}},
		{name: "no match content", input: obj{"pattern": "zzzNOPE", "output_mode": "content"}, want: []string{"No matches found"}},
		{name: "empty match", input: obj{"pattern": "x*", "output_mode": "count", "path": "ctx.txt"}, want: []string{"16"}},
		{name: "dot anything", input: obj{"pattern": "Foo.*", "output_mode": "count", "glob": "*.txt"}, want: []string{"ctx.txt:4"}},
	}
}

// grepBoth runs a Grep call through the in-process engine and ripgrep and
// fails unless they answer the same.
func grepBoth(t *testing.T, te *testEnv, fs FileSystem, input obj) string {
	t.Helper()
	tool := &grepTool{env: te.Env}
	q, err := tool.parse(rawInput(t, input))
	if err != nil {
		t.Fatal(err)
	}
	local, err := searchLocal(context.Background(), q, fs)
	if err != nil {
		t.Fatal(err)
	}
	got := q.format(local)
	rg := testenv.NeedTool(t, "rg")
	var open []string
	if l, ok := fs.(OpenFileLister); ok {
		open = l.OpenFiles()
	}
	q2, _ := tool.parse(rawInput(t, input))
	viaRg, err := searchRipgrep(context.Background(), rg, q2, fs, open)
	if err != nil {
		t.Fatal(err)
	}
	if rgOut := q2.format(viaRg); rgOut != got {
		t.Errorf("engines disagree on %v\nin-process:\n%s\nripgrep:\n%s", input, got, rgOut)
	}
	return got
}

func TestGrepEnginesAgree(t *testing.T) {
	testenv.NeedTool(t, "rg")
	te := newTestEnv(t)
	te.write(t, grepTree)
	for _, tt := range grepCases() {
		t.Run(tt.name, func(t *testing.T) {
			got := grepBoth(t, te, DiskFS{}, tt.input)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("output lacks %q:\n%s", w, got)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(got, n) {
					t.Errorf("output has %q:\n%s", n, got)
				}
			}
		})
	}
}

func TestGrepSeesEditorBuffers(t *testing.T) {
	te := newTestEnv(t)
	te.write(t, grepTree)
	fs := &overlayFS{}
	fs.open(te.path("a.go"), "package a\n\nfunc Unsaved() {}\n")
	fs.open(te.path("x.log"), "Unsaved but ignored\n")
	got := grepBoth(t, te, fs, obj{"pattern": "Unsaved", "output_mode": "content"})
	if !strings.Contains(got, te.path("a.go")+":3:func Unsaved() {}") || strings.Contains(got, "x.log") {
		t.Fatalf("output:\n%s", got)
	}
	got = grepBoth(t, te, fs, obj{"pattern": "Foo", "output_mode": "count"})
	if strings.Contains(got, "a.go") {
		t.Fatalf("the disk text of an open file was searched:\n%s", got)
	}
}

func TestGrepOutput(t *testing.T) {
	te := newTestEnv(t)
	te.write(t, map[string]string{"ctx.txt": grepTree["ctx.txt"], "a.go": grepTree["a.go"], "z.go": "Foo\n"})
	setMtimes(t, te, "a.go", "ctx.txt", "z.go")
	tests := []struct {
		input obj
		want  string
	}{
		{obj{"pattern": "Foo"}, "Found 3 files\n" + te.path("z.go") + "\n" + te.path("ctx.txt") + "\n" + te.path("a.go") + "\n"},
		{obj{"pattern": "Foo", "output_mode": "count"}, te.path("a.go") + ":3\n" + te.path("ctx.txt") + ":4\n" + te.path("z.go") + ":1\n\nFound 8 matching lines across 3 files.\n"},
		{obj{"pattern": "Foo (3|8)", "output_mode": "content", "-B": 1, "path": "ctx.txt"}, "2-2\n3:Foo 3\n--\n7-7\n8:Foo 8\n"},
		{obj{"pattern": "Foo", "output_mode": "content", "glob": "z.go"}, te.path("z.go") + ":1:Foo\n"},
		{obj{"pattern": "Foo", "head_limit": 1}, "Found 3 files\n" + te.path("z.go") + "\n\n(Showing the first 1 of 3 lines (head_limit).)\n"},
	}
	for _, tt := range tests {
		res := te.run(t, "Grep", tt.input)
		wantResult(t, res, false)
		if res.Content != tt.want {
			t.Errorf("Grep %v:\n%s\nwant:\n%s", tt.input, res.Content, tt.want)
		}
	}
}

func TestGrepBadInput(t *testing.T) {
	te := newTestEnv(t)
	te.write(t, map[string]string{"a.go": "x\n"})
	tests := []struct {
		input any
		want  string
	}{
		{obj{}, "pattern: required field is missing"},
		{obj{"pattern": 5}, "pattern: expected string, got number"},
		{obj{"pattern": ""}, "pattern: must not be empty"},
		{obj{"pattern": "foo(bar"}, `pattern: invalid regex "foo(bar": missing closing ): ` + "`foo(bar`"},
		{obj{"pattern": "a[z-a]"}, `invalid regex "a[z-a]"`},
		{obj{"pattern": `a\nb`}, `contains a literal newline`},
		{obj{"pattern": "x", "-i": "yes"}, "-i: expected boolean, got string"},
		{obj{"pattern": "x", "-A": "2"}, "-A: expected integer, got string"},
		{obj{"pattern": "x", "-C": -1}, "-C: must not be negative"},
		{obj{"pattern": "x", "head_limit": 1.5}, "head_limit: expected integer"},
		{obj{"pattern": "x", "output_mode": "lines"}, `output_mode: must be content, files_with_matches or count, got "lines"`},
		{obj{"pattern": "x", "type": "cobolx"}, `type: unknown file type "cobolx"`},
		{obj{"pattern": "x", "glob": "[a-"}, `glob: invalid glob pattern "[a-"`},
		{obj{"pattern": "x", "path": "/etc"}, "outside the workspace"},
		{obj{"pattern": "x", "path": "../.."}, "outside the workspace"},
		{obj{"pattern": "x", "path": "nope"}, "path: does not exist"},
		{`"x"`, "input: expected a JSON object, got string"},
	}
	for _, tt := range tests {
		res := te.run(t, "Grep", tt.input)
		wantResult(t, res, true, tt.want)
	}
}

func TestGrepStopsAtMaxLines(t *testing.T) {
	te := newTestEnv(t)
	te.write(t, map[string]string{"big.txt": strings.Repeat("hit\n", GrepMaxLines+10)})
	tool := &grepTool{env: te.Env}
	q, err := tool.parse(rawInput(t, obj{"pattern": "hit", "output_mode": "content"}))
	if err != nil {
		t.Fatal(err)
	}
	engines := map[string]func(t *testing.T) (*grepResult, error){
		"in-process": func(*testing.T) (*grepResult, error) { return searchLocal(context.Background(), q, DiskFS{}) },
		"ripgrep": func(t *testing.T) (*grepResult, error) {
			return searchRipgrep(context.Background(), testenv.NeedTool(t, "rg"), q, DiskFS{}, nil)
		},
	}
	for name, search := range engines {
		t.Run(name, func(t *testing.T) {
			res, err := search(t)
			if err != nil {
				t.Fatal(err)
			}
			if !res.full || !strings.Contains(q.format(res), "The search stopped after") {
				t.Errorf("search did not stop at %d lines", GrepMaxLines)
			}
		})
	}
}

func TestRgArgsMatchRipgrepFlags(t *testing.T) {
	rg := testenv.NeedTool(t, "rg")
	te := newTestEnv(t)
	q, err := (&grepTool{env: te.Env}).parse(json.RawMessage(`{"pattern":"x","output_mode":"content","-C":2,"multiline":true,"-i":true,"glob":"*.go","type":"go"}`))
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(rg, q.rgArgs()...).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) {
		t.Fatalf("rg %v: %v\n%s", q.rgArgs(), err, out)
	}
}
