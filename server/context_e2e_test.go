package server_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/internal/editortest"
	"github.com/agent-lsp/agent-lsp/providers/anthropic"
	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/session"
)

// requestText returns the JSON of request n's messages and system prompt.
func (e *env) requestText(n int) string {
	e.t.Helper()
	reqs := e.model.Requests()
	if n >= len(reqs) {
		e.t.Fatalf("the model got %d requests, want at least %d", len(reqs), n+1)
	}
	return string(reqs[n].Body)
}

func TestCompactionWhenTurnsFillTheWindow(t *testing.T) {
	e := newEnvWith(t, nil, func(c *engine.Config) { c.Window = 4000 },
		fake.Turn{fake.Text("First answer."), fake.Usage{Input: 2500, Output: 20}},
		fake.Turn{fake.Text("Summary: the user asked two long questions.")}, // the summary request
		fake.Turn{fake.Text("Second answer.")},
	)
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	if _, err := e.editor.Prompt(sid, "first question"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.editor.Prompt(sid, "second question "+strings.Repeat("with many words ", 200)); err != nil {
		t.Fatal(err)
	}
	if sum := e.requestText(1); !strings.Contains(sum, "Summarize the conversation") || !strings.Contains(sum, "first question") {
		t.Fatalf("request 2 is not the summary request: %.300s", sum)
	}
	next := e.requestText(2)
	if !strings.Contains(next, "Summary: the user asked two long questions.") || !strings.Contains(next, "second question") {
		t.Errorf("the call after compaction lacks the summary or the new prompt: %.500s", next)
	}
	if strings.Contains(next, `"text":"first question"`) {
		t.Error("the compacted turn was still sent verbatim")
	}
}

func TestHugeToolResultIsCutBeforeItOverflows(t *testing.T) {
	big := strings.Repeat("0123456789abcdef\n", 4000) // 68 KB, 17k tokens
	e := newEnvWith(t, map[string]string{"big.txt": big}, func(c *engine.Config) { c.Window = 16000 },
		fake.Turn{fake.ToolUse("toolu_1", "Read", `{"file_path":"big.txt"}`), fake.Usage{Input: 300, Output: 20}},
		fake.Turn{fake.Text("It is big.")},
	)
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	if _, err := e.editor.Prompt(sid, "read big.txt"); err != nil {
		t.Fatal(err)
	}
	res := e.toolResults(1)
	text := resultText(res[0])
	if len(text) > 16000*4/4 || !strings.Contains(text, "characters omitted") {
		t.Errorf("the tool result sent was %d chars (note present: %v), want it cut to fit the window", len(text), strings.Contains(text, "characters omitted"))
	}
}

func TestSlashCommands(t *testing.T) {
	e := newEnv(t, nil,
		fake.Turn{fake.Text("hello")},
		fake.Turn{fake.Text("A summary.")},
		fake.Turn{fake.Text("after compact")},
		fake.Turn{fake.Text("after clear")},
	)
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	e.editor.WaitFor("available_commands_update", func() bool {
		for _, u := range e.editor.Updates(sid) {
			if u.SessionUpdate == schema.UpdateAvailableCommands && len(u.AvailableCommands) >= 2 {
				return true
			}
		}
		return false
	})
	e.editor.Prompt(sid, "hi")
	if stop, err := e.editor.Prompt(sid, "/compact"); err != nil || stop != schema.StopEndTurn {
		t.Fatalf("/compact = %q, %v", stop, err)
	}
	e.editor.Prompt(sid, "go on")
	if !strings.Contains(e.requestText(2), "A summary.") {
		t.Errorf("the call after /compact lacks the summary")
	}
	if stop, err := e.editor.Prompt(sid, "/clear"); err != nil || stop != schema.StopEndTurn {
		t.Fatalf("/clear = %q, %v", stop, err)
	}
	n := len(e.model.Requests())
	e.editor.Prompt(sid, "fresh")
	if len(e.model.Requests()) != n+1 {
		t.Fatalf("/clear called the model")
	}
	var body struct {
		Messages []json.RawMessage `json:"messages"`
	}
	e.model.Requests()[n].Decode(&body)
	if len(body.Messages) != 1 {
		t.Errorf("after /clear the model got %d messages, want only the new prompt", len(body.Messages))
	}
}

func TestSessionsPersistAndLoad(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	store := session.NewStore(t.TempDir(), "-")
	model := fake.NewAnthropic(t,
		fake.Turn{fake.Text("I will read it."), fake.ToolUse("toolu_1", "LS", `{"path":"."}`)},
		fake.Turn{fake.Text("It is empty.")},
		fake.Turn{fake.Text("Still here.")},
	)
	provider := anthropic.New(anthropic.Options{APIKey: "k", BaseURL: model.BaseURL()})
	opts := server.Options{Logf: t.Logf, TranscriptDir: t.TempDir(), NewService: func(server.InitOptions) (*engine.Service, error) {
		return engine.NewService(engine.Config{Provider: provider, Model: "claude-test", Store: store, Home: root}), nil
	}}
	first := editortest.New(t, opts)
	first.Initialize(root, nil)
	sid := first.NewSession(root)
	if _, err := first.Prompt(sid, "what is in this folder?"); err != nil {
		t.Fatal(err)
	}
	first.MustCall("session/close", schema.SessionIDParams{SessionID: sid}, nil)

	// A new editor (as after a restart) lists, loads and continues it.
	second := editortest.New(t, opts)
	second.Initialize(root, nil)
	var list schema.ListSessionsResult
	second.MustCall("session/list", schema.ListSessionsParams{Cwd: root}, &list)
	if len(list.Sessions) != 1 || list.Sessions[0].SessionID != sid || list.Sessions[0].Title != "what is in this folder?" {
		t.Fatalf("session/list = %+v", list)
	}
	var res schema.NewSessionResult
	second.MustCall("session/load", schema.LoadSessionParams{SessionID: sid, Cwd: root, MCPServers: []schema.MCPServer{}}, &res)
	tr := second.Transcript(sid)
	for _, want := range []string{"[user_message_chunk] what is in this folder?", "[agent_message_chunk] I will read it.", "[tool_call] toolu_1", "status=completed", "It is empty."} {
		if !strings.Contains(tr, want) {
			t.Errorf("replay lacks %q:\n%s", want, tr)
		}
	}
	if _, err := second.Prompt(sid, "and now?"); err != nil {
		t.Fatal(err)
	}
	var body struct {
		Messages []json.RawMessage `json:"messages"`
	}
	model.Requests()[2].Decode(&body)
	if len(body.Messages) != 5 {
		t.Errorf("the continued session sent %d messages, want the 4 before plus the new prompt", len(body.Messages))
	}
}

func TestInstructionFilesArePickedUpWithoutRestart(t *testing.T) {
	e := newEnv(t, map[string]string{"CLAUDE.md": "Always answer in haiku.\n"},
		fake.Turn{fake.Text("one")},
		fake.Turn{fake.Text("two")},
	)
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	e.editor.Prompt(sid, "first")
	if !strings.Contains(e.requestText(0), "Always answer in haiku.") {
		t.Fatal("CLAUDE.md is not in the system prompt")
	}
	// The watcher starts in the background: write until it has seen it.
	last := time.Time{}
	e.editor.WaitFor("the instructions to be reloaded", func() bool {
		if time.Since(last) > 300*time.Millisecond {
			os.WriteFile(e.path("CLAUDE.md"), []byte("Always answer in limericks.\n"), 0o644)
			last = time.Now()
		}
		for _, n := range e.editor.Notifications() {
			if n.Method == "agent/status" && strings.Contains(string(n.Params), "instructions reloaded") {
				return true
			}
		}
		return false
	})
	e.editor.Prompt(sid, "second")
	if !strings.Contains(e.requestText(1), "Always answer in limericks.") {
		t.Error("the changed CLAUDE.md did not reach the next model call")
	}
}
