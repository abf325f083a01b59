package server_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/session"
	"github.com/agent-lsp/agent-lsp/settings"
)

// thinkingOf returns the thinking and output_config.effort a model
// request carried ("" when absent).
func thinkingOf(t *testing.T, req fake.Request) (thinking map[string]any, effort string) {
	t.Helper()
	thinking, _ = req.JSON["thinking"].(map[string]any)
	if oc, ok := req.JSON["output_config"].(map[string]any); ok {
		effort, _ = oc["effort"].(string)
	}
	return thinking, effort
}

// TestThinkingAndEffortPerSettings: a prompt's model request carries
// thinking and effort as Claude Code sends them, per model and per
// alwaysThinkingEnabled, effortLevel and MAX_THINKING_TOKENS (from the
// environment or the settings' env).
func TestThinkingAndEffortPerSettings(t *testing.T) {
	no := false
	tests := []struct {
		name       string
		model      string
		env        string // MAX_THINKING_TOKENS of the process
		st         settings.Settings
		wantType   string // "" for no thinking
		wantBudget float64
		wantEffort string
	}{
		{name: "adaptive by default", model: "claude-opus-4-7", wantType: "adaptive", wantEffort: "high"},
		{name: "effortLevel", model: "claude-sonnet-4-6", st: settings.Settings{EffortLevel: "low"}, wantType: "adaptive", wantEffort: "low"},
		{name: "thinking off", model: "claude-opus-4-7", st: settings.Settings{AlwaysThinkingEnabled: &no, EffortLevel: "max"}, wantEffort: "max"},
		{name: "budget model default", model: "claude-sonnet-4-5-20250929", wantType: "enabled", wantBudget: 16383},
		{name: "budget from env", model: "claude-sonnet-4-5-20250929", env: "5000", wantType: "enabled", wantBudget: 5000},
		{name: "env 0 is off", model: "claude-opus-4-7", env: "0", wantEffort: "high"},
		{name: "settings env wins", model: "claude-sonnet-4-5-20250929", env: "0", st: settings.Settings{Env: map[string]string{"MAX_THINKING_TOKENS": "4096"}}, wantType: "enabled", wantBudget: 4096},
		{name: "opus 4.5 budget and effort", model: "claude-opus-4-5-20251101", st: settings.Settings{EffortLevel: "medium"}, wantType: "enabled", wantBudget: 16383, wantEffort: "medium"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnvWith(t, nil, func(cfg *engine.Config) {
				cfg.Model = tt.model
				cfg.MaxThinkingTokens = tt.env
				st := tt.st
				cfg.Settings = &st
			}, fake.Turn{fake.Text("ok")})
			e.editor.Initialize(e.root, nil)
			sid := e.editor.NewSession(e.root)
			if stop, err := e.editor.Prompt(sid, "hi"); err != nil || stop != schema.StopEndTurn {
				t.Fatalf("prompt = %q, %v", stop, err)
			}
			th, effort := thinkingOf(t, e.model.Requests()[0])
			gotType, _ := th["type"].(string)
			gotBudget, _ := th["budget_tokens"].(float64)
			if gotType != tt.wantType || gotBudget != tt.wantBudget || effort != tt.wantEffort {
				t.Errorf("thinking %v effort %q, want type %q budget %v effort %q", th, effort, tt.wantType, tt.wantBudget, tt.wantEffort)
			}
			if gotType == "enabled" {
				if mt, _ := e.model.Requests()[0].JSON["max_tokens"].(float64); mt <= gotBudget {
					t.Errorf("max_tokens %v not above the budget %v", mt, gotBudget)
				}
			}
		})
	}
}

// TestEffortCommand: /effort sets the session's effort for the next
// requests, over the settings' effortLevel, and /effort auto goes back.
func TestEffortCommand(t *testing.T) {
	e := newEnvWith(t, nil, func(cfg *engine.Config) {
		cfg.Model = "claude-opus-4-7"
		cfg.Settings = &settings.Settings{EffortLevel: "medium"}
	}, fake.Turn{fake.Text("one")}, fake.Turn{fake.Text("two")}, fake.Turn{fake.Text("three")})
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	steps := []struct {
		prompt, want string
	}{
		{"first", "medium"},
		{"/effort xhigh", ""},
		{"second", "xhigh"},
		{"/effort auto", ""},
		{"third", "medium"},
	}
	n := 0
	for _, st := range steps {
		if stop, err := e.editor.Prompt(sid, st.prompt); err != nil || stop != schema.StopEndTurn {
			t.Fatalf("%s: %q, %v", st.prompt, stop, err)
		}
		if st.want == "" {
			continue
		}
		reqs := e.model.Requests()
		if len(reqs) != n+1 {
			t.Fatalf("%s: %d model requests, want %d (/effort goes to no model)", st.prompt, len(reqs), n+1)
		}
		if _, effort := thinkingOf(t, reqs[n]); effort != st.want {
			t.Errorf("%s: effort %q, want %q", st.prompt, effort, st.want)
		}
		n++
	}
	if tr := e.editor.Transcript(sid); !strings.Contains(tr, "Effort set to xhigh") {
		t.Errorf("transcript lacks the /effort answer:\n%s", tr)
	}
}

// TestEffortConfigOption: the effort is a config option of ACP's
// thought_level category, "auto" until the user picks; set_config_option
// sets it for the next request, refuses an unknown level by name, and
// /effort reports its change as a config_option_update.
func TestEffortConfigOption(t *testing.T) {
	e := newEnvWith(t, nil, func(cfg *engine.Config) {
		cfg.Model = "claude-opus-4-7"
		cfg.Settings = &settings.Settings{EffortLevel: "medium"}
	}, fake.Turn{fake.Text("one")}, fake.Turn{fake.Text("two")})
	e.editor.Initialize(e.root, nil)
	var res schema.NewSessionResult
	e.editor.MustCall("session/new", schema.NewSessionParams{Cwd: e.root, MCPServers: []schema.MCPServer{}}, &res)
	sid := res.SessionID
	effortOf := func(opts []schema.ConfigOption) *schema.ConfigOption {
		for i := range opts {
			if opts[i].ID == "effort" {
				return &opts[i]
			}
		}
		t.Fatalf("no effort option in %+v", opts)
		return nil
	}
	opt := effortOf(res.ConfigOptions)
	var values []string
	for _, o := range opt.Options {
		values = append(values, o.Value)
	}
	if opt.Category != "thought_level" || opt.CurrentValue != "auto" || strings.Join(values, ",") != "auto,low,medium,high,xhigh,max" || !strings.Contains(opt.Options[0].Description, "medium") {
		t.Errorf("effort option = %+v", opt)
	}
	var set schema.SetConfigOptionResult
	e.editor.MustCall("session/set_config_option", schema.SetConfigOptionParams{SessionID: sid, ConfigID: "effort", Value: "max"}, &set)
	if got := effortOf(set.ConfigOptions).CurrentValue; got != "max" {
		t.Errorf("after set_config_option effort=max the option says %q", got)
	}
	wantCode(t, e.editor.Call("session/set_config_option", schema.SetConfigOptionParams{SessionID: sid, ConfigID: "effort", Value: "huge"}, nil), -32602, "huge")
	if _, err := e.editor.Prompt(sid, "first"); err != nil {
		t.Fatal(err)
	}
	if _, effort := thinkingOf(t, e.model.Requests()[0]); effort != "max" {
		t.Errorf("the request after picking max asked effort %q", effort)
	}
	if _, err := e.editor.Prompt(sid, "/effort low"); err != nil {
		t.Fatal(err)
	}
	var last string
	for _, u := range e.editor.Updates(sid) {
		if u.SessionUpdate == schema.UpdateConfigOption {
			last = effortOf(u.ConfigOptions).CurrentValue
		}
	}
	if last != "low" {
		t.Errorf("after /effort low the last config_option_update says effort %q", last)
	}
	if _, err := e.editor.Prompt(sid, "second"); err != nil {
		t.Fatal(err)
	}
	if _, effort := thinkingOf(t, e.model.Requests()[1]); effort != "low" {
		t.Errorf("the request after /effort low asked effort %q", effort)
	}
}

// TestThinkingStoredAndSentBack: streamed thinking reaches the editor as
// agent_thought_chunk, is kept in the session file as Claude Code keeps
// it (thinking with its signature, redacted_thinking with its data), and
// goes back to the model with its signature on the next request, in this
// process and after the session is loaded by another.
func TestThinkingStoredAndSentBack(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	dir := t.TempDir()
	store := session.NewStore(dir, "-")
	withStore := func(cfg *engine.Config) { cfg.Store = store; cfg.Model = "claude-opus-4-7" }
	raw, model := startACP(t, root, withStore,
		fake.Turn{fake.Thinking("The user greets me.", "sig-abc"), fake.RedactedThinking("opaque-data"), fake.Text("Hello.")},
		fake.Turn{fake.Text("Still here.")})
	first := connectACP(t, raw, root, model)
	first.initialize(false)
	sid := first.newSession().SessionID
	first.prompt(sid, "hello")
	var thought string
	for _, u := range first.updates(sid) {
		if u.SessionUpdate == schema.UpdateAgentThoughtChunk && u.Content != nil {
			thought += u.Content.Text
		}
	}
	if thought != "The user greets me." {
		t.Errorf("thought chunks = %q", thought)
	}
	first.prompt(sid, "again")
	checkSentBack := func(req fake.Request) {
		t.Helper()
		var body struct {
			Messages []struct {
				Role    string           `json:"role"`
				Content []map[string]any `json:"content"`
			} `json:"messages"`
		}
		if err := req.Decode(&body); err != nil {
			t.Fatal(err)
		}
		if len(body.Messages) < 2 || body.Messages[1].Role != "assistant" {
			t.Fatalf("messages = %+v", body.Messages)
		}
		c := body.Messages[1].Content
		if len(c) != 3 || c[0]["type"] != "thinking" || c[0]["thinking"] != "The user greets me." || c[0]["signature"] != "sig-abc" ||
			c[1]["type"] != "redacted_thinking" || c[1]["data"] != "opaque-data" || c[2]["text"] != "Hello." {
			t.Errorf("assistant content sent back = %v", c)
		}
	}
	checkSentBack(model.Requests()[1])
	first.mustCall("session/close", schema.SessionIDParams{SessionID: sid}, nil)

	// The session file holds the blocks as Claude Code writes them.
	var found bool
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
			return nil
		}
		data, _ := os.ReadFile(path)
		for _, line := range strings.Split(string(data), "\n") {
			var entry struct {
				Message struct {
					Role    string            `json:"role"`
					Content []json.RawMessage `json:"content"`
				} `json:"message"`
			}
			if json.Unmarshal([]byte(line), &entry) != nil || entry.Message.Role != "assistant" || len(entry.Message.Content) < 2 {
				continue
			}
			if string(entry.Message.Content[0]) == `{"type":"thinking","thinking":"The user greets me.","signature":"sig-abc"}` &&
				string(entry.Message.Content[1]) == `{"type":"redacted_thinking","data":"opaque-data"}` {
				found = true
			}
		}
		return nil
	})
	if !found {
		t.Errorf("no session file under %s holds the thinking blocks as Claude Code writes them", dir)
	}

	// Loaded by another connection, the session sends them back too.
	raw2, model2 := startACP(t, root, withStore, fake.Turn{fake.Text("Back.")})
	second := connectACP(t, raw2, root, model2)
	second.initialize(false)
	second.mustCall("session/load", schema.LoadSessionParams{SessionID: sid, Cwd: root, MCPServers: []schema.MCPServer{}}, nil)
	second.prompt(sid, "and now?")
	checkSentBack(model2.Requests()[0])
}
