package server_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"go.lsp.dev/jsonrpc2"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/providers/anthropic"
	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/session"
)

// TestACPProjectServices checks that on the ACP door each session cwd is
// a project with a service of its own (its settings and model), built
// once, and that sessions are found wherever they live.
func TestACPProjectServices(t *testing.T) {
	dirA, dirB := t.TempDir(), t.TempDir()
	model := fake.NewAnthropic(t,
		fake.Turn{fake.Text("from A")}, fake.Turn{fake.Text("from B")}, fake.Turn{fake.Text("A again")})
	provider := anthropic.New(anthropic.Options{APIKey: "k", BaseURL: model.BaseURL()})
	var mu sync.Mutex
	var built []string // the project of each service built
	store := session.NewStore(t.TempDir(), "-")
	raw := serveACP(t, func(init server.InitOptions) (*engine.Service, error) {
		if len(init.Roots) != 1 {
			t.Errorf("NewService got roots %q, want one project", init.Roots)
			return nil, os.ErrInvalid
		}
		mu.Lock()
		built = append(built, init.Roots[0])
		mu.Unlock()
		// Each project's settings choose its model.
		m := "model-of-" + filepath.Base(init.Roots[0])
		return engine.NewService(engine.Config{Provider: provider, Model: m, Home: dirA, Store: store, Logf: t.Logf}), nil
	})
	c := connectACP(t, raw, dirA, model)
	c.initialize(false)

	newIn := func(dir string) string {
		t.Helper()
		var res schema.NewSessionResult
		c.mustCall("session/new", schema.NewSessionParams{Cwd: dir, MCPServers: []schema.MCPServer{}}, &res)
		return res.SessionID
	}
	a1, b1 := newIn(dirA), newIn(dirB)
	a2 := newIn(dirA + "/") // the same project, however it is spelled
	for _, p := range []struct {
		sid, want string
	}{{a1, "model-of-" + filepath.Base(dirA)}, {b1, "model-of-" + filepath.Base(dirB)}, {a2, "model-of-" + filepath.Base(dirA)}} {
		c.prompt(p.sid, "hello")
		reqs := model.Requests()
		var body struct {
			Model string `json:"model"`
		}
		if err := reqs[len(reqs)-1].Decode(&body); err != nil {
			t.Fatal(err)
		}
		if body.Model != p.want {
			t.Errorf("session %s asked model %q, want %q (its project's)", p.sid, body.Model, p.want)
		}
	}
	wd, _ := os.Getwd()
	mu.Lock()
	want := []string{wd, dirA, dirB}
	if !slices.Equal(built, want) {
		t.Errorf("services built for %q, want %q (initialize's, then one per project)", built, want)
	}
	mu.Unlock()

	// A session of another project is set and closed where it lives.
	c.mustCall("session/set_mode", schema.SetModeParams{SessionID: b1, ModeID: "plan"}, nil)
	c.mustCall("session/close", schema.SessionIDParams{SessionID: b1}, nil)

	// An unknown or closed session is ACP's -32002 with data.sessionId.
	for _, call := range []struct {
		method string
		params any
	}{
		{"session/prompt", schema.PromptParams{SessionID: b1, Prompt: []schema.ContentBlock{schema.TextBlock("hi")}}},
		{"session/close", schema.SessionIDParams{SessionID: b1}},
		{"session/set_mode", schema.SetModeParams{SessionID: "nope", ModeID: "plan"}},
		{"session/load", schema.LoadSessionParams{SessionID: "nope", Cwd: dirB, MCPServers: []schema.MCPServer{}}},
		{"session/resume", schema.LoadSessionParams{SessionID: "nope", Cwd: dirA, MCPServers: []schema.MCPServer{}}},
	} {
		err := c.call(call.method, call.params, nil)
		var e *jsonrpc2.Error
		if !errors.As(err, &e) || e.Code != -32002 {
			t.Errorf("%s of an unknown session: got %v, want -32002", call.method, err)
			continue
		}
		var data struct {
			SessionID string `json:"sessionId"`
		}
		if json.Unmarshal(e.Data, &data); data.SessionID == "" {
			t.Errorf("%s: -32002 without data.sessionId: %s", call.method, e.Data)
		}
	}

	// A cwd that is not a directory is the client's mistake, named.
	for _, cwd := range []string{"relative/dir", filepath.Join(dirA, "missing")} {
		err := c.call("session/new", schema.NewSessionParams{Cwd: cwd, MCPServers: []schema.MCPServer{}}, nil)
		wantCode(t, err, -32602, "cwd")
	}
	mu.Lock()
	if len(built) != 3 {
		t.Errorf("services built for %q: a bad cwd must not build one", built)
	}
	mu.Unlock()
}
