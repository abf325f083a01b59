package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/schema"
)

type lookupIn struct {
	Key string `json:"key" jsonschema:"the key to look up"`
}

// TestMCPServerFromSessionNew runs a real MCP server (the SDK's streamable
// HTTP handler) passed in session/new: its tool joins the model's tool
// list and a call goes through the permission gate to the server.
func TestMCPServerFromSessionNew(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "kv", Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "lookup", Description: "Looks a key up."},
		func(_ context.Context, _ *sdk.CallToolRequest, in lookupIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "value of " + in.Key + " is 42"}}}, nil, nil
		})
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(hs.Close) // after the editor's cleanup has closed the session

	e := newEnv(t, nil,
		fake.Turn{fake.ToolUse("toolu_1", "mcp__kv__lookup", `{"key":"answer"}`)},
		fake.Turn{fake.Text("It is 42.")},
	)
	e.editor.Initialize(e.root, nil)
	var res schema.NewSessionResult
	e.editor.MustCall("session/new", schema.NewSessionParams{Cwd: e.root, MCPServers: []schema.MCPServer{{Type: "http", Name: "kv", URL: hs.URL}}}, &res)
	e.editor.WaitFor("the MCP server to be ready", func() bool {
		for _, n := range e.editor.Notifications() {
			if n.Method == "agent/status" && strings.Contains(string(n.Params), `MCP server \"kv\" ready`) {
				return true
			}
		}
		return false
	})
	if _, err := e.editor.Prompt(res.SessionID, "look up answer"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(e.requestText(0), `"name":"mcp__kv__lookup"`) {
		t.Error("the MCP tool was not offered to the model")
	}
	r := e.toolResults(1)
	if len(r) != 1 || r[0]["is_error"] == true || !strings.Contains(resultText(r[0]), "value of answer is 42") {
		t.Errorf("MCP call result = %v", r)
	}
	if len(e.editor.Permissions()) != 1 {
		t.Errorf("asked %d times, want once for the MCP tool", len(e.editor.Permissions()))
	}
}
