package permission

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/agent-lsp/agent-lsp/settings"
)

// TestMatches: a hook's "if" rule covers the calls a deny rule would.
func TestMatches(t *testing.T) {
	dir := t.TempDir()
	p := NewPolicy(dir, &settings.Settings{Project: dir}, Default)
	tests := []struct {
		rule string
		call Call
		want bool
	}{
		{"Bash(rm *)", Call{Tool: "Bash", Command: "rm -rf build"}, true},
		{"Bash(rm *)", Call{Tool: "Bash", Command: "ls && rm x"}, true},
		{"Bash(rm *)", Call{Tool: "Bash", Command: "FOO=1 rm x"}, true},
		{"Bash(rm *)", Call{Tool: "Bash", Command: "ls -l"}, false},
		{"Bash(git push:*)", Call{Tool: "Bash", Command: "git push origin main"}, true},
		{"Bash", Call{Tool: "Bash", Command: "anything"}, true},
		{"Bash(rm *)", Call{Tool: "Read", Paths: []string{filepath.Join(dir, "rm")}}, false},
		{"Edit(src/**)", Call{Tool: "Edit", Paths: []string{filepath.Join(dir, "src", "a.go")}}, true},
		{"Edit(src/**)", Call{Tool: "Edit", Paths: []string{filepath.Join(dir, "docs", "a.md")}}, false},
		{"Read", Call{Tool: "Read", Paths: []string{filepath.Join(dir, "x")}}, true},
		{"WebFetch(domain:example.com)", Call{Tool: "WebFetch", Input: json.RawMessage(`{"url":"https://example.com/x"}`)}, true},
		{"mcp__github", Call{Tool: "mcp__github__create_issue"}, true},
	}
	for _, tt := range tests {
		got, err := p.Matches(tt.rule, tt.call)
		if err != nil || got != tt.want {
			t.Errorf("Matches(%q, %s %q %v) = %v, %v; want %v", tt.rule, tt.call.Tool, tt.call.Command, tt.call.Paths, got, err, tt.want)
		}
	}
	if _, err := p.Matches("Bash(rm", Call{Tool: "Bash", Command: "rm x"}); err == nil {
		t.Errorf("an invalid rule matched without an error")
	}
}
