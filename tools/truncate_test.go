package tools

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTruncate(t *testing.T) {
	if got := Truncate("short", 10); got != "short" {
		t.Errorf("fits: %q", got)
	}
	if got := Truncate("anything", 0); got != "anything" {
		t.Errorf("no budget: %q", got)
	}
	s := strings.Repeat("a", 600) + strings.Repeat("é", 300) + strings.Repeat("z", 600)
	got := Truncate(s, 900)
	if !strings.HasPrefix(got, strings.Repeat("a", 600)) || !strings.HasSuffix(got, strings.Repeat("z", 300)) {
		t.Errorf("head or tail lost:\n%s", got)
	}
	for _, w := range []string{"characters omitted", "offset and limit", "head_limit"} {
		if !strings.Contains(got, w) {
			t.Errorf("note lacks %q", w)
		}
	}
	if !utf8.ValidString(got) {
		t.Error("a rune was cut in two")
	}
	if len(got) > 900+400 {
		t.Errorf("truncated to %d bytes for a budget of 900", len(got))
	}
}
