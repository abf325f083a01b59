package engine

import (
	"testing"

	"github.com/agent-lsp/agent-lsp/langserver"
	"github.com/agent-lsp/agent-lsp/settings"
)

// TestLangServersFollowSettings: the language servers are made once per
// lsp block, anew when it changes, none when it turns them off, and
// none after Close.
func TestLangServersFollowSettings(t *testing.T) {
	base := []langserver.ServerConfig{{Name: "go", Command: []string{"/nonexistent/gopls"}, Filetypes: []string{"go"}}}
	svc := NewService(Config{Settings: &settings.Settings{}, LangServers: base, Logf: t.Logf})
	m1 := svc.langServers()
	if m1 == nil || !m1.Handles("/a/b.go") || m1.Handles("/a/b.py") {
		t.Fatalf("first manager = %v", m1)
	}
	if svc.langServers() != m1 {
		t.Error("same settings, new manager")
	}
	py := &settings.Settings{LSP: settings.LSP{Servers: map[string]settings.LSPServer{"python": {Command: []string{"/nonexistent/pyright"}, Filetypes: []string{"py"}}}}}
	svc.UpdateSettings(py, nil)
	m2 := svc.langServers()
	if m2 == nil || m2 == m1 || !m2.Handles("/a/b.py") || m2.Handles("/a/b.go") {
		t.Fatalf("after a new lsp block: %v (was %v)", m2, m1)
	}
	svc.UpdateSettings(&settings.Settings{LSP: settings.LSP{Disabled: true}}, nil)
	if m := svc.langServers(); m != nil {
		t.Errorf("lsp disabled, got %v", m)
	}
	svc.UpdateSettings(&settings.Settings{ProjectRestricted: true}, nil)
	if m := svc.langServers(); m != nil {
		t.Errorf("untrusted folder: a language server on PATH would run its code, got %v", m)
	}
	svc.UpdateSettings(&settings.Settings{}, nil)
	if svc.langServers() == nil {
		t.Error("lsp enabled again (the folder trusted), got none")
	}
	svc.Close()
	if m := svc.langServers(); m != nil {
		t.Errorf("after Close: %v", m)
	}
}

func TestServerConfigs(t *testing.T) {
	base := []langserver.ServerConfig{
		{Name: "go", Command: []string{"gopls"}, Filetypes: []string{"go"}},
		{Name: "python", Command: []string{"pyright-langserver", "--stdio"}, Filetypes: []string{"py"}},
	}
	tests := []struct {
		name string
		conf settings.LSP
		want map[string]string // name -> first filetype
	}{
		{"detected", settings.LSP{}, map[string]string{"go": "go", "python": "py"}},
		{"one turned off", settings.LSP{Servers: map[string]settings.LSPServer{"python": {Disabled: true}}}, map[string]string{"go": "go"}},
		{"filetypes tuned", settings.LSP{Servers: map[string]settings.LSPServer{"go": {Filetypes: []string{"gotmpl"}}}}, map[string]string{"go": "gotmpl", "python": "py"}},
		{"configured replaces detection", settings.LSP{Servers: map[string]settings.LSPServer{"c": {Command: []string{"clangd"}}}}, map[string]string{"c": "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := map[string]string{}
			for _, c := range serverConfigs(tt.conf, base) {
				got[c.Name] = c.Filetypes[0]
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("got %v, want %v", got, tt.want)
				}
			}
		})
	}
}
