package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-lsp/agent-lsp/internal/testenv"
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

type shoutIn struct {
	Text string `json:"text" jsonschema:"what to shout"`
}

// TestMCPBrokenServersAreReported: beside a working server, a server of
// session/new that crashes at start and an unapproved server of the
// workspace's .mcp.json are reported to the editor as agent/status
// notices with their reasons; their tools are not offered, and the
// working server's tool is called through the model's tool_use.
func TestMCPBrokenServersAreReported(t *testing.T) {
	mcpServer := sdk.NewServer(&sdk.Implementation{Name: "shouter", Version: "1"}, nil)
	sdk.AddTool(mcpServer, &sdk.Tool{Name: "shout", Description: "Shouts the text."},
		func(_ context.Context, _ *sdk.CallToolRequest, in shoutIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.ToUpper(in.Text) + "!"}}}, nil, nil
		})
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return mcpServer }, nil))
	// Registered before the editor's cleanup, so it runs after the
	// sessions (and their connections to ts) have closed.
	t.Cleanup(ts.Close)

	e := newEnv(t, map[string]string{
		".mcp.json": `{"mcpServers": {"project": {"command": "/bin/true"}}}`,
	},
		fake.Turn{fake.ToolUse("toolu_shout", "mcp__web__shout", `{"text":"hello"}`)},
		fake.Turn{fake.Text("Shouted.")},
	)
	e.editor.OnPermission(func(*schema.RequestPermissionParams) schema.RequestPermissionResult {
		return schema.RequestPermissionResult{Outcome: schema.PermissionOutcome{Outcome: "selected", OptionID: "allow_once"}}
	})
	e.editor.Initialize(e.root, nil)
	var res schema.NewSessionResult
	e.editor.MustCall("session/new", schema.NewSessionParams{Cwd: e.root, MCPServers: []schema.MCPServer{
		{Type: "http", Name: "web", URL: ts.URL},
		{Name: "broken", Command: "/bin/sh", Args: []string{"-c", "echo missing token >&2; exit 3"}},
	}}, &res)
	sid := res.SessionID

	statuses := func() string {
		var b strings.Builder
		for _, n := range e.editor.Notifications() {
			if n.Method == "agent/status" {
				var p struct {
					SessionID string `json:"sessionId"`
					Message   string `json:"message"`
				}
				if json.Unmarshal(n.Params, &p) == nil && p.SessionID == sid {
					b.WriteString(p.Message + "\n")
				}
			}
		}
		return b.String()
	}
	for _, want := range []string{
		`MCP server "web" ready: 1 tools`,
		`MCP server "broken" failed: exited: exit status 3; stderr: missing token`,
		`MCP server "project" from .mcp.json needs approval`,
	} {
		e.editor.WaitFor(want, func() bool { return strings.Contains(statuses(), want) })
	}

	stop, err := e.editor.Prompt(sid, "shout hello")
	if err != nil || stop != schema.StopEndTurn {
		t.Fatalf("prompt = %q, %v", stop, err)
	}
	var first struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"input_schema"`
		} `json:"tools"`
	}
	if err := e.model.Requests()[0].Decode(&first); err != nil {
		t.Fatal(err)
	}
	offered := false
	for _, tl := range first.Tools {
		if tl.Name == "mcp__web__shout" {
			offered = strings.Contains(string(tl.InputSchema), `"text"`)
		}
		if strings.HasPrefix(tl.Name, "mcp__broken__") || strings.HasPrefix(tl.Name, "mcp__project__") {
			t.Errorf("tool %s offered", tl.Name)
		}
	}
	if !offered {
		t.Errorf("mcp__web__shout not offered with its schema: %+v", first.Tools)
	}
	r := e.toolResults(1)
	if len(r) != 1 || resultText(r[0]) != "HELLO!" || r[0]["is_error"] == true {
		t.Errorf("tool result = %v", r)
	}
	e.editor.MustCall("session/close", map[string]string{"sessionId": sid}, nil)
}

// TestMCPStdioServerStopsWithSession runs the reference server from npm
// (scripts/install-mcp-everything.sh) through session/new, calls its echo
// tool through the model, and checks that closing the session ends it.
func TestMCPStdioServerStopsWithSession(t *testing.T) {
	entry := testenv.NeedFile(t, filepath.Join(testenv.CacheDir(), "mcp-everything", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"),
		"@modelcontextprotocol/server-everything", "run scripts/install-mcp-everything.sh")
	e := newEnv(t, nil,
		fake.Turn{fake.ToolUse("toolu_echo", "mcp__everything__echo", `{"message":"hi"}`)},
		fake.Turn{fake.Text("Echoed.")},
	)
	e.editor.OnPermission(func(*schema.RequestPermissionParams) schema.RequestPermissionResult {
		return schema.RequestPermissionResult{Outcome: schema.PermissionOutcome{Outcome: "selected", OptionID: "allow_once"}}
	})
	e.editor.Initialize(e.root, nil)
	marker := fmt.Sprintf("agent-lsp-e2e-%d-%d", os.Getpid(), time.Now().UnixNano())
	var res schema.NewSessionResult
	e.editor.MustCall("session/new", schema.NewSessionParams{Cwd: e.root, MCPServers: []schema.MCPServer{
		{Name: "everything", Command: "node", Args: []string{entry, "stdio", marker}},
	}}, &res)
	e.editor.WaitFor("everything ready", func() bool {
		for _, n := range e.editor.Notifications() {
			if n.Method == "agent/status" && strings.Contains(string(n.Params), `everything\" ready`) {
				return true
			}
		}
		return false
	})
	if len(processesWith(t, marker)) != 1 {
		t.Fatalf("processes running the server: %v", processesWith(t, marker))
	}
	if stop, err := e.editor.Prompt(res.SessionID, "echo hi"); err != nil || stop != schema.StopEndTurn {
		t.Fatalf("prompt = %q, %v", stop, err)
	}
	if r := e.toolResults(1); len(r) != 1 || resultText(r[0]) != "Echo: hi" {
		t.Errorf("tool result = %v", r)
	}
	e.editor.MustCall("session/close", map[string]string{"sessionId": res.SessionID}, nil)
	if left := processesWith(t, marker); len(left) != 0 {
		t.Errorf("server processes left after session/close: %v", left)
	}
}

// processesWith lists the live processes whose command line holds s.
func processesWith(t *testing.T, s string) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		testenv.Missing(t, "no /proc to look for the server's process in: %v", err)
	}
	var out []string
	for _, d := range entries {
		cmdline, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(cmdline), s) {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join("/proc", d.Name(), "stat"))
		if i := strings.LastIndexByte(string(stat), ')'); i > 0 && strings.HasPrefix(strings.TrimSpace(string(stat[i+1:])), "Z") {
			continue
		}
		out = append(out, d.Name()+": "+strings.ReplaceAll(string(cmdline), "\x00", " "))
	}
	return out
}
