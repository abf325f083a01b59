package tools

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
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

var scratchPool = sync.Pool{New: func() any { return new(grepScratch) }}

// grepScratch is the reusable memory of one searching goroutine.
type grepScratch struct {
	scratch
	buf []byte
}

// searchLocal is the in-process Grep engine: a parallel walk that reads
// each file (open editor buffers through fsys) and searches it.
func searchLocal(ctx context.Context, q *grepQuery, fsys FileSystem) (*grepResult, error) {
	c := &grepCollector{q: q}
	searchOne := func(p string) error {
		s := scratchPool.Get().(*grepScratch)
		defer scratchPool.Put(s)
		var data []byte
		if fsys.IsOpen(p) {
			b, err := fsys.ReadFile(p)
			if err != nil {
				return nil
			}
			data = b
		} else {
			b, err := readInto(s.buf, p)
			s.buf = b[:0]
			if err != nil {
				return nil
			}
			data = b
		}
		if f, n, ok := q.searchData(p, data, &s.scratch); ok {
			return c.add(f, n)
		}
		return nil
	}
	var err error
	if q.targetFile {
		err = searchOne(q.target)
	} else {
		rules := parseGlobRules(q.globs)
		opts := walkOptions{base: q.base, parallel: true}
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
func (q *grepQuery) searchData(p string, data []byte, s *scratch) (grepFile, int, bool) {
	if bytes.IndexByte(data, 0) >= 0 {
		return grepFile{}, 0, false // binary
	}
	f := grepFile{path: p}
	var matched []int
	q.m.lines(data, s, func(n int) bool {
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

// readInto reads the file at p into buf, growing it as needed.
func readInto(buf []byte, p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return buf, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return buf, err
	}
	size := int(fi.Size())
	if cap(buf) < size+1 {
		buf = make([]byte, 0, size+size/8+512)
	}
	buf = buf[:size]
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return buf[:0], err
	}
	return buf[:n], nil
}
