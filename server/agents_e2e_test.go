package server_test

import (
	"os"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/session"
)

// requestTools returns the names of the tools offered in request n.
func (e *env) requestTools(n int) []string {
	e.t.Helper()
	var body struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := e.model.Requests()[n].Decode(&body); err != nil {
		e.t.Fatal(err)
	}
	var names []string
	for _, t := range body.Tools {
		names = append(names, t.Name)
	}
	return names
}

// agentMeta returns _meta["agent-lsp"] of an update, if any.
func agentMeta(u schema.Update) map[string]any {
	m, _ := u.Meta["agent-lsp"].(map[string]any)
	return m
}

// TestSubagentEndToEnd: the model delegates to the general-purpose agent,
// which reads a file in its own context and reports; the main
// conversation gets only the report, the editor sees the subagent's calls
// nested under the Agent call, and the subagent's transcript is saved as
// a Claude Code sidechain the session loader reads.
func TestSubagentEndToEnd(t *testing.T) {
	store := session.NewStore(t.TempDir(), "-")
	e := newEnvWith(t, map[string]string{"a.txt": "alpha secret\n"}, func(c *engine.Config) { c.Store = store },
		fake.Turn{fake.ToolUse("toolu_agent", "Task", `{"description":"read a","prompt":"Read a.txt and report what it says.","subagent_type":"general-purpose"}`)},
		fake.Turn{fake.ToolUse("toolu_c1", "Read", `{"file_path":"a.txt"}`)},
		fake.Turn{fake.Text("a.txt says alpha secret.")},
		fake.Turn{fake.Text("The agent found alpha.")},
	)
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	stop, err := e.editor.Prompt(sid, "what is in a.txt? ask an agent")
	if err != nil || stop != schema.StopEndTurn {
		t.Fatalf("prompt = %q, %v", stop, err)
	}
	// The subagent's first request: its own context and tools.
	child := e.requestText(1)
	if !strings.Contains(child, "Read a.txt and report") || strings.Contains(child, "ask an agent") {
		t.Errorf("the subagent's request does not hold just its task: %s", child)
	}
	for _, name := range e.requestTools(1) {
		if name == "Agent" || name == "Task" {
			t.Errorf("the subagent was offered %s", name)
		}
	}
	if got := resultText(e.toolResults(2)[0]); !strings.Contains(got, "alpha secret") {
		t.Errorf("the subagent's Read = %q", got)
	}
	res := e.toolResults(3)
	if len(res) != 1 || res[0]["tool_use_id"] != "toolu_agent" || resultText(res[0]) != "a.txt says alpha secret." {
		t.Fatalf("the main conversation got %v, want the report only", res)
	}
	if strings.Contains(e.requestText(3), "toolu_c1") {
		t.Errorf("the subagent's calls leaked into the main conversation")
	}
	// Nested progress: the child call names its parent; the Agent call
	// lists the child's calls.
	var agentID string
	var nested, progress bool
	for _, u := range e.editor.Updates(sid) {
		if u.ToolCall == nil {
			continue
		}
		if u.ToolCall.ToolCallID == "toolu_c1" {
			m := agentMeta(u)
			if m == nil || m["parentToolCallId"] != "toolu_agent" || m["agent"] != "general-purpose" {
				t.Errorf("child update without its parent in _meta: %+v", u.Meta)
				continue
			}
			nested = true
			agentID, _ = m["agentId"].(string)
		}
		if u.ToolCall.ToolCallID == "toolu_agent" {
			for _, c := range u.ToolCall.Content {
				if c.Content != nil && strings.Contains(c.Content.Text, "Read") {
					progress = true
				}
			}
		}
		if u.SessionUpdate == schema.UpdateAgentMessageChunk && u.Content != nil && strings.Contains(u.Content.Text, "alpha secret") {
			t.Errorf("the subagent's text reached the main stream")
		}
	}
	if !nested || !progress {
		t.Errorf("nested child call seen: %v, progress on the Agent call: %v", nested, progress)
	}
	// The transcript: a sidechain the loader reads, skipped by the main
	// conversation.
	h, err := store.LoadSidechain(e.root, sid, agentID)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Messages) != 4 || !strings.Contains(h.Messages[3].Content[0].Text, "alpha secret") {
		t.Errorf("sidechain = %+v", h.Messages)
	}
	main, err := store.Load(e.root, sid)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range main.Messages {
		for _, b := range m.Content {
			if b.ID == "toolu_c1" || b.ToolUseID == "toolu_c1" {
				t.Errorf("the main session file holds the subagent's call")
			}
		}
	}
}

// TestSubagentToolsNarrowed: a project agent whose tools list names only
// Read is offered only Read, and a Bash call it makes anyway is refused;
// NoSuchTool, which the parent does not have, is not added.
func TestSubagentToolsNarrowed(t *testing.T) {
	files := map[string]string{
		".claude/agents/reader.md": "---\nname: reader\ndescription: Reads files.\ntools: Read, NoSuchTool\n---\nYou only read.\n",
		"a.txt":                    "alpha\n",
	}
	e := newEnv(t, files,
		fake.Turn{fake.ToolUse("toolu_agent", "Agent", `{"description":"read","prompt":"Run echo hi.","subagent_type":"reader"}`)},
		fake.Turn{fake.ToolUse("toolu_bash", "Bash", `{"command":"echo hi > out.txt"}`)},
		fake.Turn{fake.Text("I may not run commands.")},
		fake.Turn{fake.Text("ok")},
	)
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	if stop, err := e.editor.Prompt(sid, "delegate"); err != nil || stop != schema.StopEndTurn {
		t.Fatalf("prompt = %q, %v", stop, err)
	}
	if got := strings.Join(e.requestTools(1), ","); got != "Read" {
		t.Errorf("the reader agent was offered %s, want Read only (NoSuchTool is not the parent's)", got)
	}
	if !strings.Contains(e.requestText(1), "You only read.") {
		t.Errorf("the agent's system prompt is not its definition's")
	}
	if !strings.Contains(e.requestText(0), "reader: Reads files.") {
		t.Errorf("the Agent tool does not list the project agent")
	}
	res := e.toolResults(2)
	if res[0]["is_error"] != true || !strings.Contains(resultText(res[0]), "unknown tool") {
		t.Errorf("Bash in the reader agent = %v", res[0])
	}
	if len(e.editor.Permissions()) != 0 {
		t.Errorf("permission asked for a call outside the agent's tools")
	}
	if _, err := os.Stat(e.path("out.txt")); err == nil {
		t.Errorf("the refused Bash call ran")
	}
}

// TestSubagentsParallelAndCancel: two Agent calls of one message run at
// once (both subagents are waiting on the model together), and
// session/cancel stops both.
func TestSubagentsParallelAndCancel(t *testing.T) {
	e := newEnv(t, nil,
		fake.Turn{
			fake.ToolUse("toolu_a1", "Agent", `{"description":"one","prompt":"first task"}`),
			fake.ToolUse("toolu_a2", "Agent", `{"description":"two","prompt":"second task"}`),
		},
		fake.Turn{fake.Text("working on it"), fake.Hang(0)},
		fake.Turn{fake.Text("working on it"), fake.Hang(0)},
	)
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	var res schema.PromptResult
	wait := e.editor.Go("session/prompt", schema.PromptParams{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock("two things")}}, &res)
	e.editor.WaitFor("both subagents asking the model", func() bool { return len(e.model.Requests()) == 3 })
	e.editor.Notify("session/cancel", schema.SessionIDParams{SessionID: sid})
	if err := wait(); err != nil || res.StopReason != schema.StopCancelled {
		t.Fatalf("prompt = %q, %v; want cancelled", res.StopReason, err)
	}
	texts := e.requestText(1) + e.requestText(2)
	if !strings.Contains(texts, "first task") || !strings.Contains(texts, "second task") {
		t.Errorf("the two subagents did not each get their task")
	}
	failed := map[string]bool{}
	for _, u := range e.editor.Updates(sid) {
		if u.ToolCall != nil && u.ToolCall.Status == schema.StatusFailed {
			failed[u.ToolCall.ToolCallID] = true
		}
	}
	if !failed["toolu_a1"] || !failed["toolu_a2"] {
		t.Errorf("cancelled Agent calls not failed: %v", failed)
	}
}

// TestRepetitionGuard: the third identical Read in a turn carries a
// warning; the first two do not.
func TestRepetitionGuard(t *testing.T) {
	read := `{"file_path":"a.txt"}`
	e := newEnv(t, map[string]string{"a.txt": "alpha\n"},
		fake.Turn{fake.ToolUse("toolu_r1", "Read", read)},
		fake.Turn{fake.ToolUse("toolu_r2", "Read", read)},
		fake.Turn{fake.ToolUse("toolu_r3", "Read", read)},
		fake.Turn{fake.Text("done")},
	)
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	if stop, err := e.editor.Prompt(sid, "read it"); err != nil || stop != schema.StopEndTurn {
		t.Fatalf("prompt = %q, %v", stop, err)
	}
	for n, want := range []bool{false, false, true} {
		got := strings.Contains(resultText(e.toolResults(n + 1)[0]), "exact Read call 3 times")
		if got != want {
			t.Errorf("Read %d warned: %v, want %v (%s)", n+1, got, want, resultText(e.toolResults(n + 1)[0]))
		}
	}
}

// TestRepetitionGuardCycle: two calls alternating (A B A B) earn a
// warning on the fourth.
func TestRepetitionGuardCycle(t *testing.T) {
	a, b := `{"file_path":"a.txt"}`, `{"file_path":"b.txt"}`
	e := newEnv(t, map[string]string{"a.txt": "alpha\n", "b.txt": "beta\n"},
		fake.Turn{fake.ToolUse("toolu_1", "Read", a)},
		fake.Turn{fake.ToolUse("toolu_2", "Read", b)},
		fake.Turn{fake.ToolUse("toolu_3", "Read", a)},
		fake.Turn{fake.ToolUse("toolu_4", "Read", b)},
		fake.Turn{fake.Text("done")},
	)
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	if stop, err := e.editor.Prompt(sid, "read them"); err != nil || stop != schema.StopEndTurn {
		t.Fatalf("prompt = %q, %v", stop, err)
	}
	for n := 1; n <= 4; n++ {
		got := strings.Contains(resultText(e.toolResults(n)[0]), "alternating")
		if got != (n == 4) {
			t.Errorf("Read %d warned of a cycle: %v", n, got)
		}
	}
}

// TestSubagentPermissionLabelled: a subagent's permission request names
// the agent in its title and the parent Agent call in _meta.
func TestSubagentPermissionLabelled(t *testing.T) {
	e := newEnv(t, nil,
		fake.Turn{fake.ToolUse("toolu_agent", "Agent", `{"description":"run","prompt":"Run echo."}`)},
		fake.Turn{fake.ToolUse("toolu_bash", "Bash", `{"command":"touch made.txt && echo hi","description":"say hi"}`)},
		fake.Turn{fake.Text("It said hi.")},
		fake.Turn{fake.Text("ok")},
	)
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	if stop, err := e.editor.Prompt(sid, "delegate"); err != nil || stop != schema.StopEndTurn {
		t.Fatalf("prompt = %q, %v", stop, err)
	}
	perms := e.editor.Permissions()
	if len(perms) != 1 {
		t.Fatalf("got %d permission requests, want 1", len(perms))
	}
	p := perms[0]
	m, _ := p.Meta["agent-lsp"].(map[string]any)
	if !strings.HasPrefix(p.ToolCall.Title, "[general-purpose agent] ") || m["parentToolCallId"] != "toolu_agent" {
		t.Errorf("permission request title %q, _meta %v", p.ToolCall.Title, p.Meta)
	}
	if got := resultText(e.toolResults(2)[0]); !strings.Contains(got, "hi") {
		t.Errorf("the subagent's Bash = %q", got)
	}
}

// TestSubagentACP: over the ACP door, the subagent's tool calls carry the
// parent Agent call in _meta and the Agent call's tool_call_update content
// lists them; the model gets the report as the Agent result.
func TestSubagentACP(t *testing.T) {
	c := newACP(t, nil,
		fake.Turn{fake.ToolUse("toolu_agent", "Agent", `{"description":"list","prompt":"List the folder."}`)},
		fake.Turn{fake.ToolUse("toolu_ls", "LS", `{"path":"."}`)},
		fake.Turn{fake.Text("The folder is empty.")},
		fake.Turn{fake.Text("ok")},
	)
	c.initialize(false)
	sid := c.newSession().SessionID
	if res := c.prompt(sid, "delegate"); res.StopReason != schema.StopEndTurn {
		t.Fatalf("prompt = %q", res.StopReason)
	}
	if last := lastMessage(t, c.model, 3); !strings.Contains(last, "The folder is empty.") || strings.Contains(last, "toolu_ls") {
		t.Errorf("the Agent result = %s", last)
	}
	var nested, progress bool
	for _, u := range c.updates(sid) {
		switch {
		case u.ToolCall == nil:
		case u.ToolCall.ToolCallID == "toolu_ls":
			if m := agentMeta(u); m["parentToolCallId"] == "toolu_agent" {
				nested = true
			} else {
				t.Errorf("child update _meta = %v", u.Meta)
			}
		case u.ToolCall.ToolCallID == "toolu_agent":
			for _, tc := range u.ToolCall.Content {
				if tc.Content != nil && strings.Contains(tc.Content.Text, "LS") {
					progress = true
				}
			}
		}
	}
	if !nested || !progress {
		t.Errorf("nested: %v, progress: %v", nested, progress)
	}
}
