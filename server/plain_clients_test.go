package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/internal/editortest"
	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/server"
)

// plainEditor is an env initialized as eglot 1.9 is: no agent extension,
// applyEdit, no showDocument and no progress unless asked.
func plainEditor(e *env, showDocument bool) {
	window := map[string]any{}
	if showDocument {
		window["showDocument"] = map[string]any{"support": true}
	}
	e.editor.InitializeWith(map[string]any{
		"rootUri": string(uri.File(e.root)),
		"capabilities": map[string]any{
			"workspace": map[string]any{"applyEdit": true},
			"window":    window,
		},
	})
}

type plainAction struct {
	Title   string `json:"title"`
	Command struct {
		Command   string            `json:"command"`
		Arguments []json.RawMessage `json:"arguments"`
	} `json:"command"`
}

func codeActions(e *env, path string, trigger int, rng map[string]any, diags []map[string]any) []plainAction {
	e.t.Helper()
	ctx := map[string]any{"diagnostics": diags}
	if trigger != 0 {
		ctx["triggerKind"] = trigger
	}
	var actions []plainAction
	e.editor.MustCall("textDocument/codeAction", map[string]any{
		"textDocument": map[string]string{"uri": string(uri.File(path))},
		"range":        rng, "context": ctx,
	}, &actions)
	return actions
}

func titles(actions []plainAction) string {
	var t []string
	for _, a := range actions {
		t = append(t, a.Title)
	}
	return strings.Join(t, ", ")
}

func span(l1, c1, l2, c2 int) map[string]any {
	return map[string]any{"start": map[string]int{"line": l1, "character": c1}, "end": map[string]int{"line": l2, "character": c2}}
}

// logged reports whether a window/logMessage or window/showMessage holds
// text.
func noted(e *env, method, text string) bool {
	for _, n := range e.editor.Notifications() {
		if n.Method == method && strings.Contains(string(n.Params), text) {
			return true
		}
	}
	return false
}

// TestPlainQuietOnAutomaticRequests: editors ask for code actions on every
// cursor rest (triggerKind 2); without diagnostics the answer is empty.
func TestPlainQuietOnAutomaticRequests(t *testing.T) {
	e := newEnv(t, map[string]string{"calc.py": calc})
	plainEditor(e, false)
	path := e.path("calc.py")
	e.editor.Open(path, calc)
	sel := span(0, 0, 1, 10)
	diag := []map[string]any{{"range": sel, "message": "bad"}}
	for _, c := range []struct {
		name    string
		trigger int
		diags   []map[string]any
		want    string
	}{
		{"automatic, no diagnostics", 2, nil, ""},
		{"automatic with a diagnostic", 2, diag, "Agent: fix this"},
		{"invoked selection", 1, nil, "Agent: explain, Agent: refactor…, Agent: write tests, Agent: ask the selected text"},
		{"no trigger kind (eglot 1.9)", 0, nil, "Agent: explain, Agent: refactor…, Agent: write tests, Agent: ask the selected text"},
	} {
		if got := titles(codeActions(e, path, c.trigger, sel, c.diags)); got != c.want {
			t.Errorf("%s: actions = %q, want %q", c.name, got, c.want)
		}
	}
}

// TestPlainAskTheSelectedText: the free-form prompt of editors that run
// commands only from code actions (Kate). The selected text, unsaved and
// with a character outside the BMP before it, is the prompt the model gets.
func TestPlainAskTheSelectedText(t *testing.T) {
	e := newEnv(t, map[string]string{"notes.md": "x\n"}, fake.Turn{fake.Text("done")})
	plainEditor(e, false)
	path := e.path("notes.md")
	e.editor.Open(path, "x\n")
	e.editor.Type(path, "# 😀 Rename average to mean everywhere.\nrest\n")
	// "Rename" starts at UTF-16 column 5: "# " (2) + the emoji (2) + " " (1).
	actions := codeActions(e, path, 1, span(0, 5, 0, 39), nil)
	var ask *plainAction
	for i := range actions {
		if actions[i].Title == "Agent: ask the selected text" {
			ask = &actions[i]
		}
	}
	if ask == nil {
		t.Fatalf("actions = %q, want Agent: ask the selected text", titles(actions))
	}
	e.editor.MustCall("workspace/executeCommand", map[string]any{"command": ask.Command.Command, "arguments": ask.Command.Arguments}, nil)
	e.editor.WaitFor("the request", func() bool { return len(e.model.Requests()) > 0 })
	var first struct {
		Messages []json.RawMessage `json:"messages"`
	}
	e.model.Requests()[0].Decode(&first)
	if got := string(first.Messages[0]); !strings.Contains(got, "Rename average to mean everywhere.") || strings.Contains(got, "😀") || strings.Contains(got, "rest") {
		t.Errorf("the model's first message = %s, want exactly the selected text as the prompt", got)
	}
	if actions := codeActions(e, path, 1, span(1, 0, 1, 0), nil); strings.Contains(titles(actions), "ask the selected text") {
		t.Errorf("an empty selection offers %q", titles(actions))
	}
}

// TestPlainPromptWithoutModelFailsAtOnce: agent.prompt answers -32000
// when no model is configured, instead of failing later in a log.
func TestPlainPromptWithoutModelFailsAtOnce(t *testing.T) {
	root := t.TempDir()
	ed := editortest.New(t, server.Options{TranscriptDir: filepath.Join(root, "t"), NewService: func(server.InitOptions) (*engine.Service, error) {
		return engine.NewService(engine.Config{ProviderError: fmt.Errorf("set ANTHROPIC_API_KEY")}), nil
	}})
	ed.InitializeWith(map[string]any{"rootUri": string(uri.File(root)), "capabilities": map[string]any{}})
	err := ed.Call("workspace/executeCommand", map[string]any{"command": "agent.prompt", "arguments": []string{"hi"}}, nil)
	wantCode(t, err, -32000, "ANTHROPIC_API_KEY")
}

// TestPlainTurnEnd: the answer reaches an editor without showDocument as
// window/showMessage with the transcript's path, and an editor with
// showDocument gets the transcript at the end of the turn, holding the
// answer.
func TestPlainTurnEnd(t *testing.T) {
	for _, showDocument := range []bool{false, true} {
		t.Run(fmt.Sprintf("showDocument=%v", showDocument), func(t *testing.T) {
			e := newEnv(t, map[string]string{"calc.py": calc},
				fake.Turn{fake.Text("Looking."), fake.ToolUse("toolu_1", "Read", `{"file_path":"calc.py"}`)},
				fake.Turn{fake.Text("The average divides by 2; it should divide by len(values).")},
			)
			var mu sync.Mutex
			var shown []string
			e.editor.OnRequest(func(ctx context.Context, method string, params json.RawMessage) (any, error) {
				if method == "window/showDocument" {
					var p struct {
						URI string `json:"uri"`
					}
					json.Unmarshal(params, &p)
					md, _ := os.ReadFile(uri.URI(p.URI).FsPath())
					mu.Lock()
					shown = append(shown, string(md))
					mu.Unlock()
					return map[string]bool{"success": true}, nil
				}
				return nil, jsonrpc2.ErrNotHandled
			})
			plainEditor(e, showDocument)
			e.editor.MustCall("workspace/executeCommand", map[string]any{"command": "agent.prompt", "arguments": []string{"why is average wrong?"}}, nil)
			e.editor.WaitFor("the final showMessage", func() bool { return noted(e, "window/showMessage", "agent: done") })
			var msg string
			for _, n := range e.editor.Notifications() {
				if n.Method == "window/showMessage" {
					var p struct {
						Message string `json:"message"`
					}
					json.Unmarshal(n.Params, &p)
					msg = p.Message
				}
			}
			files, _ := filepath.Glob(filepath.Join(e.root, ".transcripts", "*.md"))
			if len(files) != 1 {
				t.Fatalf("transcripts = %v", files)
			}
			for _, want := range []string{"agent: done (end_turn)", "it should divide by len(values).", "Transcript: " + files[0]} {
				if !strings.Contains(msg, want) {
					t.Errorf("final showMessage lacks %q:\n%s", want, msg)
				}
			}
			if strings.Contains(msg, "Looking.") {
				t.Errorf("final showMessage holds text from before the last tool call:\n%s", msg)
			}
			if showDocument {
				e.editor.WaitFor("the transcript shown", func() bool { mu.Lock(); defer mu.Unlock(); return len(shown) > 0 })
				mu.Lock()
				defer mu.Unlock()
				if len(shown) != 1 || !strings.Contains(shown[0], "it should divide by len(values).") {
					t.Errorf("the transcript was shown %d times, first before the answer existed: %q", len(shown), shown)
				}
			}
		})
	}
}

// TestPlainPlanReview: on the plain door the plan's review is a
// showMessageRequest holding the plan, one button per choice as the agent
// names it; the choice switches the mode and the model goes on.
func TestPlainPlanReview(t *testing.T) {
	e := newEnv(t, nil,
		fake.Turn{fake.ToolUse("toolu_1", "EnterPlanMode", `{}`)},
		fake.Turn{fake.ToolUse("toolu_2", "ExitPlanMode", `{"plan":"1. Add the flag.\n2. Test it."}`)},
		fake.Turn{fake.Text("Coding now.")},
	)
	var mu sync.Mutex
	var asked []string
	var buttons [][]string
	e.editor.OnRequest(func(ctx context.Context, method string, params json.RawMessage) (any, error) {
		if method == "window/showMessageRequest" {
			var p struct {
				Message string `json:"message"`
				Actions []struct {
					Title string `json:"title"`
				} `json:"actions"`
			}
			json.Unmarshal(params, &p)
			var titles []string
			for _, a := range p.Actions {
				titles = append(titles, a.Title)
			}
			mu.Lock()
			asked = append(asked, p.Message)
			buttons = append(buttons, titles)
			mu.Unlock()
			return map[string]string{"title": "Yes, and manually approve edits"}, nil
		}
		return nil, jsonrpc2.ErrNotHandled
	})
	plainEditor(e, false)
	e.editor.MustCall("workspace/executeCommand", map[string]any{"command": "agent.prompt", "arguments": []string{"plan a flag"}}, nil)
	e.editor.WaitFor("the turn's end", func() bool { return noted(e, "window/showMessage", "agent: done") })
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 1 || !strings.Contains(asked[0], "Ready to code?") || !strings.Contains(asked[0], "2. Test it.") {
		t.Fatalf("questions = %q, want the plan's review holding the plan", asked)
	}
	if got := strings.Join(buttons[0], "|"); got != "Yes, and auto-accept edits|Yes, and manually approve edits|No, keep planning" {
		t.Errorf("buttons = %s", got)
	}
	var last struct {
		Messages []json.RawMessage `json:"messages"`
	}
	reqs := e.model.Requests()
	reqs[len(reqs)-1].Decode(&last)
	if got := string(last.Messages[len(last.Messages)-1]); !strings.Contains(got, "approved the plan") || !strings.Contains(got, "default mode") {
		t.Errorf("the model's last request does not carry the approval: %s", got)
	}
}

// TestPlainApprovalsShowWhatTheyApprove: the showMessageRequest text names
// the tool and shows the changed lines of an edit, and the command of
// Bash rather than the model's description of it.
func TestPlainApprovalsShowWhatTheyApprove(t *testing.T) {
	e := newEnv(t, map[string]string{"calc.py": calc},
		fake.Turn{fake.ToolUse("toolu_1", "Read", `{"file_path":"calc.py"}`)},
		fake.Turn{fake.ToolUse("toolu_2", "Edit", `{"file_path":"calc.py","old_string":"/ 2","new_string":"/ len(values)"}`)},
		fake.Turn{fake.ToolUse("toolu_3", "Bash", `{"command":"python3 -c 'print(1)'","description":"Check the interpreter"}`)},
		fake.Turn{fake.Text("Done.")},
	)
	var mu sync.Mutex
	var asked []string
	e.editor.OnRequest(func(ctx context.Context, method string, params json.RawMessage) (any, error) {
		if method == "window/showMessageRequest" {
			var p struct {
				Message string `json:"message"`
			}
			json.Unmarshal(params, &p)
			mu.Lock()
			asked = append(asked, p.Message)
			mu.Unlock()
			return map[string]string{"title": "Allow"}, nil
		}
		return nil, jsonrpc2.ErrNotHandled
	})
	plainEditor(e, false)
	e.editor.Open(e.path("calc.py"), calc)
	e.editor.MustCall("workspace/executeCommand", map[string]any{"command": "agent.prompt", "arguments": []string{"fix it"}}, nil)
	e.editor.WaitFor("the turn's end", func() bool { return noted(e, "window/showMessage", "agent: done") })
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 2 {
		t.Fatalf("approvals = %q, want the edit and the command", asked)
	}
	for _, want := range []string{"Edit", "calc.py", "-    return sum(values) / 2", "+    return sum(values) / len(values)", `"Always allow" allows edits to calc.py from now on.`} {
		if !strings.Contains(asked[0], want) {
			t.Errorf("edit approval lacks %q:\n%s", want, asked[0])
		}
	}
	if !strings.Contains(asked[1], "Bash") || !strings.Contains(asked[1], "$ python3 -c 'print(1)'") || strings.Contains(asked[1], "Check the interpreter") {
		t.Errorf("Bash approval must name the tool and show the command, not the description:\n%s", asked[1])
	}
	if !strings.Contains(asked[1], `"Always allow" allows `+"`python3 -c 'print(1)'` commands") {
		t.Errorf("Bash approval must say what \"Always allow\" allows in words:\n%s", asked[1])
	}
}

// TestPlainFreeWhenDoneIsAnnounced: a command sent as soon as "agent:
// done" arrives is not refused as busy.
func TestPlainFreeWhenDoneIsAnnounced(t *testing.T) {
	const rounds = 15
	var turns []fake.Turn
	for i := range rounds {
		turns = append(turns, fake.Turn{fake.Text(fmt.Sprintf("answer %d", i))})
	}
	e := newEnv(t, nil, turns...)
	plainEditor(e, false)
	done := 0
	for i := range rounds {
		if err := e.editor.Call("workspace/executeCommand", map[string]any{"command": "agent.prompt", "arguments": []string{fmt.Sprintf("question %d", i)}}, nil); err != nil {
			t.Fatalf("round %d: agent.prompt right after \"agent: done\": %v", i, err)
		}
		e.editor.WaitFor("agent: done", func() bool {
			n := 0
			for _, m := range e.editor.Notifications() {
				if m.Method == "window/logMessage" && strings.Contains(string(m.Params), "agent: done") {
					n++
				}
			}
			return n > done
		})
		done++
	}
}

// TestPlainNewSessionWhenDoneIsAnnounced: agent.newSession sent as soon
// as "agent: done" arrives starts a new session every time, and the next
// prompt runs in it.
func TestPlainNewSessionWhenDoneIsAnnounced(t *testing.T) {
	const rounds = 40
	var turns []fake.Turn
	for i := range rounds {
		turns = append(turns, fake.Turn{fake.Text(fmt.Sprintf("answer %d", i))})
	}
	e := newEnv(t, nil, turns...)
	plainEditor(e, false)
	count := func(text string) int {
		n := 0
		for _, m := range e.editor.Notifications() {
			if m.Method == "window/logMessage" && strings.Contains(string(m.Params), text) {
				n++
			}
		}
		return n
	}
	for i := range rounds {
		e.editor.MustCall("workspace/executeCommand", map[string]any{"command": "agent.prompt", "arguments": []string{fmt.Sprintf("question %d", i)}}, nil)
		e.editor.WaitFor("agent: done", func() bool { return count("agent: done") > i })
		if err := e.editor.Call("workspace/executeCommand", map[string]any{"command": "agent.newSession"}, nil); err != nil {
			t.Fatalf("round %d: agent.newSession right after \"agent: done\": %v", i, err)
		}
	}
	if n := count("new session started"); n != rounds {
		t.Errorf("%d new sessions started, want %d", n, rounds)
	}
}

// TestPlainControlsInTheActionMenu: "Agent: cancel" while a turn runs (it
// cancels it), "Agent: new session" once a session exists.
func TestPlainControlsInTheActionMenu(t *testing.T) {
	e := newEnv(t, map[string]string{"calc.py": calc},
		fake.Turn{fake.ToolUse("toolu_1", "Bash", `{"command":"touch made.txt"}`)},
		fake.Turn{fake.Text("never")},
	)
	asked := make(chan struct{})
	release := make(chan struct{})
	e.editor.OnRequest(func(ctx context.Context, method string, params json.RawMessage) (any, error) {
		if method == "window/showMessageRequest" {
			close(asked)
			select {
			case <-release:
			case <-ctx.Done():
			}
			return nil, nil
		}
		return nil, jsonrpc2.ErrNotHandled
	})
	plainEditor(e, false)
	path := e.path("calc.py")
	e.editor.Open(path, calc)
	point := span(0, 0, 0, 0)
	if got := titles(codeActions(e, path, 1, point, nil)); got != "" {
		t.Errorf("before any session: actions = %q, want none", got)
	}
	e.editor.MustCall("workspace/executeCommand", map[string]any{"command": "agent.prompt", "arguments": []string{"run it"}}, nil)
	<-asked
	actions := codeActions(e, path, 1, point, nil)
	if titles(actions) != "Agent: cancel" {
		t.Fatalf("while a turn runs: actions = %q, want Agent: cancel", titles(actions))
	}
	e.editor.MustCall("workspace/executeCommand", map[string]any{"command": actions[0].Command.Command}, nil)
	e.editor.WaitFor("the turn cancelled", func() bool { return noted(e, "window/showMessage", "agent: done (cancelled)") })
	close(release)
	actions = codeActions(e, path, 1, point, nil)
	if titles(actions) != "Agent: new session" {
		t.Fatalf("after the turn: actions = %q, want Agent: new session", titles(actions))
	}
	e.editor.MustCall("workspace/executeCommand", map[string]any{"command": actions[0].Command.Command}, nil)
	if !noted(e, "window/logMessage", "new session started") {
		t.Error("agent.newSession did not start a new session")
	}
}
