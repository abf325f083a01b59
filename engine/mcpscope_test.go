package engine

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-lsp/agent-lsp/mcp"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/settings"
)

// waitMCP waits for the session's last state of server to be state.
func waitMCP(t *testing.T, sess *Session, server string, state mcp.State) mcp.Status {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		for _, st := range sess.mcpStatuses() {
			if st.Server == server && st.State == state {
				return st
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never became %s: %+v", server, state, sess.mcpStatuses())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestMCPClaudeConfigDirAndPolicy: ~/.claude.json is found under
// $CLAUDE_CONFIG_DIR as Claude Code finds it; the managed settings'
// allowedMcpServers with allowManagedMcpServersOnly, read by the
// settings, are the only allowlist (a user's own allowlist does not
// widen it), and a server it leaves out is blocked, with its tools never
// offered.
func TestMCPClaudeConfigDirAndPolicy(t *testing.T) {
	url := kvServer(t)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, cfgDir := t.TempDir(), t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", cfgDir)
	write := func(path, content string) {
		t.Helper()
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(cfgDir, ".claude.json"), `{
  "firstStartTime": "2026-11-28T16:12:22.690Z",
  "mcpServers": {
    "kv": {"type": "http", "url": "`+url+`"},
    "extra": {"type": "http", "url": "`+url+`"}
  },
  "projects": {"`+dir+`": {"allowedTools": [], "mcpServers": {}, "hasTrustDialogAccepted": true}}
}`)
	write(filepath.Join(home, ".claude.json"), `{"mcpServers": {"wrong": {"type": "http", "url": "`+url+`"}}}`)
	managed := filepath.Join(t.TempDir(), "managed-settings.json")
	write(managed, `{"allowedMcpServers": [{"serverName": "kv"}], "allowManagedMcpServersOnly": true}`)
	write(filepath.Join(home, ".claude", "settings.json"), `{"allowedMcpServers": [{"serverName": "extra"}]}`)
	st, problems := settings.Load(settings.Options{Project: dir, Home: home, ManagedPath: managed, TrustProject: true})
	if len(problems) > 0 {
		t.Fatalf("settings problems: %v", problems)
	}

	svc := NewService(Config{Provider: newScript(t), Model: "test-model", Home: home, Logf: t.Logf, Settings: st})
	t.Cleanup(svc.Close)
	sess, err := svc.NewSession(context.Background(), SessionOptions{Cwd: dir, Client: &recordingClient{t: t}})
	if err != nil {
		t.Fatal(err)
	}
	if got := waitMCP(t, sess, "kv", mcp.StateReady); got.Scope != mcp.ScopeUser || got.Tools != 3 {
		t.Errorf("kv = %+v", got)
	}
	blocked := waitMCP(t, sess, "extra", mcp.StateBlocked)
	if !strings.Contains(blocked.String(), "not in the administrator's allowedMcpServers") {
		t.Errorf("extra = %s", blocked)
	}
	for _, st := range sess.mcpStatuses() {
		if st.Server == "wrong" {
			t.Errorf("the server of ~/.claude.json, not $CLAUDE_CONFIG_DIR's, was read: %+v", st)
		}
	}
	if _, ok := sess.tools.lookup("mcp__extra__get"); ok {
		t.Error("the blocked server's tools are offered")
	}
	if _, ok := sess.tools.lookup("mcp__kv__get"); !ok {
		t.Error("the allowed server's tools are not offered")
	}
	if _, ok := sess.tools.lookup(mcp.ListResourcesTool); ok {
		t.Error("resource tools offered though no server has resources")
	}
}

// docsServer is a real MCP server, in process, with two text resources
// and no tools.
func docsServer(t *testing.T) string {
	t.Helper()
	srv := sdk.NewServer(&sdk.Implementation{Name: "docs", Version: "1"}, nil)
	for _, name := range []string{"guide", "faq"} {
		uri := "docs://" + name
		srv.AddResource(&sdk.Resource{URI: uri, Name: name, MIMEType: "text/plain"},
			func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
				return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: "the " + name + " text"}}}, nil
			})
	}
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	return hs.URL
}

// TestMCPMentionsFollowThePermissionRules: a server with resources
// brings the resource tools; an @server:uri mention is attached unless a
// deny rule on ReadMcpResourceTool refuses it, and then the model reads
// why, as in Claude Code.
func TestMCPMentionsFollowThePermissionRules(t *testing.T) {
	for _, tc := range []struct {
		name string
		deny []settings.Rule
		want []string
	}{
		{"allowed", nil, []string{"Full contents of resource:", "the guide text", "Do NOT read this resource again unless you think it may have changed, since you already have the full contents."}},
		{"denied", []settings.Rule{{Text: mcp.ReadResourceTool}}, []string{`<mcp-resource server="docs" uri="docs://guide">(Not read: this session's permissions do not allow it)</mcp-resource>`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := docsServer(t)
			dir, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			model := newScript(t, say("ok"))
			st := &settings.Settings{Project: dir, Permissions: settings.Permissions{Deny: tc.deny}}
			svc := NewService(Config{Provider: model, Model: "test-model", Home: t.TempDir(), Logf: t.Logf, Settings: st})
			t.Cleanup(svc.Close)
			sess, err := svc.NewSession(context.Background(), SessionOptions{Cwd: dir, Client: &recordingClient{t: t}, MCPServers: []schema.MCPServer{{Type: "http", Name: "docs", URL: url}}})
			if err != nil {
				t.Fatal(err)
			}
			if st := waitMCP(t, sess, "docs", mcp.StateReady); !st.HasResources || st.Resources != 2 {
				t.Errorf("docs = %+v", st)
			}
			for _, name := range []string{mcp.ListResourcesTool, mcp.ReadResourceTool} {
				if _, ok := sess.tools.lookup(name); !ok {
					t.Errorf("%s not offered", name)
				}
			}
			if _, err := sess.Prompt(context.Background(), []schema.ContentBlock{schema.TextBlock("read @docs:docs://guide.")}); err != nil {
				t.Fatal(err)
			}
			got := userTexts(model.requests()[0].Messages)
			if strings.Join(got, "\n") != strings.Join(append([]string{"read @docs:docs://guide."}, tc.want...), "\n") {
				t.Errorf("user blocks = %q", got)
			}
		})
	}
}

// TestMCPAllowlistOfAnUntrustedProject: allowlists merge across layers,
// so an untrusted project's allowedMcpServers, which would widen the
// administrator's, is held back; its deniedMcpServers, which only
// tightens, applies.
func TestMCPAllowlistOfAnUntrustedProject(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	managed := filepath.Join(t.TempDir(), "managed-settings.json")
	for path, content := range map[string]string{
		managed: `{"allowedMcpServers": [{"serverName": "kv"}]}`,
		filepath.Join(dir, ".claude", "settings.json"): `{"allowedMcpServers": [{"serverName": "evil"}], "deniedMcpServers": [{"serverName": "kv"}]}`,
	} {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, trusted := range []bool{false, true} {
		st, _ := settings.Load(settings.Options{Project: dir, Home: home, NoUser: true, ManagedPath: managed, TrustProject: trusted})
		var allowed []string
		for _, r := range st.AllowedMcpServers {
			allowed = append(allowed, r.ServerName)
		}
		want := "kv"
		if trusted {
			want = "kv evil"
		}
		if strings.Join(allowed, " ") != want || len(st.DeniedMcpServers) != 1 {
			t.Errorf("trusted %v: allowed %v, denied %v", trusted, allowed, st.DeniedMcpServers)
		}
		if !trusted && !strings.Contains(settings.DescribeHeldBack(st.HeldBack), "allowedMcpServers") {
			t.Errorf("held back: %s", settings.DescribeHeldBack(st.HeldBack))
		}
	}
}
