package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// rgArgs returns ripgrep's arguments for q, set so ripgrep sees the same
// files as the in-process engine: hidden files in, .git out, .gitignore
// files honoured whether or not the tree is a git repository, and no other
// ignore files or configuration.
func (q *grepQuery) rgArgs() []string {
	args := []string{"--no-config", "--hidden", "--no-require-git", "--no-ignore-dot", "--no-ignore-exclude", "--no-ignore-global", "--no-messages",
		"--max-filesize", strconv.Itoa(MaxFileBytes)} // files the in-process engine skips too
	if q.ignoreCase {
		args = append(args, "--ignore-case")
	} else {
		args = append(args, "--case-sensitive")
	}
	if q.multiline {
		args = append(args, "--multiline", "--multiline-dotall")
	}
	for _, g := range q.globs {
		args = append(args, "--glob", g)
	}
	args = append(args, "--glob", "!.git")
	// Last, so no glob of the model's can bring a hidden file back.
	for _, g := range q.hideGlobs {
		args = append(args, "--glob", "!"+g)
	}
	if q.typ != "" {
		args = append(args, "--type", q.typ)
	}
	switch q.mode {
	case grepFiles:
		args = append(args, "--files-with-matches", "--null")
	default:
		args = append(args, "--json")
		if q.mode == grepContent {
			args = append(args, "--after-context", strconv.Itoa(q.after), "--before-context", strconv.Itoa(q.before))
		}
	}
	return append(args, "--regexp", q.pattern, "--", q.target)
}

// searchRipgrep runs Grep through ripgrep. Files open in the editor (open)
// are left out of ripgrep's answer and searched in their buffers instead.
func searchRipgrep(ctx context.Context, rg string, q *grepQuery, fsys FileSystem, open []string) (*grepResult, error) {
	overlay := map[string]bool{}
	for _, p := range open {
		if (p == q.target || Within(q.target, p)) && q.walkIncludes(p) && !q.hidden(p) {
			overlay[p] = true
		}
	}
	if q.targetFile && (overlay[q.target] || q.hidden(q.target)) {
		return searchLocal(ctx, q, fsys)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, rg, q.rgArgs()...)
	// ripgrep matches globs relative to its working directory: run it in
	// the searched directory so globs are relative to it, as in-process.
	cmd.Dir = q.target
	if q.targetFile {
		cmd.Dir = filepath.Dir(q.target)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("running ripgrep: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("running ripgrep: %w", err)
	}
	res := &grepResult{}
	var perr error
	if q.mode == grepFiles {
		perr = readNullList(out, func(p string) {
			if !overlay[p] && !q.hidden(p) {
				res.files = append(res.files, grepFile{path: p, count: 1})
			}
		})
	} else {
		perr = readRgJSON(out, q, overlay, res, cancel)
	}
	werr := cmd.Wait()
	if res.full {
		werr = nil
	}
	if perr != nil {
		return nil, perr
	}
	if ctx.Err() != nil && !res.full {
		return nil, ctx.Err()
	}
	var exit *exec.ExitError
	if errors.As(werr, &exit) && exit.ExitCode() == 1 {
		werr = nil // no match
	}
	if werr != nil && len(res.files) == 0 {
		return nil, fmt.Errorf("ripgrep: %v: %s", werr, strings.TrimSpace(stderr.String()))
	}
	if !q.targetFile {
		// A file with more than one name: ripgrep read it by a name in
		// the workspace, but it may be a file outside it (readInto).
		res.files = slices.DeleteFunc(res.files, func(f grepFile) bool { return multiplyLinked(f.path) })
	}
	// The open buffers, searched as the editor has them.
	lines := 0
	for _, f := range res.files {
		lines += max(len(f.lines), f.count)
	}
	for p := range overlay {
		data, err := fsys.ReadFile(p)
		if err != nil {
			continue
		}
		if f, n, ok := q.searchData(p, data); ok {
			res.files = append(res.files, f)
			lines += n
		}
	}
	if q.mode != grepFiles && lines > GrepMaxLines {
		res.full = true
	}
	return res, nil
}

// searchRipgrepGuarded runs searchRipgrep while a walk of the searched
// tree looks for .gitignore files that ripgrep would wait on or read
// without end (a FIFO, a link to /dev/zero, a huge sparse file: ripgrep
// opens and reads every .gitignore whole). When it finds one, ripgrep is
// stopped and the in-process engine, which leaves such files out,
// searches instead.
func searchRipgrepGuarded(ctx context.Context, rg string, q *grepQuery, fsys FileSystem, open []string) (*grepResult, error) {
	rgCtx, stop := context.WithCancel(ctx)
	defer stop()
	hostile := make(chan bool, 1)
	go func() {
		bad := hostileIgnoreFile(rgCtx, q)
		if bad {
			stop()
		}
		hostile <- bad
	}()
	res, err := searchRipgrep(rgCtx, rg, q, fsys, open)
	if <-hostile {
		return searchLocal(ctx, q, fsys)
	}
	return res, err
}

// hostileIgnoreFile reports whether a .gitignore file ripgrep would read
// for q (in the searched tree, or in a folder above it) is not a regular
// file of at most maxIgnoreFileBytes.
func hostileIgnoreFile(ctx context.Context, q *grepQuery) bool {
	bad := func(dir string) bool {
		fi, err := os.Stat(filepath.Join(dir, ".gitignore"))
		return err == nil && (!fi.Mode().IsRegular() || fi.Size() > maxIgnoreFileBytes)
	}
	start := q.target
	if q.targetFile {
		start = filepath.Dir(start)
	}
	for dir := start; ; dir = filepath.Dir(dir) {
		if bad(dir) {
			return true
		}
		if dir == filepath.Dir(dir) {
			break
		}
	}
	if q.targetFile {
		return false
	}
	errFound := errors.New("found")
	err := walkTree(ctx, start, walkOptions{base: q.base, parallel: true, hide: q.hide}, func(e walkEntry) error {
		if e.dir && bad(e.path) {
			return errFound
		}
		return nil
	})
	return errors.Is(err, errFound)
}

// readNullList calls fn with each NUL-terminated path of r.
func readNullList(r interface{ Read([]byte) (int, error) }, fn func(string)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		p, err := br.ReadString(0)
		if len(p) > 1 && strings.HasSuffix(p, "\x00") {
			fn(p[:len(p)-1])
		}
		if err != nil {
			return nil
		}
	}
}

// rgText is a piece of text in ripgrep's JSON output: UTF-8 text, or
// base64 bytes when it is not valid UTF-8.
type rgText struct {
	Text  *string `json:"text"`
	Bytes string  `json:"bytes"`
}

func (t rgText) String() string {
	if t.Text != nil {
		return *t.Text
	}
	b, _ := base64.StdEncoding.DecodeString(t.Bytes)
	return string(b)
}

type rgMessage struct {
	Type string `json:"type"`
	Data struct {
		Path       rgText `json:"path"`
		Lines      rgText `json:"lines"`
		LineNumber int    `json:"line_number"`
	} `json:"data"`
}

// readRgJSON reads ripgrep's --json output into res.
func readRgJSON(r interface{ Read([]byte) (int, error) }, q *grepQuery, overlay map[string]bool, res *grepResult, stop func()) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 256<<10), 1<<30)
	index := map[string]int{}
	total := 0
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.HasPrefix(line, []byte(`{"type":"match"`)) && !bytes.HasPrefix(line, []byte(`{"type":"context"`)) {
			continue
		}
		var m rgMessage
		if err := json.Unmarshal(line, &m); err != nil {
			return fmt.Errorf("reading ripgrep output: %w", err)
		}
		p := filepath.Clean(m.Data.Path.String())
		if overlay[p] || res.full || q.hidden(p) {
			continue
		}
		i, ok := index[p]
		if !ok {
			i = len(res.files)
			index[p] = i
			res.files = append(res.files, grepFile{path: p})
		}
		f := &res.files[i]
		text := strings.TrimSuffix(m.Data.Lines.String(), "\n")
		for k, l := range strings.Split(text, "\n") {
			gl := grepLine{n: m.Data.LineNumber + k, text: strings.TrimSuffix(l, "\r"), match: m.Type == "match"}
			if gl.match {
				f.count++
			}
			if q.mode == grepContent {
				f.lines = append(f.lines, gl)
				total++
			} else if gl.match {
				total++
			}
		}
		if total > GrepMaxLines {
			res.full = true
			stop()
		}
	}
	if err := sc.Err(); err != nil && !res.full {
		return fmt.Errorf("reading ripgrep output: %w", err)
	}
	return nil
}

// walkIncludes reports whether the in-process walk of q would search the
// file at p: the same globs, .gitignore files and type as searchLocal.
func (q *grepQuery) walkIncludes(p string) bool {
	if p == q.target {
		return true
	}
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	rel, err := filepath.Rel(q.target, p)
	if err != nil {
		return false
	}
	rules := parseGlobRules(q.globs)
	comps := strings.Split(filepath.ToSlash(rel), "/")
	// The ignore patterns of the directories above the target.
	ignore := appendIgnoreFile(nil, q.base, nil)
	relBase, _ := filepath.Rel(q.base, q.target)
	var baseComps []string
	dir := q.base
	if relBase != "." {
		for _, c := range strings.Split(relBase, string(filepath.Separator)) {
			baseComps = append(baseComps, c)
			dir = filepath.Join(dir, c)
			ignore = appendIgnoreFile(ignore, dir, baseComps)
		}
	}
	for i := range comps {
		isDir := i < len(comps)-1
		name := comps[i]
		if name == ".git" {
			return false
		}
		relI := strings.Join(comps[:i+1], "/")
		decision := overrideDecision(rules, relI, isDir)
		if decision < 0 {
			return false
		}
		full := append(baseComps[:len(baseComps):len(baseComps)], comps[:i+1]...)
		if decision == 0 && ignored(ignore, full, isDir) {
			return false
		}
		if !isDir {
			if decision == 0 && q.typeGlobs != nil && !matchesType(q.typeGlobs, name) {
				return false
			}
			return true
		}
		dir = filepath.Join(q.target, filepath.FromSlash(relI))
		if st, err := os.Lstat(dir); err != nil || st.Mode()&os.ModeSymlink != 0 {
			return false
		}
		ignore = appendIgnoreFile(ignore, dir, full)
	}
	return true
}

// relativeGlobs turns absolute doublestar patterns into ripgrep globs
// relative to dir, for those that can be written so: a pattern whose
// literal leading directories lead to dir, or that reaches it through
// "**". Patterns naming dir or one of its parents, or reaching it through
// another wildcard, are left out: the caller filters ripgrep's output
// with the patterns themselves, and these globs only spare the reading.
func relativeGlobs(globs []string, dir string) []string {
	dirSegs := strings.Split(strings.Trim(filepath.ToSlash(dir), "/"), "/")
	var out []string
	for _, g := range globs {
		segs := strings.Split(strings.Trim(g, "/"), "/")
		i := 0
		ok := true
		for ; i < len(dirSegs); i++ {
			if i >= len(segs) {
				ok = false // the pattern names dir or a parent
				break
			}
			if segs[i] == "**" {
				break
			}
			if !isEscapedLiteral(segs[i]) || unescapeGlob(segs[i]) != dirSegs[i] {
				ok = false
				break
			}
		}
		if !ok || i >= len(segs) {
			continue
		}
		// A leading slash anchors the glob at the searched directory.
		out = append(out, "/"+strings.Join(segs[i:], "/"))
	}
	return out
}

// unescapeGlob removes the backslashes escaping a literal path segment.
func unescapeGlob(seg string) string {
	if !strings.Contains(seg, `\`) {
		return seg
	}
	var b strings.Builder
	for i := 0; i < len(seg); i++ {
		if seg[i] == '\\' && i+1 < len(seg) {
			i++
		}
		b.WriteByte(seg[i])
	}
	return b.String()
}

// isEscapedLiteral reports whether every glob metacharacter of seg is
// escaped with a backslash.
func isEscapedLiteral(seg string) bool {
	for i := 0; i < len(seg); i++ {
		switch seg[i] {
		case '\\':
			i++
		case '*', '?', '[', '{':
			return false
		}
	}
	return true
}
