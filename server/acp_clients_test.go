package server_test

import (
	"encoding/json"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"

	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/schema"
)

// TestACPTerminalOutputAsText: when Bash runs in the client's terminal,
// the final tool_call_update also carries the output as text for clients
// that do not render terminals; a client that does (Zed announces
// _meta.terminal_output) gets the terminal only, so it shows the output
// once.
func TestACPTerminalOutputAsText(t *testing.T) {
	for _, renders := range []bool{false, true} {
		name := "plain client"
		if renders {
			name = "client that renders terminals"
		}
		t.Run(name, func(t *testing.T) {
			c := newACP(t, nil,
				fake.Turn{fake.ToolUse("toolu_1", "Bash", `{"command":"echo from-terminal"}`)},
				fake.Turn{fake.Text("ok")},
			)
			c.terminals = &editorTerminals{t: t, running: map[string]*editorTerminal{}}
			caps := map[string]any{"fs": map[string]bool{"readTextFile": false, "writeTextFile": false}, "terminal": true}
			if renders {
				caps["_meta"] = map[string]any{"terminal_output": true, "terminal-auth": true}
			}
			c.mustCall("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": caps}, nil)
			sid := c.newSession().SessionID
			c.prompt(sid, "run it")
			var final *schema.ToolCall
			for _, u := range c.updates(sid) {
				if tc := u.ToolCall; tc != nil && tc.ToolCallID == "toolu_1" && tc.Status == schema.StatusCompleted {
					final = tc
				}
			}
			if final == nil {
				t.Fatal("no final tool_call_update")
			}
			var kinds, text []string
			for _, ct := range final.Content {
				kinds = append(kinds, ct.Type)
				if ct.Content != nil {
					text = append(text, ct.Content.Text)
				}
			}
			want := "terminal, content"
			if renders {
				want = "terminal"
			}
			if got := strings.Join(kinds, ", "); got != want {
				t.Fatalf("final content = %s, want %s", got, want)
			}
			if !renders && !strings.Contains(strings.Join(text, ""), "from-terminal") {
				t.Errorf("the text content lacks the output: %q", text)
			}
		})
	}
}

// TestACPToolNameInMeta: tool calls and permission requests carry the
// Claude Code tool name in _meta.claudeCode.toolName, as claude-agent-acp
// sends it: clients write their permission policies by tool name.
func TestACPToolNameInMeta(t *testing.T) {
	c := newACP(t, nil,
		fake.Turn{fake.ToolUse("toolu_1", "Write", `{"file_path":"new.txt","content":"hi\n"}`)},
		fake.Turn{fake.Text("ok")},
	)
	c.initialize(true)
	sid := c.newSession().SessionID
	c.prompt(sid, "write it")
	c.mu.Lock()
	perms := append([]schema.RequestPermissionParams(nil), c.perms...)
	var raw []json.RawMessage
	for _, n := range c.notes {
		if n.Method == "session/update" && strings.Contains(string(n.Params), `"toolu_1"`) {
			raw = append(raw, n.Params)
		}
	}
	c.mu.Unlock()
	if len(perms) != 1 || perms[0].ToolCall.ToolName() != "Write" {
		t.Errorf("permission request tool name = %v, want Write", perms)
	}
	if len(raw) == 0 {
		t.Fatal("no tool call updates")
	}
	for _, r := range raw {
		if !strings.Contains(string(r), `"claudeCode":{"toolName":"Write"}`) {
			t.Errorf("update without the tool name in _meta: %s", r)
		}
	}
}

// TestACPSessionOptionsInMeta: the options clients pass in session/new's
// _meta the way claude-agent-acp reads them: allowed and disallowed
// tools, max turns, a system prompt to append or to replace ours.
func TestACPSessionOptionsInMeta(t *testing.T) {
	c := newACP(t, nil,
		fake.Turn{fake.ToolUse("toolu_1", "Bash", `{"command":"touch made.txt"}`)},
		fake.Turn{fake.Text("not reached: max turns is 1")},
		fake.Turn{fake.Text("custom")},
	)
	c.initialize(false)
	var res schema.NewSessionResult
	c.mustCall("session/new", map[string]any{"cwd": c.root, "mcpServers": []any{}, "_meta": map[string]any{
		"systemPrompt": map[string]any{"append": "APPENDED-INSTRUCTIONS"},
		"claudeCode": map[string]any{"options": map[string]any{
			"allowedTools":    []string{"Bash(touch:*)"},
			"disallowedTools": []string{"WebFetch"},
			"maxTurns":        1,
		}},
	}}, &res)
	if got := c.prompt(res.SessionID, "make a file").StopReason; got != schema.StopMaxTurnRequests {
		t.Errorf("stop reason = %s, want %s (maxTurns 1)", got, schema.StopMaxTurnRequests)
	}
	c.mu.Lock()
	perms := len(c.perms)
	c.mu.Unlock()
	if perms != 0 {
		t.Errorf("%d permission requests, want none: allowedTools grants Bash(touch:*)", perms)
	}
	first := string(c.model.Requests()[0].Body)
	if !strings.Contains(first, "APPENDED-INSTRUCTIONS") {
		t.Error("the appended system prompt did not reach the model")
	}
	if strings.Contains(first, `"name":"WebFetch"`) || !strings.Contains(first, `"name":"Bash"`) {
		t.Error("disallowedTools: WebFetch must be gone from the model's tools, Bash still there")
	}

	c.mustCall("session/new", map[string]any{"cwd": c.root, "mcpServers": []any{}, "_meta": map[string]any{"systemPrompt": "CUSTOM-PROMPT"}}, &res)
	c.prompt(res.SessionID, "hi")
	var body struct {
		System []struct {
			Text string `json:"text"`
		} `json:"system"`
	}
	reqs := c.model.Requests()
	reqs[len(reqs)-1].Decode(&body)
	if len(body.System) == 0 || body.System[0].Text != "CUSTOM-PROMPT" {
		t.Errorf("system prompt = %+v, want CUSTOM-PROMPT first, replacing ours", body.System)
	}
}

// TestACPWriteRefusalShowsTheClientsReason: a client that refuses a
// write with ACP's "Internal error" and its reason in data.details: the
// model and the user (the final tool_call_update) get the reason. A new
// file is created without asking the client to read it first.
func TestACPWriteRefusalShowsTheClientsReason(t *testing.T) {
	c := newACP(t, nil,
		fake.Turn{fake.ToolUse("toolu_1", "Write", `{"file_path":"new.txt","content":"hi\n"}`)},
		fake.Turn{fake.Text("refused")},
	)
	c.initialize(true)
	data := jsonrpc2.RawMessage(`{"details":"the user declined the write of new.txt"}`)
	c.mu.Lock()
	c.writeErr = &jsonrpc2.Error{Code: jsonrpc2.InternalError, Message: "Internal error", Data: data}
	c.mu.Unlock()
	sid := c.newSession().SessionID
	c.prompt(sid, "write it")
	if m := lastMessage(t, c.model, 1); !strings.Contains(m, "the user declined the write of new.txt") {
		t.Errorf("the model got %s, want the client's reason", m)
	}
	var shown string
	for _, u := range c.updates(sid) {
		if tc := u.ToolCall; tc != nil && tc.ToolCallID == "toolu_1" && tc.Status == schema.StatusFailed {
			for _, ct := range tc.Content {
				if ct.Content != nil {
					shown += ct.Content.Text
				}
			}
		}
	}
	if !strings.Contains(shown, "the user declined the write of new.txt") {
		t.Errorf("the failed tool call shows %q, want the client's reason", shown)
	}
	c.mu.Lock()
	reads := append([]string(nil), c.reads...)
	c.mu.Unlock()
	if len(reads) != 0 {
		t.Errorf("fs/read_text_file asked %q for a file that does not exist", reads)
	}
}
