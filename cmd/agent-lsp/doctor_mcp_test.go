package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/settings"
)

// TestDoctorMCPScopes: doctor checks the servers of ~/.claude.json
// (under $CLAUDE_CONFIG_DIR here) as a session starts them, and names
// the file to fix; a managed-mcp.json blocks them.
func TestDoctorMCPScopes(t *testing.T) {
	ws, cfg := t.TempDir(), t.TempDir()
	t.Setenv("AGENT_LSP_NO_USER_SETTINGS", "1")
	t.Setenv("CLAUDE_CONFIG_DIR", cfg)
	t.Setenv("AGENT_LSP_MANAGED_MCP", filepath.Join(t.TempDir(), "managed-mcp.json"))
	claudeJSON := `{"mcpServers": {}, "projects": {"` + settings.ResolveFolder(ws) + `": {"allowedTools": [], "mcpServers": {"broken": {"type": "stdio", "command": "/nonexistent/mcp-server", "args": [], "env": {}}}}}}`
	if err := os.WriteFile(filepath.Join(cfg, ".claude.json"), []byte(claudeJSON), 0o600); err != nil {
		t.Fatal(err)
	}
	checks := checkMCP(context.Background(), ws, &settings.Settings{Project: ws})
	if len(checks) != 1 || checks[0].Name != "mcp:broken" || checks[0].Status != statusWarning || !strings.Contains(checks[0].Fix, "~/.claude.json") {
		t.Errorf("checks = %+v", checks)
	}

	if err := os.WriteFile(os.Getenv("AGENT_LSP_MANAGED_MCP"), []byte(`{"mcpServers": {}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	checks = checkMCP(context.Background(), ws, &settings.Settings{Project: ws})
	if len(checks) != 1 || !strings.Contains(checks[0].Message, "blocked") {
		t.Errorf("with a managed-mcp.json: %+v", checks)
	}
}
