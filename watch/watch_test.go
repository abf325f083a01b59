package watch

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// recorder collects reported paths.
type recorder struct {
	mu    sync.Mutex
	paths map[string]bool
}

func (r *recorder) add(p string) {
	r.mu.Lock()
	r.paths[p] = true
	r.mu.Unlock()
}

// wait fails the test unless path is reported within 5 seconds.
func (r *recorder) wait(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		r.mu.Lock()
		ok := r.paths[path]
		r.mu.Unlock()
		if ok {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no change reported for %s", path)
}

// reset forgets what was reported.
func (r *recorder) reset() {
	r.mu.Lock()
	clear(r.paths)
	r.mu.Unlock()
}

func (r *recorder) saw(path string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.paths[path]
}

func TestWatcherReportsChanges(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, ".gitignore"), []byte("build/\n"), 0o644)
	os.MkdirAll(filepath.Join(root, "build"), 0o755)
	os.MkdirAll(filepath.Join(root, "src"), 0o755)
	os.WriteFile(filepath.Join(root, "src", "a.go"), []byte("package a\n"), 0o644)
	w, err := New(context.Background(), []string{root}, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r := &recorder{paths: map[string]bool{}}
	w.Subscribe(r.add)

	a := filepath.Join(root, "src", "a.go")
	os.WriteFile(a, []byte("package a // changed\n"), 0o644)
	r.wait(t, a)

	// A directory created later is watched too.
	sub := filepath.Join(root, "src", "new", "deeper")
	os.MkdirAll(sub, 0o755)
	time.Sleep(100 * time.Millisecond)
	b := filepath.Join(sub, "b.go")
	os.WriteFile(b, []byte("package b\n"), 0o644)
	r.wait(t, b)

	// Renames are reported (editors save by renaming over the file).
	tmp := filepath.Join(root, "src", ".a.go.tmp")
	os.WriteFile(tmp, []byte("package a // renamed in\n"), 0o644)
	os.Rename(tmp, a)
	r.wait(t, tmp)

	// Ignored directories are not watched.
	ignored := filepath.Join(root, "build", "out.o")
	os.WriteFile(ignored, []byte("x"), 0o644)
	c := filepath.Join(root, "src", "c.go")
	os.WriteFile(c, []byte("package c\n"), 0o644)
	r.wait(t, c)
	if r.saw(ignored) {
		t.Errorf("a change in an ignored directory was reported")
	}
}

func TestCloseStopsTheWatcher(t *testing.T) {
	w, err := New(context.Background(), []string{t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { w.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return")
	}
}
