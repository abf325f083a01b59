package pathres

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// tree makes a workspace and an outside folder with the links the cases
// use, and returns both, symlinks resolved.
func tree(t *testing.T) (ws, out string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, out = filepath.Join(base, "ws"), filepath.Join(base, "outside")
	for _, d := range []string{ws + "/dir/sub", out + "/secrets"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(ws+"/file.txt", nil, 0o644)
	links := map[string]string{
		ws + "/in":        "dir",                   // relative, inside
		ws + "/out":       out + "/secrets",        // absolute, outside
		ws + "/rel-out":   "../outside/secrets",    // relative, outside
		ws + "/dangling":  out + "/new/file",       // target missing
		ws + "/chain1":    "chain2",                // dangling chain:
		ws + "/chain2":    out + "/chain3",         // ws -> ws -> outside
		out + "/chain3":   "not-yet/created.txt",   // -> missing
		ws + "/loop1":     "loop2",                 //
		ws + "/loop2":     "loop1",                 //
		ws + "/environ":   "/proc/self/environ",    //
		ws + "/fd":        "/dev/fd/0",             //
		ws + "/procroot":  "/proc/self/root" + out, //
		ws + "/dir/up":    "..",                    // back to ws
		ws + "/claude":    out,                     // a .claude folder that is a link
		ws + "/dir/inner": "../out",                // link to a link
	}
	for l, target := range links {
		if err := os.Symlink(target, l); err != nil {
			t.Fatal(err)
		}
	}
	return ws, out
}

func TestResolve(t *testing.T) {
	ws, out := tree(t)
	cases := []struct {
		name, cwd, path string
		want            string
		err             error // errors.Is target, nil for success
	}{
		{"plain", "/", ws + "/file.txt", ws + "/file.txt", nil},
		{"relative to cwd", ws + "/dir", "../file.txt", ws + "/file.txt", nil},
		{"cwd through a link", ws + "/in", "sub", ws + "/dir/sub", nil},
		{"link inside", "/", ws + "/in/sub", ws + "/dir/sub", nil},
		{"link outside", "/", ws + "/out/key", out + "/secrets/key", nil},
		{"relative link outside", ws, "rel-out/key", out + "/secrets/key", nil},
		{"link/.. is physical", "/", ws + "/out/..", out, nil},
		{"link/../x is physical", ws, "out/../secrets/key", out + "/secrets/key", nil},
		{"dotdot link", "/", ws + "/dir/up/file.txt", ws + "/file.txt", nil},
		{"link to a link", "/", ws + "/dir/inner/k", out + "/secrets/k", nil},
		{"missing target", "/", ws + "/new/deeper/f", ws + "/new/deeper/f", nil},
		{"dangling link", "/", ws + "/dangling", out + "/new/file", nil},
		{"dangling chain hop by hop", ws, "chain1", out + "/not-yet/created.txt", nil},
		{"missing then dotdot then link", ws, "missing/../out/k", out + "/secrets/k", nil},
		{"missing parent through a link folder", ws, "claude/settings.local.json", out + "/settings.local.json", nil},
		{"below a file", ws, "file.txt/x", ws + "/file.txt/x", nil},
		{"loop", ws, "loop1", "", syscall.ELOOP},
		{"link to /proc", ws, "environ", "", ErrPseudo},
		{"link to /dev/fd", ws, "fd", "", ErrPseudo},
		{"link through /proc/self/root", ws, "procroot/secrets", "", ErrPseudo},
		{"/proc as written", ws, "/proc/self/cwd/file.txt", "", ErrPseudo},
		{"/dev/fd as written", ws, "/dev/fd/3", "", ErrPseudo},
		{"/sys as written", ws, "/sys/kernel", "", ErrPseudo},
		{"relative without a cwd", "", "x", "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Resolve(c.cwd, c.path)
			switch {
			case c.name == "relative without a cwd":
				if err == nil {
					t.Errorf("Resolve(%q, %q) = %q, want an error", c.cwd, c.path, got)
				}
			case c.err != nil:
				if !errors.Is(err, c.err) {
					t.Errorf("Resolve(%q, %q) = %q, %v; want error %v", c.cwd, c.path, got, err, c.err)
				}
			case err != nil || got != c.want:
				t.Errorf("Resolve(%q, %q) = %q, %v; want %q", c.cwd, c.path, got, err, c.want)
			}
		})
	}
}

func TestWithin(t *testing.T) {
	for _, c := range []struct {
		root, p string
		want    bool
	}{
		{"/a", "/a", true}, {"/a", "/a/b", true}, {"/a", "/ab", false}, {"/a/", "/a/b", true}, {"/", "/x", true}, {"/a/b", "/a", false},
	} {
		if got := Within(c.root, c.p); got != c.want {
			t.Errorf("Within(%q, %q) = %v, want %v", c.root, c.p, got, c.want)
		}
	}
}
