package tools

import (
	"bufio"
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/agent-lsp/agent-lsp/pathres"
)

// A tree walk sees files as the search tools (Glob, Grep, LS) do, and as
// ripgrep run with --hidden --no-require-git does: hidden files are
// included, the .git directory is skipped, symbolic links are not followed,
// and .gitignore files are honoured, each for the directory it sits in and
// below, from the workspace root down.

// walkEntry is a file or directory met in a walk.
type walkEntry struct {
	path string // absolute
	rel  string // slash-separated, relative to the walk's start
	dir  bool
	d    fs.DirEntry
	// forced is set when an override included the entry, so later
	// filters (file types) do not apply.
	forced bool
}

// walkOptions configure a walk.
type walkOptions struct {
	// base is the directory whose .gitignore patterns apply first; the
	// .gitignore files between base and the start are read too. Empty
	// means the start.
	base string
	// skipDir, when set, prunes directories (rel is relative to the
	// start).
	skipDir func(rel string) bool
	// override, when set, decides an entry before .gitignore does: -1
	// excludes it, +1 includes it whatever .gitignore says, 0 leaves it
	// to .gitignore.
	override func(rel string, isDir bool) int
	// parallel calls visit from several goroutines at once.
	parallel bool
	// noIgnore disables .gitignore handling.
	noIgnore bool
	// hide, when set, leaves out every entry whose absolute path it
	// reports (a directory with all it holds): files a deny rule keeps
	// from the model. It beats overrides and .gitignore.
	hide func(path string) bool
}

// walkDir is a directory waiting to be read.
type walkDir struct {
	path   string
	rel    string
	comps  []string // components relative to base, for gitignore domains
	ignore []gitignore.Pattern
}

// walkTree calls visit for every file under start (and, with dirs, for
// every directory but start) that is not ignored. A visit error stops the
// walk and is returned; so is the context's error.
func walkTree(ctx context.Context, start string, opts walkOptions, visit func(walkEntry) error) error {
	base := opts.base
	if base == "" || !Within(base, start) {
		base = start
	}
	root := walkDir{path: start}
	if !opts.noIgnore {
		// Patterns of the directories from base down to start's parent.
		rel, _ := filepath.Rel(base, start)
		dir := base
		var comps []string
		root.ignore = appendIgnoreFile(nil, dir, comps)
		if rel != "." {
			for _, c := range strings.Split(rel, string(filepath.Separator)) {
				comps = append(comps, c)
				dir = filepath.Join(dir, c)
				if dir != start {
					root.ignore = appendIgnoreFile(root.ignore, dir, comps)
				}
			}
		}
		root.comps = comps
		if start == base {
			root.ignore = nil // start's own .gitignore is read as it is walked
		}
	}
	w := &walker{ctx: ctx, opts: opts, visit: visit}
	w.cond = sync.NewCond(&w.mu)
	w.queue = []walkDir{root}
	w.pending = 1
	n := 1
	if opts.parallel {
		// More walkers than processors: while some wait in system
		// calls, the others search.
		n = max(2*runtime.GOMAXPROCS(0), 4)
	}
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.work()
		}()
	}
	wg.Wait()
	if w.err != nil {
		return w.err
	}
	return ctx.Err()
}

// walker is the shared state of one walk.
type walker struct {
	ctx   context.Context
	opts  walkOptions
	visit func(walkEntry) error

	mu      sync.Mutex
	cond    *sync.Cond
	queue   []walkDir // guarded by mu
	pending int       // directories queued or being read; guarded by mu
	err     error     // first error; guarded by mu
}

func (w *walker) work() {
	for {
		w.mu.Lock()
		for len(w.queue) == 0 && w.pending > 0 && w.err == nil {
			w.cond.Wait()
		}
		if w.err != nil || len(w.queue) == 0 {
			w.mu.Unlock()
			w.cond.Broadcast()
			return
		}
		var d walkDir
		if w.opts.parallel {
			// Depth first keeps the queue short.
			d = w.queue[len(w.queue)-1]
			w.queue = w.queue[:len(w.queue)-1]
		} else {
			// Breadth first, so a walk cut short has seen the top.
			d = w.queue[0]
			w.queue = w.queue[1:]
		}
		w.mu.Unlock()

		subdirs, err := w.readDir(d)

		w.mu.Lock()
		if err != nil && w.err == nil {
			w.err = err
		}
		w.queue = append(w.queue, subdirs...)
		w.pending += len(subdirs) - 1
		w.mu.Unlock()
		w.cond.Broadcast()
	}
}

// readDir visits the entries of d and returns its subdirectories to walk.
func (w *walker) readDir(d walkDir) ([]walkDir, error) {
	if err := w.ctx.Err(); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(d.path)
	if err != nil {
		return nil, nil // unreadable directories are skipped, as rg does
	}
	ignore := d.ignore
	if !w.opts.noIgnore {
		ignore = appendIgnoreFile(ignore, d.path, d.comps)
	}
	var subdirs []walkDir
	for _, e := range entries {
		name := e.Name()
		typ := e.Type()
		if typ&fs.ModeSymlink != 0 {
			continue
		}
		isDir := typ.IsDir()
		if name == ".git" || !isDir && !typ.IsRegular() {
			continue
		}
		rel := name
		if d.rel != "" {
			rel = d.rel + "/" + name
		}
		decision := 0
		if w.opts.override != nil {
			decision = w.opts.override(rel, isDir)
			if decision < 0 {
				continue
			}
		}
		var comps []string
		if len(ignore) > 0 && decision == 0 {
			comps = append(d.comps[:len(d.comps):len(d.comps)], name)
			if ignored(ignore, comps, isDir) {
				continue
			}
		}
		path := filepath.Join(d.path, name)
		if w.opts.hide != nil && w.opts.hide(path) {
			continue
		}
		if isDir {
			if w.opts.skipDir != nil && w.opts.skipDir(rel) {
				continue
			}
			if comps == nil {
				comps = append(d.comps[:len(d.comps):len(d.comps)], name)
			}
			subdirs = append(subdirs, walkDir{path: path, rel: rel, comps: comps, ignore: ignore})
		}
		if err := w.visit(walkEntry{path: path, rel: rel, dir: isDir, d: e, forced: decision > 0}); err != nil {
			return subdirs, err
		}
	}
	return subdirs, nil
}

// maxIgnoreFileBytes bounds a .gitignore file: a repository's may be a
// FIFO, a link to /dev/zero or a huge sparse file, and is then left out.
const maxIgnoreFileBytes = 4 << 20

// ignored reports whether the last matching pattern excludes path.
func ignored(patterns []gitignore.Pattern, path []string, isDir bool) bool {
	for i := len(patterns) - 1; i >= 0; i-- {
		switch patterns[i].Match(path, isDir) {
		case gitignore.Exclude:
			return true
		case gitignore.Include:
			return false
		}
	}
	return false
}

// appendIgnoreFile appends the patterns of dir/.gitignore, whose domain is
// comps, to ps. The result never shares storage with ps when it grows, so
// sibling directories may extend the same parent slice.
func appendIgnoreFile(ps []gitignore.Pattern, dir string, comps []string) []gitignore.Pattern {
	data, err := pathres.ReadRegular(filepath.Join(dir, ".gitignore"), maxIgnoreFileBytes)
	if err != nil || len(data) == 0 {
		return ps
	}
	out := ps[:len(ps):len(ps)]
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, gitignore.ParsePattern(line, comps))
	}
	return out
}

// rootOf returns the workspace root that holds path, for .gitignore
// lookups; path itself when none does.
func (e *Env) rootOf(path string) string {
	best := ""
	for _, r := range e.Roots {
		if Within(r, path) && len(r) > len(best) {
			best = r
		}
	}
	if best == "" {
		return path
	}
	return best
}
