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
func (s *Session) startMCP(st *settings.Settings, fromEditor []schema.MCPServer) {
	servers, errs := mcp.Collect(mcp.Sources{Workspace: s.cwd, Settings: st, Session: fromEditor})
	for _, err := range errs {
		s.notice(fmt.Sprintf("MCP configuration: %v", err))
	}
	if len(servers) == 0 {
		return
	}
	s.mcp = mcp.Start(context.Background(), servers, mcp.Options{
		Dir:          s.cwd,
		Roots:        s.env.Roots,
		ResultBudget: s.svc.cfg.ResultBudget,
		Logf:         s.svc.cfg.Logf,
		OnTools: func(server string, list []tools.Tool) {
			if list == nil {
				s.SetTools("mcp:"+server, nil)
				return
			}
			s.SetTools("mcp:"+server, list)
		},
		OnStatus: func(st mcp.Status) {
			kind := StatusInfo
			if st.Err != nil {
				kind = StatusWarning
			}
			s.status(context.Background(), Status{Kind: kind, Message: st.String()})
		},
	})
}

// notice queues a message for the user, sent with the session's first
// updates (when the editor knows the session).
func (s *Session) notice(msg string) {
	s.mu.Lock()
	s.notices = append(s.notices, msg)
	s.mu.Unlock()
}
