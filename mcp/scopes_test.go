package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/settings"
)

// claudeCodeJSON returns testdata/claudecode/claude.json, the
// ~/.claude.json that Claude Code 2.1.332 wrote for
//
//	claude mcp add -s user userfs -- /usr/bin/user-server --flag
//	claude mcp add -s local localdb -e DSN=postgres://x -- /usr/bin/local-server
//	claude mcp add -s user --transport http web https://mcp.example.com/mcp -H "Authorization: Bearer tok"
//
// run in /tmp/ccmcp/ws, with the folder's entry moved to folder and edit
// applied to the decoded file (the other keys Claude Code keeps stay).
func claudeCodeJSON(t *testing.T, folder string, edit func(top, project map[string]any)) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "claudecode", "claude.json"))
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]any
	if err := json.Unmarshal(data, &top); err != nil {
		t.Fatal(err)
	}
	projects := top["projects"].(map[string]any)
	project := projects["/tmp/ccmcp/ws"].(map[string]any)
	delete(projects, "/tmp/ccmcp/ws")
	projects[folder] = project
	if edit != nil {
		edit(top, project)
	}
	out, err := json.MarshalIndent(top, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), ".claude.json")
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// byName indexes servers by name.
func byName(servers []Server) map[string]Server {
	m := make(map[string]Server)
	for _, s := range servers {
		m[s.Name] = s
	}
	return m
}

// TestCollectClaudeCodeScopes reads the servers of every scope from the
// files Claude Code writes: user and local from ~/.claude.json (its
// other keys ignored), project from .mcp.json approved by the folder's
// entry in ~/.claude.json, with local > project > user for a name
// defined in several.
func TestCollectClaudeCodeScopes(t *testing.T) {
	ws := t.TempDir()
	cj := claudeCodeJSON(t, ws, func(top, project map[string]any) {
		top["mcpServers"].(map[string]any)["shared"] = map[string]any{"type": "stdio", "command": "/bin/from-user", "args": []any{}, "env": map[string]any{}}
		top["mcpServers"].(map[string]any)["userproj"] = map[string]any{"type": "stdio", "command": "/bin/from-user", "args": []any{}, "env": map[string]any{}}
		project["mcpServers"].(map[string]any)["shared"] = map[string]any{"type": "stdio", "command": "/bin/from-local", "args": []any{}, "env": map[string]any{}}
		project["enabledMcpjsonServers"] = []any{"approved"}
		project["disabledMcpjsonServers"] = []any{"refused"}
	})
	writeFile(t, filepath.Join(ws, ProjectFile), `{"mcpServers": {
	  "shared": {"command": "/bin/from-project"},
	  "userproj": {"command": "/bin/from-project"},
	  "approved": {"command": "/bin/approved"},
	  "refused": {"command": "/bin/refused"},
	  "asking": {"command": "/bin/asking"}
	}}`)

	servers, errs := Collect(Sources{Workspace: ws, Folder: ws, ClaudeJSON: cj, Settings: &settings.Settings{}})
	if len(errs) > 0 {
		t.Fatalf("errors: %v", errs)
	}
	got := byName(servers)
	for name, want := range map[string]struct {
		scope   Scope
		command string
		url     string
	}{
		"userfs":   {ScopeUser, "/usr/bin/user-server", ""},
		"web":      {ScopeUser, "", "https://mcp.example.com/mcp"},
		"localdb":  {ScopeLocal, "/usr/bin/local-server", ""},
		"shared":   {ScopeLocal, "/bin/from-local", ""},
		"userproj": {ScopeProject, "/bin/from-project", ""},
		"approved": {ScopeProject, "/bin/approved", ""},
		"refused":  {ScopeProject, "/bin/refused", ""},
		"asking":   {ScopeProject, "/bin/asking", ""},
	} {
		s, ok := got[name]
		if !ok {
			t.Errorf("%s missing from %v", name, servers)
			continue
		}
		if s.Scope != want.scope || s.Command != want.command || s.URL != want.url {
			t.Errorf("%s = %+v, want scope %s command %q url %q", name, s, want.scope, want.command, want.url)
		}
	}
	if len(got) != 8 {
		t.Errorf("%d servers, want 8: %+v", len(got), servers)
	}
	if s := got["userfs"]; strings.Join(s.Args, " ") != "--flag" || s.Type != TypeStdio {
		t.Errorf("userfs = %+v", s)
	}
	if s := got["web"]; s.Type != TypeHTTP || s.Headers["Authorization"] != "Bearer tok" {
		t.Errorf("web = %+v", s)
	}
	if s := got["localdb"]; s.Env["DSN"] != "postgres://x" {
		t.Errorf("localdb = %+v", s)
	}
	if s := got["approved"]; s.NeedsApproval || s.Disabled {
		t.Errorf("approved in ~/.claude.json = %+v", s)
	}
	if s := got["refused"]; !s.Disabled {
		t.Errorf("refused in ~/.claude.json = %+v", s)
	}
	if s := got["asking"]; !s.NeedsApproval {
		t.Errorf("asking = %+v", s)
	}

	// Another folder sees the user scope only; an untrusted folder (no
	// Workspace) still has its local scope, the user's own.
	servers, _ = Collect(Sources{Folder: t.TempDir(), ClaudeJSON: cj})
	if g := byName(servers); len(g) != 4 || g["shared"].Command != "/bin/from-user" || g["localdb"].Name != "" {
		t.Errorf("another folder: %+v", servers)
	}
	servers, _ = Collect(Sources{Folder: ws, ClaudeJSON: cj})
	if g := byName(servers); g["localdb"].Scope != ScopeLocal || g["approved"].Name != "" {
		t.Errorf("untrusted folder: %+v", servers)
	}

	// The editor's and the settings' servers come first.
	st := &settings.Settings{MCPServers: map[string]json.RawMessage{"shared": json.RawMessage(`{"command": "/bin/from-settings"}`)}}
	servers, _ = Collect(Sources{Folder: ws, ClaudeJSON: cj, Settings: st, Session: []schema.MCPServer{{Name: "localdb", Command: "/bin/from-editor"}}})
	if g := byName(servers); g["shared"].Scope != ScopeSettings || g["localdb"].Scope != ScopeSession {
		t.Errorf("settings and editor first: %+v", servers)
	}

	// A broken ~/.claude.json is reported, and nothing is read from it.
	bad := filepath.Join(t.TempDir(), ".claude.json")
	writeFile(t, bad, `{"mcpServers": {`)
	if servers, errs := Collect(Sources{Folder: ws, ClaudeJSON: bad}); len(servers) != 0 || len(errs) != 1 || !strings.Contains(errs[0].Error(), bad) {
		t.Errorf("broken file: %v %v", servers, errs)
	}
}

// TestCollectManaged: a managed-mcp.json takes exclusive control, as in
// Claude Code: only its servers may start, every other is blocked; one
// that cannot be read still blocks the rest.
func TestCollectManaged(t *testing.T) {
	ws := t.TempDir()
	cj := claudeCodeJSON(t, ws, nil)
	managed := filepath.Join(t.TempDir(), "managed-mcp.json")
	writeFile(t, managed, `{"mcpServers": {"company": {"type": "stdio", "command": "/usr/local/bin/company", "args": ["--config", "/etc/company.json"]}}}`)

	servers, errs := Collect(Sources{Folder: ws, ClaudeJSON: cj, ManagedFile: managed, Session: []schema.MCPServer{{Name: "ed", Command: "/bin/ed"}}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	got := byName(servers)
	if c := got["company"]; c.Scope != ScopeManaged || c.Blocked != "" {
		t.Errorf("company = %+v", c)
	}
	for _, name := range []string{"userfs", "web", "localdb", "ed"} {
		if !strings.Contains(got[name].Blocked, "exclusive control") {
			t.Errorf("%s = %+v, want blocked by the managed file", name, got[name])
		}
	}

	// A missing managed file changes nothing.
	servers, _ = Collect(Sources{Folder: ws, ClaudeJSON: cj, ManagedFile: filepath.Join(t.TempDir(), "none.json")})
	for _, s := range servers {
		if s.Blocked != "" {
			t.Errorf("no managed file: %+v", s)
		}
	}

	// An empty map disables MCP; an invalid file too, with an error.
	for content, wantErr := range map[string]bool{`{"mcpServers": {}}`: false, `{"mcpServers": `: true} {
		writeFile(t, managed, content)
		servers, errs := Collect(Sources{Folder: ws, ClaudeJSON: cj, ManagedFile: managed})
		if (len(errs) > 0) != wantErr {
			t.Errorf("%s: errors %v", content, errs)
		}
		for _, s := range servers {
			if s.Blocked == "" {
				t.Errorf("%s: %s may start", content, s.Name)
			}
		}
	}
}

// TestPolicy applies allowedMcpServers and deniedMcpServers as Claude
// Code does.
func TestPolicy(t *testing.T) {
	type rule = settings.MCPServerRule
	servers := []Server{
		{Name: "github", Type: TypeHTTP, URL: "https://API.github.com/mcp"},
		{Name: "files", Type: TypeStdio, Command: "npx", Args: []string{"-y", "files"}},
		{Name: "other", Type: TypeStdio, Command: "other"},
		{Name: "managed", Type: TypeStdio, Command: "corp", Scope: ScopeManaged},
		{Name: "managedenv", Type: TypeStdio, Command: "corp2", Scope: ScopeManaged, usesEnv: true},
	}
	for _, tc := range []struct {
		name    string
		st      settings.Settings
		blocked []string
	}{
		{"no lists", settings.Settings{}, nil},
		{"deny by name", settings.Settings{DeniedMcpServers: []rule{{ServerName: "files"}}}, []string{"files"}},
		{"deny by command", settings.Settings{DeniedMcpServers: []rule{{ServerCommand: []string{"npx", "-y", "files"}}}}, []string{"files"}},
		{"command must match exactly", settings.Settings{DeniedMcpServers: []rule{{ServerCommand: []string{"npx", "files"}}}}, nil},
		{"deny by url", settings.Settings{DeniedMcpServers: []rule{{ServerURL: "https://api.github.com/*"}}}, []string{"github"}},
		{"deny managed", settings.Settings{DeniedMcpServers: []rule{{ServerName: "managed"}}}, []string{"managed"}},
		{"empty allowlist", settings.Settings{AllowedMcpServers: []rule{}}, []string{"github", "files", "other", "managedenv"}},
		{"allow by name", settings.Settings{AllowedMcpServers: []rule{{ServerName: "files"}, {ServerName: "github"}}}, []string{"other", "managedenv"}},
		{"a command entry needs stdio to match by command", settings.Settings{AllowedMcpServers: []rule{{ServerName: "files"}, {ServerName: "github"}, {ServerCommand: []string{"other"}}}}, []string{"files", "managedenv"}},
		{"a url entry needs remote to match by url", settings.Settings{AllowedMcpServers: []rule{{ServerName: "github"}, {ServerURL: "https://example.com/*"}}}, []string{"github", "files", "other", "managedenv"}},
		{"deny beats allow", settings.Settings{AllowedMcpServers: []rule{{ServerName: "files"}}, DeniedMcpServers: []rule{{ServerName: "files"}}}, []string{"github", "files", "other", "managedenv"}},
		{"expanded", settings.Settings{AllowedMcpServers: []rule{{ServerCommand: []string{"${CMD}", "-y", "files"}}}}, []string{"github", "other", "managedenv"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			list := append([]Server(nil), servers...)
			applyPolicy(list, &tc.st, env(map[string]string{"CMD": "npx"}))
			var blocked []string
			for _, s := range list {
				if s.Blocked != "" {
					blocked = append(blocked, s.Name)
				}
			}
			if strings.Join(blocked, " ") != strings.Join(tc.blocked, " ") {
				t.Errorf("blocked %v, want %v", blocked, tc.blocked)
			}
		})
	}
}

// TestManagedFilePaths are Claude Code's paths of managed-mcp.json.
func TestManagedFilePaths(t *testing.T) {
	for goos, want := range map[string]string{
		"linux":   "/etc/claude-code/managed-mcp.json",
		"darwin":  "/Library/Application Support/ClaudeCode/managed-mcp.json",
		"windows": `C:\Program Files\ClaudeCode\managed-mcp.json`,
	} {
		if got := managedFileFor(goos); got != want {
			t.Errorf("%s: %s, want %s", goos, got, want)
		}
	}
}

// TestBlockedAndAuth: a blocked server is reported and not started; a
// server that answers 401 with a WWW-Authenticate challenge is reported
// as needing OAuth authorization, saying what to do; one that answers
// 401 without a challenge is a plain failure.
func TestBlockedAndAuth(t *testing.T) {
	oauth := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="https://auth.example.com/.well-known/oauth-protected-resource"`)
		http.Error(w, "unauthorized", http.StatusUnauthorized)
	}))
	defer oauth.Close()
	r := newRecorder()
	m := Start(context.Background(), []Server{
		{Name: "sso", Type: TypeHTTP, URL: oauth.URL + "/mcp", Scope: ScopeUser},
		{Name: "ssesso", Type: TypeSSE, URL: oauth.URL + "/sse", Scope: ScopeUser},
		{Name: "nope", Type: TypeStdio, Command: "/bin/false", Blocked: "deniedMcpServers blocks it (serverName nope)"},
	}, r.options())
	defer m.Close()

	for _, name := range []string{"sso", "ssesso"} {
		st := r.waitState(t, name, StateNeedsAuth)
		msg := st.String()
		for _, want := range []string{`MCP server "` + name + `" needs OAuth authorization`, "401", "resource_metadata", `"headers"`, "Authorization", "/mcp reconnect " + name} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: %q lacks %q", name, msg, want)
			}
		}
	}
	st := r.waitState(t, "nope", StateBlocked)
	if st.String() != `MCP server "nope" is blocked: deniedMcpServers blocks it (serverName nope)` {
		t.Errorf("blocked = %s", st)
	}
	if err := m.Reconnect("nope"); err == nil || !strings.Contains(err.Error(), "blocked") {
		t.Errorf("reconnecting a blocked server: %v", err)
	}
	m.Close()
	oauth.Close()
	checkNoGoroutines(t)
}
