package watch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/agent-lsp/agent-lsp/pathres"
)

// Delivery timing: a batch is delivered once no event came for quiet, or
// maxDelay after its first event.
const (
	quiet    = 50 * time.Millisecond
	maxDelay = 250 * time.Millisecond
)

// vcsDirs are never watched.
var vcsDirs = map[string]bool{".git": true, ".hg": true, ".svn": true}

// Watcher watches directory trees and reports changed paths to its
// subscribers. Its methods are safe for concurrent use.
type Watcher struct {
	fsw   *fsnotify.Watcher // nil when no watch could be set up at all
	logf  func(string, ...any)
	add   func(string) error // fsw.Add; replaced in tests
	roots []string

	cancel context.CancelFunc
	done   chan struct{} // closed when the event loop has stopped

	mu      sync.Mutex // guards the fields below
	subs    map[int]func(string)
	nextSub int
	dirs    map[string]bool                // watched directories
	ignores map[string][]gitignore.Pattern // directory -> the patterns in force in it
	tops    map[string]string              // root -> the top of its repository (or the root)
	limited bool                           // the watch limit was reached: add no more
}

// New watches the directory trees under roots until ctx ends or Close is
// called. logf receives the rare things worth a log line (nil discards
// them). Every directory is watched when New returns: on a large tree
// that takes a while, so callers that must not wait run it in a
// goroutine (ctx cancels the walk). A root that does not exist is logged
// and skipped.
func New(ctx context.Context, roots []string, logf func(string, ...any)) (*Watcher, error) {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	w := &Watcher{
		logf:    logf,
		done:    make(chan struct{}),
		subs:    map[int]func(string){},
		dirs:    map[string]bool{},
		ignores: map[string][]gitignore.Pattern{},
		tops:    map[string]string{},
	}
	for _, r := range roots {
		abs, err := filepath.Abs(r)
		if err == nil {
			abs, err = filepath.EvalSymlinks(abs)
		}
		if err != nil {
			logf("watch: not watching %s: %v", r, err)
			continue
		}
		if !slices.Contains(w.roots, abs) {
			w.roots = append(w.roots, abs)
			w.tops[abs] = repoTop(abs)
		}
	}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		if !isLimit(err) {
			return nil, fmt.Errorf("starting the file watcher: %w", err)
		}
		// Too many watchers already (inotify's max_user_instances).
		logf("watch: cannot watch the workspace (%v); changes made outside the agent will not be noticed", err)
		w.limited = true
	} else {
		w.fsw, w.add = fsw, addFunc(fsw)
	}
	ctx, w.cancel = context.WithCancel(ctx)
	if w.fsw != nil {
		for _, r := range w.roots {
			w.walk(ctx, r, nil)
		}
	}
	go w.run(ctx)
	return w, nil
}

// Subscribe calls fn with each changed path (absolute, symlinks of the
// roots resolved), from the watcher's goroutine, one path at a time. fn
// must return quickly and must not call Close. The returned function
// unsubscribes.
func (w *Watcher) Subscribe(fn func(path string)) (unsubscribe func()) {
	w.mu.Lock()
	id := w.nextSub
	w.nextSub++
	w.subs[id] = fn
	w.mu.Unlock()
	return func() {
		w.mu.Lock()
		delete(w.subs, id)
		w.mu.Unlock()
	}
}

// Close stops the watcher and waits for its goroutine. No callback runs
// after it returns.
func (w *Watcher) Close() {
	w.cancel()
	<-w.done
}

// run is the event loop. It owns fsw and closes it on the way out.
func (w *Watcher) run(ctx context.Context) {
	defer close(w.done)
	defer func() {
		if w.fsw != nil {
			w.fsw.Close()
		}
	}()
	var events <-chan fsnotify.Event
	var errs <-chan error
	if w.fsw != nil {
		events, errs = w.fsw.Events, w.fsw.Errors
	}
	pending := map[string]bool{}
	var first time.Time
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	arm := func() {
		if len(pending) == 0 {
			return
		}
		if first.IsZero() {
			first = time.Now()
		}
		timer.Reset(min(quiet, max(0, maxDelay-time.Since(first))))
	}
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				return
			}
			w.handle(ctx, ev, pending)
			arm()
		case err, ok := <-errs:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.logf("watch: too many changes at once, some were lost; treating the whole workspace as changed")
				for _, r := range w.roots {
					pending[r] = true
				}
				arm()
				continue
			}
			w.logf("watch: %v", err)
		case <-timer.C:
			first = time.Time{}
			w.deliver(pending)
			clear(pending)
		}
	}
}

// deliver calls the subscribers with each pending path, in order.
func (w *Watcher) deliver(pending map[string]bool) {
	paths := make([]string, 0, len(pending))
	for p := range pending {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	w.mu.Lock()
	subs := make([]func(string), 0, len(w.subs))
	for _, fn := range w.subs {
		subs = append(subs, fn)
	}
	w.mu.Unlock()
	for _, p := range paths {
		for _, fn := range subs {
			fn(p)
		}
	}
}

// handle records what one event changed and keeps the watches in step
// with the directories.
func (w *Watcher) handle(ctx context.Context, ev fsnotify.Event, pending map[string]bool) {
	if ev.Op == fsnotify.Chmod || ev.Name == "" {
		return
	}
	path := filepath.Clean(ev.Name)
	dir, name := filepath.Split(path)
	dir = filepath.Clean(dir)
	w.mu.Lock()
	watched := w.dirs[dir]
	isDir := w.dirs[path]
	w.mu.Unlock()
	if !watched {
		return // a stale event
	}
	if vcsDirs[name] {
		return
	}
	switch {
	case ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename):
		if isDir {
			w.forget(path)
		}
		if name == ".gitignore" {
			w.ignoresChanged(ctx, dir)
		}
		pending[path] = true
	case ev.Has(fsnotify.Create):
		fi, err := os.Lstat(path)
		if err == nil && fi.IsDir() {
			if w.ignored(path) {
				return
			}
			pending[path] = true
			// Files may have landed in it before its watch: report them.
			w.walk(ctx, path, pending)
			return
		}
		if name == ".gitignore" {
			w.ignoresChanged(ctx, dir)
		}
		pending[path] = true
	default: // Write
		if name == ".gitignore" {
			w.ignoresChanged(ctx, dir)
		}
		pending[path] = true
	}
}

// walk watches dir and the directories under it that are not ignored.
// With report set, it adds the files it finds to report.
func (w *Watcher) walk(ctx context.Context, dir string, report map[string]bool) {
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return filepath.SkipAll
		}
		if err != nil {
			if path == dir || !errors.Is(err, fs.ErrNotExist) {
				w.logf("watch: skipping %s: %v", path, err)
			}
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() {
			if report != nil {
				report[path] = true
			}
			return nil
		}
		if path != dir && w.ignored(path) {
			return filepath.SkipDir
		}
		w.mu.Lock()
		err = w.watchLocked(path)
		limited := w.limited
		w.mu.Unlock()
		if limited {
			return filepath.SkipAll
		}
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				w.logf("watch: not watching %s: %v", path, err)
			}
			return filepath.SkipDir
		}
		return nil
	})
}

// watchLocked adds a watch on dir. At the watch limit it logs once and
// stops adding watches.
func (w *Watcher) watchLocked(dir string) error {
	if w.limited {
		return errLimited
	}
	if w.dirs[dir] {
		return nil
	}
	if err := w.add(dir); err != nil {
		if isLimit(err) {
			w.limited = true
			w.logf("watch: the system's file watch limit is reached after %d directories (%v); changes in %s and the directories not yet watched will not be noticed. Raise it with: sysctl fs.inotify.max_user_watches=524288", len(w.dirs), err, dir)
			return errLimited
		}
		return err
	}
	w.dirs[dir] = true
	return nil
}

var errLimited = errors.New("the file watch limit is reached")

// addFunc returns the function adding a watch; tests replace it to hit
// the watch limit.
var addFunc = func(fsw *fsnotify.Watcher) func(string) error { return fsw.Add }

// isLimit reports whether err says the system's watch limit is reached.
func isLimit(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE)
}

// forget drops the watches of a removed or renamed directory and of
// those under it.
func (w *Watcher) forget(dir string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	prefix := dir + string(filepath.Separator)
	for d := range w.dirs {
		if d == dir || strings.HasPrefix(d, prefix) {
			delete(w.dirs, d)
			delete(w.ignores, d)
			if w.fsw != nil {
				w.fsw.Remove(d) // already gone for a removed directory
			}
		}
	}
}

// ignoresChanged drops the patterns cached for dir and below, and walks
// dir again so directories no longer ignored get watched.
func (w *Watcher) ignoresChanged(ctx context.Context, dir string) {
	w.mu.Lock()
	prefix := dir + string(filepath.Separator)
	for d := range w.ignores {
		if d == dir || strings.HasPrefix(d, prefix) {
			delete(w.ignores, d)
		}
	}
	w.mu.Unlock()
	w.walk(ctx, dir, nil)
}

// ignored reports whether the directory path is one not to watch: a VCS
// directory, or one a .gitignore (or .git/info/exclude) ignores.
func (w *Watcher) ignored(path string) bool {
	if vcsDirs[filepath.Base(path)] {
		return true
	}
	root, top := w.rootOf(path)
	if root == "" {
		return false
	}
	rel, err := filepath.Rel(top, path)
	if err != nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	ps := w.patternsLocked(filepath.Dir(path), top)
	return gitignore.NewMatcher(ps).Match(strings.Split(filepath.ToSlash(rel), "/"), true)
}

// rootOf returns the root holding path and the top of its repository.
func (w *Watcher) rootOf(path string) (root, top string) {
	for _, r := range w.roots {
		if r == path || strings.HasPrefix(path, r+string(filepath.Separator)) {
			if len(r) > len(root) {
				root = r
			}
		}
	}
	return root, w.tops[root]
}

// patternsLocked returns the ignore patterns in force in dir: those of
// its parents down from top, then its own .gitignore.
func (w *Watcher) patternsLocked(dir, top string) []gitignore.Pattern {
	if ps, ok := w.ignores[dir]; ok {
		return ps
	}
	var ps []gitignore.Pattern
	var domain []string
	if dir == top || !strings.HasPrefix(dir, top+string(filepath.Separator)) {
		ps = readPatterns(filepath.Join(top, ".git", "info", "exclude"), nil)
	} else {
		rel, _ := filepath.Rel(top, dir)
		domain = strings.Split(filepath.ToSlash(rel), "/")
		ps = slices.Clip(w.patternsLocked(filepath.Dir(dir), top))
	}
	ps = append(ps, readPatterns(filepath.Join(dir, ".gitignore"), domain)...)
	w.ignores[dir] = ps
	return ps
}

// readPatterns reads a gitignore file; a missing one has no patterns.
func readPatterns(path string, domain []string) []gitignore.Pattern {
	// Bounded and regular-only: a repository's .gitignore may be a FIFO
	// or a link to /dev/zero.
	data, err := pathres.ReadRegular(path, 4<<20)
	if err != nil {
		return nil
	}
	var ps []gitignore.Pattern
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}

// repoTop returns the nearest directory at or above dir holding .git, or
// dir when there is none: .gitignore files above a root in its
// repository apply to it too.
func repoTop(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}
