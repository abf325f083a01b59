package tools

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestResolve(t *testing.T) {
	te := newTestEnv(t)
	te.write(t, map[string]string{"sub/x.go": "", "../outside/y.go": ""})
	outside := filepath.Join(filepath.Dir(te.root), "outside")
	for _, link := range []struct{ name, target string }{
		{"alias", "sub"}, {"out", outside}, {"sub/up", ".."},
		// Dangling links: a write through them lands at their target.
		{"dangling.txt", filepath.Join(outside, "created.txt")},
		{"dangling-rel.txt", "../outside/created.txt"},
		{"linkdir", filepath.Join(outside, "nodir")},
		{"inside-new.txt", "sub/new.txt"},
		{"loop", "loop"},
		{"chain", "dangling.txt"},
		{"environ", "/proc/self/environ"},
		{"procroot", "/proc/self/root"},
	} {
		if err := os.Symlink(link.target, te.path(link.name)); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		in   string
		want string // "" for refused
	}{
		{"sub/x.go", te.path("sub/x.go")},
		{te.path("sub/x.go"), te.path("sub/x.go")},
		{"alias/x.go", te.path("sub/x.go")},
		{"sub/up/sub/x.go", te.path("sub/x.go")},
		{"sub/new/file.go", te.path("sub/new/file.go")},
		{"alias/new.go", te.path("sub/new.go")},
		{".", te.root},
		{"out/y.go", ""},
		{"out/new.go", ""},
		{"dangling.txt", ""},
		{"dangling-rel.txt", ""},
		{"linkdir/f.txt", ""},
		{"chain", ""},
		{"loop", ""},
		{"inside-new.txt", te.path("sub/new.txt")},
		{"../outside/y.go", ""},
		{"sub/../../outside/y.go", ""},
		{"/etc/passwd", ""},
		{"", ""},
		// Physical "..": the parent of the link's target, outside.
		{"out/../outside/y.go", ""},
		{"alias/../sub/x.go", te.path("sub/x.go")},
		{"missing/../out/y.go", ""},
		// /proc, /dev/fd and /sys are outside, however reached.
		{"environ", ""},
		{"procroot" + te.path("sub/x.go"), ""},
		{"/proc/self/cwd/sub/x.go", ""},
		{"/dev/fd/0", ""},
	}
	for _, tt := range tests {
		got, err := te.Resolve(tt.in)
		switch {
		case tt.want == "" && err == nil:
			t.Errorf("Resolve(%q) = %q, want refusal", tt.in, got)
		case tt.want != "" && (err != nil || got != tt.want):
			t.Errorf("Resolve(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestDiskFSReadFile(t *testing.T) {
	te := newTestEnv(t)
	te.write(t, map[string]string{"a.txt": "hello", "empty": ""})
	for name, want := range map[string]string{"a.txt": "hello", "empty": ""} {
		got, err := DiskFS{}.ReadFile(te.path(name))
		if err != nil || string(got) != want {
			t.Errorf("ReadFile(%s) = %q, %v", name, got, err)
		}
	}
	if _, err := (DiskFS{}).ReadFile(te.path("none")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := (DiskFS{}).ReadFile(te.root); !errors.Is(err, syscall.EISDIR) {
		t.Errorf("directory: %v", err)
	}
	big := make([]byte, 300<<10)
	for i := range big {
		big[i] = byte('a' + i%26)
	}
	te.write(t, map[string]string{"big": string(big)})
	if got, err := readInto(make([]byte, 0, 10), te.path("big")); err != nil || string(got) != string(big) {
		t.Errorf("readInto with a small buffer: %d bytes, %v", len(got), err)
	}
}
