package server

import (
	"context"

	"go.lsp.dev/jsonrpc2"

	"github.com/agent-lsp/agent-lsp/schema"
)

// mcpResources serves session/mcp_resources: the resources the session's
// MCP servers list, which an editor offers as `@server:uri` mentions.
func (h sessionMethods) mcpResources(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p schema.MCPResourcesParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	sess, err := h.session(req.Method(), p.SessionID)
	if err != nil {
		return nil, err
	}
	return schema.MCPResourcesResult{Resources: sess.MCPResources(ctx)}, nil
}
