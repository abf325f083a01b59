package schema

// MCPResourcesParams is the params of session/mcp_resources.
type MCPResourcesParams struct {
	SessionID string `json:"sessionId"`
}

// MCPResourcesResult is the result of session/mcp_resources: the
// resources the session's connected MCP servers list, by server then
// URI. An editor offers them as `@server:uri` mentions.
type MCPResourcesResult struct {
	Resources []MCPResource `json:"resources"`
}

// MCPResource is one resource an MCP server lists.
type MCPResource struct {
	Server      string `json:"server"`
	URI         string `json:"uri"`
	Name        string `json:"name"`
	MIMEType    string `json:"mimeType,omitempty"`
	Description string `json:"description,omitempty"`
}
