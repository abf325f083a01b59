package diffs

import (
	"math/rand"
	"strings"
	"testing"
)

func TestTextEditsRoundTrip(t *testing.T) {
	tests := []struct{ name, old, new string }{
		{"equal", "a\nb\n", "a\nb\n"},
		{"insert line", "a\nc\n", "a\nb\nc\n"},
		{"delete line", "a\nb\nc\n", "a\nc\n"},
		{"change middle", "one\ntwo\nthree\n", "one\n2\nthree\n"},
		{"no trailing newline", "a\nb", "a\nB"},
		{"empty old", "", "new file\n"},
		{"empty new", "gone\n", ""},
		{"astral plane", "x = \"😀\"\ny\n", "x = \"😀!\"\ny\n"},
		{"crlf", "a\r\nb\r\n", "a\r\nB\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Apply(tt.old, TextEdits(tt.old, tt.new))
			if got != tt.new {
				t.Errorf("Apply(TextEdits) = %q, want %q", got, tt.new)
			}
		})
	}
}

func TestTextEditsRandom(t *testing.T) {
	rnd := rand.New(rand.NewSource(1))
	words := []string{"a", "b", "ü", "😀", "\n", "\n", "xyz"}
	gen := func() string {
		var b strings.Builder
		for range rnd.Intn(40) {
			b.WriteString(words[rnd.Intn(len(words))])
		}
		return b.String()
	}
	for range 500 {
		old, new := gen(), gen()
		if got := Apply(old, TextEdits(old, new)); got != new {
			t.Fatalf("Apply(%q, TextEdits(%q, %q)) = %q", old, old, new, got)
		}
	}
}

func TestPositionUTF16(t *testing.T) {
	text := "😀a\nb"
	c := newConverter(text)
	if p := c.position(len("😀")); p != (Position{0, 2}) {
		t.Errorf("position after emoji = %+v, want {0 2}", p)
	}
	if off := Offset(text, Position{0, 2}); off != len("😀") {
		t.Errorf("Offset({0 2}) = %d, want %d", off, len("😀"))
	}
	if p := c.position(len("😀a\n")); p != (Position{1, 0}) {
		t.Errorf("position of line 2 = %+v", p)
	}
}

func TestUnifiedAndStat(t *testing.T) {
	d := Unified("calc.py", "a\nb\nc\n", "a\nB\nc\nd\n")
	if !strings.Contains(d, "--- a/calc.py") || !strings.Contains(d, "+B") {
		t.Fatalf("unexpected diff:\n%s", d)
	}
	add, del, err := Stat(d)
	if err != nil || add != 2 || del != 1 {
		t.Errorf("Stat = +%d -%d, %v; want +2 -1", add, del, err)
	}
	if Unified("x", "same", "same") != "" {
		t.Error("Unified of equal texts is not empty")
	}
}
