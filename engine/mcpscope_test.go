package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/mcp"
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
