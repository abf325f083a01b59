package diffs

import "testing"

func TestHunksRoundTrip(t *testing.T) {
	for _, c := range []struct{ name, old, new string }{
		{"insert", "a\nb\nc\n", "a\nx\nb\nc\n"},
		{"delete", "a\nb\nc\n", "a\nc\n"},
		{"create", "", "a\nb\n"},
		{"clear", "a\nb\n", ""},
		{"two hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n", "1\nX\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\nY\n14\n"},
		{"no final newline", "a\nb", "a\nc"},
		{"add final newline", "a\nb", "a\nb\n"},
		{"empty lines", "a\n\n\nb\n", "a\n\nz\n\nb\n"},
		{"equal", "a\n", "a\n"},
		{"one line", "a\n", "b\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ApplyHunks(c.old, Hunks(c.old, c.new))
			if err != nil || got != c.new {
				t.Fatalf("ApplyHunks(old, Hunks(old, new)) = %q, %v; want %q", got, err, c.new)
			}
		})
	}
	if _, err := ApplyHunks("other\n", Hunks("a\nb\n", "a\nc\n")); err == nil {
		t.Error("ApplyHunks to a text the hunks do not match: no error")
	}
}

// TestApplyClaudeCodePatch applies a structuredPatch as Claude Code 2.1.332
// wrote it (server/testdata/claude-code).
func TestApplyClaudeCodePatch(t *testing.T) {
	orig := "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
	h := []Hunk{{OldStart: 1, OldLines: 4, NewStart: 1, NewLines: 5, Lines: []string{" def add(a, b):", "+    \"\"\"Add.\"\"\"", "     return a + b", " ", " "}}}
	want := "def add(a, b):\n    \"\"\"Add.\"\"\"\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
	if got, err := ApplyHunks(orig, h); err != nil || got != want {
		t.Fatalf("ApplyHunks = %q, %v; want %q", got, err, want)
	}
}
