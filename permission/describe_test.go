package permission

import (
	"path/filepath"
	"testing"

	"github.com/agent-lsp/agent-lsp/settings"
)

// TestRuleWords: the options of a permission request say in words what a
// rule covers, with paths relative to where the session runs.
func TestRuleWords(t *testing.T) {
	project := t.TempDir()
	sub := filepath.Join(project, "sub")
	p := NewPolicy(project, &settings.Settings{Home: "/home/me"}, Default)
	tests := []struct {
		rules, cwd, want string
	}{
		{"Edit(/calc.go)", project, "edits to calc.go"},
		{"Edit(/calc.go)", sub, "edits to ../calc.go"},
		{"Edit(src/**)", project, "edits in src/"},
		{"Edit(/sub/**)", sub, "edits in this folder"},
		{`Edit(/a\[1\].go)`, project, "edits to a[1].go"},
		{"Read(//etc/**)", "/home/me/w", "reads in ../../../etc/"},
		{"Read(~/notes/**)", "/home/me/w", "reads in ../notes/"},
		{"Bash(go test:*)", project, "`go test …` commands"},
		{"Bash(npm run build)", project, "`npm run build` commands"},
		{"Bash(go test:*), Bash(make:*)", project, "`go test …` commands and `make …` commands"},
		{"Bash(echo `x`:*)", project, "``echo `x` …`` commands"},
		{"WebFetch(domain:example.com)", project, "fetches from example.com"},
		{"Edit", project, "Edit"},
		{"mcp__github__create_issue", project, "create_issue (MCP server github)"},
	}
	for _, tt := range tests {
		if got := p.RuleWords(tt.rules, tt.cwd); got != tt.want {
			t.Errorf("RuleWords(%q, %s) = %q, want %q", tt.rules, tt.cwd, got, tt.want)
		}
	}
}

func TestDisplayPath(t *testing.T) {
	for _, tt := range []struct{ cwd, path, want string }{
		{"/w", "/w/calc.go", "calc.go"},
		{"/w", "/w", "."},
		{"/w/sub", "/w/x.txt", "../x.txt"},
		{"/w", "relative.txt", "relative.txt"},
		{"", "/w/calc.go", "/w/calc.go"},
	} {
		if got := DisplayPath(tt.cwd, tt.path); got != tt.want {
			t.Errorf("DisplayPath(%q, %q) = %q, want %q", tt.cwd, tt.path, got, tt.want)
		}
	}
}
