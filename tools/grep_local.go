package tools

import (
	"bytes"
	"context"
	"errors"
	"path"
	"sync"
	"sync/atomic"
)

// errGrepFull stops a search that has collected GrepMaxLines lines.
var errGrepFull = errors.New("grep: too many matching lines")

// grepCollector gathers the files of a search from several goroutines.
type grepCollector struct {
	q     *grepQuery
	lines atomic.Int64

	mu    sync.Mutex
	files []grepFile // guarded by mu
}

func (c *grepCollector) add(f grepFile, n int) error {
	c.mu.Lock()
	c.files = append(c.files, f)
	c.mu.Unlock()
	if c.q.mode != grepFiles && c.lines.Add(int64(n)) > GrepMaxLines {
		return errGrepFull
	}
	return nil
}

// bufPool holds the read buffers of the searching goroutines.
var bufPool = sync.Pool{New: func() any { return new(readBuf) }}

type readBuf struct{ b []byte }

// searchLocal is the in-process Grep engine: a parallel walk that reads
// each file (open editor buffers through fsys) and searches it.
func searchLocal(ctx context.Context, q *grepQuery, fsys FileSystem) (*grepResult, error) {
	c := &grepCollector{q: q}
	searchOne := func(p string) error {
		s := bufPool.Get().(*readBuf)
		defer bufPool.Put(s)
		var data []byte
		if fsys.IsOpen(p) || q.targetFile {
			// An open buffer, or the one file the call named, which the
			// permission gate judged as a file (its other names too).
			b, err := fsys.ReadFile(p)
			if err != nil {
				return nil
			}
			data = b
		} else {
			b, err := readInto(s.b, p)
			s.b = b[:0]
			if err != nil {
				return nil
			}
			data = b
		}
		if f, n, ok := q.searchData(p, data); ok {
			return c.add(f, n)
		}
		return nil
	}
	var err error
	switch {
	case q.targetFile && q.hidden(q.target):
		// Kept from the model: nothing to search.
	case q.targetFile:
		err = searchOne(q.target)
	default:
		rules := parseGlobRules(q.globs)
		opts := walkOptions{base: q.base, parallel: true, hide: q.hide}
		if len(rules) > 0 {
			opts.override = func(rel string, isDir bool) int { return overrideDecision(rules, rel, isDir) }
		}
		err = walkTree(ctx, q.target, opts, func(e walkEntry) error {
			if e.dir {
				return nil
			}
			if q.typeGlobs != nil && !e.forced && !matchesType(q.typeGlobs, path.Base(e.rel)) {
				return nil
			}
			return searchOne(e.path)
		})
	}
	res := &grepResult{files: c.files}
	if errors.Is(err, errGrepFull) {
		res.full, err = true, nil
	}
	return res, err
}

// searchData searches one file's text. It returns the file's entry, the
// number of lines it adds, and whether it matched.
func (q *grepQuery) searchData(p string, data []byte) (grepFile, int, bool) {
	if bytes.IndexByte(data, 0) >= 0 {
		return grepFile{}, 0, false // binary
	}
	f := grepFile{path: p}
	var matched []int
	q.m.lines(data, func(n int) bool {
		f.count++
		if q.mode == grepContent {
			matched = append(matched, n)
		}
		return q.mode != grepFiles
	})
	if f.count == 0 {
		return f, 0, false
	}
	if q.mode == grepContent {
		f.lines = withContext(data, matched, q.before, q.after)
		return f, len(f.lines), true
	}
	return f, f.count, true
}
