package settings

import (
	"slices"
	"strings"
	"testing"
)

func TestLSPSettings(t *testing.T) {
	f := newFixture(t)
	write(t, UserPath(f.home), `{"lsp": {"go": {"command": ["gopls", "-remote=auto"], "filetypes": ["go"]},
		"python": {"command": ["pyright-langserver", "--stdio"], "filetypes": ["py"]}, "diagnosticsTimeoutMs": 900}}`)
	// A project may tune and turn off, never name the program to run.
	write(t, ProjectPath(f.project), `{"lsp": {"go": {"filetypes": ["go", "tmpl"]}, "rust": {"command": ["./evil.sh"]},
		"python": {"enabled": false}, "checkOnStop": true, "diagnosticsTimeoutMs": "soon"}}`)
	s, problems := Load(f.opts())
	if len(problems) != 1 || !strings.Contains(problems[0].Message, "lsp.diagnosticsTimeoutMs") {
		t.Fatalf("problems = %v, want one about diagnosticsTimeoutMs", problems)
	}
	l := s.LSP
	if got := l.Servers["go"]; !slices.Equal(got.Command, []string{"gopls", "-remote=auto"}) || !slices.Equal(got.Filetypes, []string{"go", "tmpl"}) {
		t.Errorf("go = %+v, want the user's command and the project's filetypes", got)
	}
	if _, ok := l.Servers["rust"]; ok || !slices.Equal(l.HeldBack, []string{"rust"}) {
		t.Errorf("rust = %+v, held back %v: a project's command must be held back", l.Servers["rust"], l.HeldBack)
	}
	if !l.Servers["python"].Disabled {
		t.Error("python is not disabled")
	}
	if !l.CheckOnStop || l.DiagnosticsTimeoutMs != 900 || l.Disabled {
		t.Errorf("options = %+v", l)
	}
}
