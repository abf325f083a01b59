package tools

import (
	"fmt"
	"strings"
	"testing"
)

func TestReadLineNumbersAcrossWidths(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 1000010; i++ {
		b.WriteString("x\n")
	}
	got := formatLines("p", []byte(b.String()), 999990, 30)
	var want strings.Builder
	for i := 999990; i <= 1000010; i++ {
		fmt.Fprintf(&want, "%6d\tx\n", i)
	}
	if !strings.HasPrefix(got, want.String()) {
		t.Fatalf("%q", got[:400])
	}
	got = formatLines("p", []byte(b.String()), 1, 120)
	want.Reset()
	for i := 1; i <= 120; i++ {
		fmt.Fprintf(&want, "%6d\tx\n", i)
	}
	if !strings.HasPrefix(got, want.String()) {
		t.Fatalf("%q", got[:400])
	}
}
