package wrap_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/internal/langtest"
	"github.com/agent-lsp/agent-lsp/langserver"
	"github.com/agent-lsp/agent-lsp/providers/anthropic"
	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/wrap"
)

// wrapEditor is a plain LSP client (eglot-like) talking to agent-lsp in
// wrap mode: it keeps its documents, applies workspace/applyEdit (sending
// didChange), allows what it is asked, and records notifications.
type wrapEditor struct {
	t     *testing.T
	conn  jsonrpc2.Conn
	done  chan int
	model *fake.Server

	mu    sync.Mutex
	docs  map[string]*wrapDoc // by URI, guarded by mu
	notes []note              // guarded by mu
	wake  chan struct{}       // closed and replaced on each event, guarded by mu
}

type wrapDoc struct {
	text    string
	version int32
}

type note struct {
	method string
	params json.RawMessage
}

func startWrap(t *testing.T, root string, argv []string, turns ...fake.Turn) *wrapEditor {
	t.Helper()
	model := fake.NewAnthropic(t, turns...)
	provider := anthropic.New(anthropic.Options{APIKey: "k", BaseURL: model.BaseURL()})
	a, b := net.Pipe()
	e := &wrapEditor{t: t, model: model, done: make(chan int, 1), docs: map[string]*wrapDoc{}, wake: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		e.done <- wrap.Serve(ctx, a, argv, server.Options{
			Version: "test", Logf: t.Logf, TranscriptDir: filepath.Join(root, ".transcripts"),
			NewService: func(server.InitOptions) (*engine.Service, error) {
				return engine.NewService(engine.Config{Provider: provider, Model: "claude-test", Logf: t.Logf, Home: root,
					LangServers: []langserver.ServerConfig{}}), nil
			},
		})
	}()
	e.conn = jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(b))
	e.conn.Go(context.Background(), e.handle)
	t.Cleanup(func() {
		cancel()
		b.Close()
		e.conn.Close()
		select {
		case <-e.done:
		case <-time.After(15 * time.Second):
			t.Error("ServeWrap did not return")
		}
	})
	return e
}

func (e *wrapEditor) event() {
	close(e.wake)
	e.wake = make(chan struct{})
}

func (e *wrapEditor) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	params := json.RawMessage(append([]byte(nil), req.Params()...))
	switch req.Method() {
	case "workspace/configuration":
		var p struct {
			Items []json.RawMessage `json:"items"`
		}
		json.Unmarshal(params, &p)
		return make([]any, len(p.Items)), nil
	case "window/showMessageRequest":
		return map[string]string{"title": "Allow"}, nil
	case "workspace/applyEdit":
		return e.applyEdit(ctx, params), nil
	}
	if req.IsCall() {
		return nil, nil // progress create, registerCapability, showDocument
	}
	e.mu.Lock()
	e.notes = append(e.notes, note{strings.Clone(req.Method()), params})
	e.event()
	e.mu.Unlock()
	return nil, nil
}

// applyEdit applies text edits (ASCII positions) and sends didChange.
func (e *wrapEditor) applyEdit(ctx context.Context, params json.RawMessage) any {
	var p struct {
		Edit struct {
			DocumentChanges []struct {
				TextDocument struct {
					URI string `json:"uri"`
				} `json:"textDocument"`
				Edits []struct {
					Range struct {
						Start struct {
							Line      int `json:"line"`
							Character int `json:"character"`
						} `json:"start"`
						End struct {
							Line      int `json:"line"`
							Character int `json:"character"`
						} `json:"end"`
					} `json:"range"`
					NewText string `json:"newText"`
				} `json:"edits"`
			} `json:"documentChanges"`
		} `json:"edit"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return map[string]any{"applied": false, "failureReason": err.Error()}
	}
	for _, dc := range p.Edit.DocumentChanges {
		e.mu.Lock()
		d := e.docs[dc.TextDocument.URI]
		if d == nil {
			e.mu.Unlock()
			return map[string]any{"applied": false, "failureReason": "not open"}
		}
		edits := dc.Edits
		sort.Slice(edits, func(i, j int) bool { return edits[i].Range.Start.Line > edits[j].Range.Start.Line })
		for _, te := range edits {
			start := offset(d.text, te.Range.Start.Line, te.Range.Start.Character)
			end := offset(d.text, te.Range.End.Line, te.Range.End.Character)
			d.text = d.text[:start] + te.NewText + d.text[end:]
		}
		d.version++
		text, v := d.text, d.version
		e.mu.Unlock()
		e.conn.Notify(ctx, "textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": dc.TextDocument.URI, "version": v},
			"contentChanges": []map[string]any{{"text": text}},
		})
	}
	return map[string]any{"applied": true}
}

func offset(text string, line, char int) int {
	off := 0
	for i := 0; i < line; i++ {
		n := strings.IndexByte(text[off:], '\n')
		if n < 0 {
			return len(text)
		}
		off += n + 1
	}
	return min(off+char, len(text))
}

func (e *wrapEditor) call(method string, params, result any) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := e.conn.Call(ctx, method, params, result); err != nil {
		e.t.Fatalf("%s: %v", method, err)
	}
}

func (e *wrapEditor) open(path, text string) {
	u := string(uri.File(path))
	e.mu.Lock()
	e.docs[u] = &wrapDoc{text: text, version: 1}
	e.mu.Unlock()
	e.conn.Notify(context.Background(), "textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "go", "version": 1, "text": text}})
}

// waitNote waits for a notification that match accepts.
func (e *wrapEditor) waitNote(what string, match func(note) bool) note {
	e.t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		e.mu.Lock()
		for _, n := range e.notes {
			if match(n) {
				e.mu.Unlock()
				return n
			}
		}
		wake := e.wake
		e.mu.Unlock()
		select {
		case <-wake:
		case <-deadline:
			e.t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// goMain is a Go program whose Greet the agent breaks.
const goMain = `package main

import "fmt"

// Greet says hello.
func Greet(name string) string { return "hello " + name }

func main() {
	fmt.Println(Greet("you"))
}
`

const brokenGreet = "func Greet(name string) string { return len(name) }"

// TestWrapGopls: in wrap mode the editor gets gopls's answers (hover,
// completion, diagnostics) as gopls gives them, with the agent's code
// actions and commands added; the agent's edit gets gopls's diagnostic
// through the wrapper.
func TestWrapGopls(t *testing.T) {
	gopls := langtest.Require(t, "gopls")
	langtest.GoEnv(t)
	root := langtest.GoModule(t, map[string]string{"main.go": goMain})
	path := filepath.Join(root, "main.go")
	e := startWrap(t, root, []string{gopls},
		fake.Turn{fake.ToolUse("toolu_read", "Read", `{"file_path":"main.go"}`)},
		fake.Turn{fake.ToolUse("toolu_edit", "Edit", fmt.Sprintf(`{"file_path":"main.go","old_string":"func Greet(name string) string { return \"hello \" + name }","new_string":%q}`, brokenGreet))},
		fake.Turn{fake.Text("done")},
	)
	var init struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
		ServerInfo   struct {
			Name string `json:"name"`
		} `json:"serverInfo"`
	}
	e.call("initialize", map[string]any{
		"processId": os.Getpid(), "rootUri": string(uri.File(root)),
		"capabilities": map[string]any{
			"workspace": map[string]any{"applyEdit": true, "workspaceEdit": map[string]any{"documentChanges": true}, "configuration": true},
			"textDocument": map[string]any{
				"publishDiagnostics": map[string]any{"versionSupport": true},
				"hover":              map[string]any{"contentFormat": []string{"plaintext"}},
			},
		},
	}, &init)
	if init.ServerInfo.Name != "gopls" {
		t.Errorf("serverInfo = %q, want gopls's", init.ServerInfo.Name)
	}
	for _, k := range []string{"hoverProvider", "completionProvider", "definitionProvider", "codeActionProvider", "textDocumentSync"} {
		if _, ok := init.Capabilities[k]; !ok {
			t.Errorf("merged capabilities lack %s", k)
		}
	}
	cmds := string(init.Capabilities["executeCommandProvider"])
	if !strings.Contains(cmds, `"agent.prompt"`) || !strings.Contains(cmds, `"gopls.`) {
		t.Errorf("commands = %s, want gopls's and the agent's", cmds)
	}
	e.conn.Notify(context.Background(), "initialized", map[string]any{})
	e.open(path, goMain)
	doc := map[string]string{"uri": string(uri.File(path))}

	var hover struct {
		Contents struct {
			Value string `json:"value"`
		} `json:"contents"`
	}
	e.call("textDocument/hover", map[string]any{"textDocument": doc, "position": map[string]int{"line": 5, "character": 6}}, &hover)
	if !strings.Contains(hover.Contents.Value, "func Greet(name string) string") {
		t.Errorf("hover = %q", hover.Contents.Value)
	}
	var completion struct {
		Items []struct {
			Label string `json:"label"`
		} `json:"items"`
	}
	e.call("textDocument/completion", map[string]any{"textDocument": doc, "position": map[string]int{"line": 8, "character": 5}}, &completion)
	var labels []string
	for _, it := range completion.Items {
		labels = append(labels, it.Label)
	}
	if !strings.Contains(strings.Join(labels, ","), "Println") {
		t.Errorf("completion after fmt. = %v", labels)
	}

	// The agent fixes nothing: it breaks Greet, and its Edit result has
	// gopls's error, received through the wrapper.
	e.call("workspace/executeCommand", map[string]any{"command": "agent.prompt", "arguments": []any{"make Greet return the length", string(uri.File(path))}}, nil)
	n := e.waitNote("gopls's diagnostics of the agent's edit", func(n note) bool {
		return n.method == "textDocument/publishDiagnostics" && strings.Contains(string(n.params), "cannot use len(name)")
	})
	var pub struct {
		Diagnostics []json.RawMessage `json:"diagnostics"`
	}
	json.Unmarshal(n.params, &pub)
	deadline := time.Now().Add(30 * time.Second)
	for len(e.model.Requests()) < 3 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	result := lastMessage(t, e.model, 2)
	if !strings.Contains(result, "cannot use len(name)") {
		t.Errorf("the agent's Edit result lacks gopls's error: %s", result)
	}

	// "Agent: fix this" on gopls's diagnostic, after gopls's own actions.
	var actions []struct {
		Title string `json:"title"`
	}
	e.call("textDocument/codeAction", map[string]any{"textDocument": doc,
		"range":   map[string]any{"start": map[string]int{"line": 5, "character": 40}, "end": map[string]int{"line": 5, "character": 49}},
		"context": map[string]any{"diagnostics": pub.Diagnostics}}, &actions)
	var titles []string
	for _, a := range actions {
		titles = append(titles, a.Title)
	}
	if !strings.Contains(strings.Join(titles, "|"), "Agent: fix this") {
		t.Errorf("code actions = %v, want the agent's", titles)
	}

	e.call("shutdown", nil, nil)
	e.conn.Notify(context.Background(), "exit", nil)
	select {
	case code := <-e.done:
		if code != 0 {
			t.Errorf("exit code %d, want 0", code)
		}
		e.done <- code
	case <-time.After(15 * time.Second):
		t.Fatal("ServeWrap did not end after exit")
	}
}

// lastMessage returns the last message of model request n (0-based).
func lastMessage(t testing.TB, model *fake.Server, n int) string {
	t.Helper()
	reqs := model.Requests()
	if n >= len(reqs) {
		t.Fatalf("the model got %d requests, want at least %d", len(reqs), n+1)
	}
	var body struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := reqs[n].Decode(&body); err != nil {
		t.Fatal(err)
	}
	return string(body.Messages[len(body.Messages)-1])
}
