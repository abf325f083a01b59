package engine

import (
	"context"
	"fmt"
	"os"
	"sync"

	"github.com/agent-lsp/agent-lsp/mcp"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/settings"
	"github.com/agent-lsp/agent-lsp/tools"
)

// mcpServers are a session's MCP servers: those it started with and
// those it started once the folder was trusted.
type mcpServers struct {
	// editor are the servers the editor passed, names the servers
	// started (or reported) so far and started their manager (nil when
	// there are none); set before the session is shared.
	editor  []schema.MCPServer
	names   map[string]bool
	started *mcp.Manager

	mu      sync.Mutex   // guards trusted, status and resources
	trusted *mcp.Manager // the servers started once the folder was trusted
	// status is the last state each server reported: the /mcp command,
	// the resource tools and the prompt commands follow it.
	status map[string]mcp.Status
	// resources is set while the resource tools are offered.
	resources bool
}

// managers returns the session's managers (nil entries skipped).
func (m *mcpServers) managers() []*mcp.Manager {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*mcp.Manager
	for _, mg := range []*mcp.Manager{m.started, m.trusted} {
		if mg != nil {
			out = append(out, mg)
		}
	}
	return out
}

// setTrusted keeps the manager of the servers started once the folder
// was trusted.
func (m *mcpServers) setTrusted(trusted *mcp.Manager) {
	m.mu.Lock()
	m.trusted = trusted
	m.mu.Unlock()
}

// close stops the servers.
func (m *mcpServers) close() {
	if m.started != nil {
		m.started.Close()
	}
	m.mu.Lock()
	trusted := m.trusted
	m.mu.Unlock()
	if trusted != nil {
		trusted.Close()
	}
}

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
	m := &s.tools.mcp
	m.editor = fromEditor
	m.names = make(map[string]bool)
	for _, srv := range servers {
		m.names[srv.Name] = true
	}
	started := s.runMCP(st, servers)
	m.mu.Lock()
	m.started = started
	m.mu.Unlock()
}

// collectMCP gathers the session's MCP servers from the editor, the
// settings, Claude Code's ~/.claude.json (user and local scope), the
// administrator's managed-mcp.json and, in a trusted folder, the
// project's .mcp.json.
func (s *Session) collectMCP(st *settings.Settings, fromEditor []schema.MCPServer) ([]mcp.Server, []error) {
	workspace := s.cwd
	if st.ProjectRestricted {
		workspace = ""
	}
	home := s.svc.cfg.Home
	if home == os.DevNull {
		home = "" // no user files; an explicit CLAUDE_CONFIG_DIR still counts
	}
	return mcp.Collect(mcp.Sources{
		Workspace:   workspace,
		Folder:      s.cwd,
		Settings:    st,
		Session:     fromEditor,
		ClaudeJSON:  settings.ClaudeJSONPath(home),
		ManagedFile: s.svc.cfg.ManagedMCP,
	})
}

// runMCP starts servers in the background; nil when there are none.
func (s *Session) runMCP(st *settings.Settings, servers []mcp.Server) *mcp.Manager {
	if len(servers) == 0 {
		return nil
	}
	return mcp.Start(context.Background(), servers, mcp.Options{
		Dir:          s.cwd,
		Roots:        s.tools.env.Roots,
		ResultBudget: s.svc.cfg.ResultBudget,
		Logf:         s.svc.cfg.Logf,
		Env:          settingsEnv(st),
		OnTools:      func(server string, list []tools.Tool) { s.SetTools("mcp:"+server, list) },
		OnStatus: func(st mcp.Status) {
			s.mcpStatus(st)
			kind := StatusWarning // failed, needs approval, disabled, blocked, needs auth
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
