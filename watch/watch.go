package watch

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// debounce coalesces bursts of events for the same file.
const debounce = 50 * time.Millisecond

// Watcher watches the directories of some roots.
type Watcher struct {
	fsw    *fsnotify.Watcher
	roots  []string
	logf   func(string, ...any)
	cancel context.CancelFunc
	done   chan struct{}

	mu      sync.Mutex
	subs    []func(path string)  // guarded by mu
	ignore  gitignore.Matcher    // guarded by mu
	pending map[string]time.Time // changed paths not yet reported, guarded by mu
	full    bool                 // the watch limit was reached, guarded by mu
}

// New starts watching roots. The Watcher stops when ctx ends or Close is
// called.
func New(ctx context.Context, roots []string, logf func(string, ...any)) (*Watcher, error) {
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	if logf == nil {
		logf = func(string, ...any) {}
	}
	ctx, cancel := context.WithCancel(ctx)
	w := &Watcher{fsw: fsw, roots: roots, logf: logf, cancel: cancel, done: make(chan struct{}), pending: make(map[string]time.Time)}
	w.ignore = gitignore.NewMatcher(w.patterns())
	for _, r := range roots {
		w.addTree(r)
	}
	go w.loop(ctx)
	return w, nil
}

// Subscribe calls fn with the path of every file that changes (created,
// written, removed or renamed), from the Watcher's goroutine.
func (w *Watcher) Subscribe(fn func(path string)) {
	w.mu.Lock()
	w.subs = append(w.subs, fn)
	w.mu.Unlock()
}

// Close stops the Watcher and waits for its goroutine.
func (w *Watcher) Close() {
	w.cancel()
	<-w.done
}

// patterns reads the .gitignore files of the roots (nested ones too).
func (w *Watcher) patterns() []gitignore.Pattern {
	var ps []gitignore.Pattern
	for _, r := range w.roots {
		filepath.WalkDir(r, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() && d.Name() == ".git" {
				return filepath.SkipDir
			}
			if d.IsDir() || d.Name() != ".gitignore" {
				return nil
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return nil
			}
			domain := split(r, filepath.Dir(path))
			for _, line := range strings.Split(string(b), "\n") {
				line = strings.TrimRight(line, "\r")
				if line == "" || strings.HasPrefix(line, "#") {
					continue
				}
				ps = append(ps, gitignore.ParsePattern(line, domain))
			}
			return nil
		})
	}
	return ps
}

// split returns path's components below root.
func split(root, path string) []string {
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == "." {
		return nil
	}
	return strings.Split(filepath.ToSlash(rel), "/")
}

// ignored reports whether a directory is not worth watching.
func (w *Watcher) ignored(dir string) bool {
	if filepath.Base(dir) == ".git" {
		return true
	}
	for _, r := range w.roots {
		if rel := split(r, dir); rel != nil && !strings.HasPrefix(rel[0], "..") {
			w.mu.Lock()
			m := w.ignore
			w.mu.Unlock()
			return m.Match(rel, true)
		}
	}
	return false
}

// addTree watches dir and the directories below it.
func (w *Watcher) addTree(dir string) {
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if w.ignored(path) {
			return filepath.SkipDir
		}
		if err := w.fsw.Add(path); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				w.mu.Lock()
				first := !w.full
				w.full = true
				w.mu.Unlock()
				if first {
					w.logf("watch: the inotify watch limit is reached (fs.inotify.max_user_watches); changes below %s and other directories are not watched", path)
				}
				return filepath.SkipAll
			}
			w.logf("watch: %s: %v", path, err)
		}
		return nil
	})
}

func (w *Watcher) loop(ctx context.Context) {
	defer close(w.done)
	defer w.fsw.Close()
	tick := time.NewTicker(debounce)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return
			}
			w.event(ev)
		case err, ok := <-w.fsw.Errors:
			if !ok {
				return
			}
			w.logf("watch: %v", err)
		case now := <-tick.C:
			w.flush(now)
		}
	}
}

func (w *Watcher) event(ev fsnotify.Event) {
	if ev.Has(fsnotify.Create) {
		if fi, err := os.Stat(ev.Name); err == nil && fi.IsDir() {
			w.addTree(ev.Name)
			return
		}
	}
	if filepath.Base(ev.Name) == ".gitignore" {
		w.mu.Lock()
		w.ignore = gitignore.NewMatcher(w.patterns())
		w.mu.Unlock()
	}
	w.mu.Lock()
	w.pending[ev.Name] = time.Now()
	w.mu.Unlock()
}

// flush reports the paths that have been quiet for the debounce time.
func (w *Watcher) flush(now time.Time) {
	w.mu.Lock()
	var ready []string
	for p, t := range w.pending {
		if now.Sub(t) >= debounce {
			ready = append(ready, p)
			delete(w.pending, p)
		}
	}
	subs := append([]func(string){}, w.subs...)
	w.mu.Unlock()
	for _, p := range ready {
		for _, fn := range subs {
			fn(p)
		}
	}
}
