package engine

import (
	"cmp"
	"context"
	"slices"

	"github.com/agent-lsp/agent-lsp/mcp"
	"github.com/agent-lsp/agent-lsp/schema"
)

// MCPResources lists the resources of the session's connected MCP servers
// that offer them, by server then URI, for an editor's `@server:uri`
// mentions (session/mcp_resources). A server that fails to list them is
// logged and left out: the others are still listed.
func (s *Session) MCPResources(ctx context.Context) []schema.MCPResource {
	list, _, errs := mcp.ListAll(ctx, s.tools.mcp.managers(), "")
	for _, err := range errs {
		s.svc.cfg.Logf("session %s: %v", s.ID, err)
	}
	out := make([]schema.MCPResource, 0, len(list))
	for _, r := range list {
		out = append(out, schema.MCPResource{Server: r.Server, URI: r.URI, Name: r.Name, MIMEType: r.MIMEType, Description: r.Description})
	}
	slices.SortStableFunc(out, func(a, b schema.MCPResource) int {
		return cmp.Or(cmp.Compare(a.Server, b.Server), cmp.Compare(a.URI, b.URI))
	})
	return out
}
