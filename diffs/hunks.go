package diffs

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Hunk is one hunk of a line diff in Claude Code's structuredPatch shape:
// 1-based starts, and lines prefixed with ' ', '-' or '+' (no newline).
type Hunk struct {
	OldStart int      `json:"oldStart"`
	OldLines int      `json:"oldLines"`
	NewStart int      `json:"newStart"`
	NewLines int      `json:"newLines"`
	Lines    []string `json:"lines"`
}

// Hunks returns the hunks from old to new (none when equal). A missing
// newline at the end of a side is marked by a "\\ No newline at end of
// file" line, as in unified diffs.
func Hunks(old, new string) []Hunk {
	out := []Hunk{}
	u := Unified("f", old, new)
	var h *Hunk
	for _, l := range strings.Split(strings.TrimSuffix(u, "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "@@ "):
			out = append(out, Hunk{})
			h = &out[len(out)-1]
			f := strings.Fields(l) // "@@ -a,b +c,d @@"; ",1" may be left out
			a, b := hunkSide(f[1])
			c, d := hunkSide(f[2])
			h.OldStart, h.OldLines, h.NewStart, h.NewLines = a, b, c, d
		case h != nil:
			h.Lines = append(h.Lines, l)
		}
	}
	return out
}

// hunkSide parses one side of a hunk header: "-3,2", "+4" (one line).
func hunkSide(f string) (start, lines int) {
	first, count, found := strings.Cut(f[1:], ",")
	start, _ = strconv.Atoi(first)
	lines = 1
	if found {
		lines, _ = strconv.Atoi(count)
	}
	return start, lines
}

// ApplyHunks applies hunks (in order, as Hunks returns them) to text. It
// fails when a context or deleted line does not match.
func ApplyHunks(text string, hunks []Hunk) (string, error) {
	lines := strings.SplitAfter(text, "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	var b bytes.Buffer
	pos := 0 // next line of text to copy
	for _, h := range hunks {
		start := h.OldStart - 1
		if h.OldLines == 0 {
			start = h.OldStart
		}
		if start < pos || start > len(lines) {
			return "", fmt.Errorf("hunk at line %d is out of place", h.OldStart)
		}
		for ; pos < start; pos++ {
			b.WriteString(lines[pos])
		}
		last := byte(0)
		for _, l := range h.Lines {
			if l == "" {
				l = " " // an empty context line whose space was trimmed
			}
			switch l[0] {
			case ' ', '-':
				if pos >= len(lines) || strings.TrimSuffix(lines[pos], "\n") != l[1:] {
					return "", fmt.Errorf("hunk at line %d does not match the text", h.OldStart)
				}
				if l[0] == ' ' {
					b.WriteString(lines[pos])
				}
				pos++
			case '+':
				b.WriteString(l[1:] + "\n")
			case '\\':
				// "\ No newline at end of file" after an added line.
				if last == '+' {
					b.Truncate(b.Len() - 1)
				}
			default:
				return "", fmt.Errorf("hunk at line %d has a line starting with %q", h.OldStart, l[0])
			}
			last = l[0]
		}
	}
	for ; pos < len(lines); pos++ {
		b.WriteString(lines[pos])
	}
	return b.String(), nil
}
