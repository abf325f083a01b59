package ansihtml

import (
	"fmt"
	"html"
	"io"
	"strconv"
	"strings"
)

// Options are the page's look: the terminal's default colors and font.
type Options struct {
	Title    string
	FG, BG   string // CSS colors of the default foreground and background
	Font     string // CSS font-family list
	FontSize int    // px; a cell is FontSize*1.3 px high
}

func (o Options) withDefaults() Options {
	if o.FG == "" {
		o.FG = "#e0e2ea" // Neovim 0.10's NvimLightGrey2
	}
	if o.BG == "" {
		o.BG = "#14161b" // Neovim 0.10's NvimDarkGrey2
	}
	if o.Font == "" {
		o.Font = "'DejaVu Sans Mono', monospace"
	}
	if o.FontSize == 0 {
		o.FontSize = 14
	}
	return o
}

// style is the SGR state of a cell. Colors are CSS colors, "" for the
// terminal's default.
type style struct {
	fg, bg                                        string
	bold, dim, italic, underline, reverse, strike bool
}

// Render writes the HTML page of screen, the text of a capture.
func Render(w io.Writer, screen string, opt Options) error {
	opt = opt.withDefaults()
	lineH := opt.FontSize * 13 / 10
	var b strings.Builder
	fmt.Fprintf(&b, `<!doctype html>
<html><head><meta charset="utf-8"><title>%s</title><style>
html, body { margin: 0; background: %s; }
.screen { display: inline-block; padding: 8px; font-family: %s; font-size: %dpx; color: %s; background: %s; }
.l { height: %dpx; line-height: %dpx; white-space: pre; }
.l span { display: inline-block; height: %dpx; vertical-align: top; }
.l .c1 { width: 1ch; overflow: hidden; text-align: center; }
.l .c2 { width: 2ch; overflow: hidden; text-align: center; }
</style></head><body><div class="screen">
`, html.EscapeString(opt.Title), opt.BG, opt.Font, opt.FontSize, opt.FG, opt.BG, lineH, lineH, lineH)
	var st style
	lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	for _, line := range lines {
		b.WriteString(`<div class="l">`)
		st = renderLine(&b, line, st, opt)
		b.WriteString("</div>\n")
	}
	b.WriteString("</div></body></html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// renderLine writes one screen line as spans and returns the style in
// effect at its end (tmux does not repeat it on the next line).
func renderLine(b *strings.Builder, line string, st style, opt Options) style {
	var run strings.Builder
	flush := func() {
		if run.Len() == 0 {
			return
		}
		css := st.css(opt)
		if css == "" {
			b.WriteString("<span>")
		} else {
			fmt.Fprintf(b, `<span style="%s">`, css)
		}
		b.WriteString(run.String())
		b.WriteString("</span>")
		run.Reset()
	}
	for i := 0; i < len(line); {
		c := line[i]
		if c == 0x1b {
			params, final, n := escape(line[i:])
			i += n
			if final == 'm' {
				flush()
				st = st.apply(params)
			}
			continue
		}
		r, size := decodeRune(line[i:])
		i += size
		switch {
		case r == '\t':
			run.WriteString("    ")
		case r < 0x20 || r == 0x7f:
			// Other control characters take no cell.
		case r < 0x80:
			run.WriteString(html.EscapeString(string(r)))
		default:
			fmt.Fprintf(&run, `<span class="c%d">%s</span>`, cells(r), html.EscapeString(string(r)))
		}
	}
	flush()
	return st
}

// escape reads the escape sequence at the start of s: a CSI sequence
// gives its parameters and final byte; anything else (OSC, a lone ESC, a
// two-byte sequence) gives final 0. n is the number of bytes it takes.
func escape(s string) (params string, final byte, n int) {
	if len(s) < 2 {
		return "", 0, len(s)
	}
	switch s[1] {
	case '[':
		for j := 2; j < len(s); j++ {
			if s[j] >= 0x40 && s[j] <= 0x7e {
				return s[2:j], s[j], j + 1
			}
		}
		return "", 0, len(s)
	case ']': // OSC, ended by BEL or ESC \
		for j := 2; j < len(s); j++ {
			if s[j] == 0x07 {
				return "", 0, j + 1
			}
			if s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\' {
				return "", 0, j + 2
			}
		}
		return "", 0, len(s)
	}
	return "", 0, 2
}

// apply returns the style after an SGR sequence's parameters.
func (st style) apply(params string) style {
	if params == "" {
		return style{}
	}
	// Sub-parameters ("38:2::r:g:b", "4:3") are split like parameters;
	// the color reader skips an empty color-space id.
	fields := strings.FieldsFunc(params, func(r rune) bool { return r == ';' })
	for i := 0; i < len(fields); i++ {
		sub := strings.Split(fields[i], ":")
		code, err := strconv.Atoi(sub[0])
		if err != nil {
			continue
		}
		if len(sub) > 1 && (code == 38 || code == 48 || code == 58) {
			c := color(sub[1:])
			st.set(code, c)
			continue
		}
		switch {
		case code == 0:
			st = style{}
		case code == 1:
			st.bold = true
		case code == 2:
			st.dim = true
		case code == 3:
			st.italic = true
		case code == 4:
			st.underline = len(sub) < 2 || sub[1] != "0"
		case code == 7:
			st.reverse = true
		case code == 9:
			st.strike = true
		case code == 22:
			st.bold, st.dim = false, false
		case code == 23:
			st.italic = false
		case code == 24:
			st.underline = false
		case code == 27:
			st.reverse = false
		case code == 29:
			st.strike = false
		case code >= 30 && code <= 37:
			st.fg = palette(code - 30)
		case code == 39:
			st.fg = ""
		case code >= 40 && code <= 47:
			st.bg = palette(code - 40)
		case code == 49:
			st.bg = ""
		case code >= 90 && code <= 97:
			st.fg = palette(code - 90 + 8)
		case code >= 100 && code <= 107:
			st.bg = palette(code - 100 + 8)
		case code == 38 || code == 48 || code == 58:
			// ";"-separated: 38;5;n or 38;2;r;g;b.
			rest := fields[i+1:]
			need := 0
			if len(rest) > 0 && rest[0] == "5" {
				need = 2
			} else if len(rest) > 0 && rest[0] == "2" {
				need = 4
			}
			if need == 0 || len(rest) < need {
				i = len(fields)
				continue
			}
			st.set(code, color(rest[:need]))
			i += need
		}
	}
	return st
}

func (st *style) set(code int, c string) {
	switch code {
	case 38:
		st.fg = c
	case 48:
		st.bg = c
	}
	// 58 (underline color) is not drawn.
}

// color reads "5;n" or "2;r;g;b" (the parts after 38/48), also with an
// empty color-space id ("2::r:g:b" split as "2","","r","g","b").
func color(p []string) string {
	if len(p) == 0 {
		return ""
	}
	switch p[0] {
	case "5":
		if len(p) < 2 {
			return ""
		}
		n, err := strconv.Atoi(p[1])
		if err != nil || n < 0 || n > 255 {
			return ""
		}
		return palette(n)
	case "2":
		rgb := p[1:]
		if len(rgb) == 4 {
			rgb = rgb[1:] // color-space id
		}
		if len(rgb) < 3 {
			return ""
		}
		var v [3]int
		for k := 0; k < 3; k++ {
			n, err := strconv.Atoi(rgb[k])
			if err != nil || n < 0 || n > 255 {
				return ""
			}
			v[k] = n
		}
		return fmt.Sprintf("#%02x%02x%02x", v[0], v[1], v[2])
	}
	return ""
}

// The 16 named colors (xterm's defaults).
var named = [16]string{
	"#000000", "#cd0000", "#00cd00", "#cdcd00", "#0000ee", "#cd00cd", "#00cdcd", "#e5e5e5",
	"#7f7f7f", "#ff0000", "#00ff00", "#ffff00", "#5c5cff", "#ff00ff", "#00ffff", "#ffffff",
}

// palette is color n of the 256-color palette.
func palette(n int) string {
	switch {
	case n < 16:
		return named[n]
	case n < 232:
		n -= 16
		level := func(v int) int {
			if v == 0 {
				return 0
			}
			return 55 + 40*v
		}
		return fmt.Sprintf("#%02x%02x%02x", level(n/36), level(n/6%6), level(n%6))
	default:
		g := 8 + 10*(n-232)
		return fmt.Sprintf("#%02x%02x%02x", g, g, g)
	}
}

// css is the inline style of a run, "" when all is default.
func (st style) css(opt Options) string {
	fg, bg := st.fg, st.bg
	if st.reverse {
		if fg == "" {
			fg = opt.FG
		}
		if bg == "" {
			bg = opt.BG
		}
		fg, bg = bg, fg
	}
	var parts []string
	if fg != "" {
		parts = append(parts, "color:"+fg)
	}
	if bg != "" {
		parts = append(parts, "background:"+bg)
	}
	if st.bold {
		parts = append(parts, "font-weight:bold")
	}
	if st.dim {
		parts = append(parts, "opacity:.6")
	}
	if st.italic {
		parts = append(parts, "font-style:italic")
	}
	var deco []string
	if st.underline {
		deco = append(deco, "underline")
	}
	if st.strike {
		deco = append(deco, "line-through")
	}
	if len(deco) > 0 {
		parts = append(parts, "text-decoration:"+strings.Join(deco, " "))
	}
	return strings.Join(parts, ";")
}
