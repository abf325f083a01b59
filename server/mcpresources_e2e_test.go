package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/schema"
)

// TestMCPResourcesRequest: session/mcp_resources lists the resources of
// the session's MCP servers, by server then URI, for the editor's `@`
// mention picker; a session without servers lists none; a bad request
// is an error naming the method and what was wrong.
func TestMCPResourcesRequest(t *testing.T) {
	docs := sdk.NewServer(&sdk.Implementation{Name: "docs", Version: "1"}, nil)
	for _, r := range []*sdk.Resource{
		{URI: "docs://b/guide.md", Name: "guide", MIMEType: "text/markdown", Description: "The guide"},
		{URI: "docs://a/intro.md", Name: "intro"},
	} {
		docs.AddResource(r, func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: r.URI, Text: "text of " + r.Name}}}, nil
		})
	}
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return docs }, nil))
	t.Cleanup(hs.Close)

	e := newEnv(t, nil)
	home := t.TempDir()
	e.more = func(c *engine.Config) { c.Home = home }
	writeClaudeJSON(t, home, e.root, map[string]any{}, map[string]any{"docs": map[string]any{"type": "http", "url": hs.URL}})
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	e.editor.WaitFor("the docs server ready", func() bool {
		for _, n := range e.editor.Notifications() {
			if n.Method == schema.MethodAgentStatus && strings.Contains(string(n.Params), `MCP server \"docs\" ready`) {
				return true
			}
		}
		return false
	})

	var res schema.MCPResourcesResult
	e.editor.MustCall(schema.MethodSessionMCPResources, schema.MCPResourcesParams{SessionID: sid}, &res)
	want := []schema.MCPResource{
		{Server: "docs", URI: "docs://a/intro.md", Name: "intro"},
		{Server: "docs", URI: "docs://b/guide.md", Name: "guide", MIMEType: "text/markdown", Description: "The guide"},
	}
	if !reflect.DeepEqual(res.Resources, want) {
		t.Errorf("resources = %+v, want %+v", res.Resources, want)
	}

	for _, tt := range []struct {
		name   string
		params any
		want   string
	}{
		{"no session id", map[string]any{}, `"sessionId"`},
		{"unknown session", schema.MCPResourcesParams{SessionID: "no-such-session"}, "no-such-session"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := e.editor.Call(schema.MethodSessionMCPResources, tt.params, &res)
			if err == nil || !strings.Contains(err.Error(), schema.MethodSessionMCPResources) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want one naming %s and %s", err, schema.MethodSessionMCPResources, tt.want)
			}
		})
	}
}

// TestMCPResourcesNone: a session without MCP servers lists no resources,
// as an empty list.
func TestMCPResourcesNone(t *testing.T) {
	e := newEnv(t, nil)
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	var raw map[string]any
	e.editor.MustCall(schema.MethodSessionMCPResources, schema.MCPResourcesParams{SessionID: sid}, &raw)
	if list, ok := raw["resources"].([]any); !ok || len(list) != 0 {
		t.Errorf("result = %v, want resources: []", raw)
	}
}
