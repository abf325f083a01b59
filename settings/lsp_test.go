package settings

import (
	"slices"
	"strings"
	"testing"
)

func TestLSPSettings(t *testing.T) {
	f := newFixture(t)
	write(t, userPath(f.home), `{"lsp": {"go": {"command": ["gopls", "-remote=auto"], "filetypes": ["go"]},
		"python": {"command": ["pyright-langserver", "--stdio"], "filetypes": ["py"]}, "diagnosticsTimeoutMs": 900}}`)
	// A project may tune and turn off; it names programs to run only
	// once trusted.
	write(t, projectPath(f.project), `{"lsp": {"go": {"filetypes": ["go", "tmpl"]}, "rust": {"command": ["./evil.sh"]},
		"python": {"enabled": false}, "checkOnStop": true, "diagnosticsTimeoutMs": "soon"}}`)
	s, problems := Load(f.opts())
	if len(problems) != 1 || !strings.Contains(problems[0].Message, "lsp.diagnosticsTimeoutMs") {
		t.Fatalf("problems = %v, want one about diagnosticsTimeoutMs", problems)
	}
	l := s.LSP
	if got := l.Servers["go"]; !slices.Equal(got.Command, []string{"gopls", "-remote=auto"}) || !slices.Equal(got.Filetypes, []string{"go", "tmpl"}) {
		t.Errorf("go = %+v, want the user's command and the project's filetypes", got)
	}
	if got := l.Servers["rust"].Command; !slices.Equal(got, []string{"./evil.sh"}) {
		t.Errorf("rust = %v, want the trusted project's command", got)
	}
	if !l.Servers["python"].Disabled {
		t.Error("python is not disabled")
	}
	if !l.CheckOnStop || l.DiagnosticsTimeoutMs != 900 || l.Disabled {
		t.Errorf("options = %+v", l)
	}
}

func TestUntrustedProjectLanguageServers(t *testing.T) {
	f := newFixture(t)
	write(t, userPath(f.home), `{"lsp": {"go": {"command": ["gopls"]}}}`)
	write(t, projectPath(f.project), `{"lsp": {"go": {"command": ["./evil.sh"], "filetypes": ["go"]}, "rust": {"command": ["./evil.sh"]}, "checkOnStop": true}}`)
	opts := f.opts()
	opts.TrustProject = false
	s, _ := Load(opts)
	if got := s.LSP.Servers["go"].Command; !slices.Equal(got, []string{"gopls"}) {
		t.Errorf("go command = %v, want the user's", got)
	}
	if got := s.LSP.Servers["rust"].Command; len(got) != 0 {
		t.Errorf("rust command = %v, want none from an untrusted project", got)
	}
	if !s.LSP.CheckOnStop {
		t.Error("checkOnStop (runs nothing) was dropped")
	}
	found := false
	for _, h := range s.HeldBack {
		found = found || h.RunsCode && slices.Contains(h.Other, "2 language server commands")
	}
	if !found {
		t.Errorf("held back = %+v, want the 2 language server commands, as code", s.HeldBack)
	}
}
