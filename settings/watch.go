package settings

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// debounce is how long the Watcher waits after a change before it
// reloads, so that an editor's write-rename-chmod sequence causes one
// reload.
const debounce = 100 * time.Millisecond

// Watcher reloads the settings when a settings file changes.
//
// It watches the directories that hold the files rather than the files,
// because editors save by writing a new file and renaming it over the old
// one. A directory that does not exist yet is watched through its nearest
// existing parent, so creating .claude/ is noticed too.
type Watcher struct {
	fsw      *fsnotify.Watcher
	loader   *loader
	onChange func(*Settings, []Problem)
	done     chan struct{}

	// Owned by the run goroutine.
	files   []string        // settings files of interest
	watched map[string]bool // directories being watched
	last    [sha256.Size]byte
}

// Watch starts watching the settings files that opts names. initial and
// problems are the settings as they are now; onChange is called, from the
// Watcher's own goroutine, with the new settings and their problems each
// time the content of a settings file changes. The goroutine stops, and
// the Watcher releases its resources, when ctx ends.
//
// Watch returns once the files are read: the watches are added by the
// Watcher's goroutine, because adding one can take milliseconds (the
// kernel walks the directory's cached entries; a shared /tmp has many)
// and a caller answering an editor's initialize should not wait for it.
// The goroutine reads the files again once its watches are in place, so
// a change made in between is reported like any other.
func Watch(ctx context.Context, opts Options, onChange func(*Settings, []Problem)) (w *Watcher, initial *Settings, problems []Problem, err error) {
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("watching settings: %w", err)
	}
	w = &Watcher{
		fsw:      fsw,
		loader:   newLoader(opts),
		onChange: onChange,
		done:     make(chan struct{}),
		watched:  map[string]bool{},
	}
	if opts.ManagedPath != "" {
		// Drop-in files come and go: the pattern stands for them all.
		w.files = append(w.files, filepath.Join(managedDropInDir(opts.ManagedPath), "*.json"))
	}
	for _, src := range opts.sources() {
		if src.scope != scopeInit && !slices.ContainsFunc(w.files, func(f string) bool { return matchFile(f, src.name) }) {
			w.files = append(w.files, src.name)
		}
	}
	initial, problems, w.last = w.loader.load()
	go w.run(ctx)
	return w, initial, problems, nil
}

// Done is closed when the Watcher has stopped.
func (w *Watcher) Done() <-chan struct{} { return w.done }

func (w *Watcher) run(ctx context.Context) {
	defer close(w.done)
	defer w.fsw.Close()
	// Watch, then read again, so no change falls between the first read
	// and the watches. Twice: a directory created while the first pass
	// added its parent's watch sent no event, and the second pass sees it.
	w.updateWatches()
	w.updateWatches()
	w.reload()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return
			}
			if w.relevant(ev.Name) {
				timer.Reset(debounce)
			}
		case _, ok := <-w.fsw.Errors:
			if !ok {
				return
			}
			// An overflow loses events: reload to be sure.
			timer.Reset(debounce)
		case <-timer.C:
			w.updateWatches()
			w.reload()
		}
	}
}

// reload reads the settings files and reports them if they changed.
func (w *Watcher) reload() {
	s, problems, sum := w.loader.load()
	if sum == w.last {
		return
	}
	w.last = sum
	w.onChange(s, problems)
}

// relevant reports whether an event on name may change the settings: a
// settings file, or a directory on the way to one.
func (w *Watcher) relevant(name string) bool {
	name = filepath.Clean(name)
	for _, f := range w.files {
		if matchFile(f, name) || name == filepath.Dir(f) || name == filepath.Dir(filepath.Dir(f)) {
			return true
		}
	}
	return false
}

// matchFile reports whether name is the settings file f, or one of the
// files that f, a "<dir>/*.json" pattern, stands for.
func matchFile(f, name string) bool {
	if name == f {
		return true
	}
	if filepath.Base(f) != "*.json" || filepath.Dir(f) != filepath.Dir(name) {
		return false
	}
	base := filepath.Base(name)
	return strings.HasSuffix(base, ".json") && !strings.HasPrefix(base, ".")
}

// updateWatches watches the directory of each settings file, or its
// nearest existing ancestor when it does not exist.
func (w *Watcher) updateWatches() {
	want := map[string]bool{}
	for _, f := range w.files {
		dir := filepath.Dir(f)
		for {
			if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
				want[dir] = true
				break
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	for dir := range w.watched {
		if !want[dir] {
			w.fsw.Remove(dir) // the directory may be gone already
			delete(w.watched, dir)
		}
	}
	dirs := make([]string, 0, len(want))
	for dir := range want {
		dirs = append(dirs, dir)
	}
	slices.Sort(dirs)
	for _, dir := range dirs {
		if w.watched[dir] {
			continue
		}
		if err := w.fsw.Add(dir); err == nil {
			w.watched[dir] = true
		}
	}
}
