package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/langserver"
	"github.com/agent-lsp/agent-lsp/providers/anthropic"
	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/rpc"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/session"
)

// acpEditor is a minimal ACP client over newline-delimited JSON-RPC,
// connected to an in-process ACP door: it serves fs/read_text_file from
// its buffers (the disk for files it has not opened), records
// fs/write_text_file, answers permission requests as told, and records
// every notification.
type acpEditor struct {
	t     *testing.T
	peer  rpc.Peer
	raw   net.Conn
	root  string
	model *fake.Server

	mu        sync.Mutex
	buffers   map[string]string                                                    // path -> text the client has, guarded by mu
	writes    map[string]string                                                    // fs/write_text_file by path, guarded by mu
	reads     []string                                                             // fs/read_text_file paths, guarded by mu
	failWrite string                                                               // error for fs/write_text_file, guarded by mu
	failRead  map[string]*jsonrpc2.Error                                           // path -> error for fs/read_text_file, guarded by mu
	writeErr  *jsonrpc2.Error                                                      // answer to fs/write_text_file when set, guarded by mu
	notes     []acpNote                                                            // guarded by mu
	perms     []schema.RequestPermissionParams                                     // guarded by mu
	answer    func(*schema.RequestPermissionParams) schema.RequestPermissionResult // guarded by mu
	changed   chan struct{}                                                        // closed and replaced on every event, guarded by mu
	terminals *editorTerminals                                                     // serves terminal/* when set
}

// acpNote is a notification the door sent.
type acpNote struct {
	Method string
	Params json.RawMessage
}

// startACP serves the ACP door in process and returns the client's end of
// the byte stream. configure, if set, adjusts the engine's configuration.
func startACP(t *testing.T, root string, configure func(*engine.Config), turns ...fake.Turn) (net.Conn, *fake.Server) {
	t.Helper()
	model := fake.NewAnthropic(t, turns...)
	provider := anthropic.New(anthropic.Options{APIKey: "k", BaseURL: model.BaseURL()})
	return serveACP(t, func(server.InitOptions) (*engine.Service, error) {
		cfg := engine.Config{Provider: provider, Model: "claude-test", Home: root, Logf: t.Logf, LangServers: []langserver.ServerConfig{}}
		if configure != nil {
			configure(&cfg)
		}
		return engine.NewService(cfg), nil
	}), model
}

// serveACP serves the ACP door in process with newService and returns the
// client's end of the byte stream; the door must stop by the test's end.
func serveACP(t *testing.T, newService func(server.InitOptions) (*engine.Service, error)) net.Conn {
	t.Helper()
	a, b := net.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- server.ServeACP(ctx, a, server.Options{Version: "test", Logf: t.Logf, NewService: newService})
	}()
	t.Cleanup(func() {
		cancel()
		b.Close()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("ServeACP returned %d, want 0", code)
			}
		case <-time.After(10 * time.Second):
			t.Error("the ACP door did not stop")
		}
	})
	return b
}

// newACP starts a door whose model plays turns, with a client connected.
func newACP(t *testing.T, configure func(*engine.Config), turns ...fake.Turn) *acpEditor {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	raw, model := startACP(t, root, configure, turns...)
	return connectACP(t, raw, root, model)
}

func connectACP(t *testing.T, raw net.Conn, root string, model *fake.Server) *acpEditor {
	c := &acpEditor{
		t: t, raw: raw, root: root, model: model,
		buffers: map[string]string{}, writes: map[string]string{}, changed: make(chan struct{}),
		answer: func(*schema.RequestPermissionParams) schema.RequestPermissionResult {
			return schema.RequestPermissionResult{Outcome: schema.PermissionOutcome{Outcome: "selected", OptionID: "allow_once"}}
		},
	}
	conn := jsonrpc2.NewConn(jsonrpc2.NewNDJSONStream(raw))
	c.peer = rpc.Peer{Conn: conn, CancelNotice: rpc.ACPCancelNotice}
	conn.Go(context.Background(), c.handle)
	t.Cleanup(func() { conn.Close() })
	return c
}

// signal wakes waiters; callers hold mu.
func (c *acpEditor) signal() {
	close(c.changed)
	c.changed = make(chan struct{})
}

func (c *acpEditor) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	params := json.RawMessage(append([]byte(nil), req.Params()...))
	method := strings.Clone(req.Method())
	if !req.IsCall() {
		c.mu.Lock()
		c.notes = append(c.notes, acpNote{method, params})
		c.signal()
		c.mu.Unlock()
		return nil, nil
	}
	jsonrpc2.Async(ctx) // answer like a user who takes their time
	if strings.HasPrefix(method, "terminal/") && c.terminals != nil {
		res, err := c.terminals.handle(method, params)
		c.mu.Lock()
		c.signal()
		c.mu.Unlock()
		return res, err
	}
	switch method {
	case "session/request_permission":
		var p schema.RequestPermissionParams
		if err := json.Unmarshal(params, &p); err != nil {
			c.t.Errorf("bad session/request_permission params: %v", err)
			return nil, err
		}
		c.mu.Lock()
		c.perms = append(c.perms, p)
		answer := c.answer
		c.signal()
		c.mu.Unlock()
		return rpc.Raw(answer(&p))
	case "fs/read_text_file":
		var p struct {
			SessionID string `json:"sessionId"`
			Path      string `json:"path"`
		}
		json.Unmarshal(params, &p)
		c.mu.Lock()
		defer c.mu.Unlock()
		c.reads = append(c.reads, p.Path)
		c.signal()
		if p.SessionID == "" {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "sessionId is required")
		}
		if e := c.failRead[p.Path]; e != nil {
			return nil, e
		}
		text, ok := c.buffers[p.Path]
		if !ok {
			b, err := os.ReadFile(p.Path)
			if err != nil {
				return nil, jsonrpc2.Errorf(-32002, "%v", err)
			}
			text = string(b)
		}
		return rpc.Raw(map[string]string{"content": text})
	case "fs/write_text_file":
		var p struct {
			Path    string `json:"path"`
			Content string `json:"content"`
		}
		json.Unmarshal(params, &p)
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.failWrite != "" {
			return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "%s", c.failWrite)
		}
		if c.writeErr != nil {
			return nil, c.writeErr
		}
		c.writes[p.Path] = p.Content
		c.buffers[p.Path] = p.Content
		c.signal()
		return rpc.Raw(nil)
	}
	return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "client does not handle %s", method)
}

func (c *acpEditor) call(method string, params, result any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return c.peer.Call(ctx, method, params, result)
}

func (c *acpEditor) mustCall(method string, params, result any) {
	c.t.Helper()
	if err := c.call(method, params, result); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

func (c *acpEditor) notify(method string, params any) {
	c.t.Helper()
	if err := c.peer.Notify(context.Background(), method, params); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

// goCall sends a request in the background; wait returns its error.
func (c *acpEditor) goCall(method string, params, result any) (wait func() error) {
	done := make(chan error, 1)
	go func() { done <- c.call(method, params, result) }()
	return func() error {
		select {
		case err := <-done:
			return err
		case <-time.After(30 * time.Second):
			c.t.Fatalf("%s did not return", method)
			return nil
		}
	}
}

// waitFor waits until cond holds (checked under mu after every event).
func (c *acpEditor) waitFor(what string, cond func() bool) {
	c.t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		c.mu.Lock()
		ok, changed := cond(), c.changed
		c.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-changed:
		case <-time.After(20 * time.Millisecond):
			// cond may watch something other than the agent's
			// messages (the fake model's requests): look again.
		case <-deadline:
			c.t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// initialize sends ACP's initialize, offering the fs methods or not.
func (c *acpEditor) initialize(fs bool) map[string]any {
	c.t.Helper()
	var res map[string]any
	c.mustCall("initialize", map[string]any{
		"protocolVersion":    1,
		"clientCapabilities": map[string]any{"fs": map[string]bool{"readTextFile": fs, "writeTextFile": fs}, "terminal": false},
		"clientInfo":         map[string]string{"name": "acp-test", "version": "1"},
	}, &res)
	return res
}

func (c *acpEditor) newSession() schema.NewSessionResult {
	c.t.Helper()
	var res schema.NewSessionResult
	c.mustCall("session/new", schema.NewSessionParams{Cwd: c.root, MCPServers: []schema.MCPServer{}}, &res)
	return res
}

func (c *acpEditor) prompt(sid, text string) schema.PromptResult {
	c.t.Helper()
	var res schema.PromptResult
	c.mustCall("session/prompt", schema.PromptParams{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock(text)}}, &res)
	return res
}

// updates returns the session/update notifications of a session; callers
// hold mu or call it after the prompt returned.
func (c *acpEditor) updatesLocked(sid string) []schema.Update {
	var out []schema.Update
	for _, n := range c.notes {
		if n.Method != "session/update" {
			continue
		}
		var sn schema.SessionNotification
		if err := json.Unmarshal(n.Params, &sn); err != nil {
			c.t.Errorf("bad session/update %s: %v", n.Params, err)
			continue
		}
		if sn.SessionID == sid {
			out = append(out, sn.Update)
		}
	}
	return out
}

func (c *acpEditor) updates(sid string) []schema.Update {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.updatesLocked(sid)
}

// kinds lists the sessionUpdate kinds received, in order.
func kinds(us []schema.Update) string {
	var k []string
	for _, u := range us {
		k = append(k, u.SessionUpdate)
	}
	return strings.Join(k, ",")
}

func (c *acpEditor) write(path, text string) {
	c.t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		c.t.Fatal(err)
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

// TestACPFraming writes raw bytes: blank lines, CRLF, two messages in one
// write, a message split across writes, a line over 1 MB and lines that
// are not JSON-RPC. Each bad line gets its error and the door goes on.
func TestACPFraming(t *testing.T) {
	root := t.TempDir()
	raw, _ := startACP(t, root, nil)
	lines := make(chan map[string]any, 32)
	go func() {
		r := bufio.NewReaderSize(raw, 1<<16)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				close(lines)
				return
			}
			var m map[string]any
			if err := json.Unmarshal(line, &m); err != nil {
				t.Errorf("the door wrote a line that is not JSON: %q", line)
				continue
			}
			lines <- m
		}
	}()
	send := func(chunks ...string) {
		t.Helper()
		for i, s := range chunks {
			if i > 0 {
				time.Sleep(20 * time.Millisecond) // let the door read the first part alone
			}
			if _, err := raw.Write([]byte(s)); err != nil {
				t.Fatal(err)
			}
		}
	}
	next := func(what string) map[string]any {
		t.Helper()
		select {
		case m, ok := <-lines:
			if !ok {
				t.Fatalf("the door closed the stream before answering %s", what)
			}
			return m
		case <-time.After(10 * time.Second):
			t.Fatalf("no answer to %s", what)
		}
		return nil
	}
	code := func(m map[string]any) float64 {
		e, _ := m["error"].(map[string]any)
		c, _ := e["code"].(float64)
		return c
	}

	send("this is not json\n")
	if m := next("a line that is not JSON"); code(m) != -32700 || m["id"] != nil {
		t.Errorf("got %v, want a -32700 error with a null id", m)
	}
	send(`{"jsonrpc":"2.0","id":7,"method":` + "\n")
	if m := next("truncated JSON"); code(m) != -32700 {
		t.Errorf("got %v, want -32700", m)
	}
	send("[1,2]\n")
	if m := next("a JSON array"); code(m) != -32600 {
		t.Errorf("got %v, want -32600", m)
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/"}}` + "\n")
	if m := next("session/new before initialize"); code(m) != -32600 || m["id"] != float64(1) {
		t.Errorf("got %v, want -32600 for id 1", m)
	}

	// Blank lines, CRLF, and initialize split in three writes.
	init := `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`
	send("\n\r\n\n", init[:10], init[10:50], init[50:]+"\r\n")
	if m := next("split initialize"); m["id"] != float64(2) || m["result"] == nil {
		t.Fatalf("got %v, want initialize's result", m)
	}

	// Two messages in one write, then a line of 1.5 MB.
	auth := `"method":"authenticate","params":{"methodId":"anthropic-api-key"`
	send(`{"jsonrpc":"2.0","id":3,` + auth + `}}` + "\n" + `{"jsonrpc":"2.0","id":4,` + auth + `}}` + "\n")
	// Requests run concurrently, so their answers may come in either order.
	answered := map[any]bool{}
	for range 2 {
		m := next("authenticate")
		if m["result"] == nil {
			t.Errorf("got %v, want a result", m)
		}
		answered[m["id"]] = true
	}
	if !answered[float64(3)] || !answered[float64(4)] {
		t.Errorf("answered %v, want requests 3 and 4", answered)
	}
	big := `{"jsonrpc":"2.0","id":5,` + auth + `,"_meta":{"pad":"` + strings.Repeat("x", 3<<19) + `"}}}` + "\n"
	send(big[:1<<20], big[1<<20:])
	if m := next("a 1.5 MB line"); m["id"] != float64(5) || m["result"] == nil {
		t.Errorf("got %v, want the result of request 5", m)
	}
	send(`{"jsonrpc":"2.0","id":6,"method":"textDocument/didOpen","params":{}}` + "\n")
	if m := next("an LSP method"); code(m) != -32601 {
		t.Errorf("got %v, want -32601: the ACP door does not serve LSP methods", m)
	}
}

func TestACPInitialize(t *testing.T) {
	c := newACP(t, nil)
	wantCode(t, c.call("authenticate", map[string]any{"methodId": "anthropic-api-key"}, nil), -32600, "before initialize")
	wantCode(t, c.call("initialize", map[string]any{"clientCapabilities": map[string]any{}}, nil), -32602, "protocolVersion")

	// A client asking for a later version gets ours; clientCapabilities
	// fields that do not parse take their defaults.
	var res struct {
		ProtocolVersion   int `json:"protocolVersion"`
		AgentCapabilities struct {
			LoadSession        bool            `json:"loadSession"`
			PromptCapabilities map[string]bool `json:"promptCapabilities"`
			MCPCapabilities    map[string]bool `json:"mcpCapabilities"`
			SessionCaps        map[string]any  `json:"sessionCapabilities"`
		} `json:"agentCapabilities"`
		AgentInfo   schema.Implementation `json:"agentInfo"`
		AuthMethods []schema.AuthMethod   `json:"authMethods"`
	}
	c.mustCall("initialize", map[string]any{"protocolVersion": 7, "clientCapabilities": map[string]any{"fs": map[string]any{"readTextFile": "yes"}, "terminal": true}}, &res)
	if res.ProtocolVersion != 1 {
		t.Errorf("a client asking for version 7 got %d, want 1", res.ProtocolVersion)
	}
	ac := res.AgentCapabilities
	if !ac.LoadSession || !ac.PromptCapabilities["image"] || !ac.PromptCapabilities["embeddedContext"] || !ac.MCPCapabilities["http"] || !ac.MCPCapabilities["sse"] {
		t.Errorf("agentCapabilities = %+v", ac)
	}
	for _, k := range []string{"list", "resume", "close"} {
		if _, ok := ac.SessionCaps[k]; !ok {
			t.Errorf("sessionCapabilities lacks %s: %v", k, ac.SessionCaps)
		}
	}
	if res.AgentInfo.Name != "agent-lsp" || res.AgentInfo.Version != "test" || len(res.AuthMethods) == 0 {
		t.Errorf("agentInfo = %+v, authMethods = %+v", res.AgentInfo, res.AuthMethods)
	}
	wantCode(t, c.call("initialize", map[string]any{"protocolVersion": 1}, nil), -32600, "already")

	wantCode(t, c.call("authenticate", map[string]any{"methodId": "nope"}, nil), -32602, "anthropic-api-key")
	if err := c.call("authenticate", map[string]any{"methodId": "anthropic-api-key"}, nil); err != nil {
		t.Errorf("authenticate with a provider configured: %v", err)
	}
	wantCode(t, c.call("session/new", map[string]any{"cwd": 3}, nil), -32602, "cwd")
	wantCode(t, c.call("session/prompt", schema.PromptParams{SessionID: "nope", Prompt: []schema.ContentBlock{schema.TextBlock("x")}}, nil), -32002, "nope")
	for _, m := range []string{"shutdown", "textDocument/codeAction", "workspace/executeCommand"} {
		wantCode(t, c.call(m, map[string]any{}, nil), -32601, "method not found")
	}
}

func TestACPAuthenticateWithoutProvider(t *testing.T) {
	c := newACP(t, func(cfg *engine.Config) { cfg.Provider = nil })
	c.initialize(false)
	err := c.call("authenticate", map[string]any{"methodId": "anthropic-api-key"}, nil)
	wantCode(t, err, -32000, "ANTHROPIC_API_KEY")
}

// TestACPFileSystem checks that Read and Edit go through fs/read_text_file
// and fs/write_text_file when the client offers them, and the disk when
// it does not.
func TestACPFileSystem(t *testing.T) {
	for _, fs := range []bool{true, false} {
		t.Run(fmt.Sprintf("offered=%v", fs), func(t *testing.T) {
			c := newACP(t, nil,
				fake.Turn{fake.ToolUse("toolu_1", "Read", `{"file_path":"a.py"}`)},
				fake.Turn{fake.ToolUse("toolu_2", "Edit", `{"file_path":"a.py","old_string":"x = 1","new_string":"x = 2"}`)},
				fake.Turn{fake.ToolUse("toolu_3", "Read", `{"file_path":"only_on_disk.py"}`)},
				fake.Turn{fake.Text("done")},
			)
			path := filepath.Join(c.root, "a.py")
			c.write(path, "x = 1 # on disk\n")
			c.write(filepath.Join(c.root, "only_on_disk.py"), "y = 0\n")
			c.buffers[path] = "x = 1 # in the editor, unsaved\n"
			c.initialize(fs)
			sid := c.newSession().SessionID
			if res := c.prompt(sid, "bump x"); res.StopReason != schema.StopEndTurn {
				t.Fatalf("stop = %q", res.StopReason)
			}
			sawEditor := strings.Contains(lastMessage(t, c.model, 1), "in the editor, unsaved")
			disk, _ := os.ReadFile(path)
			if fs {
				if !sawEditor {
					t.Error("Read did not go through fs/read_text_file")
				}
				if c.writes[path] != "x = 2 # in the editor, unsaved\n" || string(disk) != "x = 1 # on disk\n" {
					t.Errorf("the edit went to the disk (%q) instead of fs/write_text_file (%q)", disk, c.writes[path])
				}
			} else {
				if sawEditor || len(c.reads) != 0 || len(c.writes) != 0 {
					t.Errorf("fs methods used although the client did not offer them: reads %v, writes %v", c.reads, c.writes)
				}
				if string(disk) != "x = 2 # on disk\n" {
					t.Errorf("disk = %q", disk)
				}
			}
			if m := lastMessage(t, c.model, 3); !strings.Contains(m, "y = 0") {
				t.Errorf("Read of a file the client serves from the disk: %s", m)
			}
			var edit *schema.ToolCall
			for _, u := range c.updates(sid) {
				if u.ToolCall != nil && u.ToolCall.ToolCallID == "toolu_2" && len(u.ToolCall.Content) > 0 {
					edit = u.ToolCall
				}
			}
			if edit == nil || edit.Content[0].Type != "diff" {
				t.Errorf("no tool call update with the edit's diff: %s", kinds(c.updates(sid)))
			}
		})
	}
}

// TestACPFileSystemFailures: a file missing from the disk is reported
// without asking the client, and creating one does not ask either; a write
// the client refuses is an error the model sees, and the disk is left
// alone.
func TestACPFileSystemFailures(t *testing.T) {
	c := newACP(t, nil,
		fake.Turn{fake.ToolUse("toolu_1", "Read", `{"file_path":"missing.py"}`)},
		fake.Turn{fake.ToolUse("toolu_2", "Write", `{"file_path":"new.py","content":"z = 3\n"}`)},
		fake.Turn{fake.Text("done")},
	)
	c.failWrite = "the buffer is read-only"
	c.initialize(true)
	sid := c.newSession().SessionID
	c.prompt(sid, "go")
	if m := lastMessage(t, c.model, 1); !strings.Contains(m, "does not exist") {
		t.Errorf("Read of a missing file: %s", m)
	}
	if m := lastMessage(t, c.model, 2); !strings.Contains(m, "read-only") || !strings.Contains(m, `"is_error":true`) {
		t.Errorf("a refused write must reach the model as an error: %s", m)
	}
	if _, err := os.Stat(filepath.Join(c.root, "new.py")); err == nil {
		t.Error("a write the client refused reached the disk")
	}
	if len(c.reads) != 0 {
		t.Errorf("the client was asked for files that do not exist: %v", c.reads)
	}
}

// TestACPPermission: a tool call that needs permission asks the client;
// a rejection keeps the file as it was, an approval writes it.
func TestACPPermission(t *testing.T) {
	c := newACP(t, nil,
		fake.Turn{fake.ToolUse("toolu_1", "Write", `{"file_path":"x.txt","content":"rejected"}`)},
		fake.Turn{fake.Text("ok, not writing")},
		fake.Turn{fake.ToolUse("toolu_2", "Write", `{"file_path":"x.txt","content":"approved"}`)},
		fake.Turn{fake.Text("written")},
	)
	c.initialize(false)
	sid := c.newSession().SessionID
	c.answer = func(p *schema.RequestPermissionParams) schema.RequestPermissionResult {
		for _, o := range p.Options {
			if o.Kind == schema.RejectOnce {
				return schema.RequestPermissionResult{Outcome: schema.PermissionOutcome{Outcome: "selected", OptionID: o.OptionID}}
			}
		}
		t.Errorf("no reject_once option in %+v", p.Options)
		return schema.RequestPermissionResult{Outcome: schema.PermissionOutcome{Outcome: "cancelled"}}
	}
	c.prompt(sid, "write x")
	if _, err := os.Stat(filepath.Join(c.root, "x.txt")); err == nil {
		t.Error("a rejected write ran")
	}
	c.mu.Lock()
	c.answer = func(*schema.RequestPermissionParams) schema.RequestPermissionResult {
		return schema.RequestPermissionResult{Outcome: schema.PermissionOutcome{Outcome: "selected", OptionID: "allow_once"}}
	}
	c.mu.Unlock()
	c.prompt(sid, "write x, please")
	if b, _ := os.ReadFile(filepath.Join(c.root, "x.txt")); string(b) != "approved" {
		t.Errorf("x.txt = %q after an approval", b)
	}
	if len(c.perms) != 2 || c.perms[0].SessionID != sid || c.perms[0].ToolCall.ToolCallID != "toolu_1" {
		t.Errorf("permission requests = %+v", c.perms)
	}
	for _, n := range c.notes {
		if n.Method != "session/update" {
			t.Errorf("the ACP door sent %s, which is not ACP", n.Method)
		}
	}
}

// TestACPPlanReview: ExitPlanMode reaches an ACP client as Claude Code's
// adapter sends it (a switch_mode question holding the plan, options
// acceptEdits, default, plan), then a current_mode_update.
func TestACPPlanReview(t *testing.T) {
	c := newACP(t, func(cfg *engine.Config) { cfg.Mode = "plan" },
		fake.Turn{fake.ToolUse("toolu_1", "ExitPlanMode", `{"plan":"1. Add the flag."}`)},
		fake.Turn{fake.Text("coding")},
	)
	c.initialize(false)
	sid := c.newSession().SessionID
	c.mu.Lock()
	c.answer = func(p *schema.RequestPermissionParams) schema.RequestPermissionResult {
		return schema.RequestPermissionResult{Outcome: schema.PermissionOutcome{Outcome: "selected", OptionID: "acceptEdits"}}
	}
	c.mu.Unlock()
	c.prompt(sid, "plan it")
	c.mu.Lock()
	perms := append([]schema.RequestPermissionParams(nil), c.perms...)
	c.mu.Unlock()
	if len(perms) != 1 {
		t.Fatalf("permission requests = %d, want the plan's", len(perms))
	}
	q := perms[0]
	if q.ToolCall.Kind != schema.KindSwitchMode || q.ToolCall.Title != "Ready to code?" || len(q.ToolCall.Content) != 1 || q.ToolCall.Content[0].Content.Text != "1. Add the flag." {
		t.Errorf("the plan question = %+v", q.ToolCall)
	}
	if len(q.Options) != 3 || q.Options[0].OptionID != "acceptEdits" || q.Options[0].Kind != schema.AllowAlways || q.Options[2].OptionID != "plan" || q.Options[2].Kind != schema.RejectOnce {
		t.Errorf("options = %+v", q.Options)
	}
	switched := false
	for _, u := range c.updates(sid) {
		if u.SessionUpdate == schema.UpdateCurrentMode && u.CurrentModeID == "acceptEdits" {
			switched = true
		}
	}
	if !switched {
		t.Error("no current_mode_update to acceptEdits after the approval")
	}
}

// TestACPCancel cancels a prompt mid-stream with session/cancel and with
// $/cancel_request, and a prompt waiting on a permission request.
func TestACPCancel(t *testing.T) {
	for _, how := range []string{"session/cancel", "$/cancel_request"} {
		t.Run(how, func(t *testing.T) {
			c := newACP(t, nil,
				fake.Turn{fake.Text("thinking about this for a long ", "time"), fake.Hold{Event: "content_block_stop"}},
				fake.Turn{fake.Text("after cancel")},
			)
			c.initialize(false)
			sid := c.newSession().SessionID
			var res schema.PromptResult
			wait := c.goCall("session/prompt", schema.PromptParams{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock("go")}}, &res)
			c.waitFor("streamed text", func() bool {
				for _, u := range c.updatesLocked(sid) {
					if u.Content != nil && strings.Contains(u.Content.Text, "time") {
						return true
					}
				}
				return false
			})
			if how == "session/cancel" {
				c.notify("session/cancel", schema.SessionIDParams{SessionID: sid})
			} else {
				// The prompt is the third request: initialize, session/new.
				c.notify("$/cancel_request", map[string]any{"requestId": 3})
			}
			if err := wait(); err != nil || res.StopReason != schema.StopCancelled {
				t.Fatalf("prompt = %q, %v; want cancelled", res.StopReason, err)
			}
			if got := c.prompt(sid, "again"); got.StopReason != schema.StopEndTurn {
				t.Errorf("prompt after cancel = %q", got.StopReason)
			}
		})
	}
	t.Run("permission pending", func(t *testing.T) {
		c := newACP(t, nil, fake.Turn{fake.ToolUse("toolu_1", "Write", `{"file_path":"x.txt","content":"x"}`)})
		block := make(chan struct{})
		defer close(block)
		c.answer = func(*schema.RequestPermissionParams) schema.RequestPermissionResult {
			<-block // the user never answers
			return schema.RequestPermissionResult{Outcome: schema.PermissionOutcome{Outcome: "cancelled"}}
		}
		c.initialize(false)
		sid := c.newSession().SessionID
		var res schema.PromptResult
		wait := c.goCall("session/prompt", schema.PromptParams{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock("go")}}, &res)
		c.waitFor("a permission request", func() bool { return len(c.perms) == 1 })
		c.notify("session/cancel", schema.SessionIDParams{SessionID: sid})
		if err := wait(); err != nil || res.StopReason != schema.StopCancelled {
			t.Fatalf("prompt = %q, %v; want cancelled", res.StopReason, err)
		}
		c.waitFor("$/cancel_request for the permission request", func() bool {
			for _, n := range c.notes {
				if n.Method == "$/cancel_request" && strings.Contains(string(n.Params), `"requestId"`) {
					return true
				}
			}
			return false
		})
		if _, err := os.Stat(filepath.Join(c.root, "x.txt")); err == nil {
			t.Error("the write ran although the prompt was cancelled")
		}
	})
}

// TestACPModesAndConfigOptions: session/new announces the modes and the
// model option; set_mode sends current_mode_update; set_config_option
// returns every option with the new value.
func TestACPModesAndConfigOptions(t *testing.T) {
	c := newACP(t, func(cfg *engine.Config) {
		cfg.Models = []engine.ModelInfo{{ID: "claude-test", Name: "Test"}, {ID: "claude-other", Name: "Other"}}
	}, fake.Turn{fake.Text("hi")})
	c.initialize(false)
	ns := c.newSession()
	if ns.Modes == nil || ns.Modes.CurrentModeID != "default" || len(ns.Modes.AvailableModes) < 4 {
		t.Fatalf("session/new modes = %+v", ns.Modes)
	}
	if len(ns.ConfigOptions) != 2 || ns.ConfigOptions[0].ID != "model" || ns.ConfigOptions[1].ID != "effort" || ns.ConfigOptions[1].Category != "thought_level" || ns.ConfigOptions[0].Type != "select" || ns.ConfigOptions[0].CurrentValue != "claude-test" {
		t.Fatalf("session/new configOptions = %+v", ns.ConfigOptions)
	}
	sid := ns.SessionID
	c.mustCall("session/set_mode", schema.SetModeParams{SessionID: sid, ModeID: "plan"}, nil)
	c.waitFor("current_mode_update", func() bool {
		for _, u := range c.updatesLocked(sid) {
			if u.SessionUpdate == "current_mode_update" && u.CurrentModeID == "plan" {
				return true
			}
		}
		return false
	})
	wantCode(t, c.call("session/set_mode", schema.SetModeParams{SessionID: sid, ModeID: "yolo"}, nil), -32602, "yolo")

	var res struct {
		ConfigOptions []schema.ConfigOption `json:"configOptions"`
	}
	other := ""
	for _, o := range ns.ConfigOptions[0].Options {
		if o.Value != "claude-test" {
			other = o.Value
		}
	}
	if other == "" {
		t.Fatalf("the model option offers no other model: %+v", ns.ConfigOptions[0].Options)
	}
	c.mustCall("session/set_config_option", schema.SetConfigOptionParams{SessionID: sid, ConfigID: "model", Value: other}, &res)
	if len(res.ConfigOptions) != 2 || res.ConfigOptions[0].CurrentValue != other {
		t.Errorf("set_config_option = %+v, want model %s", res.ConfigOptions, other)
	}
	wantCode(t, c.call("session/set_config_option", schema.SetConfigOptionParams{SessionID: sid, ConfigID: "colour", Value: "red"}, nil), -32602, "colour")
	c.prompt(sid, "hello")
	var body struct {
		Model string `json:"model"`
	}
	c.model.Requests()[0].Decode(&body)
	if body.Model != other {
		t.Errorf("the prompt asked %q, want %q", body.Model, other)
	}
}

// TestACPLoadAndResume: a second connection lists the session, loads it
// with its history replayed as session/update, and resumes it without.
func TestACPLoadAndResume(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	store := session.NewStore(t.TempDir(), "-")
	withStore := func(cfg *engine.Config) { cfg.Store = store }
	raw, model := startACP(t, root, withStore, fake.Turn{fake.Text("I remember.")})
	first := connectACP(t, raw, root, model)
	first.initialize(false)
	sid := first.newSession().SessionID
	first.prompt(sid, "remember this")
	first.mustCall("session/close", schema.SessionIDParams{SessionID: sid}, nil)

	raw2, model2 := startACP(t, root, withStore, fake.Turn{fake.Text("Still here.")})
	second := connectACP(t, raw2, root, model2)
	second.initialize(false)
	var list schema.ListSessionsResult
	second.mustCall("session/list", schema.ListSessionsParams{Cwd: root}, &list)
	if len(list.Sessions) != 1 || list.Sessions[0].SessionID != sid {
		t.Fatalf("session/list = %+v", list)
	}
	var loaded schema.NewSessionResult
	second.mustCall("session/load", schema.LoadSessionParams{SessionID: sid, Cwd: root, MCPServers: []schema.MCPServer{}}, &loaded)
	if loaded.Modes == nil || len(loaded.ConfigOptions) == 0 {
		t.Errorf("session/load result = %+v, want modes and configOptions", loaded)
	}
	var replay []string
	for _, u := range second.updates(sid) {
		if u.Content != nil {
			replay = append(replay, u.SessionUpdate+": "+u.Content.Text)
		}
	}
	if got := strings.Join(replay, "\n"); !strings.Contains(got, "user_message_chunk: remember this") || !strings.Contains(got, "agent_message_chunk: I remember.") {
		t.Errorf("replay = %s", got)
	}
	if res := second.prompt(sid, "still there?"); res.StopReason != schema.StopEndTurn {
		t.Errorf("prompt after load = %q", res.StopReason)
	}
	second.mustCall("session/close", schema.SessionIDParams{SessionID: sid}, nil)

	before := len(second.updates(sid))
	var resumed schema.NewSessionResult
	second.mustCall("session/resume", schema.LoadSessionParams{SessionID: sid, Cwd: root, MCPServers: []schema.MCPServer{}}, &resumed)
	time.Sleep(100 * time.Millisecond) // replayed updates would have come by now
	for _, u := range second.updates(sid)[before:] {
		if u.Content != nil {
			t.Errorf("session/resume replayed %s", u.SessionUpdate)
		}
	}
}

// TestLoadHeldSession: a session another connection (or process) holds
// open is refused with codeSessionInUse (-32010), naming the holder, and
// data a client can act on (the LSP door shares sessionError).
func TestLoadHeldSession(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	store := session.NewStore(t.TempDir(), "-")
	withStore := func(cfg *engine.Config) { cfg.Store = store }
	raw, model := startACP(t, root, withStore)
	first := connectACP(t, raw, root, model)
	first.initialize(false)
	sid := first.newSession().SessionID
	raw2, model2 := startACP(t, root, withStore)
	second := connectACP(t, raw2, root, model2)
	second.initialize(false)
	for _, method := range []string{"session/load", "session/resume"} {
		err := second.call(method, schema.LoadSessionParams{SessionID: sid, Cwd: root, MCPServers: []schema.MCPServer{}}, nil)
		var e *jsonrpc2.Error
		if !errors.As(err, &e) || e.Code != -32010 {
			t.Fatalf("%s of a held session: %v, want code -32010", method, err)
		}
		if !strings.Contains(e.Message, fmt.Sprint(os.Getpid())) {
			t.Errorf("%s: message %q does not name the holding process", method, e.Message)
		}
		if strings.HasPrefix(e.Message, method) {
			t.Errorf("%s: message %q starts with the method name", method, e.Message)
		}
		var data struct {
			SessionID string `json:"sessionId"`
			PID       int    `json:"pid"`
			Path      string `json:"path"`
		}
		if err := json.Unmarshal(e.Data, &data); err != nil || data.SessionID != sid || data.PID != os.Getpid() || data.Path == "" {
			t.Errorf("%s: data %s, want sessionId %s, pid %d and the path", method, e.Data, sid, os.Getpid())
		}
	}
}
