package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/agent-lsp/agent-lsp/mcp"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/settings"
)

// A project's .mcp.json server starts only once the user approved it, as
// in Claude Code: before the first turn that finds one waiting, the user
// is asked with Claude Code's three choices, and the answer is saved
// where Claude Code saves it, in .claude/settings.local.json
// (enableAllProjectMcpServers, enabledMcpjsonServers,
// disabledMcpjsonServers). A question the user dismisses is asked again
// at the next prompt; the server stays off meanwhile.

// Options of the MCP approval question.
const (
	optMCPAll  = "mcp_enable_all"
	optMCPOne  = "mcp_enable"
	optMCPNone = "mcp_disable"
)

// approveProjectMCP asks about each project server that waits for the
// user's approval, then starts or refuses it.
func (s *Session) approveProjectMCP(ctx context.Context) {
	all := false
	for _, mg := range s.tools.mcp.managers() {
		for _, srv := range mg.Waiting() {
			choice := optMCPOne
			if !all {
				var answered bool
				if choice, answered = s.askMCPApproval(ctx, srv); !answered {
					return // asked again at the next prompt
				}
			}
			if err := saveMCPApproval(s.cwd, srv.Name, choice); err != nil {
				s.status(ctx, Status{Kind: StatusWarning, Message: fmt.Sprintf("your answer about the MCP server %s holds for this session only: %v", srv.Name, err)})
			}
			all = all || choice == optMCPAll
			if err := mg.Approve(srv.Name, choice != optMCPNone); err != nil {
				s.svc.cfg.Logf("session %s: %v", s.ID, err)
			}
		}
	}
}

// saveMCPApproval records the user's answer about a project server in
// the project's local settings, as Claude Code does.
func saveMCPApproval(project, name, choice string) error {
	switch choice {
	case optMCPAll:
		return settings.SetLocalTrue(project, "enableAllProjectMcpServers")
	case optMCPOne:
		return settings.AddLocalEntry(project, "enabledMcpjsonServers", name)
	}
	return settings.AddLocalEntry(project, "disabledMcpjsonServers", name)
}

// askMCPApproval asks whether to use a project server; answered is false
// when the question was dismissed or could not be asked.
func (s *Session) askMCPApproval(ctx context.Context, srv mcp.Server) (choice string, answered bool) {
	what := srv.URL
	if srv.Type == mcp.TypeStdio {
		what = strings.Join(append([]string{srv.Command}, srv.Args...), " ")
	}
	shown, _ := schema.Visible(what)
	detail := fmt.Sprintf("The project's %s starts the MCP server %q: `%s`. MCP servers run with your rights; use them only if you trust where the project came from.",
		mcp.ProjectFile, srv.Name, shown)
	res, err := s.client.RequestPermission(ctx, &schema.RequestPermissionParams{
		SessionID: s.ID,
		ToolCall: schema.ToolCall{
			ToolCallID: "mcp-approval-" + uuid.NewString(),
			Title:      fmt.Sprintf("New MCP server found in %s: %s", mcp.ProjectFile, srv.Name),
			Kind:       schema.KindOther,
			Status:     schema.StatusPending,
			Content:    []schema.ToolCallContent{{Type: "content", Content: ptr(schema.TextBlock(detail))}},
			RawInput:   map[string]any{"server": srv.Name, "type": srv.Type, "command": srv.Command, "args": srv.Args, "url": srv.URL},
		},
		Options: []schema.PermissionOption{
			{OptionID: optMCPAll, Name: "Use this and all future MCP servers in this project", Kind: schema.AllowAlways},
			{OptionID: optMCPOne, Name: "Use this MCP server", Kind: schema.AllowOnce},
			{OptionID: optMCPNone, Name: "Continue without using this MCP server", Kind: schema.RejectOnce},
		},
	})
	if err != nil {
		if ctx.Err() == nil {
			s.svc.cfg.Logf("session %s: asking about the MCP server %s: %v", s.ID, srv.Name, err)
		}
		return "", false
	}
	if res.Outcome.Outcome != "selected" {
		return "", false
	}
	switch res.Outcome.OptionID {
	case optMCPAll, optMCPOne, optMCPNone:
		return res.Outcome.OptionID, true
	}
	return "", false
}
