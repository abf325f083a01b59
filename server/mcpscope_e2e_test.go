package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/internal/testenv"
	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/schema"
)

// writeClaudeJSON writes home/.claude.json as Claude Code 2.1.332 wrote
// it for claude mcp add (../mcp/testdata/claudecode/claude.json, every
// other key kept), with user the top-level servers and local those of
// folder's entry in projects.
func writeClaudeJSON(t *testing.T, home, folder string, user, local map[string]any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "mcp", "testdata", "claudecode", "claude.json"))
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]any
	if err := json.Unmarshal(data, &top); err != nil {
		t.Fatal(err)
	}
	projects := top["projects"].(map[string]any)
	project := projects["/tmp/ccmcp/ws"].(map[string]any)
	delete(projects, "/tmp/ccmcp/ws")
	project["mcpServers"] = local
	projects[folder] = project
	top["mcpServers"] = user
	out, _ := json.MarshalIndent(top, "", "  ")
	if err := os.WriteFile(filepath.Join(home, ".claude.json"), out, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestMCPClaudeCodeScopes configures servers as claude mcp add does, in
// ~/.claude.json: the reference "everything" server (stdio) in the user
// scope and an HTTP server in the folder's local scope. Both servers'
// tools reach the model and are called; the resource tools are offered
// and read a resource; an @server:uri mention attaches the resource; the
// server's prompt is an editor command that sends its messages; /mcp
// lists both servers with their scope and counts, and /mcp reconnect
// brings one back.
func TestMCPClaudeCodeScopes(t *testing.T) {
	entry := testenv.NeedFile(t, filepath.Join(testenv.CacheDir(), "mcp-everything", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"),
		"@modelcontextprotocol/server-everything", "run scripts/install-mcp-everything.sh")
	node := testenv.NeedTool(t, "node")
	kv := sdk.NewServer(&sdk.Implementation{Name: "kv", Version: "1"}, nil)
	sdk.AddTool(kv, &sdk.Tool{Name: "lookup", Description: "Looks a key up."},
		func(_ context.Context, _ *sdk.CallToolRequest, in lookupIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "value of " + in.Key + " is 42"}}}, nil, nil
		})
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return kv }, nil))
	t.Cleanup(hs.Close)

	const doc = "demo://resource/static/document/features.md"
	e := newEnv(t, nil,
		fake.Turn{
			fake.ToolUse("toolu_kv", "mcp__kv__lookup", `{"key":"answer"}`),
			fake.ToolUse("toolu_echo", "mcp__everything__echo", `{"message":"from the user scope"}`),
			fake.ToolUse("toolu_list", "ListMcpResourcesTool", `{"server":"everything"}`),
			fake.ToolUse("toolu_read", "ReadMcpResourceTool", `{"server":"everything","uri":"`+doc+`"}`),
		},
		fake.Turn{fake.Text("Done.")},
		fake.Turn{fake.Text("Read it.")},
		fake.Turn{fake.Text("Sunny.")},
	)
	home := t.TempDir()
	e.more = func(c *engine.Config) { c.Home = home }
	writeClaudeJSON(t, home, e.root,
		map[string]any{"everything": map[string]any{"type": "stdio", "command": node, "args": []any{entry, "stdio"}, "env": map[string]any{}}},
		map[string]any{"kv": map[string]any{"type": "http", "url": hs.URL}},
	)
	e.editor.OnPermission(func(*schema.RequestPermissionParams) schema.RequestPermissionResult {
		return schema.RequestPermissionResult{Outcome: schema.PermissionOutcome{Outcome: "selected", OptionID: "allow_once"}}
	})
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	var hint string
	e.editor.WaitFor("both servers ready and the prompt commands announced", func() bool {
		ready := 0
		for _, n := range e.editor.Notifications() {
			if n.Method == "agent/status" && (strings.Contains(string(n.Params), `MCP server \"kv\" ready`) || strings.Contains(string(n.Params), `MCP server \"everything\" ready`)) {
				ready++
			}
		}
		for _, u := range e.editor.Updates(sid) {
			for _, c := range u.AvailableCommands {
				if c.Name == "mcp__everything__args-prompt" && c.Input != nil {
					hint = c.Input.Hint
				}
			}
		}
		return ready >= 2 && hint != ""
	})
	if hint != "<city> [state]" {
		t.Errorf("args-prompt hint = %q", hint)
	}

	if stop, err := e.editor.Prompt(sid, "look things up"); err != nil || stop != schema.StopEndTurn {
		t.Fatalf("prompt = %q, %v", stop, err)
	}
	first := e.requestText(0)
	for _, name := range []string{"mcp__kv__lookup", "mcp__everything__echo", "ListMcpResourcesTool", "ReadMcpResourceTool"} {
		if !strings.Contains(first, `"name":"`+name+`"`) {
			t.Errorf("%s not offered to the model", name)
		}
	}
	results := map[string]string{}
	for _, r := range e.toolResults(1) {
		if r["is_error"] == true {
			t.Errorf("error result %v", r)
		}
		results[r["tool_use_id"].(string)] = resultText(r)
	}
	if !strings.Contains(results["toolu_kv"], "value of answer is 42") || results["toolu_echo"] != "Echo: from the user scope" {
		t.Errorf("tool results = %v", results)
	}
	if !strings.Contains(results["toolu_list"], `"uri": "`+doc+`"`) || !strings.Contains(results["toolu_list"], `"server": "everything"`) {
		t.Errorf("ListMcpResourcesTool = %.300s", results["toolu_list"])
	}
	if !strings.Contains(results["toolu_read"], "#") {
		t.Errorf("ReadMcpResourceTool = %.300s", results["toolu_read"])
	}

	// An @server:uri mention attaches the resource, as Claude Code does;
	// one the server does not list is left alone.
	if _, err := e.editor.Prompt(sid, "summarize @everything:"+doc+" and @everything:demo://nothing/here please"); err != nil {
		t.Fatal(err)
	}
	req := e.requestText(2)
	if !strings.Contains(req, `"text":"Full contents of resource:"`) || !strings.Contains(req, "Do NOT read this resource again") || !strings.Contains(req, strings.TrimSpace(strings.SplitN(results["toolu_read"], "\n", 2)[0])) {
		t.Errorf("the mention was not attached: %.3000s", req)
	}
	if strings.Count(req, "Full contents of resource:") != 1 || strings.Contains(req, "mcp-resource") {
		t.Errorf("the unlisted resource was attached: %.3000s", req)
	}

	// The prompt command sends the prompt's messages.
	if _, err := e.editor.Prompt(sid, "/mcp__everything__args-prompt Paris France"); err != nil {
		t.Fatal(err)
	}
	if req := e.requestText(3); !strings.Contains(req, "What's weather in Paris, France?") || strings.Contains(req, "/mcp__everything__args-prompt") {
		t.Errorf("the prompt command's request: %.2000s", req)
	}

	// /mcp and /mcp reconnect, without the model.
	if _, err := e.editor.Prompt(sid, "/mcp"); err != nil {
		t.Fatal(err)
	}
	said := agentText(e.editor.Updates(sid))
	for _, want := range []string{"- everything (user): connected, ", "- kv (local): connected, 1 tool, 0 resources, 0 prompts"} {
		if !strings.Contains(said, want) {
			t.Errorf("/mcp lacks %q:\n%s", want, said)
		}
	}
	if _, err := e.editor.Prompt(sid, "/mcp reconnect kv"); err != nil {
		t.Fatal(err)
	}
	if said := agentText(e.editor.Updates(sid)); !strings.Contains(said, "Reconnected kv: connected, 1 tool") {
		t.Errorf("/mcp reconnect: %s", said)
	}
	if n := len(e.model.Requests()); n != 4 {
		t.Errorf("the model got %d requests, want 4 (/mcp is the session's own)", n)
	}
}

// TestMCPNeedsOAuth: a server that answers 401 with a WWW-Authenticate
// challenge is reported as needing OAuth authorization, with what to do,
// in the status the editor shows and in /mcp.
func TestMCPNeedsOAuth(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="https://sso.example.com/.well-known/oauth-protected-resource"`)
		http.Error(w, "unauthorized", http.StatusUnauthorized)
	}))
	t.Cleanup(hs.Close)
	e := newEnv(t, nil)
	home := t.TempDir()
	e.more = func(c *engine.Config) { c.Home = home }
	writeClaudeJSON(t, home, e.root, map[string]any{"sso": map[string]any{"type": "http", "url": hs.URL + "/mcp"}}, map[string]any{})
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	want := `MCP server \"sso\" needs OAuth authorization: the server answered 401 Unauthorized`
	e.editor.WaitFor("the OAuth status", func() bool {
		for _, n := range e.editor.Notifications() {
			if n.Method == "agent/status" && strings.Contains(string(n.Params), want) {
				return strings.Contains(string(n.Params), `"kind":"warning"`) && strings.Contains(string(n.Params), `\"headers\"`)
			}
		}
		return false
	})
	if _, err := e.editor.Prompt(sid, "/mcp"); err != nil {
		t.Fatal(err)
	}
	if said := agentText(e.editor.Updates(sid)); !strings.Contains(said, "- sso (user): needs authorization: the server answered 401") {
		t.Errorf("/mcp: %s", said)
	}
}
