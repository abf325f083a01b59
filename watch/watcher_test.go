package watch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// logs collects log lines.
type logs struct {
	mu    sync.Mutex
	lines []string
}

func (l *logs) logf(format string, args ...any) {
	l.mu.Lock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
	l.mu.Unlock()
}

func (l *logs) matching(s string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, line := range l.lines {
		if strings.Contains(line, s) {
			out = append(out, line)
		}
	}
	return out
}

// start watches root and records what is reported; the watcher is
// closed when the test ends.
func start(t *testing.T, root string, l *logs) (*Watcher, *recorder) {
	t.Helper()
	logf := t.Logf
	if l != nil {
		logf = l.logf
	}
	w, err := New(context.Background(), []string{root}, logf)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	r := &recorder{paths: map[string]bool{}}
	w.Subscribe(r.add)
	return w, r
}

// tempRoot returns a temporary directory with symlinks resolved, as
// reported paths are.
func tempRoot(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// settle waits for one more batch to be delivered, so "not reported"
// checks are meaningful: a sentinel file is written and waited for.
func settle(t *testing.T, r *recorder, dir string) {
	t.Helper()
	s := filepath.Join(dir, fmt.Sprintf("sentinel-%d", time.Now().UnixNano()))
	write(t, s, "x")
	r.wait(t, s)
}

func (w *Watcher) watching(dir string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok := w.dirs[dir]
	return ok
}

func TestCreateWriteRenameRemove(t *testing.T) {
	root := tempRoot(t)
	_, r := start(t, root, nil)
	a, b := filepath.Join(root, "a.txt"), filepath.Join(root, "b.txt")
	write(t, a, "one")
	r.wait(t, a)
	r.reset()
	write(t, a, "two")
	r.wait(t, a)
	r.reset()
	if err := os.Rename(a, b); err != nil {
		t.Fatal(err)
	}
	r.wait(t, a)
	r.wait(t, b)
	r.reset()
	os.Remove(b)
	r.wait(t, b)
}

// TestNewDirectoryContents: files written into a new directory before its
// watch exists are still reported, at any depth.
func TestNewDirectoryContents(t *testing.T) {
	root := tempRoot(t)
	w, r := start(t, root, nil)
	deep := filepath.Join(root, "x", "y", "z", "f.go")
	write(t, deep, "package z") // no pause between mkdir and write
	r.wait(t, deep)
	if !w.watching(filepath.Dir(deep)) {
		t.Fatal("the new directory is not watched")
	}
	later := filepath.Join(root, "x", "y", "z", "g.go")
	write(t, later, "package z")
	r.wait(t, later)

	// A directory moved in from outside is watched too.
	outside := tempRoot(t)
	write(t, filepath.Join(outside, "moved", "in.txt"), "x")
	if err := os.Rename(filepath.Join(outside, "moved"), filepath.Join(root, "moved")); err != nil {
		t.Fatal(err)
	}
	r.wait(t, filepath.Join(root, "moved", "in.txt"))
	edited := filepath.Join(root, "moved", "in.txt")
	r.reset()
	write(t, edited, "y")
	r.wait(t, edited)
}

func TestRemovedDirectory(t *testing.T) {
	root := tempRoot(t)
	sub := filepath.Join(root, "sub")
	write(t, filepath.Join(sub, "deeper", "f"), "x")
	w, r := start(t, root, nil)
	if !w.watching(filepath.Join(sub, "deeper")) {
		t.Fatal("sub/deeper is not watched")
	}
	if err := os.RemoveAll(sub); err != nil {
		t.Fatal(err)
	}
	r.wait(t, sub)
	settle(t, r, root)
	if w.watching(sub) || w.watching(filepath.Join(sub, "deeper")) {
		t.Fatal("watches of the removed directory are kept")
	}
}

func TestIgnoredDirectories(t *testing.T) {
	top := tempRoot(t)
	// The root is a folder inside a repository: the repository's ignore
	// files apply to it.
	write(t, filepath.Join(top, ".gitignore"), "vendor/\n*.tmp\n")
	write(t, filepath.Join(top, ".git", "info", "exclude"), "# local\nscratch/\n")
	write(t, filepath.Join(top, ".git", "HEAD"), "ref: refs/heads/main\n")
	root := filepath.Join(top, "svc")
	write(t, filepath.Join(root, "sub", ".gitignore"), "gen/\n")
	for _, d := range []string{"vendor/lib", "scratch", "sub/gen", "sub/keep", "build.tmp"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w, r := start(t, root, nil)
	for d, want := range map[string]bool{
		"": true, "sub": true, "sub/keep": true,
		"vendor": false, "vendor/lib": false, "scratch": false, "sub/gen": false, "build.tmp": false,
	} {
		if got := w.watching(filepath.Join(root, d)); got != want {
			t.Errorf("watching %q = %v, want %v", d, got, want)
		}
	}
	// Files are reported whether ignored or not; ignored directories are
	// not watched.
	notes := filepath.Join(root, "notes.tmp")
	write(t, notes, "x")
	r.wait(t, notes)
	inVendor := filepath.Join(root, "vendor", "lib", "x.go")
	write(t, inVendor, "x")
	newIgnored := filepath.Join(root, "sub", "gen", "more", "y.go")
	write(t, newIgnored, "x")
	settle(t, r, root)
	if r.saw(inVendor) || r.saw(newIgnored) {
		t.Error("a change in an ignored directory was reported")
	}
	if w.watching(filepath.Join(root, "sub", "gen", "more")) {
		t.Error("a directory created in an ignored one is watched")
	}
}

// TestGitDirectory: a root's .git is not watched, even without .gitignore.
func TestGitDirectory(t *testing.T) {
	root := tempRoot(t)
	write(t, filepath.Join(root, ".git", "refs", "heads", "main"), "abc")
	w, r := start(t, root, nil)
	if w.watching(filepath.Join(root, ".git")) || w.watching(filepath.Join(root, ".git", "refs")) {
		t.Fatal(".git is watched")
	}
	idx := filepath.Join(root, ".git", "index")
	write(t, idx, "x")
	settle(t, r, root)
	if r.saw(idx) {
		t.Fatal("a change in .git was reported")
	}
}

// TestGitignoreEdited: a directory no longer ignored gets watched.
func TestGitignoreEdited(t *testing.T) {
	root := tempRoot(t)
	write(t, filepath.Join(root, ".gitignore"), "out/\n")
	out := filepath.Join(root, "out")
	os.MkdirAll(out, 0o755)
	w, r := start(t, root, nil)
	if w.watching(out) {
		t.Fatal("out/ is watched while ignored")
	}
	write(t, filepath.Join(root, ".gitignore"), "# nothing ignored\n")
	r.wait(t, filepath.Join(root, ".gitignore"))
	deadline := time.Now().Add(5 * time.Second)
	for !w.watching(out) {
		if time.Now().After(deadline) {
			t.Fatal("out/ is not watched after .gitignore stopped ignoring it")
		}
		time.Sleep(10 * time.Millisecond)
	}
	f := filepath.Join(out, "a.bin")
	write(t, f, "x")
	r.wait(t, f)
}

// TestWatchLimit: at the watch limit the watcher logs one line and keeps
// working with the directories it has.
func TestWatchLimit(t *testing.T) {
	root := tempRoot(t)
	for i := range 6 {
		os.MkdirAll(filepath.Join(root, fmt.Sprintf("d%d", i), "e"), 0o755)
	}
	orig := addFunc
	t.Cleanup(func() { addFunc = orig })
	addFunc = func(fsw *fsnotify.Watcher) func(string) error {
		var mu sync.Mutex
		n := 0
		return func(p string) error {
			mu.Lock()
			defer mu.Unlock()
			if n == 3 {
				return fmt.Errorf("%s: %w", p, syscall.ENOSPC)
			}
			n++
			return fsw.Add(p)
		}
	}
	l := &logs{}
	w, r := start(t, root, l)
	if got := l.matching("limit"); len(got) != 1 {
		t.Fatalf("log lines about the limit: %q", got)
	}
	f := filepath.Join(root, "top.txt")
	write(t, f, "x")
	r.wait(t, f)
	os.MkdirAll(filepath.Join(root, "later", "deeper"), 0o755)
	settle(t, r, root)
	if got := l.matching("limit"); len(got) != 1 {
		t.Fatalf("log lines about the limit after more directories: %q", got)
	}
	if w.watching(filepath.Join(root, "later")) {
		t.Fatal("a watch was added past the limit")
	}
}

// TestStops: the goroutine ends with the context, and nothing is reported
// after Close.
func TestStops(t *testing.T) {
	root := tempRoot(t)
	ctx, cancel := context.WithCancel(context.Background())
	w, err := New(ctx, []string{root}, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case <-w.done:
	case <-time.After(5 * time.Second):
		t.Fatal("the watcher did not stop with its context")
	}
	w.Close() // after the context: returns at once

	w, r := start(t, root, nil)
	w.Close()
	f := filepath.Join(root, "after-close")
	write(t, f, "x")
	time.Sleep(3 * maxDelay)
	if r.saw(f) {
		t.Fatal("a change was reported after Close")
	}
}

func TestMissingRoot(t *testing.T) {
	l := &logs{}
	w, err := New(context.Background(), []string{filepath.Join(t.TempDir(), "nope")}, l.logf)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	if len(l.matching("not watching")) != 1 {
		t.Fatalf("logs: %q", l.lines)
	}
}
