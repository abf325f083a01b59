package diffs

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/aymanbagabas/go-udiff"
	godiff "github.com/sourcegraph/go-diff/diff"
)

// Unified returns the unified diff from old to new of the file at path,
// with a/ and b/ labels, or "" when they are equal.
func Unified(path, old, new string) string {
	if old == new {
		return ""
	}
	return udiff.Unified("a/"+path, "b/"+path, old, new)
}

// Stat counts the lines a unified diff adds and deletes.
func Stat(unified string) (added, deleted int, err error) {
	if unified == "" {
		return 0, 0, nil
	}
	fd, err := godiff.ParseFileDiff([]byte(unified))
	if err != nil {
		return 0, 0, fmt.Errorf("parsing diff: %w", err)
	}
	s := fd.Stat()
	return int(s.Added + s.Changed), int(s.Deleted + s.Changed), nil
}

// Position is a place in a text as LSP counts it: a 0-based line and a
// 0-based column in UTF-16 code units.
type Position struct {
	Line      uint32 `json:"line"`
	Character uint32 `json:"character"`
}

// TextEdit replaces the text between Start and End with NewText.
type TextEdit struct {
	Start, End Position
	NewText    string
}

// TextEdits returns the edits that turn old into new, whole lines at a
// time, with positions in old. Applying them in order (they do not
// overlap) yields new.
func TextEdits(old, new string) []TextEdit {
	edits := udiff.Lines(old, new)
	if len(edits) == 0 {
		return nil
	}
	conv := newConverter(old)
	out := make([]TextEdit, len(edits))
	for i, e := range edits {
		out[i] = TextEdit{Start: conv.position(e.Start), End: conv.position(e.End), NewText: e.New}
	}
	return out
}

// converter maps byte offsets of a text to LSP positions.
type converter struct {
	text  string
	lines []int // byte offset of the start of each line
}

func newConverter(text string) *converter {
	lines := []int{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			lines = append(lines, i+1)
		}
	}
	return &converter{text: text, lines: lines}
}

func (c *converter) position(offset int) Position {
	// The last line whose start is <= offset.
	lo, hi := 0, len(c.lines)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if c.lines[mid] <= offset {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	col := 0
	for _, r := range c.text[c.lines[lo]:offset] {
		if r >= 0x10000 && r != utf8.RuneError {
			col += 2
		} else {
			col++
		}
	}
	return Position{Line: uint32(lo), Character: uint32(col)}
}

// Offset returns the byte offset in text of an LSP position, clamped to
// the text. It is the inverse of the positions TextEdits produces.
func Offset(text string, p Position) int {
	off := 0
	for line := uint32(0); line < p.Line; line++ {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			return len(text)
		}
		off += i + 1
	}
	col := uint32(0)
	for i, r := range text[off:] {
		if col >= p.Character || r == '\n' {
			return off + i
		}
		if r >= 0x10000 {
			col += 2
		} else {
			col++
		}
	}
	return len(text)
}

// Apply applies edits that all refer to positions in text, as TextEdits
// returns them and as an LSP WorkspaceEdit carries them, and returns the
// result. Edits must not overlap.
func Apply(text string, edits []TextEdit) string {
	type span struct {
		start, end int
		s          string
	}
	spans := make([]span, len(edits))
	for i, e := range edits {
		start, end := Offset(text, e.Start), Offset(text, e.End)
		spans[i] = span{start, max(start, end), e.NewText}
	}
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		if sp.start < last {
			sp.start = last
		}
		b.WriteString(text[last:sp.start])
		b.WriteString(sp.s)
		last = max(last, sp.end)
	}
	b.WriteString(text[last:])
	return b.String()
}
