package shell

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/agent-lsp/agent-lsp/internal/shelltest"
)

// TestWrites checks which files a line reports as written, and which
// writes it cannot tell.
func TestWrites(t *testing.T) {
	project, home := shelltest.Workspace(t)
	project = realPath("/", project)
	env := &Env{Cwd: project, Roots: []string{project}, Home: home}
	for _, c := range []struct {
		cmd     string
		names   []string
		unknown bool
	}{
		{cmd: "ls"},
		{cmd: "cat README.md > /dev/null"},
		{cmd: "echo x > out.txt 2>&1", names: []string{"out.txt"}},
		{cmd: "echo x >> 'a b'", names: []string{"a b"}},
		{cmd: "echo x > pack*.json", names: []string{"package.json"}},
		{cmd: "tee -a x y < README.md", names: []string{"x", "y"}},
		{cmd: "cp README.md copy.md", names: []string{"copy.md"}},
		{cmd: "cp README.md src", names: []string{"src", "src/README.md"}},
		{cmd: "cp a b dest", names: []string{"dest", "dest/a", "dest/b"}},
		{cmd: "cp -t src a", names: []string{"src", "src/a"}},
		{cmd: "mv old new", names: []string{"old", "new"}},
		{cmd: "ln -s target", names: []string{"target", "."}},
		{cmd: "rm -rf build dist", names: []string{"build", "dist"}},
		{cmd: "sed -n 1p README.md"},
		{cmd: "sed -i -e s/a/b/ x y", names: []string{"x", "y"}},
		{cmd: "sed -i s/a/b/ x", names: []string{"x"}},
		{cmd: "dd if=a of=b bs=1", names: []string{"b"}},
		{cmd: "nice -n 5 touch t", names: []string{"t"}},
		{cmd: "bash -c 'truncate -s0 t'", names: []string{"t"}},
		{cmd: "find . -fprint list", names: []string{"list"}},
		{cmd: "echo x > $OUT", unknown: true},
		{cmd: "rm $(cat list)", unknown: true},
		{cmd: "xargs touch", unknown: true},
		{cmd: "find . -delete", unknown: true},
		{cmd: "sed 's/a/b/w out' README.md", unknown: true},
		{cmd: "cp --weird a b", unknown: true},
		{cmd: "eval \"$X\"", unknown: true},
	} {
		s, err := Parse(c.cmd, env)
		if err != nil {
			t.Fatalf("%q: %v", c.cmd, err)
		}
		writes, unknown := s.Writes()
		var names []string
		for _, w := range writes {
			names = append(names, w.Name)
			if !slices.Contains(w.Paths, filepath.Join(project, w.Name)) {
				t.Errorf("%q: %s leads to %q, want %s among them", c.cmd, w.Name, w.Paths, filepath.Join(project, w.Name))
			}
		}
		if !slices.Equal(names, c.names) {
			t.Errorf("%q writes %q, want %q", c.cmd, names, c.names)
		}
		if (len(unknown) > 0) != c.unknown {
			t.Errorf("%q: unknown writes %q, want some: %v", c.cmd, unknown, c.unknown)
		}
	}
}
