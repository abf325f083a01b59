package tools

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func numbered(from, to int, line func(int) string) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%6d\t%s\n", i, line(i))
	}
	return b.String()
}

func TestRead(t *testing.T) {
	te := newTestEnv(t)
	lineN := func(i int) string { return fmt.Sprintf("line %d", i) }
	long := strings.Repeat("x", 2500)
	te.write(t, map[string]string{
		"a.txt":     "alpha\n\tbeta\ngamma",
		"crlf.txt":  "one\r\ntwo\r\n",
		"long.txt":  "short\n" + long + "\n",
		"empty.txt": "",
		"bin.dat":   "abc\x00def",
		"sub/x.go":  "package x\n",

		"../out.txt": "secret\n",
	})
	var big strings.Builder
	for i := 1; i <= 2500; i++ {
		fmt.Fprintf(&big, "line %d\n", i)
	}
	te.write(t, map[string]string{"big.txt": big.String()})
	if err := os.Symlink(filepath.Join(filepath.Dir(te.root), "out.txt"), te.path("link.txt")); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name  string
		input any
		err   bool
		want  []string
		exact string
	}{
		{name: "whole file", input: obj{"file_path": te.path("a.txt")},
			exact: "     1\talpha\n     2\t\tbeta\n     3\tgamma\n"},
		{name: "relative path", input: obj{"file_path": "sub/x.go"},
			exact: "     1\tpackage x\n"},
		{name: "crlf stripped", input: obj{"file_path": te.path("crlf.txt")},
			exact: "     1\tone\n     2\ttwo\n"},
		{name: "offset and limit", input: obj{"file_path": te.path("big.txt"), "offset": 10, "limit": 3},
			exact: numbered(10, 12, lineN) + "\n(Showing lines 10-12 of 2500. Use offset and limit to read the rest.)\n"},
		{name: "default limit", input: obj{"file_path": te.path("big.txt")},
			want: []string{"  2000\tline 2000\n", "(Showing lines 1-2000 of 2500."}},
		{name: "tail", input: obj{"file_path": te.path("big.txt"), "offset": 2499},
			exact: numbered(2499, 2500, lineN)},
		{name: "long line cut", input: obj{"file_path": te.path("long.txt")},
			want: []string{"     2\t" + strings.Repeat("x", 2000) + "... [line truncated]\n", "(1 lines longer than 2000 characters were truncated.)"}},
		{name: "empty file", input: obj{"file_path": te.path("empty.txt")}, want: []string{"exists but is empty"}},
		{name: "offset past end", input: obj{"file_path": te.path("a.txt"), "offset": 10}, want: []string{"shorter than the offset 10: it has 3 lines"}},
		{name: "binary", input: obj{"file_path": te.path("bin.dat")}, err: true, want: []string{"binary file"}},
		{name: "missing file", input: obj{"file_path": te.path("nope.txt")}, err: true, want: []string{"file does not exist"}},
		{name: "directory", input: obj{"file_path": te.path("sub")}, err: true, want: []string{"is a directory"}},
		{name: "dotdot outside", input: obj{"file_path": te.path("../out.txt")}, err: true, want: []string{"outside the workspace"}},
		{name: "absolute outside", input: obj{"file_path": "/etc/passwd"}, err: true, want: []string{"outside the workspace"}},
		{name: "symlink outside", input: obj{"file_path": te.path("link.txt")}, err: true, want: []string{"outside the workspace"}},
		{name: "missing file_path", input: obj{}, err: true, want: []string{"file_path: required field is missing"}},
		{name: "null file_path", input: obj{"file_path": nil}, err: true, want: []string{"file_path: required field is missing"}},
		{name: "file_path wrong type", input: obj{"file_path": 42}, err: true, want: []string{"file_path: expected string, got number"}},
		{name: "offset wrong type", input: obj{"file_path": te.path("a.txt"), "offset": "3"}, err: true, want: []string{"offset: expected integer, got string"}},
		{name: "offset fractional", input: obj{"file_path": te.path("a.txt"), "offset": 1.5}, err: true, want: []string{"offset: expected integer"}},
		{name: "negative offset", input: obj{"file_path": te.path("a.txt"), "offset": -1}, err: true, want: []string{"offset: must be"}},
		{name: "negative limit", input: obj{"file_path": te.path("a.txt"), "limit": -5}, err: true, want: []string{"limit: must be"}},
		{name: "not an object", input: `["a"]`, err: true, want: []string{"input: expected a JSON object, got array"}},
		{name: "invalid json", input: `{"file_path":`, err: true, want: []string{"input: expected a JSON object"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := te.run(t, "Read", tt.input)
			wantResult(t, res, tt.err, tt.want...)
			if tt.exact != "" && res.Content != tt.exact {
				t.Errorf("content:\n%q\nwant:\n%q", res.Content, tt.exact)
			}
		})
	}
}

func TestReadImage(t *testing.T) {
	te := newTestEnv(t)
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
	te.write(t, map[string]string{"pic.png": png})
	res := te.run(t, "Read", obj{"file_path": te.path("pic.png")})
	wantResult(t, res, false, "image/png")
	if len(res.Images) != 1 || res.Images[0].Data != base64.StdEncoding.EncodeToString([]byte(png)) {
		t.Fatalf("images = %+v", res.Images)
	}
}

func TestReadRecordsAndSeesOverlay(t *testing.T) {
	te := newTestEnv(t)
	te.write(t, map[string]string{"a.go": "on disk\n"})
	fs := &overlayFS{}
	te.Files = fs
	fs.open(te.path("a.go"), "unsaved\n")
	res := te.run(t, "Read", obj{"file_path": te.path("a.go"), "limit": 1})
	if res.Content != "     1\tunsaved\n" {
		t.Fatalf("content %q, want the editor buffer", res.Content)
	}
	if ok, why := te.Reads.Check(te.path("a.go"), []byte("unsaved\n")); !ok {
		t.Fatalf("read not recorded: %s", why)
	}
	if res.Locations[0].Path != te.path("a.go") || *res.Locations[0].Line != 0 {
		t.Errorf("locations = %+v", res.Locations)
	}
}
