package ansihtml

import (
	"strings"
	"testing"
)

func TestRenderLine(t *testing.T) {
	opt := Options{}.withDefaults()
	tests := []struct {
		name, in, want string
	}{
		{"plain text", "hello", "<span>hello</span>"},
		{"html is escaped", "a<b>&\"", "<span>a&lt;b&gt;&amp;&#34;</span>"},
		{"bold then reset", "\x1b[1mB\x1b[0mn", `<span style="font-weight:bold">B</span><span>n</span>`},
		{"named colors", "\x1b[31;42mx", `<span style="color:#cd0000;background:#00cd00">x</span>`},
		{"bright colors", "\x1b[91;104mx", `<span style="color:#ff0000;background:#5c5cff">x</span>`},
		{"256 palette", "\x1b[38;5;196mx", `<span style="color:#ff0000">x</span>`},
		{"256 gray", "\x1b[48;5;232mx", `<span style="background:#080808">x</span>`},
		{"rgb with semicolons", "\x1b[38;2;1;2;3mx", `<span style="color:#010203">x</span>`},
		{"rgb with colons", "\x1b[38:2:10:20:30mx", `<span style="color:#0a141e">x</span>`},
		{"rgb with a color-space id", "\x1b[48:2::10:20:30mx", `<span style="background:#0a141e">x</span>`},
		{"rgb then more attributes", "\x1b[38;2;1;2;3;1mx", `<span style="color:#010203;font-weight:bold">x</span>`},
		{"default colors", "\x1b[31;41m\x1b[39;49mx", "<span>x</span>"},
		{"reverse swaps with the defaults", "\x1b[7mx", `<span style="color:#14161b;background:#e0e2ea">x</span>`},
		{"attributes off", "\x1b[1;3;4;9m\x1b[22;23;24;29mx", "<span>x</span>"},
		{"italic underline strike", "\x1b[3;4;9mx", `<span style="font-style:italic;text-decoration:underline line-through">x</span>`},
		{"curly underline", "\x1b[4:3mx", `<span style="text-decoration:underline">x</span>`},
		{"other CSI is dropped", "a\x1b[2Kb", "<span>ab</span>"},
		{"OSC is dropped", "a\x1b]8;;http://x\x07b", "<span>ab</span>"},
		{"a narrow symbol gets one cell", "✓", `<span><span class="c1">✓</span></span>`},
		{"an emoji gets two cells", "💭", `<span><span class="c2">💭</span></span>`},
		{"wide CJK", "字", `<span><span class="c2">字</span></span>`},
		{"bad 256 index is ignored", "\x1b[38;5;300mx", "<span>x</span>"},
		{"truncated color is ignored", "\x1b[38;2;1mx", "<span>x</span>"},
		{"control characters take no cell", "a\rb", "<span>ab</span>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			renderLine(&b, tt.in, style{}, opt)
			if got := b.String(); got != tt.want {
				t.Errorf("renderLine(%q)\n got: %s\nwant: %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestStyleCarriesAcrossLines(t *testing.T) {
	var b strings.Builder
	if err := Render(&b, "\x1b[31mred\nstill red\x1b[0m\nplain\n", Options{Title: "t<1>"}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		`<div class="l"><span style="color:#cd0000">red</span></div>`,
		`<div class="l"><span style="color:#cd0000">still red</span></div>`,
		`<div class="l"><span>plain</span></div>`,
		`<title>t&lt;1&gt;</title>`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("page lacks %s\n%s", want, out)
		}
	}
	if n := strings.Count(out, `<div class="l">`); n != 3 {
		t.Errorf("%d lines, want 3 (the final newline ends the last line)", n)
	}
}

func TestPalette(t *testing.T) {
	tests := []struct {
		n    int
		want string
	}{
		{0, "#000000"}, {15, "#ffffff"}, {16, "#000000"}, {21, "#0000ff"},
		{196, "#ff0000"}, {231, "#ffffff"}, {232, "#080808"}, {255, "#eeeeee"},
	}
	for _, tt := range tests {
		if got := palette(tt.n); got != tt.want {
			t.Errorf("palette(%d) = %s, want %s", tt.n, got, tt.want)
		}
	}
}
