package tools

import (
	"bytes"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// matcher finds the lines of a file that a Grep pattern matches, with
// ripgrep's semantics: line by line unless multiline, where the pattern
// may span lines and . matches a newline.
//
// Speed comes from a required literal: a string every match contains,
// found with bytes.Index (or on a lowered copy for a case-insensitive
// literal). Only lines holding it are given to the regexp.
type matcher struct {
	re        *regexp.Regexp
	multiline bool
	// lit is a string every match contains (lowered when fold), or nil.
	lit  []byte
	fold bool
	// exact means a line holding lit matches: the pattern is lit.
	exact bool
	// foldUnsafe means lit holds a letter with a non-ASCII case variant
	// (k, s), so the lowered-copy search is not trusted on non-ASCII text.
	foldUnsafe bool
	// rare is the index in lit of the byte a case-insensitive search
	// scans for.
	rare int
}

// newMatcher compiles a Grep pattern. Errors quote the pattern.
func newMatcher(pattern string, ignoreCase, multiline bool) (*matcher, error) {
	flags := "(?m"
	if ignoreCase {
		flags += "i"
	}
	if multiline {
		flags += "s"
	}
	expr := flags + ")" + pattern
	// Parse the pattern alone first so errors are about what the model
	// wrote.
	if _, err := syntax.Parse(pattern, syntax.Perl); err != nil {
		return nil, fmt.Errorf("pattern: invalid regex %q: %v", pattern, regexErr(err))
	}
	tree, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, fmt.Errorf("pattern: invalid regex %q: %v", pattern, regexErr(err))
	}
	if !multiline && hasNewlineLiteral(tree) {
		return nil, fmt.Errorf("pattern: the regex %q contains a literal newline, which never matches within one line; set multiline to true to match across lines", pattern)
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("pattern: invalid regex %q: %v", pattern, regexErr(err))
	}
	m := &matcher{re: re, multiline: multiline}
	tree = tree.Simplify()
	if lit, fold, ok := requiredLiteral(tree); ok && len(lit) > 0 {
		if !fold {
			m.lit = []byte(lit)
			m.exact = isLiteral(tree)
		} else if isASCII(lit) {
			m.lit = []byte(strings.ToLower(lit))
			m.fold = true
			m.foldUnsafe = bytes.ContainsAny(m.lit, "ks")
			m.rare = rareByte(m.lit)
		}
	}
	return m, nil
}

// regexErr drops the "error parsing regexp: " prefix of syntax errors.
func regexErr(err error) string {
	if e, ok := err.(*syntax.Error); ok {
		return fmt.Sprintf("%s: `%s`", e.Code, e.Expr)
	}
	return err.Error()
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// isLiteral reports whether re matches exactly one case-sensitive string,
// ignoring the (?m) flag's effect (there are no anchors in a literal).
func isLiteral(re *syntax.Regexp) bool {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	return re.Op == syntax.OpLiteral && re.Flags&syntax.FoldCase == 0
}

// hasNewlineLiteral reports whether re holds a literal "\n", which
// ripgrep refuses outside multiline mode.
func hasNewlineLiteral(re *syntax.Regexp) bool {
	if re.Op == syntax.OpLiteral {
		for _, r := range re.Rune {
			if r == '\n' {
				return true
			}
		}
	}
	for _, s := range re.Sub {
		if hasNewlineLiteral(s) {
			return true
		}
	}
	return false
}

// requiredLiteral returns the longest string every match of re contains,
// and whether it is matched case-insensitively.
func requiredLiteral(re *syntax.Regexp) (lit string, fold, ok bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return string(re.Rune), re.Flags&syntax.FoldCase != 0, true
	case syntax.OpCapture:
		return requiredLiteral(re.Sub[0])
	case syntax.OpPlus:
		return requiredLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if l, f, k := requiredLiteral(s); k && len(l) > len(lit) {
				lit, fold, ok = l, f, true
			}
		}
	}
	return lit, fold, ok
}

// foldIndex finds an ASCII literal in data ignoring ASCII case. It looks
// for the literal's rarest letter in both cases with bytes.IndexByte (a
// vector scan) and compares the text around each candidate, which beats
// lowering a copy of the whole file.
type foldIndex struct {
	data   []byte
	lit    []byte // lowered
	rare   int    // index in lit of the byte to scan for
	lo, up byte
	nextLo int // offset of the next lo found, -1 for none, -2 before any scan
	nextUp int // the same for up
}

func newFoldIndex(data, lit []byte, rare int) foldIndex {
	c := lit[rare]
	up := c
	if 'a' <= c && c <= 'z' {
		up = c - 'a' + 'A'
	}
	return foldIndex{data: data, lit: lit, rare: rare, lo: c, up: up, nextLo: -2, nextUp: -2}
}

// next returns the offset of the first match at or after pos, or -1.
func (f *foldIndex) next(pos int) int {
	for from := pos + f.rare; from < len(f.data); {
		f.nextLo = f.scan(f.nextLo, f.lo, from)
		if f.up != f.lo {
			f.nextUp = f.scan(f.nextUp, f.up, from)
		} else {
			f.nextUp = f.nextLo
		}
		c := f.nextLo
		if c < 0 || (f.nextUp >= 0 && f.nextUp < c) {
			c = f.nextUp
		}
		if c < 0 {
			return -1
		}
		start := c - f.rare
		if start >= pos && start+len(f.lit) <= len(f.data) && equalFoldASCII(f.data[start:start+len(f.lit)], f.lit) {
			return start
		}
		from = c + 1
	}
	return -1
}

// scan returns the offset of the first b at or after from, reusing the
// previous answer prev when it still applies.
func (f *foldIndex) scan(prev int, b byte, from int) int {
	if prev == -1 || prev >= from {
		return prev
	}
	i := bytes.IndexByte(f.data[from:], b)
	if i < 0 {
		return -1
	}
	return from + i
}

// equalFoldASCII reports whether s equals the lowered lit, ignoring ASCII
// case.
func equalFoldASCII(s, lit []byte) bool {
	for i, c := range s {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lit[i] {
			return false
		}
	}
	return true
}

// rareByte returns the index of the byte of lit least common in source
// code, by a rough frequency rank.
func rareByte(lit []byte) int {
	const common = " etaoinsrhldcumfpgwybvkxjqz" // most to least common
	best, bestRank := 0, -1
	for i, c := range lit {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		rank := strings.IndexByte(common, c)
		if rank < 0 {
			rank = len(common) // digits and punctuation: rare, and one case
		}
		if rank > bestRank {
			best, bestRank = i, rank
		}
	}
	return best
}

// lines calls fn with the 1-based number of each line of data the
// pattern matches, in order, until fn returns false. In multiline mode,
// the lines a match spans all count.
func (m *matcher) lines(data []byte, fn func(n int) bool) {
	if len(data) == 0 {
		return // an empty file has no lines
	}
	if m.multiline {
		m.multilineLines(data, fn)
		return
	}
	useLit := m.lit != nil
	var fi foldIndex
	if m.fold && useLit {
		// The Kelvin sign and the long s fold to k and s; their UTF-8
		// encodings start with these bytes.
		if m.foldUnsafe && (bytes.IndexByte(data, 0xE2) >= 0 || bytes.IndexByte(data, 0xC5) >= 0) {
			useLit = false
		}
		fi = newFoldIndex(data, m.lit, m.rare)
	}
	pos, line := 0, 1 // line is the number of the line at lineAt
	lineAt := 0
	for pos <= len(data) {
		var at int
		switch {
		case useLit && m.fold:
			at = fi.next(pos)
			if at < 0 {
				return
			}
		case useLit:
			i := bytes.Index(data[pos:], m.lit)
			if i < 0 {
				return
			}
			at = pos + i
		default:
			loc := m.re.FindIndex(data[pos:])
			if loc == nil {
				return
			}
			at = pos + loc[0]
		}
		start := bytes.LastIndexByte(data[:at], '\n') + 1
		end := bytes.IndexByte(data[at:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += at
		}
		if at == len(data) && start == len(data) && len(data) > 0 {
			return // the empty line after a final newline is no line
		}
		line += bytes.Count(data[lineAt:start], []byte{'\n'})
		lineAt = start
		if (m.exact || m.re.Match(data[start:end])) && !fn(line) {
			return
		}
		pos = end + 1
	}
}

// multilineLines reports the lines spanned by each match of the pattern
// over the whole of data.
func (m *matcher) multilineLines(data []byte, fn func(n int) bool) {
	if m.lit != nil && !m.fold && !bytes.Contains(data, m.lit) {
		return
	}
	line, lineAt, last := 1, 0, 0
	lineOfOff := func(off int) int {
		line += bytes.Count(data[lineAt:off], []byte{'\n'})
		lineAt = off
		return line
	}
	for _, loc := range m.re.FindAllIndex(data, -1) {
		s, e := loc[0], loc[1]
		if s == len(data) && s > 0 && data[s-1] == '\n' {
			break // an empty match after the final newline is on no line
		}
		first := lineOfOff(s)
		lastLine := first
		if e > s {
			lastLine = lineOfOff(e - 1)
		}
		for n := max(first, last+1); n <= lastLine; n++ {
			if !fn(n) {
				return
			}
		}
		last = max(last, lastLine)
	}
}
