package sandbox

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/settings"
)

// TestGrantNote: a failed command whose output names a path the sandbox
// did not grant gets a note naming the folder and the setting that
// grants it; a granted folder it could not write, allowWrite; the
// workspace's own paths and the system's get none.
func TestGrantNote(t *testing.T) {
	home := t.TempDir()
	writeFiles(t, home, map[string]string{".cache/go-build/README": "x\n"})
	t.Setenv("HOME", home)
	for _, v := range []string{"GOPATH", "GOCACHE", "GOENV", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"} {
		t.Setenv(v, "")
	}
	ws := t.TempDir()
	c := &Confiner{roots: []string{ws}}
	cases := []struct {
		output string
		want   []string // "" for no note
	}{
		{"cat: " + home + "/.config/newtool/token: No such file or directory", []string{"~/.config/newtool", "sandbox.filesystem.allowRead", "sandbox.filesystem.allowWrite"}},
		{"cat: ~/.netrc-like: No such file or directory", []string{"~/.netrc-like", "sandbox.filesystem.allowRead"}},
		{"ls: cannot access '/srv/data/x': No such file or directory", []string{"/srv/data", "sandbox.filesystem.allowRead"}},
		{"go: open " + home + "/.cache/go-build/00/x-d: read-only file system", []string{filepath.Join(home, ".cache/go-build"), "read-only", "sandbox.filesystem.allowWrite"}},
		{"cat: " + ws + "/missing: No such file or directory", nil},
		{"cat: /usr/share/x: No such file or directory", nil},
		{"cat: /tmp/x: No such file or directory", nil},
		{"make: *** [all] Error 1", nil},
	}
	for _, tc := range cases {
		note := c.GrantNote(tc.output, settings.SandboxFilesystem{})
		if tc.want == nil {
			if note != "" {
				t.Errorf("%q: unexpected note %q", tc.output, note)
			}
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(note, w) {
				t.Errorf("%q: note %q lacks %q", tc.output, note, w)
			}
		}
	}
	// A folder the settings already grant, or deny, gets no note.
	if note := c.GrantNote("cat: /srv/data/x: No such file or directory", settings.SandboxFilesystem{DenyRead: []string{"/srv/data"}}); note != "" {
		t.Errorf("a denied folder got a note: %q", note)
	}
}
