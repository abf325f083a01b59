package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/schema"
)

// TestMCPProjectApproval: a project's .mcp.json servers wait for the
// user, who is asked before the first turn with Claude Code's three
// choices; a dismissed question is asked again at the next prompt; the
// approved server starts and its tool reaches the model, the refused one
// stays off, and both answers are saved where Claude Code saves them.
func TestMCPProjectApproval(t *testing.T) {
	mcpServer := sdk.NewServer(&sdk.Implementation{Name: "kv", Version: "1"}, nil)
	sdk.AddTool(mcpServer, &sdk.Tool{Name: "lookup", Description: "Looks a key up."},
		func(_ context.Context, _ *sdk.CallToolRequest, in lookupIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "value of " + in.Key + " is 42"}}}, nil, nil
		})
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return mcpServer }, nil))
	t.Cleanup(ts.Close)

	e := newEnv(t, map[string]string{
		".mcp.json": `{"mcpServers": {"one": {"type": "http", "url": "` + ts.URL + `"}, "two": {"command": "/bin/true"}}}`,
	},
		fake.Turn{fake.Text("Hello.")},
		fake.Turn{fake.Text("Hello again.")},
		fake.Turn{fake.ToolUse("toolu_1", "mcp__one__lookup", `{"key":"answer"}`)},
		fake.Turn{fake.Text("It is 42.")},
	)
	var mu sync.Mutex
	var asked []string
	dismiss := true
	e.editor.OnPermission(func(p *schema.RequestPermissionParams) schema.RequestPermissionResult {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, p.ToolCall.Title)
		choice := "allow_once"
		switch {
		case strings.HasSuffix(p.ToolCall.Title, "found in .mcp.json: one") && dismiss:
			dismiss = false
			return schema.RequestPermissionResult{Outcome: schema.PermissionOutcome{Outcome: "cancelled"}}
		case strings.HasSuffix(p.ToolCall.Title, "found in .mcp.json: one"):
			choice = "mcp_enable"
		case strings.HasSuffix(p.ToolCall.Title, "found in .mcp.json: two"):
			choice = "mcp_disable"
		}
		return schema.RequestPermissionResult{Outcome: schema.PermissionOutcome{Outcome: "selected", OptionID: choice}}
	})
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	for _, prompt := range []string{"hello", "hello again"} {
		if stop, err := e.editor.Prompt(sid, prompt); err != nil || stop != schema.StopEndTurn {
			t.Fatalf("%s: %q, %v", prompt, stop, err)
		}
	}
	mu.Lock()
	got := strings.Join(asked, "\n")
	mu.Unlock()
	want := "New MCP server found in .mcp.json: one\nNew MCP server found in .mcp.json: one\nNew MCP server found in .mcp.json: two"
	if got != want {
		t.Errorf("asked:\n%s\nwant:\n%s", got, want)
	}
	e.editor.WaitFor("the approved server to be ready", func() bool {
		for _, n := range e.editor.Notifications() {
			if n.Method == "agent/status" && strings.Contains(string(n.Params), `MCP server \"one\" ready`) {
				return true
			}
		}
		return false
	})
	if stop, err := e.editor.Prompt(sid, "look up answer"); err != nil || stop != schema.StopEndTurn {
		t.Fatalf("third prompt: %q, %v", stop, err)
	}
	r := e.toolResults(3)
	if len(r) != 1 || r[0]["is_error"] == true || !strings.Contains(resultText(r[0]), "value of answer is 42") {
		t.Errorf("the approved server's tool: %v", r)
	}
	if strings.Contains(e.requestText(2), "mcp__two__") {
		t.Error("the refused server's tools reached the model")
	}
	local, _ := os.ReadFile(e.path(".claude/settings.local.json"))
	for _, want := range []string{`"enabledMcpjsonServers": [`, `"one"`, `"disabledMcpjsonServers": [`, `"two"`} {
		if !strings.Contains(string(local), want) {
			t.Errorf("the local settings lack %s:\n%s", want, local)
		}
	}
	mu.Lock()
	n := len(asked)
	mu.Unlock()
	if n != 4 { // the three questions, then the lookup's own
		t.Errorf("asked %d times, want 4 (no MCP question after the answers)", n)
	}
}
