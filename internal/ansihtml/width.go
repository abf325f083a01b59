package ansihtml

import "unicode/utf8"

// decodeRune is utf8.DecodeRuneInString; an invalid byte is U+FFFD.
func decodeRune(s string) (rune, int) {
	return utf8.DecodeRuneInString(s)
}

// wide are the ranges of characters a terminal draws two cells wide: East
// Asian wide and full-width forms and the emoji blocks (the ranges of
// wcwidth that matter on a screen of Neovim).
var wide = [][2]rune{
	{0x1100, 0x115f}, {0x2e80, 0x303e}, {0x3041, 0x33ff}, {0x3400, 0x4dbf},
	{0x4e00, 0x9fff}, {0xa000, 0xa4cf}, {0xac00, 0xd7a3}, {0xf900, 0xfaff},
	{0xfe30, 0xfe4f}, {0xff00, 0xff60}, {0xffe0, 0xffe6},
	{0x1f300, 0x1f64f}, {0x1f680, 0x1f6ff}, {0x1f900, 0x1f9ff},
	{0x20000, 0x3fffd},
}

// cells is the number of terminal cells r takes: 1 or 2.
func cells(r rune) int {
	for _, w := range wide {
		if r >= w[0] && r <= w[1] {
			return 2
		}
	}
	return 1
}
