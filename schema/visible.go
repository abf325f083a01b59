package schema

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bounds of whitespace that Visible leaves as it is: longer runs of
// spaces inside a line, and deeper indentation, could push the rest of
// a line out of sight (a payload after a screen of spaces).
const (
	visibleSpaceRun = 8  // a run of spaces this long inside a line is counted
	visibleIndent   = 32 // indentation wider than this (tabs count 8) is counted
)

// Visible returns s with every character that a reader could not see
// written out, so that what is shown is what will run: control
// characters as \xNN (ESC is \x1b, NUL \x00, CR \r, a tab inside a line
// \t), invisible and format characters (zero-width spaces and joiners,
// bidi overrides and isolates, the byte-order mark, tag characters,
// variation selectors, fillers, spaces other than the ASCII space, line
// and paragraph separators) as \uNNNN or \UNNNNNNNN, bytes that are not
// UTF-8 as \xNN, and runs of spaces that could hide what follows them
// (visibleSpaceRun or more inside a line, indentation wider than
// visibleIndent) as "⟨N spaces⟩". Line breaks and ordinary indentation
// stay. replaced reports whether anything was written out.
func Visible(s string) (out string, replaced bool) {
	var b strings.Builder
	lines := strings.Split(s, "\n")
	for i, line := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		if visibleLine(&b, line) {
			replaced = true
		}
	}
	return b.String(), replaced
}

// visibleLine writes line (no "\n") to b as Visible says.
func visibleLine(b *strings.Builder, line string) (replaced bool) {
	// Indentation (spaces and tabs) stays when it is no wider than
	// visibleIndent.
	indent, width := 0, 0
	for indent < len(line) && (line[indent] == ' ' || line[indent] == '\t') {
		if line[indent] == '\t' {
			width += 8
		} else {
			width++
		}
		indent++
	}
	if width <= visibleIndent {
		b.WriteString(line[:indent])
		line = line[indent:]
	}
	for i := 0; i < len(line); {
		if line[i] == ' ' {
			n := 1
			for i+n < len(line) && line[i+n] == ' ' {
				n++
			}
			if n >= visibleSpaceRun {
				fmt.Fprintf(b, "⟨%d spaces⟩", n)
				replaced = true
			} else {
				b.WriteString(line[i : i+n])
			}
			i += n
			continue
		}
		r, size := utf8.DecodeRuneInString(line[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(b, `\x%02x`, line[i])
			replaced = true
		case r == '\t':
			b.WriteString(`\t`)
			replaced = true
		case r == '\r':
			b.WriteString(`\r`)
			replaced = true
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(b, `\x%02x`, r)
			replaced = true
		case hidden(r) && r > 0xffff:
			fmt.Fprintf(b, `\U%08x`, r)
			replaced = true
		case hidden(r):
			fmt.Fprintf(b, `\u%04x`, r)
			replaced = true
		default:
			b.WriteString(line[i : i+size])
		}
		i += size
	}
	return replaced
}

// blank are graphic characters that show as nothing, or as a space:
// the combining grapheme joiner, Hangul and Khmer fillers, Mongolian
// variation selectors, the braille blank, variation selectors.
var blank = &unicode.RangeTable{
	R16: []unicode.Range16{
		{Lo: 0x034f, Hi: 0x034f, Stride: 1},
		{Lo: 0x115f, Hi: 0x1160, Stride: 1},
		{Lo: 0x17b4, Hi: 0x17b5, Stride: 1},
		{Lo: 0x180b, Hi: 0x180f, Stride: 1},
		{Lo: 0x2800, Hi: 0x2800, Stride: 1},
		{Lo: 0x3164, Hi: 0x3164, Stride: 1},
		{Lo: 0xfe00, Hi: 0xfe0f, Stride: 1},
		{Lo: 0xffa0, Hi: 0xffa0, Stride: 1},
	},
	R32: []unicode.Range32{
		{Lo: 0xe0100, Hi: 0xe01ef, Stride: 1},
	},
}

// hidden reports whether r (not ASCII) does not show as itself: not a
// graphic character (controls, format characters such as bidi overrides
// and zero-width spaces, private use, unassigned, line and paragraph
// separators), a space that is not the ASCII space, or one of blank.
func hidden(r rune) bool {
	return r >= 0x80 && (!unicode.IsGraphic(r) || unicode.Is(unicode.Zs, r) || unicode.Is(blank, r))
}
