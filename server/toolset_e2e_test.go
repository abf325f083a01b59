package server_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/providers/anthropic"
	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/settings"
)

// A session's tool set follows what it may use now: in an untrusted
// folder no language server starts, and the session has no Diagnostics or
// LSP tool; once the user trusts the folder (at the first prompt, or
// later from outside, as `agent-lsp trust` does) the language server of
// the folder's files starts, the model's next request offers the tools
// and edits carry the server's diagnostics. Each door is tried with the
// test binary playing the language server (fakeLangServer).

const brokenEdit = `{"file_path":"main.go","old_string":"package main\n","new_string":"package main\n\nvar x = BROKEN\n"}`

// untrustedFolder loads root's settings restricted and trusts it on
// Grant; grants counts the grants.
func untrustedFolder(t *testing.T, root string, grants *int) func(*engine.Config) {
	home := t.TempDir()
	load := func(trusted bool) *settings.Settings {
		st, problems := settings.Load(settings.Options{Project: root, Home: home, TrustProject: trusted})
		if len(problems) > 0 {
			t.Errorf("settings problems: %v", problems)
		}
		return st
	}
	return func(c *engine.Config) {
		c.Settings = load(false)
		base := *c
		c.Trust = &engine.Trust{Folder: root, Grant: func(context.Context) (engine.Config, error) {
			*grants++
			next := base
			next.Settings = load(true)
			return next, nil
		}}
	}
}

// answerTrust answers a trust question with trust (or "not now") and
// allows every tool call.
func answerTrust(trust bool) func(*schema.RequestPermissionParams) schema.RequestPermissionResult {
	return func(p *schema.RequestPermissionParams) schema.RequestPermissionResult {
		id := "allow_once"
		if engine.IsTrustRequest(p) {
			id = "not_now"
			if trust {
				id = "trust"
			}
		}
		return schema.RequestPermissionResult{Outcome: schema.PermissionOutcome{Outcome: "selected", OptionID: id}}
	}
}

// offeredTools returns the names of the tools of the model's request n.
func offeredTools(t *testing.T, model *fake.Server, n int) []string {
	t.Helper()
	reqs := model.Requests()
	if n >= len(reqs) {
		t.Fatalf("the model got %d requests, want at least %d", len(reqs), n+1)
	}
	var body struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := reqs[n].Decode(&body); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range body.Tools {
		names = append(names, tl.Name)
	}
	return names
}

// wantCodeTools fails unless request n of model offers the Diagnostics
// and LSP tools (want) or offers neither.
func wantCodeTools(t *testing.T, model *fake.Server, n int, want bool) {
	t.Helper()
	names := offeredTools(t, model, n)
	if slices.Contains(names, "Diagnostics") != want || slices.Contains(names, "LSP") != want {
		t.Errorf("request %d offers %v; want Diagnostics and LSP: %v", n, names, want)
	}
}

// wantDiagnosed fails unless an edit result carries the fake server's
// error.
func wantDiagnosed(t *testing.T, result string) {
	t.Helper()
	if !reportsNewProblems(result) || !strings.Contains(result, "main.go:3:9: error: undefined: BROKEN [fakels]") {
		t.Errorf("the Edit's result lacks the language server's error:\n%s", result)
	}
}

func TestToolsFollowTrustThroughTheLSPDoor(t *testing.T) {
	grants := 0
	e := newEnvWith(t, map[string]string{"main.go": "package main\n"}, withFakeLangServer(t),
		fake.Turn{fake.ToolUse("toolu_read", "Read", `{"file_path":"main.go"}`)},
		fake.Turn{fake.ToolUse("toolu_edit", "Edit", brokenEdit)},
		fake.Turn{fake.Text("done")},
	)
	e.configure(untrustedFolder(t, e.root, &grants))
	e.editor.OnPermission(answerTrust(true))
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	if stop, err := e.editor.Prompt(sid, "break it"); err != nil || stop != schema.StopEndTurn {
		t.Fatalf("prompt = %q, %v", stop, err)
	}
	if grants != 1 {
		t.Fatalf("grants = %d, want 1", grants)
	}
	for n := range 3 {
		wantCodeTools(t, e.model, n, true)
	}
	wantDiagnosed(t, resultText(e.toolResults(2)[0]))
}

func TestToolsFollowTrustThroughTheACPDoor(t *testing.T) {
	grants := 0
	var root string
	lang := withFakeLangServer(t)
	c := newACP(t, func(cfg *engine.Config) {
		lang(cfg)
		untrustedFolder(t, root, &grants)(cfg)
	},
		fake.Turn{fake.ToolUse("toolu_read", "Read", `{"file_path":"main.go"}`)},
		fake.Turn{fake.ToolUse("toolu_edit", "Edit", brokenEdit)},
		fake.Turn{fake.Text("done")},
	)
	root = c.root
	c.write(root+"/main.go", "package main\n")
	c.answer = answerTrust(true)
	c.initialize(true)
	sid := c.newSession().SessionID
	if res := c.prompt(sid, "break it"); res.StopReason != schema.StopEndTurn {
		t.Fatalf("stop = %q", res.StopReason)
	}
	if grants != 1 {
		t.Fatalf("grants = %d, want 1", grants)
	}
	for n := range 3 {
		wantCodeTools(t, c.model, n, true)
	}
	wantDiagnosed(t, lastMessage(t, c.model, 2))
}

// plainAnswers answers the plain door's questions: Trust (or Not now)
// and Allow.
func plainAnswers(trust bool) func(ctx context.Context, method string, params json.RawMessage) (any, error) {
	return func(ctx context.Context, method string, params json.RawMessage) (any, error) {
		switch method {
		case "window/showMessageRequest":
			var p struct {
				Actions []struct {
					Title string `json:"title"`
				} `json:"actions"`
			}
			json.Unmarshal(params, &p)
			for _, a := range p.Actions {
				if a.Title == "Trust" || a.Title == "Not now" {
					if trust {
						return map[string]string{"title": "Trust"}, nil
					}
					return map[string]string{"title": "Not now"}, nil
				}
			}
			return map[string]string{"title": "Allow"}, nil
		case "window/workDoneProgress/create", "window/showDocument":
			return nil, nil
		}
		return nil, jsonrpc2.ErrNotHandled
	}
}

// plainFixThis runs "Agent: fix this" on main.go from a plain client and
// waits until the model has had requests calls.
func plainFixThis(t *testing.T, e *env, requests int) {
	t.Helper()
	path := e.path("main.go")
	rng := map[string]any{"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 0, "character": 4}}
	var actions []struct {
		Title   string `json:"title"`
		Command struct {
			Command   string            `json:"command"`
			Arguments []json.RawMessage `json:"arguments"`
		} `json:"command"`
	}
	e.editor.MustCall("textDocument/codeAction", map[string]any{
		"textDocument": map[string]string{"uri": string(uri.File(path))},
		"range":        rng,
		"context":      map[string]any{"diagnostics": []map[string]any{{"range": rng, "message": "main needs a variable", "source": "review"}}},
	}, &actions)
	if len(actions) == 0 {
		t.Fatal("no code action")
	}
	e.editor.MustCall("workspace/executeCommand", map[string]any{"command": actions[0].Command.Command, "arguments": actions[0].Command.Arguments}, nil)
	e.editor.WaitFor("the turn's model calls", func() bool { return len(e.model.Requests()) >= requests })
}

// turnsDone counts the turns the plain door said were done.
func turnsDone(e *env) int {
	n := 0
	for _, note := range e.editor.Notifications() {
		if note.Method == "window/showMessage" && strings.Contains(string(note.Params), "agent: done") {
			n++
		}
	}
	return n
}

func initializePlain(e *env) {
	e.editor.InitializeWith(map[string]any{
		"rootUri":      string(uri.File(e.root)),
		"capabilities": map[string]any{"workspace": map[string]any{"applyEdit": true, "workspaceEdit": map[string]any{"documentChanges": true}}},
	})
	e.editor.Open(e.path("main.go"), "package main\n")
}

func TestToolsFollowTrustThroughThePlainDoor(t *testing.T) {
	grants := 0
	e := newEnvWith(t, map[string]string{"main.go": "package main\n"}, withFakeLangServer(t),
		fake.Turn{fake.ToolUse("toolu_read", "Read", `{"file_path":"main.go"}`)},
		fake.Turn{fake.ToolUse("toolu_edit", "Edit", brokenEdit)},
		fake.Turn{fake.Text("done")},
	)
	e.configure(untrustedFolder(t, e.root, &grants))
	e.editor.OnRequest(plainAnswers(true))
	initializePlain(e)
	plainFixThis(t, e, 3)
	if grants != 1 {
		t.Fatalf("grants = %d, want 1", grants)
	}
	for n := range 3 {
		wantCodeTools(t, e.model, n, true)
	}
	wantDiagnosed(t, resultText(e.toolResults(2)[0]))
}

// TestToolsFollowTrustGrantedLater: the user answers "not now" at the
// first prompt, whose requests offer no language-server tool, then trusts
// the folder from outside (Service.TrustGranted, which the trust file's
// watcher calls): the next prompt's requests offer them, and its edit
// carries the server's diagnostics. On every door.
func TestToolsFollowTrustGrantedLater(t *testing.T) {
	turns := []fake.Turn{
		{fake.Text("untrusted")},
		{fake.ToolUse("toolu_read", "Read", `{"file_path":"main.go"}`)},
		{fake.ToolUse("toolu_edit", "Edit", brokenEdit)},
		{fake.Text("done")},
	}
	check := func(t *testing.T, model *fake.Server, grants int, editResult string) {
		t.Helper()
		if grants != 1 {
			t.Fatalf("grants = %d, want 1", grants)
		}
		wantCodeTools(t, model, 0, false)
		for n := 1; n < 4; n++ {
			wantCodeTools(t, model, n, true)
		}
		wantDiagnosed(t, editResult)
	}
	t.Run("lsp", func(t *testing.T) {
		grants := 0
		e := newEnvWith(t, map[string]string{"main.go": "package main\n"}, withFakeLangServer(t), turns...)
		e.configure(untrustedFolder(t, e.root, &grants))
		e.editor.OnPermission(answerTrust(false))
		e.editor.Initialize(e.root, nil)
		sid := e.editor.NewSession(e.root)
		if _, err := e.editor.Prompt(sid, "first"); err != nil {
			t.Fatal(err)
		}
		if err := e.service().TrustGranted(context.Background()); err != nil {
			t.Fatal(err)
		}
		if _, err := e.editor.Prompt(sid, "second"); err != nil {
			t.Fatal(err)
		}
		check(t, e.model, grants, resultText(e.toolResults(3)[0]))
	})
	t.Run("acp", func(t *testing.T) {
		grants := 0
		root := t.TempDir()
		lang := withFakeLangServer(t)
		model := fake.NewAnthropic(t, turns...)
		provider := anthropic.New(anthropic.Options{APIKey: "k", BaseURL: model.BaseURL()})
		var svc *engine.Service
		raw := serveACP(t, func(server.InitOptions) (*engine.Service, error) {
			cfg := engine.Config{Provider: provider, Model: "claude-test", Home: root, Logf: t.Logf}
			lang(&cfg)
			untrustedFolder(t, root, &grants)(&cfg)
			svc = engine.NewService(cfg)
			return svc, nil
		})
		c := connectACP(t, raw, root, model)
		c.write(root+"/main.go", "package main\n")
		c.answer = answerTrust(false)
		c.initialize(true)
		sid := c.newSession().SessionID
		c.prompt(sid, "first")
		if err := svc.TrustGranted(context.Background()); err != nil {
			t.Fatal(err)
		}
		c.prompt(sid, "second")
		check(t, model, grants, lastMessage(t, model, 3))
	})
	t.Run("plain", func(t *testing.T) {
		grants := 0
		e := newEnvWith(t, map[string]string{"main.go": "package main\n"}, withFakeLangServer(t), turns...)
		e.configure(untrustedFolder(t, e.root, &grants))
		e.editor.OnRequest(plainAnswers(false))
		initializePlain(e)
		plainFixThis(t, e, 1)
		e.editor.WaitFor("the first turn's end", func() bool { return turnsDone(e) == 1 })
		if err := e.service().TrustGranted(context.Background()); err != nil {
			t.Fatal(err)
		}
		plainFixThis(t, e, 4)
		check(t, e.model, grants, resultText(e.toolResults(3)[0]))
	})
}
