package engine

import (
	"context"
	"fmt"

	"github.com/agent-lsp/agent-lsp/mcp"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/settings"
	"github.com/agent-lsp/agent-lsp/tools"
)

// startMCP starts the session's MCP servers (from the editor, the settings
// and the project's .mcp.json) in the background. Their tools join the
// session as each server becomes ready; a slow or broken server is
// reported and never holds the session up.
//
// The project's .mcp.json is read only when the folder is trusted.
func (s *Session) startMCP(st *settings.Settings, fromEditor []schema.MCPServer) {
	servers, errs := s.collectMCP(st, fromEditor)
	for _, err := range errs {
		s.notice(Status{Kind: StatusWarning, Message: fmt.Sprintf("MCP configuration: %v", err)})
	}
	s.mcpNames = make(map[string]bool)
	for _, srv := range servers {
		s.mcpNames[srv.Name] = true
	}
	s.mcp = s.runMCP(st, servers)
}

// collectMCP gathers the session's MCP servers from the editor, the
// settings and, in a trusted folder, the project's .mcp.json.
func (s *Session) collectMCP(st *settings.Settings, fromEditor []schema.MCPServer) ([]mcp.Server, []error) {
	workspace := s.cwd
	if st.ProjectRestricted {
		workspace = ""
	}
	return mcp.Collect(mcp.Sources{Workspace: workspace, Settings: st, Session: fromEditor})
}

// runMCP starts servers in the background; nil when there are none.
func (s *Session) runMCP(st *settings.Settings, servers []mcp.Server) *mcp.Manager {
	if len(servers) == 0 {
		return nil
	}
	return mcp.Start(context.Background(), servers, mcp.Options{
		Dir:          s.cwd,
		Roots:        s.env.Roots,
		ResultBudget: s.svc.cfg.ResultBudget,
		Logf:         s.svc.cfg.Logf,
		Env:          settingsEnv(st),
		OnTools:      func(server string, list []tools.Tool) { s.SetTools("mcp:"+server, list) },
		OnStatus: func(st mcp.Status) {
			kind := StatusWarning // failed, needs approval, disabled
			switch st.State {
			case mcp.StateStarting:
				return
			case mcp.StateReady:
				kind = StatusInfo
			}
			s.notice(Status{Kind: kind, Message: st.String()})
		},
	})
}

// settingsEnv returns the settings' env as KEY=value pairs.
func settingsEnv(st *settings.Settings) []string {
	var env []string
	for k, v := range st.Env {
		env = append(env, k+"="+v)
	}
	return env
}
