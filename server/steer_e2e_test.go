package server_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/schema"
)

// TestSteeringLSP: a prompt sent while a turn runs is not refused: it
// reaches the model at its next call, after the pending tool results in
// the same user message; the editor sees it as a user message; both
// prompts end with the turn.
func TestSteeringLSP(t *testing.T) {
	release := make(chan struct{})
	e := newEnv(t, map[string]string{"a.txt": "alpha\n"},
		fake.Turn{fake.ToolUse("toolu_r", "Read", `{"file_path":"a.txt"}`), fake.Hold{Release: release}},
		fake.Turn{fake.Text("Read it, and hello.")},
	)
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	var first, second schema.PromptResult
	wait1 := e.editor.Go("session/prompt", schema.PromptParams{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock("read a.txt")}}, &first)
	e.editor.WaitFor("the model call", func() bool { return len(e.model.Requests()) == 1 })
	wait2 := e.editor.Go("session/prompt", schema.PromptParams{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock("also say hello")}}, &second)
	e.editor.WaitFor("the steering prompt queued", func() bool {
		for _, n := range e.editor.Notifications() {
			if n.Method == "agent/status" && strings.Contains(string(n.Params), "next step") {
				return true
			}
		}
		return false
	})
	close(release)
	if err := wait1(); err != nil || first.StopReason != schema.StopEndTurn {
		t.Fatalf("first prompt = %q, %v", first.StopReason, err)
	}
	if err := wait2(); err != nil || second.StopReason != schema.StopEndTurn {
		t.Fatalf("steering prompt = %q, %v", second.StopReason, err)
	}
	if n := len(e.model.Requests()); n != 2 {
		t.Fatalf("the model got %d requests, want 2 (one turn)", n)
	}
	if res := e.toolResults(1); len(res) != 1 || !strings.Contains(resultText(res[0]), "alpha") {
		t.Errorf("the tool result did not come first: %v", res)
	}
	if !strings.Contains(lastUserText(t, e, 1), "also say hello") {
		t.Errorf("the steering text is not in the user message after the tool results: %s", e.requestText(1))
	}
	seen := false
	for _, u := range e.editor.Updates(sid) {
		if u.SessionUpdate == schema.UpdateUserMessageChunk && u.Content != nil && u.Content.Text == "also say hello" {
			seen = true
		}
	}
	if !seen {
		t.Errorf("the editor did not see the steering message as a user message")
	}
}

// lastUserText returns the text blocks of request n's last message.
func lastUserText(t *testing.T, e *env, n int) string {
	t.Helper()
	var body struct {
		Messages []struct {
			Role    string           `json:"role"`
			Content []map[string]any `json:"content"`
		} `json:"messages"`
	}
	if err := e.model.Requests()[n].Decode(&body); err != nil {
		t.Fatal(err)
	}
	last := body.Messages[len(body.Messages)-1]
	if last.Role != "user" {
		t.Fatalf("request %d ends with a %s message", n, last.Role)
	}
	var b strings.Builder
	for _, c := range last.Content {
		if c["type"] == "text" {
			b.WriteString(c["text"].(string))
		}
	}
	return b.String()
}

// TestSteeringACP: on the ACP door, a second session/prompt while a turn
// runs steers it; its answer comes when that turn ends, with the turn's
// stop reason.
func TestSteeringACP(t *testing.T) {
	release := make(chan struct{})
	c := newACP(t, nil,
		fake.Turn{fake.ToolUse("toolu_r", "LS", `{"path":"."}`), fake.Hold{Release: release}},
		fake.Turn{fake.Text("Listed, and hello.")},
	)
	c.initialize(false)
	sid := c.newSession().SessionID
	var first, second schema.PromptResult
	wait1 := c.goCall("session/prompt", schema.PromptParams{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock("list")}}, &first)
	c.waitFor("the model call", func() bool { return len(c.model.Requests()) == 1 })
	wait2 := c.goCall("session/prompt", schema.PromptParams{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock("also say hello")}}, &second)
	c.waitFor("the steering prompt queued", func() bool {
		for _, n := range c.notes {
			if strings.Contains(string(n.Params), "next step") {
				return true
			}
		}
		return false
	})
	close(release)
	if err := wait1(); err != nil || first.StopReason != schema.StopEndTurn {
		t.Fatalf("first prompt = %q, %v", first.StopReason, err)
	}
	if err := wait2(); err != nil || second.StopReason != schema.StopEndTurn {
		t.Fatalf("steering prompt = %q, %v", second.StopReason, err)
	}
	last := lastMessage(t, c.model, 1)
	if !strings.Contains(last, "tool_result") || !strings.Contains(last, "also say hello") || strings.Index(last, "tool_result") > strings.Index(last, "also say hello") {
		t.Errorf("request 2's last message = %s; want the tool result, then the steering text", last)
	}
	var seen bool
	for _, u := range c.updates(sid) {
		if u.SessionUpdate == schema.UpdateUserMessageChunk && u.Content != nil && u.Content.Text == "also say hello" {
			seen = true
		}
	}
	if !seen {
		t.Errorf("no user_message_chunk for the steering prompt")
	}
}

// TestSteeringPlain: on the plain LSP door, a second agent.prompt while
// the agent works steers the running turn; the transcript shows it.
func TestSteeringPlain(t *testing.T) {
	release := make(chan struct{})
	e := newEnv(t, map[string]string{"a.txt": "alpha\n"},
		fake.Turn{fake.ToolUse("toolu_r", "Read", `{"file_path":"a.txt"}`), fake.Hold{Release: release}},
		fake.Turn{fake.Text("Read it, and hello.")},
	)
	e.editor.OnRequest(func(ctx context.Context, method string, params json.RawMessage) (any, error) {
		if method == "window/showDocument" {
			return map[string]bool{"success": true}, nil
		}
		return nil, jsonrpc2.ErrNotHandled
	})
	e.editor.InitializeWith(map[string]any{"rootUri": string(uri.File(e.root)), "capabilities": map[string]any{}})
	run := func(text string) {
		e.editor.MustCall("workspace/executeCommand", map[string]any{"command": "agent.prompt", "arguments": []string{text}}, nil)
	}
	run("read a.txt")
	e.editor.WaitFor("the model call", func() bool { return len(e.model.Requests()) == 1 })
	run("also say hello")
	e.editor.WaitFor("the steering message accepted", func() bool {
		for _, n := range e.editor.Notifications() {
			if n.Method == "window/logMessage" && strings.Contains(string(n.Params), "joins the running turn") {
				return true
			}
		}
		return false
	})
	close(release)
	e.editor.WaitFor("the turn's end", func() bool {
		for _, n := range e.editor.Notifications() {
			if n.Method == "window/logMessage" && strings.Contains(string(n.Params), "agent: done") {
				return true
			}
		}
		return false
	})
	if n := len(e.model.Requests()); n != 2 {
		t.Fatalf("the model got %d requests, want 2", n)
	}
	if !strings.Contains(lastUserText(t, e, 1), "also say hello") {
		t.Errorf("the steering text did not reach the model: %s", e.requestText(1))
	}
	files, _ := filepath.Glob(filepath.Join(e.root, ".transcripts", "*.md"))
	if len(files) != 1 {
		t.Fatalf("transcripts = %v", files)
	}
	md, _ := os.ReadFile(files[0])
	if !strings.Contains(string(md), "while the agent works)\n\nalso say hello") {
		t.Errorf("the transcript lacks the steering message:\n%s", md)
	}
}
