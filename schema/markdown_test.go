package schema

import "testing"

// TestCodeBlockFence: a code block's fence is longer than any backtick
// run in its text, so text holding a fence never ends the block early.
func TestCodeBlockFence(t *testing.T) {
	for _, tt := range []struct{ command, output, want string }{
		{"ls", "a\nb\n", "```console\n$ ls\na\nb\n```"},
		{"ls", "", "```console\n$ ls\n```"},
		{"cat x.md", "```go\nx\n```\n", "````console\n$ cat x.md\n```go\nx\n```\n````"},
		{"echo '`````'", "`````\n", "``````console\n$ echo '`````'\n`````\n``````"},
	} {
		if got := ConsoleBlock(tt.command, tt.output); got != tt.want {
			t.Errorf("ConsoleBlock(%q, %q) =\n%s\nwant\n%s", tt.command, tt.output, got, tt.want)
		}
	}
}

func TestInlineCode(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"go test ./...", "`go test ./...`"},
		{"a `b` c", "``a `b` c``"},
		{"`x`", "`` `x` ``"},
	} {
		if got := InlineCode(tt.in); got != tt.want {
			t.Errorf("InlineCode(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
