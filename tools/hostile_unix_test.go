//go:build !windows

package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hostileFiles makes, in te's workspace, the files a repository can ship
// to stop a tool or the process: a 20 GB sparse file (binary, and one
// that starts with text), a FIFO nobody writes, a link to /dev/zero, a
// chain of 100 symlinks, and a .gitignore that is a link to /dev/zero
// beside one that is a FIFO.
func hostileFiles(t *testing.T, te *testEnv) {
	t.Helper()
	sparse := func(name, head string) {
		p := te.path(name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(head), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(p, 20<<30); err != nil {
			t.Skipf("no sparse files here: %v", err)
		}
	}
	sparse("sparse.bin", "")
	var text strings.Builder
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&text, "line %d\n", i)
	}
	sparse("sparse.txt", text.String())
	sparse("nb/sparse.ipynb", "")
	for _, fifo := range []string{"fifo.txt", "fifo.ipynb", "ign/fifo/.gitignore"} {
		os.MkdirAll(filepath.Dir(te.path(fifo)), 0o755)
		if err := syscall.Mkfifo(te.path(fifo), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(te.path("ign/zero"), 0o755)
	for link, target := range map[string]string{"zero": "/dev/zero", "ign/zero/.gitignore": "/dev/zero"} {
		if err := os.Symlink(target, te.path(link)); err != nil {
			t.Fatal(err)
		}
	}
	te.write(t, map[string]string{"chain/end.txt": "the end\n", "ign/zero/a.txt": "needle\n", "ign/fifo/b.txt": "needle\n", "plain.txt": "needle\n"})
	for i := range 100 {
		target := fmt.Sprintf("l%d", i+1)
		if i == 99 {
			target = "end.txt"
		}
		if err := os.Symlink(target, te.path(fmt.Sprintf("chain/l%d", i))); err != nil {
			t.Fatal(err)
		}
	}
}

// runBounded runs a tool call with a generous deadline and returns its
// result and the bytes it allocated. A call still running well after the
// deadline (a read that waits on a FIFO ignores the context) fails the
// test rather than hanging it.
func runBounded(t *testing.T, tool Tool, input any) (*Result, uint64) {
	t.Helper()
	name := tool.Spec().Name
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	raw := rawInput(t, input)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	done := make(chan *Result, 1)
	go func() { done <- tool.Run(ctx, raw) }()
	select {
	case res := <-done:
		runtime.ReadMemStats(&after)
		return res, after.TotalAlloc - before.TotalAlloc
	case <-time.After(60 * time.Second):
		t.Fatalf("%s %s still running after 60s", name, raw)
		return nil, 0
	}
}

// TestHostileFiles: every file tool answers a repository's huge, sparse,
// special or looping files with an error, promptly and in bounded memory,
// and the search tools walk past them.
func TestHostileFiles(t *testing.T) {
	te := newTestEnv(t)
	hostileFiles(t, te)
	const maxAlloc = 256 << 20 // the files are 20 GB, or endless
	cases := []struct {
		tool  string
		input any
		isErr bool
		want  string
	}{
		{"Read", obj{"file_path": te.path("sparse.bin")}, true, "20 GB"},
		{"Read", obj{"file_path": te.path("sparse.bin"), "offset": 1, "limit": 10}, true, "binary"},
		{"Read", obj{"file_path": te.path("sparse.txt")}, true, "use Read with offset and limit"},
		{"Read", obj{"file_path": te.path("sparse.txt"), "offset": 2000, "limit": 3}, false, "  2002\tline 2002\n"},
		{"Read", obj{"file_path": te.path("sparse.txt"), "limit": 2}, false, "Showing lines 1-2"},
		{"Read", obj{"file_path": te.path("fifo.txt")}, true, "named pipe"},
		{"Read", obj{"file_path": te.path("zero")}, true, "/dev"},
		{"Read", obj{"file_path": te.path("chain/l0")}, true, "too many levels of symbolic links"},
		{"Edit", obj{"file_path": te.path("sparse.txt"), "old_string": "line 1\n", "new_string": "x"}, true, "20 GB"},
		{"Edit", obj{"file_path": te.path("fifo.txt"), "old_string": "a", "new_string": "b"}, true, "named pipe"},
		{"MultiEdit", obj{"file_path": te.path("sparse.bin"), "edits": []obj{{"old_string": "a", "new_string": "b"}}}, true, "20 GB"},
		{"Write", obj{"file_path": te.path("sparse.bin"), "content": "x"}, true, "20 GB"},
		{"Write", obj{"file_path": te.path("fifo.txt"), "content": "x"}, true, "named pipe"},
		{"Write", obj{"file_path": te.path("zero"), "content": "x"}, true, "/dev"},
		{"NotebookEdit", obj{"notebook_path": te.path("nb/sparse.ipynb"), "cell_id": "a", "new_source": "x"}, true, "20 GB"},
		{"NotebookEdit", obj{"notebook_path": te.path("fifo.ipynb"), "cell_id": "a", "new_source": "x"}, true, "named pipe"},
		{"Grep", obj{"pattern": "needle", "path": te.path("fifo.txt")}, true, "named pipe"},
		{"Grep", obj{"pattern": "needle", "path": te.path("sparse.bin")}, true, "20 GB"},
		{"Grep", obj{"pattern": "needle"}, false, "plain.txt"},
		{"Grep", obj{"pattern": "line 7", "output_mode": "content"}, false, "No matches"},
		{"Glob", obj{"pattern": "**/*.txt"}, false, "a.txt"},
		{"LS", obj{"path": te.root}, false, "sparse.bin"},
	}
	for _, c := range cases {
		engines := map[string]Tool{"": Find(te.tools, c.tool)}
		if c.tool == "Grep" {
			// Both engines: ripgrep (when on PATH) and the in-process one.
			engines[" in-process"] = &grepTool{env: te.Env}
		}
		for engine, tool := range engines {
			t.Run(fmt.Sprintf("%s%s %v", c.tool, engine, c.input), func(t *testing.T) {
				res, alloc := runBounded(t, tool, c.input)
				wantResult(t, res, c.isErr, c.want)
				if alloc > maxAlloc {
					t.Errorf("%s allocated %d MB", c.tool, alloc>>20)
				}
			})
		}
	}
	if _, err := os.Stat(te.path("fifo.txt")); err != nil {
		t.Errorf("the FIFO is gone: %v", err)
	}
	if fi, err := os.Stat(te.path("sparse.bin")); err != nil || fi.Size() != 20<<30 {
		t.Errorf("the sparse file changed: %v", err)
	}
}

// TestSearchesSkipSecondNames: a search walks names, so a file with more
// than one name (a hard link in the workspace to a file outside it) has
// its content left out, by both engines.
func TestSearchesSkipSecondNames(t *testing.T) {
	te := newTestEnv(t)
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("needle SECRET\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	te.write(t, map[string]string{"plain.txt": "needle plain\n"})
	if err := os.Link(outside, te.path("notes.txt")); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	for name, tool := range map[string]Tool{"default": Find(te.tools, "Grep"), "in-process": &grepTool{env: te.Env}} {
		for _, mode := range []string{"content", "files_with_matches", "count"} {
			res := tool.Run(context.Background(), rawInput(t, obj{"pattern": "needle", "output_mode": mode}))
			wantResult(t, res, false, "plain.txt")
			if strings.Contains(res.Content, "SECRET") || strings.Contains(res.Content, "notes.txt") {
				t.Errorf("%s Grep (%s) read a second name of an outside file:\n%s", name, mode, res.Content)
			}
		}
	}
}

// refusingFS is a FileSystem whose editor refused to serve some files.
type refusingFS struct {
	DiskFS
	refused map[string]bool
}

func (f refusingFS) Refused(p string) bool { return f.refused[p] }

// TestRefusedFilesLeftOut: a file the editor refused to serve is left out
// of Grep (both engines), Glob and LS, as a file a deny rule hides.
func TestRefusedFilesLeftOut(t *testing.T) {
	te := newTestEnv(t)
	te.write(t, map[string]string{"secret.txt": "needle SECRET\n", "plain.txt": "needle plain\n"})
	te.Files = refusingFS{refused: map[string]bool{te.path("secret.txt"): true}}
	te.tools = New(te.Env)
	for name, tool := range map[string]Tool{"Grep": Find(te.tools, "Grep"), "Grep in-process": &grepTool{env: te.Env}} {
		res := tool.Run(context.Background(), rawInput(t, obj{"pattern": "needle", "output_mode": "content"}))
		wantResult(t, res, false, "plain.txt")
		if strings.Contains(res.Content, "SECRET") {
			t.Errorf("%s searched a file the editor refused:\n%s", name, res.Content)
		}
	}
	for _, c := range []struct {
		tool  string
		input obj
	}{{"Glob", obj{"pattern": "*.txt"}}, {"LS", obj{"path": te.root}}} {
		res := te.run(t, c.tool, c.input)
		wantResult(t, res, false, "plain.txt")
		if strings.Contains(res.Content, "secret.txt") {
			t.Errorf("%s shows a file the editor refused:\n%s", c.tool, res.Content)
		}
	}
}
