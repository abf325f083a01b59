package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/diffs"
	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/providers/anthropic"
	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/session"
)

// The tests in this file drive every method of each door, read from the
// door's method tables, against a slow editor that offers every client
// capability: it answers each request the agent sends only after
// editorDelay, as a real editor serving files from its buffers would. A
// method that waits for the editor while holding the connection's read
// loop never gets its answer, and the test fails at answerBound instead of
// hanging. A method added to a table without a step here fails the test.

// editorDelay is how long the slow editor takes to answer each request.
const editorDelay = 50 * time.Millisecond

// answerBound bounds the wait for any answer.
const answerBound = 30 * time.Second

// slowEditor is a client of either door. It serves fs and terminals from
// a temporary workspace, applies workspace edits to the disk, answers
// permission requests with allow (or reject, when told), and records every
// request the agent sends.
type slowEditor struct {
	t    *testing.T
	root string
	conn jsonrpc2.Conn

	mu        sync.Mutex
	requests  []string                   // methods the agent called, guarded by mu
	notes     []note                     // guarded by mu
	terminals map[string]*exec.Cmd       // guarded by mu
	outputs   map[string]*bytes.Buffer   // terminal output, guarded by mu
	exits     map[string]chan struct{}   // closed when a terminal's command ends, guarded by mu
	reject    bool                       // answer permission requests with reject, guarded by mu
	changed   chan struct{}              // closed and replaced on every notification, guarded by mu
	lastUpd   map[string][]schema.Update // session/update by session, guarded by mu
	applied   map[string]int             // workspace edits by path, guarded by mu
	unknown   []string                   // requests the editor did not know, guarded by mu
	terminalN int                        // guarded by mu
}

type note struct {
	method string
	params json.RawMessage
}

func newSlowEditor(t *testing.T, root string, rwc net.Conn, stream func(net.Conn) jsonrpc2.Stream) *slowEditor {
	e := &slowEditor{
		t: t, root: root,
		terminals: map[string]*exec.Cmd{}, outputs: map[string]*bytes.Buffer{}, exits: map[string]chan struct{}{},
		changed: make(chan struct{}), lastUpd: map[string][]schema.Update{}, applied: map[string]int{},
	}
	e.conn = jsonrpc2.NewConn(stream(rwc))
	e.conn.Go(context.Background(), e.handle)
	t.Cleanup(func() {
		// The stream first: a server stuck on its read loop never reads
		// our answers, and a write to the pipe would block Close.
		rwc.Close()
		e.conn.Close()
		e.mu.Lock()
		defer e.mu.Unlock()
		for _, c := range e.terminals {
			if c.Process != nil {
				c.Process.Kill()
			}
		}
	})
	return e
}

func (e *slowEditor) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	if !req.IsCall() {
		e.mu.Lock()
		e.notes = append(e.notes, note{strings.Clone(req.Method()), append(json.RawMessage(nil), req.Params()...)})
		if req.Method() == "session/update" {
			var n schema.SessionNotification
			if json.Unmarshal(req.Params(), &n) == nil {
				e.lastUpd[n.SessionID] = append(e.lastUpd[n.SessionID], n.Update)
			}
		}
		close(e.changed)
		e.changed = make(chan struct{})
		e.mu.Unlock()
		return nil, nil
	}
	// Answer later, as a busy editor does, without holding our own read
	// loop.
	jsonrpc2.Async(ctx)
	e.mu.Lock()
	e.requests = append(e.requests, strings.Clone(req.Method()))
	e.mu.Unlock()
	time.Sleep(editorDelay)
	return e.answer(req.Method(), json.RawMessage(req.Params()))
}

// answer serves one request of the agent.
func (e *slowEditor) answer(method string, params json.RawMessage) (any, error) {
	var p struct {
		SessionID  string          `json:"sessionId"`
		Path       string          `json:"path"`
		Content    string          `json:"content"`
		Command    string          `json:"command"`
		Args       []string        `json:"args"`
		Cwd        string          `json:"cwd"`
		TerminalID string          `json:"terminalId"`
		Options    json.RawMessage `json:"options"`
		Edit       workspaceEdit   `json:"edit"`
		Actions    []struct {
			Title string `json:"title"`
		} `json:"actions"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: %v", method, err)
	}
	switch method {
	case "fs/read_text_file":
		b, err := os.ReadFile(p.Path)
		if err != nil {
			return nil, jsonrpc2.Errorf(-32002, "%v", err)
		}
		return map[string]string{"content": string(b)}, nil
	case "fs/write_text_file":
		if err := os.WriteFile(p.Path, []byte(p.Content), 0o644); err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "%v", err)
		}
		return nil, nil
	case "terminal/create":
		return e.createTerminal(p.Command, p.Args, p.Cwd)
	case "terminal/output":
		e.mu.Lock()
		out, done := e.outputs[p.TerminalID], e.exits[p.TerminalID]
		e.mu.Unlock()
		if out == nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "no terminal %q", p.TerminalID)
		}
		res := map[string]any{"output": e.output(p.TerminalID), "truncated": false}
		select {
		case <-done:
			res["exitStatus"] = e.exitStatus(p.TerminalID)
		default:
		}
		return res, nil
	case "terminal/wait_for_exit":
		e.mu.Lock()
		done := e.exits[p.TerminalID]
		e.mu.Unlock()
		if done == nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "no terminal %q", p.TerminalID)
		}
		select {
		case <-done:
		case <-time.After(answerBound):
			return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "terminal %s did not end", p.TerminalID)
		}
		return e.exitStatus(p.TerminalID), nil
	case "terminal/kill":
		e.mu.Lock()
		c := e.terminals[p.TerminalID]
		e.mu.Unlock()
		if c != nil && c.Process != nil {
			c.Process.Kill()
		}
		return nil, nil
	case "terminal/release":
		return nil, nil
	case "session/request_permission":
		var opts []schema.PermissionOption
		json.Unmarshal(p.Options, &opts)
		e.mu.Lock()
		want := schema.AllowOnce
		if e.reject {
			want = schema.RejectOnce
		}
		e.mu.Unlock()
		for _, o := range opts {
			if o.Kind == want {
				return schema.RequestPermissionResult{Outcome: schema.PermissionOutcome{Outcome: "selected", OptionID: o.OptionID}}, nil
			}
		}
		return schema.RequestPermissionResult{Outcome: schema.PermissionOutcome{Outcome: "cancelled"}}, nil
	case "workspace/applyEdit":
		if err := e.applyEdit(p.Edit); err != nil {
			return applyEditResult{Applied: false, FailureReason: err.Error()}, nil
		}
		return applyEditResult{Applied: true}, nil
	case "window/showDocument":
		return map[string]bool{"success": true}, nil
	case "window/workDoneProgress/create":
		return nil, nil
	case "window/showMessageRequest":
		e.mu.Lock()
		reject := e.reject
		e.mu.Unlock()
		if reject {
			return map[string]string{"title": "Reject"}, nil
		}
		return map[string]string{"title": "Allow"}, nil
	}
	e.mu.Lock()
	e.unknown = append(e.unknown, method)
	e.mu.Unlock()
	return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "the editor does not serve %s", method)
}

// createTerminal runs a command as the editor's terminal would.
func (e *slowEditor) createTerminal(command string, args []string, cwd string) (any, error) {
	c := exec.Command(command, args...)
	c.Dir = cwd
	out := &bytes.Buffer{}
	c.Stdout, c.Stderr = &lockedWriter{mu: &e.mu, w: out}, &lockedWriter{mu: &e.mu, w: out}
	if err := c.Start(); err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "%v", err)
	}
	done := make(chan struct{})
	e.mu.Lock()
	e.terminalN++
	id := fmt.Sprintf("term_%d", e.terminalN)
	e.terminals[id], e.outputs[id], e.exits[id] = c, out, done
	e.mu.Unlock()
	go func() {
		c.Wait()
		close(done)
	}()
	return map[string]string{"terminalId": id}, nil
}

func (e *slowEditor) output(id string) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.outputs[id].String()
}

func (e *slowEditor) exitStatus(id string) map[string]any {
	e.mu.Lock()
	c := e.terminals[id]
	e.mu.Unlock()
	code := c.ProcessState.ExitCode()
	return map[string]any{"exitCode": code, "signal": nil}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// applyEdit applies a workspace edit (changes or documentChanges with
// creates) to the disk.
func (e *slowEditor) applyEdit(we workspaceEdit) error {
	apply := func(docURI string, edits []textEdit) error {
		path := uri.URI(docURI).FsPath()
		b, err := os.ReadFile(path)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		des := make([]diffs.TextEdit, len(edits))
		for i, te := range edits {
			des[i] = diffs.TextEdit{
				Start:   diffs.Position{Line: te.Range.Start.Line, Character: te.Range.Start.Character},
				End:     diffs.Position{Line: te.Range.End.Line, Character: te.Range.End.Character},
				NewText: te.NewText,
			}
		}
		e.mu.Lock()
		e.applied[path]++
		e.mu.Unlock()
		return os.WriteFile(path, []byte(diffs.Apply(string(b), des)), 0o644)
	}
	for u, edits := range we.Changes {
		if err := apply(u, edits); err != nil {
			return err
		}
	}
	for _, raw := range we.DocumentChanges {
		b, _ := json.Marshal(raw)
		var dc struct {
			Kind         string               `json:"kind"`
			URI          string               `json:"uri"`
			TextDocument struct{ URI string } `json:"textDocument"`
			Edits        []textEdit           `json:"edits"`
		}
		if err := json.Unmarshal(b, &dc); err != nil {
			return err
		}
		switch dc.Kind {
		case "create":
			path := uri.URI(dc.URI).FsPath()
			if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
				if err := os.WriteFile(path, nil, 0o644); err != nil {
					return err
				}
			}
		case "":
			if err := apply(dc.TextDocument.URI, dc.Edits); err != nil {
				return err
			}
		}
	}
	return nil
}

// call sends a request and fails the test unless it is answered within
// answerBound. A JSON-RPC error is returned (an answer all the same).
func (e *slowEditor) call(method string, params any, result any) error {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), answerBound)
	defer cancel()
	var raw json.RawMessage
	_, err := e.conn.Call(ctx, method, params, &raw)
	if ctx.Err() != nil {
		e.t.Fatalf("%s was not answered within %s (the editor answers every request after %s)", method, answerBound, editorDelay)
	}
	var je *jsonrpc2.Error
	if err != nil && !errors.As(err, &je) {
		e.t.Fatalf("%s: %v", method, err)
	}
	if err == nil && result != nil && len(raw) > 0 {
		if err := json.Unmarshal(raw, result); err != nil {
			e.t.Fatalf("%s: decoding the result %s: %v", method, raw, err)
		}
	}
	return err
}

func (e *slowEditor) notify(method string, params any) {
	e.t.Helper()
	if err := e.conn.Notify(context.Background(), method, params); err != nil {
		e.t.Fatalf("%s: %v", method, err)
	}
}

// requestCount returns how many requests the agent has sent.
func (e *slowEditor) requestCount() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.requests)
}

func (e *slowEditor) requestsSince(n int) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.requests[n:]...)
}

func (e *slowEditor) updates(sid string) []schema.Update {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]schema.Update(nil), e.lastUpd[sid]...)
}

// waitNote waits for a notification that matches.
func (e *slowEditor) waitNote(what string, match func(note) bool) {
	e.t.Helper()
	deadline := time.After(answerBound)
	for {
		e.mu.Lock()
		for _, n := range e.notes {
			if match(n) {
				e.mu.Unlock()
				return
			}
		}
		ch := e.changed
		e.mu.Unlock()
		select {
		case <-ch:
		case <-deadline:
			var seen strings.Builder
			e.mu.Lock()
			for _, n := range e.notes {
				fmt.Fprintf(&seen, "%s %.300s\n", n.method, n.params)
			}
			e.mu.Unlock()
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			e.t.Fatalf("timed out waiting for %s; notifications:\n%s\ngoroutines:\n%s", what, seen.String(), buf)
		}
	}
}

// doorEnv is one door under test: a server, its slow editor, and what the
// steps learned so far.
type doorEnv struct {
	t      *testing.T
	acp    bool
	root   string // the workspace, and the sessions' cwd
	ed     *slowEditor
	model  *fake.Server
	claude string // the session id of the installed Claude Code fixture
	// claudeFile is the fixture's file; storeDir is agent-lsp's own
	// session directory.
	claudeFile, storeDir string

	sid     string // the session of session/new
	modes   *schema.ModeState
	configs []schema.ConfigOption
}

// claudeFixtureID is the session id of testdata/claude-code/session.jsonl.
const claudeFixtureID = "44460547-c7fd-4363-ab0e-4ef00cc6822e"

// historyTurns are the model turns of the prompt that makes a history
// with every kind of tool call replay must show: Write, Edit, MultiEdit,
// Bash and parallel calls.
func historyTurns(root string) []fake.Turn {
	file := filepath.Join(root, "calc.py")
	in := func(v any) string {
		b, _ := json.Marshal(v)
		return string(b)
	}
	return []fake.Turn{
		{fake.Text("I'll create it."), fake.ToolUse("toolu_w", "Write", in(map[string]string{"file_path": file, "content": "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"}))},
		{fake.ToolUse("toolu_e", "Edit", in(map[string]string{"file_path": file, "old_string": "    return a + b\n", "new_string": "    \"\"\"Add.\"\"\"\n    return a + b\n"}))},
		{fake.ToolUse("toolu_m", "MultiEdit", in(map[string]any{"file_path": file, "edits": []map[string]string{{"old_string": "def sub(a, b):", "new_string": "def subtract(a, b):"}, {"old_string": "return a - b", "new_string": "return a - b  # difference"}}}))},
		{fake.ToolUse("toolu_b", "Bash", in(map[string]string{"command": "wc -l calc.py", "description": "Count lines"}))},
		{fake.ToolUse("toolu_r", "Read", in(map[string]string{"file_path": file})), fake.ToolUse("toolu_g", "Grep", in(map[string]string{"pattern": "def", "path": root}))},
		{fake.Text("Done: calc.py has add and subtract.")},
	}
}

// startDoor serves one door in process, with a store holding the Claude
// Code fixture, and connects a slow editor.
func startDoor(t *testing.T, acp bool, turns ...fake.Turn) *doorEnv {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	claudeDir := t.TempDir()
	claudeFile := installClaudeFixture(t, claudeDir, root)
	d := serveDoor(t, acp, root, claudeDir, turns...)
	d.claude, d.claudeFile = claudeFixtureID, claudeFile
	return d
}

// serveDoor serves one door in process for the project root, with
// claudeDir as Claude Code's directory, and connects a slow editor.
func serveDoor(t *testing.T, acp bool, root, claudeDir string, turns ...fake.Turn) *doorEnv {
	t.Helper()
	storeDir := t.TempDir()
	store := session.NewStore(storeDir, claudeDir)
	model := fake.NewAnthropic(t, turns...)
	provider := anthropic.New(anthropic.Options{APIKey: "k", BaseURL: model.BaseURL()})
	opts := Options{Version: "test", Logf: t.Logf, TranscriptDir: t.TempDir(), NewService: func(InitOptions) (*engine.Service, error) {
		return engine.NewService(engine.Config{Provider: provider, Model: "claude-test", Home: root, Logf: t.Logf, Store: store}), nil
	}}
	a, b := net.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		if acp {
			ServeACP(ctx, a, opts)
		} else {
			Serve(ctx, a, opts)
		}
		close(done)
	}()
	t.Cleanup(func() {
		cancel()
		b.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("the door did not stop")
		}
	})
	stream := func(c net.Conn) jsonrpc2.Stream { return jsonrpc2.NewStream(c) }
	if acp {
		stream = func(c net.Conn) jsonrpc2.Stream { return jsonrpc2.NewNDJSONStream(c) }
	}
	return &doorEnv{t: t, acp: acp, root: root, ed: newSlowEditor(t, root, b, stream), model: model, storeDir: storeDir}
}

// installClaudeFixture puts the session the real Claude Code binary made
// (testdata/claude-code) into claudeDir's projects, as made in cwd, and
// returns its path.
func installClaudeFixture(t *testing.T, claudeDir, cwd string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "claude-code", "session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	slug := regexp.MustCompile(`[^A-Za-z0-9]`).ReplaceAllString(cwd, "-")
	b = bytes.ReplaceAll(b, []byte("/__CWD__"), []byte(cwd))
	b = bytes.ReplaceAll(b, []byte("-__CWD__"), []byte(slug))
	b = bytes.ReplaceAll(b, []byte("/__HOME__"), []byte(claudeDir))
	dir := filepath.Join(claudeDir, "projects", slug)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, claudeFixtureID+".jsonl")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// step drives one method.
type step struct {
	method string
	// notify marks a notification; its arrival is checked by the request
	// that follows.
	notify bool
	params func(d *doorEnv) any
	// check, when set, checks the answer; else any answer will do.
	check func(d *doorEnv, result json.RawMessage, err error)
}

// The steps of each door, in order. Every method of the door's tables
// must have at least one.

func lspSteps() []step {
	doc := func(d *doorEnv) string { return string(uri.File(filepath.Join(d.root, "notes.txt"))) }
	return []step{
		{method: "initialize", params: func(d *doorEnv) any {
			return map[string]any{
				"processId": os.Getpid(),
				"rootUri":   string(uri.File(d.root)),
				"capabilities": map[string]any{
					"workspace":    map[string]any{"applyEdit": true, "workspaceEdit": map[string]any{"documentChanges": true, "resourceOperations": []string{"create", "rename", "delete"}}},
					"window":       map[string]any{"workDoneProgress": true, "showDocument": map[string]any{"support": true}, "showMessage": map[string]any{"messageActionItem": map[string]any{"additionalPropertiesSupport": true}}},
					"experimental": map[string]any{"agent": true},
				},
			}
		}, check: mustSucceed},
		{method: "initialized", notify: true, params: empty},
		{method: "textDocument/didOpen", notify: true, params: func(d *doorEnv) any {
			return map[string]any{"textDocument": map[string]any{"uri": doc(d), "languageId": "plaintext", "version": 1, "text": "one\n"}}
		}},
		{method: "textDocument/didChange", notify: true, params: func(d *doorEnv) any {
			return map[string]any{"textDocument": map[string]any{"uri": doc(d), "version": 2}, "contentChanges": []any{map[string]any{"text": "one\ntwo\n"}}}
		}},
		{method: "textDocument/didSave", notify: true, params: func(d *doorEnv) any {
			return map[string]any{"textDocument": map[string]any{"uri": doc(d)}, "text": "one\ntwo\n"}
		}},
		{method: "textDocument/codeAction", params: func(d *doorEnv) any {
			return map[string]any{"textDocument": map[string]any{"uri": doc(d)}, "range": protocol.Range{End: protocol.Position{Line: 1}}, "context": map[string]any{"diagnostics": []any{}}}
		}, check: mustSucceed},
		{method: "textDocument/didClose", notify: true, params: func(d *doorEnv) any {
			return map[string]any{"textDocument": map[string]any{"uri": doc(d)}}
		}},
		thumbnailStep(),
	}
}

func lspTailSteps() []step {
	return []step{
		{method: "workspace/executeCommand", params: func(d *doorEnv) any {
			return map[string]any{"command": cmdPrompt, "arguments": []any{"Say hello."}}
		}, check: func(d *doorEnv, _ json.RawMessage, err error) {
			mustSucceed(d, nil, err)
			// The turn runs in the background: wait for its end.
			d.ed.waitNote("the plain turn's end", func(n note) bool {
				return n.method == "window/logMessage" && strings.Contains(string(n.params), "agent: done")
			})
		}},
		{method: "window/workDoneProgress/cancel", notify: true, params: func(*doorEnv) any { return map[string]any{"token": "agent-none"} }},
		{method: "workspace/executeCommand", params: func(*doorEnv) any { return map[string]any{"command": cmdCancel} }, check: mustSucceed},
		// The turn is over when "agent: done" is announced (issue 18).
		{method: "workspace/executeCommand", params: func(*doorEnv) any { return map[string]any{"command": cmdNewSession} }, check: mustSucceed},
		{method: "$/cancelRequest", notify: true, params: func(*doorEnv) any { return map[string]any{"id": 12345} }},
		{method: "shutdown", params: empty, check: mustSucceed},
		{method: "exit", notify: true, params: empty},
	}
}

// thumbnailStep asks both doors for the thumbnail of a 1 x 1 PNG.
func thumbnailStep() step {
	return step{method: "agent/thumbnail", params: func(d *doorEnv) any {
		return schema.ThumbnailParams{Data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", MIMEType: "image/png", Cols: 8, Rows: 4}
	}, check: func(d *doorEnv, raw json.RawMessage, err error) {
		mustSucceed(d, raw, err)
		var res schema.ThumbnailResult
		if err := json.Unmarshal(raw, &res); err != nil || res.Width != 1 || len(res.Pixels) != 2 {
			d.t.Fatalf("agent/thumbnail = %s (%v), want a 1 x 1 image in one cell", raw, err)
		}
	}}
}

func acpSteps() []step {
	return []step{
		{method: "initialize", params: func(*doorEnv) any {
			return map[string]any{
				"protocolVersion":    1,
				"clientCapabilities": map[string]any{"fs": map[string]any{"readTextFile": true, "writeTextFile": true}, "terminal": true},
				"clientInfo":         map[string]any{"name": "slow-editor", "version": "1"},
			}
		}, check: mustSucceed},
		{method: "authenticate", params: func(*doorEnv) any { return map[string]any{"methodId": "anthropic-api-key"} }, check: mustSucceed},
		thumbnailStep(),
		{method: "$/cancel_request", notify: true, params: func(*doorEnv) any { return map[string]any{"requestId": 12345} }},
	}
}

// sessionSteps drive the session methods both doors share.
func sessionSteps() []step {
	load := func(id func(d *doorEnv) string) func(d *doorEnv) any {
		return func(d *doorEnv) any {
			return schema.LoadSessionParams{SessionID: id(d), Cwd: d.root, MCPServers: []schema.MCPServer{}}
		}
	}
	ours := func(d *doorEnv) string { return d.sid }
	theirs := func(d *doorEnv) string { return d.claude }
	closeStep := func(id func(d *doorEnv) string) step {
		return step{method: "session/close", params: func(d *doorEnv) any { return schema.SessionIDParams{SessionID: id(d)} }, check: mustSucceed}
	}
	return []step{
		{method: "session/new", params: func(d *doorEnv) any {
			return schema.NewSessionParams{Cwd: d.root, MCPServers: []schema.MCPServer{}}
		}, check: func(d *doorEnv, raw json.RawMessage, err error) {
			mustSucceed(d, raw, err)
			var res schema.NewSessionResult
			json.Unmarshal(raw, &res)
			d.sid, d.modes, d.configs = res.SessionID, res.Modes, res.ConfigOptions
			if d.sid == "" || d.modes == nil || len(d.configs) == 0 {
				d.t.Fatalf("session/new = %s", raw)
			}
		}},
		{method: "session/set_mode", params: func(d *doorEnv) any {
			return schema.SetModeParams{SessionID: d.sid, ModeID: d.modes.CurrentModeID}
		}, check: mustSucceed},
		{method: "session/set_model", params: func(d *doorEnv) any {
			return schema.SetModelParams{SessionID: d.sid, ModelID: d.configs[0].CurrentValue}
		}, check: mustSucceed},
		{method: "session/set_config_option", params: func(d *doorEnv) any {
			return schema.SetConfigOptionParams{SessionID: d.sid, ConfigID: d.configs[0].ID, Value: d.configs[0].CurrentValue}
		}, check: mustSucceed},
		{method: "session/prompt", params: func(d *doorEnv) any {
			return schema.PromptParams{SessionID: d.sid, Prompt: []schema.ContentBlock{schema.TextBlock("Create calc.py, then improve it.")}}
		}, check: func(d *doorEnv, raw json.RawMessage, err error) {
			mustSucceed(d, raw, err)
			var res schema.PromptResult
			json.Unmarshal(raw, &res)
			if res.StopReason != schema.StopEndTurn {
				d.t.Fatalf("session/prompt = %s, want end_turn", raw)
			}
			b, _ := os.ReadFile(filepath.Join(d.root, "calc.py"))
			if want := "def add(a, b):\n    \"\"\"Add.\"\"\"\n    return a + b\n\n\ndef subtract(a, b):\n    return a - b  # difference\n"; string(b) != want {
				d.t.Fatalf("calc.py after the prompt = %q, want %q", b, want)
			}
		}},
		{method: "session/checkpoints", params: func(d *doorEnv) any { return schema.CheckpointsParams{SessionID: d.sid} }, check: func(d *doorEnv, raw json.RawMessage, err error) {
			mustSucceed(d, raw, err)
			var res schema.CheckpointsResult
			json.Unmarshal(raw, &res)
			if len(res.Checkpoints) != 1 || res.Checkpoints[0].Checkpoint != 1 || res.Checkpoints[0].Prompt != "Create calc.py, then improve it." {
				d.t.Fatalf("session/checkpoints = %s, want the prompt's", raw)
			}
		}},
		{method: "session/mcp_resources", params: func(d *doorEnv) any { return schema.MCPResourcesParams{SessionID: d.sid} }, check: func(d *doorEnv, raw json.RawMessage, err error) {
			mustSucceed(d, raw, err)
			var res schema.MCPResourcesResult
			if err := json.Unmarshal(raw, &res); err != nil || res.Resources == nil || len(res.Resources) != 0 {
				d.t.Fatalf("session/mcp_resources = %s (%v), want an empty list: the session has no MCP server", raw, err)
			}
		}},
		{method: "session/rewind", params: func(d *doorEnv) any {
			return schema.RewindParams{SessionID: d.sid, Checkpoint: 1, Restore: schema.RestoreCode}
		}, check: func(d *doorEnv, raw json.RawMessage, err error) {
			mustSucceed(d, raw, err)
			var res schema.RewindResult
			json.Unmarshal(raw, &res)
			calc := filepath.Join(d.root, "calc.py")
			if !res.Applied || len(res.Changes) != 1 || res.Changes[0] != (schema.RewindChange{Path: calc, Action: schema.RewindDelete}) {
				d.t.Fatalf("session/rewind = %s, want calc.py deleted", raw)
			}
			if _, err := os.Stat(calc); !os.IsNotExist(err) {
				d.t.Fatalf("calc.py after the rewind: %v, want it gone", err)
			}
		}},
		{method: "session/cancel", notify: true, params: func(d *doorEnv) any { return schema.SessionIDParams{SessionID: d.sid} }},
		{method: "session/list", params: func(d *doorEnv) any { return schema.ListSessionsParams{Cwd: d.root} }, check: mustSucceed},
		closeStep(ours),
		{method: "session/load", params: load(ours), check: checkReplay(ours, ourEdits, []string{"toolu_w", "toolu_e", "toolu_m", "toolu_b", "toolu_r", "toolu_g"})},
		closeStep(ours),
		{method: "session/resume", params: load(ours), check: mustSucceed},
		closeStep(ours),
		{method: "session/load", params: load(theirs), check: checkReplay(theirs, claudeEdits, []string{"toolu_w1", "toolu_e1", "toolu_m1", "toolu_b1", "toolu_r1", "toolu_g1"})},
		closeStep(theirs),
		{method: "session/resume", params: load(theirs), check: mustSucceed},
		closeStep(theirs),
		{method: "session/fork", params: load(theirs), check: func(d *doorEnv, raw json.RawMessage, err error) {
			mustSucceed(d, raw, err)
			var res schema.NewSessionResult
			if err := json.Unmarshal(raw, &res); err != nil || res.SessionID == "" || res.SessionID == d.claude {
				d.t.Fatalf("session/fork answered %s (%v), want a new session id", raw, err)
			}
			if err := d.ed.call("session/close", schema.SessionIDParams{SessionID: res.SessionID}, nil); err != nil {
				d.t.Errorf("closing the fork: %v", err)
			}
		}},
	}
}

func empty(*doorEnv) any { return map[string]any{} }

func mustSucceed(d *doorEnv, _ json.RawMessage, err error) {
	d.t.Helper()
	if err != nil {
		d.t.Fatalf("unexpected error: %v", err)
	}
}

// A replayed edit: the tool call's id, whether it created its file, and
// the text before and after it that the diff must show.
type replayedEdit struct {
	id       string
	created  bool
	old, new string
}

// ourEdits are the edits historyTurns makes, as they were.
var ourEdits = []replayedEdit{
	{id: "toolu_w", created: true, new: "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"},
	{id: "toolu_e", old: "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n", new: "def add(a, b):\n    \"\"\"Add.\"\"\"\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"},
	{id: "toolu_m", old: "def add(a, b):\n    \"\"\"Add.\"\"\"\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n", new: "def add(a, b):\n    \"\"\"Add.\"\"\"\n    return a + b\n\n\ndef subtract(a, b):\n    return a - b  # difference\n"},
}

// claudeEdits are the edits of the Claude Code fixture (its MultiEdit
// failed: that version has no such tool).
var claudeEdits = []replayedEdit{
	{id: "toolu_w1", created: true, new: "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"},
	{id: "toolu_e1", old: "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n", new: "def add(a, b):\n    \"\"\"Add.\"\"\"\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"},
}

// checkReplay checks that a session/load succeeded and replayed each edit
// with the diff it made (not one against the file as it is now).
func checkReplay(id func(*doorEnv) string, edits []replayedEdit, ended []string) func(d *doorEnv, raw json.RawMessage, err error) {
	return func(d *doorEnv, raw json.RawMessage, err error) {
		d.t.Helper()
		mustSucceed(d, raw, err)
		ups := d.ed.updates(id(d))
		// Every call ends as it ended, parallel ones included.
		for _, call := range ended {
			found := false
			for _, u := range ups {
				tc := u.ToolCall
				found = found || tc != nil && tc.ToolCallID == call && u.SessionUpdate == schema.UpdateToolCallUpdate &&
					(tc.Status == schema.StatusCompleted || tc.Status == schema.StatusFailed)
			}
			if !found {
				d.t.Errorf("the replay of %s never ends it", call)
			}
		}
		for _, want := range edits {
			var got *schema.ToolCallContent
			for _, u := range ups {
				if u.ToolCall != nil && u.ToolCall.ToolCallID == want.id && u.SessionUpdate == schema.UpdateToolCall {
					for i := range u.ToolCall.Content {
						if u.ToolCall.Content[i].Type == "diff" {
							got = &u.ToolCall.Content[i]
						}
					}
				}
			}
			switch {
			case got == nil:
				d.t.Errorf("the replay of %s shows no diff", want.id)
			case want.created != (got.OldText == nil):
				d.t.Errorf("the replay of %s: oldText %v, want a created file %v", want.id, got.OldText, want.created)
			case got.NewText != want.new || (got.OldText != nil && *got.OldText != want.old):
				d.t.Errorf("the replay of %s shows\n%q -> %q\nwant\n%q -> %q", want.id, deref(got.OldText), got.NewText, want.old, want.new)
			}
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// TestEveryMethodAgainstASlowEditor drives every method of each door
// against the slow editor. Every request must be answered, and
// session/load and session/resume must not call the editor at all.
func TestEveryMethodAgainstASlowEditor(t *testing.T) {
	for _, door := range []struct {
		name   string
		acp    bool
		table  methodTable
		steps  []step
		prompt int // model turns the plain-LSP prompt takes
	}{
		{name: "lsp", table: newLSPDoor(Options{}).c.methods, steps: concat(lspSteps(), sessionSteps(), lspTailSteps()), prompt: 1},
		{name: "acp", acp: true, table: newACPDoor(Options{}).c.methods, steps: concat(acpSteps(), sessionSteps())},
	} {
		t.Run(door.name, func(t *testing.T) {
			covered := map[string]bool{}
			for _, s := range door.steps {
				covered[s.method] = true
			}
			for name := range door.table {
				if !covered[name] {
					t.Errorf("method %s has no step in this test: add one to the %s door's steps", name, door.name)
				}
			}
			if t.Failed() {
				return
			}
			d := startDoor(t, door.acp)
			d.model.Add(historyTurns(d.root)...)
			for range door.prompt {
				d.model.Add(fake.Turn{fake.Text("Hello.")})
			}
			for i, s := range door.steps {
				if s.notify {
					d.ed.notify(s.method, s.params(d))
					continue
				}
				before := d.ed.requestCount()
				raw := json.RawMessage(nil)
				err := d.ed.call(s.method, s.params(d), &raw)
				if s.method == "session/load" || s.method == "session/resume" {
					if calls := d.ed.requestsSince(before); len(calls) > 0 {
						t.Errorf("step %d, %s called the editor: %v", i, s.method, calls)
					}
				}
				if s.check != nil {
					t.Run(fmt.Sprintf("%02d_%s", i, strings.ReplaceAll(s.method, "/", "_")), func(t *testing.T) {
						dd := *d
						dd.t = t
						s.check(&dd, raw, err)
						d.sid, d.modes, d.configs = dd.sid, dd.modes, dd.configs
					})
					if t.Failed() {
						return
					}
				}
			}
			d.ed.mu.Lock()
			unknown := d.ed.unknown
			d.ed.mu.Unlock()
			if len(unknown) > 0 {
				t.Errorf("the agent sent requests the editor does not know: %v", unknown)
			}
		})
	}
}

func concat(parts ...[]step) []step {
	var out []step
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// scriptedInput is an editor that writes its messages and closes its end
// at once (a pipe, a script), then reads what comes back.
type scriptedInput struct {
	r *strings.Reader
	w *bytes.Buffer
}

func (x scriptedInput) Read(p []byte) (int, error)  { return x.r.Read(p) }
func (x scriptedInput) Write(p []byte) (int, error) { return x.w.Write(p) }
func (x scriptedInput) Close() error                { return nil }

// TestAnswersAfterInputEnds: requests received just before the input ends
// are still answered, although none runs on the read loop (which sees the
// end at once).
func TestAnswersAfterInputEnds(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	frame := func(lsp bool, body string) string {
		if lsp {
			return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
		}
		return body + "\n"
	}
	for _, lsp := range []bool{false, true} {
		init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`
		if lsp {
			init = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":"` + string(uri.File(root)) + `","capabilities":{}}}`
		}
		input := frame(lsp, init) + frame(lsp, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"`+root+`","mcpServers":[]}}`)
		for i := range 10 {
			out := &bytes.Buffer{}
			opts := Options{Logf: t.Logf, TranscriptDir: t.TempDir(), NewService: func(InitOptions) (*engine.Service, error) {
				return engine.NewService(engine.Config{Logf: t.Logf, Home: root}), nil
			}}
			rw := scriptedInput{strings.NewReader(input), out}
			if lsp {
				Serve(context.Background(), rw, opts)
			} else {
				ServeACP(context.Background(), rw, opts)
			}
			if got := out.String(); !strings.Contains(got, `"id":1,"result"`) || !strings.Contains(got, `"id":2,"result"`) {
				t.Fatalf("lsp %v, run %d: the answers to initialize and session/new are missing:\n%s", lsp, i, got)
			}
		}
	}
}

// The slow editor's shapes of workspace/applyEdit (once the server's own
// hand-written copies; it now sends go.lsp.dev/protocol's types).
type (
	workspaceEdit struct {
		Changes         map[string][]textEdit `json:"changes,omitempty"`
		DocumentChanges []any                 `json:"documentChanges,omitempty"`
	}
	textEdit struct {
		Range   protocol.Range `json:"range"`
		NewText string         `json:"newText"`
	}
	applyEditResult struct {
		Applied       bool   `json:"applied"`
		FailureReason string `json:"failureReason,omitempty"`
	}
)
