package session

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// tailSize is how much of a file's end List reads for a later title.
const tailSize = 16 << 10

// Info describes a listed session.
type Info struct {
	ID        string
	Cwd       string
	Title     string
	UpdatedAt time.Time // the file's modification time
	Path      string
	Source    string // SourceAgentLSP or SourceClaude
}

// candidate is a session file found by listing, before it is read.
type candidate struct {
	id, path, source, dirCwd string
	mod                      time.Time
	size                     int64
}

// cursorKey is where a page ends: listing is ordered by modification time,
// newest first, then by path.
type cursorKey struct {
	T int64  `json:"t"`
	P string `json:"p"`
}

func (k cursorKey) before(c *candidate) bool {
	t := c.mod.UnixNano()
	return t < k.T || (t == k.T && c.path > k.P)
}

// List returns the sessions of cwd (of every directory when cwd is ""),
// ours and Claude Code's, newest first, at most limit of them (all when
// limit <= 0) after cursor. The returned cursor fetches the next page; it
// is "" after the last. A session continued from Claude Code's is listed
// once, as ours.
//
// Only file metadata is read for every session; a page's sessions are
// then read for their first and last few kilobytes (title, cwd), never
// parsed whole. Files with no message (empty, or only summary lines) are
// left out.
func (s *Store) List(cwd, cursor string, limit int) ([]Info, string, error) {
	var after *cursorKey
	if cursor != "" {
		k, err := decodeCursor(cursor)
		if err != nil {
			return nil, "", err
		}
		after = &k
	}
	var cands []candidate
	seen := map[string]int{} // id -> index in cands
	resolved := ""
	if cwd != "" {
		resolved = resolveCwd(cwd)
	}
	for _, root := range []struct{ dir, source string }{{s.dir, SourceAgentLSP}, {s.claudeDir, SourceClaude}} {
		if root.dir == "" {
			continue
		}
		var names []string // the folders of cwd; nil for every folder
		switch {
		case cwd == "":
		case root.source == SourceClaude:
			names = []string{projectSlug(resolved)}
		default:
			names = []string{projectSlug(cwd)}
			if legacy := s.legacyOurPath(cwd, "x"); legacy != "" {
				names = append(names, filepath.Base(filepath.Dir(legacy)))
			}
		}
		found, err := scanRoot(filepath.Join(root.dir, "projects"), names, cwd, root.source)
		if err != nil {
			return nil, "", err
		}
		for _, c := range found {
			if i, ok := seen[c.id]; ok {
				// Ours (listed first) wins; otherwise keep the newest.
				if cands[i].source == c.source && c.mod.After(cands[i].mod) {
					cands[i] = c
				}
				continue
			}
			seen[c.id] = len(cands)
			cands = append(cands, c)
		}
	}
	slices.SortFunc(cands, func(a, b candidate) int {
		if c := b.mod.Compare(a.mod); c != 0 {
			return c
		}
		return strings.Compare(a.path, b.path)
	})
	var out []Info
	next := ""
	buf := make([]byte, headSize) // reused for every file's head and tail
	for i := range cands {
		c := &cands[i]
		if after != nil && !after.before(c) {
			continue
		}
		if limit > 0 && len(out) == limit {
			next = encodeCursor(cursorKey{T: out[len(out)-1].UpdatedAt.UnixNano(), P: out[len(out)-1].Path})
			break
		}
		info, ok, err := peek(c, buf)
		if err != nil {
			return nil, "", err
		}
		if !ok || (cwd != "" && info.Cwd != cwd && info.Cwd != resolved) {
			continue
		}
		out = append(out, info)
	}
	return out, next, nil
}

// scanRoot lists the session files under a projects directory: those in
// the folders named (of cwd), or in every folder when names is nil.
func scanRoot(projects string, names []string, cwd, source string) ([]candidate, error) {
	var dirs []string
	if names != nil {
		for _, n := range names {
			dirs = append(dirs, filepath.Join(projects, n))
		}
	} else {
		ents, err := os.ReadDir(projects)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("listing sessions: %w", err)
		}
		for _, e := range ents {
			if e.IsDir() {
				dirs = append(dirs, filepath.Join(projects, e.Name()))
			}
		}
	}
	var out []candidate
	for _, dir := range dirs {
		ents, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("listing sessions: %w", err)
		}
		for _, e := range ents {
			name := e.Name()
			id, ok := strings.CutSuffix(name, ".jsonl")
			// agent-*.jsonl are Claude Code's subagent transcripts.
			if !ok || !e.Type().IsRegular() || strings.HasPrefix(name, "agent-") || checkArgs("/", id) != nil {
				continue
			}
			fi, err := e.Info()
			if err != nil {
				continue // removed meanwhile
			}
			out = append(out, candidate{id: id, path: filepath.Join(dir, name), source: source, dirCwd: cwd, mod: fi.ModTime(), size: fi.Size()})
		}
	}
	return out, nil
}

// peek reads a session file's head and tail for its title and cwd. ok is
// false for a file with no message.
func peek(c *candidate, buf []byte) (Info, bool, error) {
	info := Info{ID: c.id, UpdatedAt: c.mod, Path: c.path, Source: c.source}
	f, err := os.Open(c.path)
	if errors.Is(err, fs.ErrNotExist) {
		return info, false, nil
	}
	if err != nil {
		return info, false, fmt.Errorf("listing sessions: %w", err)
	}
	defer f.Close()
	var ti titleInfo
	if err := readHead(f, c.size, &ti, buf); err != nil {
		return info, false, fmt.Errorf("reading %s: %w", c.path, err)
	}
	if c.size > headSize {
		// The head ended inside a line, so the file has more than summary
		// lines; look at the tail for a later title and the cwd.
		ti.messages = true
		if err := readTail(f, c.size, &ti, buf); err != nil {
			return info, false, fmt.Errorf("reading %s: %w", c.path, err)
		}
	}
	if !ti.messages {
		return info, false, nil
	}
	info.Title, info.Cwd = ti.title(), ti.cwd
	if info.Cwd == "" {
		info.Cwd = c.dirCwd
	}
	return info, true, nil
}

// readTail feeds the complete lines in the last tailSize bytes of f to ti
// (a custom-title or summary there overrides one in the head).
func readTail(f io.ReaderAt, size int64, ti *titleInfo, buf []byte) error {
	off := max(size-tailSize, headSize)
	if off >= size {
		return nil
	}
	if int64(cap(buf)) < size-off {
		buf = make([]byte, size-off)
	}
	buf = buf[:size-off]
	if _, err := f.ReadAt(buf, off); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	// Drop the partial first line.
	i := bytes.IndexByte(buf, '\n')
	if i < 0 {
		return nil
	}
	buf = buf[i+1:]
	for len(buf) > 0 {
		j := bytes.IndexByte(buf, '\n')
		line := buf
		if j >= 0 {
			line, buf = buf[:j], buf[j+1:]
		} else {
			buf = nil
		}
		if !ti.needs(line) {
			continue
		}
		if e, err := parseLine(line); err == nil {
			prompt := ti.prompt
			ti.add(&e)
			ti.prompt = prompt // the first prompt comes from the head only
		}
	}
	return nil
}

func encodeCursor(k cursorKey) string {
	b, _ := json.Marshal(k)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(s string) (cursorKey, error) {
	var k cursorKey
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		err = json.Unmarshal(b, &k)
	}
	if err != nil {
		return k, fmt.Errorf("invalid session list cursor %q", s)
	}
	return k, nil
}
