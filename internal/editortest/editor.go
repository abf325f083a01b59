// Package editortest is a fake editor for tests: it speaks real JSON-RPC
// with LSP framing to an agent-lsp server, in process over pipes or to the
// built binary over stdio, answers the server's requests (permission
// prompts, workspace/applyEdit) like an editor would, keeps the buffers it
// has open, and records every notification. Its helpers fail the test
// instead of hanging.
package editortest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/diffs"
	"github.com/agent-lsp/agent-lsp/rpc"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/server"
)

// Timeout bounds every wait of the fake editor.
var Timeout = 30 * time.Second

// Editor is a fake editor connected to a server.
type Editor struct {
	t    testing.TB
	conn jsonrpc2.Conn
	peer rpc.Peer
	// Raw is the client side of the byte stream, for tests that write
	// malformed frames themselves. Nil for the process editor.
	Raw io.Writer
	// dump, set for a server process, makes it print its goroutines and
	// returns its stderr, for a failure that says where the server was.
	dump func() string

	mu            sync.Mutex
	notes         []Notification                                                                // guarded by mu
	buffers       map[string]*Buffer                                                            // by path, guarded by mu
	permissions   []schema.RequestPermissionParams                                              // guarded by mu
	edits         []json.RawMessage                                                             // applyEdit params, guarded by mu
	onPermission  func(*schema.RequestPermissionParams) schema.RequestPermissionResult          // guarded by mu
	onApplyEdit   func(params json.RawMessage) (applied bool, reason string)                    // guarded by mu
	applyEditErr  error                                                                         // answer to workspace/applyEdit when set, guarded by mu
	changed       chan struct{}                                                                 // closed and replaced on every event, guarded by mu
	requests      []string                                                                      // methods of server requests, guarded by mu
	showMessages  []json.RawMessage                                                             // guarded by mu
	serverHandler func(ctx context.Context, method string, params json.RawMessage) (any, error) // extra handler, guarded by mu
}

// Notification is a notification the server sent.
type Notification struct {
	Method string
	Params json.RawMessage
}

// Buffer is a document open in the fake editor.
type Buffer struct {
	Path    string
	Text    string
	Version int32
	Dirty   bool
}

// Options configure an in-process server.
type Options = server.Options

// New starts a server in process, connected over pipes.
func New(t testing.TB, opts server.Options) *Editor {
	t.Helper()
	return NewThrough(t, opts, nil)
}

// NewThrough is New with the server's end of the pipe passed through
// wrap (when not nil), to change how the editor sees what the server
// writes.
func NewThrough(t testing.TB, opts server.Options, wrap func(net.Conn) net.Conn) *Editor {
	t.Helper()
	a, b := net.Pipe()
	if wrap != nil {
		a = wrap(a)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() { done <- server.Serve(ctx, a, opts) }()
	e := newEditor(t, b)
	e.Raw = b
	t.Cleanup(func() {
		cancel()
		e.conn.Close()
		select {
		case <-done:
		case <-time.After(Timeout):
			t.Errorf("server did not stop within %s after the editor closed", Timeout)
		}
	})
	return e
}

// Process is a server running as a child process.
type Process struct {
	Cmd    *exec.Cmd
	Stderr *strings.Builder
	Exited chan struct{}
	stdin  io.WriteCloser
}

// CloseStdin closes the server's stdin, as an editor that quits does.
func (p *Process) CloseStdin() error { return p.stdin.Close() }

// NewProcess starts the binary with args and env (added to the
// environment) and connects to its stdio.
func NewProcess(t testing.TB, binary string, args []string, env ...string) (*Editor, *Process) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &lockedBuilder{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", binary, err)
	}
	p := &Process{Cmd: cmd, Stderr: &stderr.b, Exited: make(chan struct{}), stdin: stdin}
	go func() { cmd.Wait(); close(p.Exited) }()
	e := newEditor(t, struct {
		io.Reader
		io.WriteCloser
	}{stdout, stdin})
	e.dump = func() string {
		// Go prints every goroutine's stack on SIGQUIT, then exits.
		cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-p.Exited:
		case <-time.After(10 * time.Second):
		}
		return stderr.String()
	}
	t.Cleanup(func() {
		e.conn.Close()
		stdin.Close()
		select {
		case <-p.Exited:
		case <-time.After(Timeout):
			cmd.Process.Kill()
			t.Errorf("server process did not exit within %s of stdin closing; stderr:\n%s", Timeout, stderr.String())
		}
	})
	return e, p
}

type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func newEditor(t testing.TB, rwc io.ReadWriteCloser) *Editor {
	e := &Editor{
		t:       t,
		buffers: make(map[string]*Buffer),
		changed: make(chan struct{}),
		onPermission: func(*schema.RequestPermissionParams) schema.RequestPermissionResult {
			return schema.RequestPermissionResult{Outcome: schema.PermissionOutcome{Outcome: "selected", OptionID: "allow_once"}}
		},
	}
	e.conn = jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(rwc))
	e.peer = rpc.Peer{Conn: e.conn}
	e.conn.Go(context.Background(), e.handle)
	return e
}

// signal wakes waiters; callers hold mu.
func (e *Editor) signal() {
	close(e.changed)
	e.changed = make(chan struct{})
}

func (e *Editor) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	params := json.RawMessage(append([]byte(nil), req.Params()...))
	// The method borrows jsonrpc2's read buffer: copy it to keep it.
	method := strings.Clone(req.Method())
	if os.Getenv("EDITORTEST_DEBUG") != "" {
		e.t.Logf("editor got %s %s", method, params)
	}
	if !req.IsCall() {
		e.mu.Lock()
		e.notes = append(e.notes, Notification{Method: method, Params: params})
		e.signal()
		e.mu.Unlock()
		return nil, nil
	}
	// Answer server requests concurrently, like an editor whose user
	// takes their time.
	jsonrpc2.Async(ctx)
	e.mu.Lock()
	e.requests = append(e.requests, method)
	extra := e.serverHandler
	e.signal()
	e.mu.Unlock()
	switch method {
	case "session/request_permission":
		var p schema.RequestPermissionParams
		if err := json.Unmarshal(params, &p); err != nil {
			e.t.Errorf("bad session/request_permission params: %v", err)
			return nil, err
		}
		e.mu.Lock()
		e.permissions = append(e.permissions, p)
		answer := e.onPermission
		e.signal()
		e.mu.Unlock()
		return rpc.Raw(answer(&p))
	case "workspace/applyEdit":
		return e.applyEdit(params)
	}
	if extra != nil {
		res, err := extra(ctx, method, params)
		if err != jsonrpc2.ErrNotHandled {
			if err != nil {
				return nil, err
			}
			return rpc.Raw(res)
		}
	}
	if method == "window/showMessageRequest" || method == "window/workDoneProgress/create" || method == "window/showDocument" {
		e.mu.Lock()
		e.showMessages = append(e.showMessages, params)
		e.signal()
		e.mu.Unlock()
		return rpc.Raw(nil)
	}
	return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "fake editor does not handle %s", method)
}

// OnPermission sets how the fake user answers permission requests
// (default: allow once).
func (e *Editor) OnPermission(f func(*schema.RequestPermissionParams) schema.RequestPermissionResult) {
	e.mu.Lock()
	e.onPermission = f
	e.mu.Unlock()
}

// Answer returns a permission answer selecting optionID.
func Answer(optionID string) func(*schema.RequestPermissionParams) schema.RequestPermissionResult {
	return func(*schema.RequestPermissionParams) schema.RequestPermissionResult {
		return schema.RequestPermissionResult{Outcome: schema.PermissionOutcome{Outcome: "selected", OptionID: optionID}}
	}
}

// OnApplyEdit overrides how the editor answers workspace/applyEdit; the
// default applies the edit to its buffers.
func (e *Editor) OnApplyEdit(f func(params json.RawMessage) (applied bool, reason string)) {
	e.mu.Lock()
	e.onApplyEdit = f
	e.mu.Unlock()
}

// FailApplyEdit makes the editor answer workspace/applyEdit with err (a
// *jsonrpc2.Error), as an editor that fails the request does; nil undoes
// it.
func (e *Editor) FailApplyEdit(err error) {
	e.mu.Lock()
	e.applyEditErr = err
	e.mu.Unlock()
}

// OnRequest installs a handler for other server requests; it returns
// jsonrpc2.ErrNotHandled for methods it does not handle.
func (e *Editor) OnRequest(f func(ctx context.Context, method string, params json.RawMessage) (any, error)) {
	e.mu.Lock()
	e.serverHandler = f
	e.mu.Unlock()
}

// Call sends a request and decodes its result, failing the test when
// it does not answer in time. It returns the response error.
func (e *Editor) Call(method string, params, result any) error {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	err := e.peer.Call(ctx, method, params, result)
	if ctx.Err() != nil {
		e.timedOut("%s: no answer within %s", method, Timeout)
	}
	return err
}

// MustCall is Call that fails the test on an error response.
func (e *Editor) MustCall(method string, params, result any) {
	e.t.Helper()
	if err := e.Call(method, params, result); err != nil {
		e.t.Fatalf("%s: %v", method, err)
	}
}

// Notify sends a notification.
func (e *Editor) Notify(method string, params any) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	if err := e.peer.Notify(ctx, method, params); err != nil {
		e.t.Fatalf("%s: %v", method, err)
	}
}

// Go sends a request without waiting; the returned function waits for
// and returns the answer.
func (e *Editor) Go(method string, params, result any) func() error {
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), Timeout)
		defer cancel()
		done <- e.peer.Call(ctx, method, params, result)
	}()
	return func() error {
		e.t.Helper()
		select {
		case err := <-done:
			return err
		case <-time.After(Timeout + time.Second):
			e.timedOut("%s: no answer within %s", method, Timeout)
			return nil
		}
	}
}

// Initialize sends initialize and initialized for a workspace at root,
// announcing applyEdit (with document changes and resource operations) and
// the agent extension, and returns the result.
func (e *Editor) Initialize(root string, initOptions any) json.RawMessage {
	e.t.Helper()
	return e.InitializeWith(map[string]any{
		"processId":        os.Getpid(),
		"rootUri":          string(uri.File(root)),
		"workspaceFolders": []map[string]string{{"uri": string(uri.File(root)), "name": "ws"}},
		"capabilities": map[string]any{
			"workspace": map[string]any{
				"applyEdit":     true,
				"workspaceEdit": map[string]any{"documentChanges": true, "resourceOperations": []string{"create", "rename", "delete"}},
			},
			"window":       map[string]any{"workDoneProgress": true, "showDocument": map[string]any{"support": true}},
			"experimental": map[string]any{"agent": map[string]any{"version": 1}},
		},
		"initializationOptions": initOptions,
	})
}

// InitializeWith sends initialize with params, then initialized.
func (e *Editor) InitializeWith(params map[string]any) json.RawMessage {
	e.t.Helper()
	var res json.RawMessage
	e.MustCall("initialize", params, &res)
	e.Notify("initialized", map[string]any{})
	return res
}

// NewSession starts a session in cwd and returns its id.
func (e *Editor) NewSession(cwd string) string {
	e.t.Helper()
	var res schema.NewSessionResult
	e.MustCall("session/new", schema.NewSessionParams{Cwd: cwd, MCPServers: []schema.MCPServer{}}, &res)
	if res.SessionID == "" {
		e.t.Fatal("session/new returned no sessionId")
	}
	return res.SessionID
}

// Prompt sends a text prompt and returns the stop reason.
func (e *Editor) Prompt(sessionID, text string) (string, error) {
	e.t.Helper()
	var res schema.PromptResult
	err := e.Call("session/prompt", schema.PromptParams{SessionID: sessionID, Prompt: []schema.ContentBlock{schema.TextBlock(text)}}, &res)
	return res.StopReason, err
}

// Open opens a buffer with text (which may differ from the disk) and
// sends didOpen.
func (e *Editor) Open(path, text string) {
	e.t.Helper()
	e.mu.Lock()
	e.buffers[path] = &Buffer{Path: path, Text: text, Version: 1}
	e.mu.Unlock()
	e.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": string(uri.File(path)), "languageId": "plaintext", "version": 1, "text": text,
	}})
}

// Type replaces a buffer's whole text, as the user typing, and sends
// didChange.
func (e *Editor) Type(path, text string) {
	e.t.Helper()
	e.mu.Lock()
	b, ok := e.buffers[path]
	if !ok {
		e.mu.Unlock()
		e.t.Fatalf("Type: %s is not open", path)
	}
	b.Text, b.Dirty = text, true
	b.Version++
	v := b.Version
	e.mu.Unlock()
	e.Notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": string(uri.File(path)), "version": v},
		"contentChanges": []map[string]any{{"text": text}},
	})
}

// Buffer returns the editor's buffer of path.
func (e *Editor) Buffer(path string) (Buffer, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	b, ok := e.buffers[path]
	if !ok {
		return Buffer{}, false
	}
	return *b, true
}

// applyEdit applies a WorkspaceEdit to the buffers (opening files it
// touches, as editors do) and reports the changes with didChange.
func (e *Editor) applyEdit(params json.RawMessage) (any, error) {
	e.mu.Lock()
	e.edits = append(e.edits, params)
	override, fail := e.onApplyEdit, e.applyEditErr
	e.signal()
	e.mu.Unlock()
	if fail != nil {
		return nil, fail
	}
	if override != nil {
		applied, reason := override(params)
		return rpc.Raw(map[string]any{"applied": applied, "failureReason": reason})
	}
	var p struct {
		Label string `json:"label"`
		Edit  struct {
			Changes         map[string][]textEdit `json:"changes"`
			DocumentChanges []json.RawMessage     `json:"documentChanges"`
		} `json:"edit"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, err
	}
	for u, edits := range p.Edit.Changes {
		if err := e.applyTextEdits(u, nil, edits); err != nil {
			return rpc.Raw(map[string]any{"applied": false, "failureReason": err.Error()})
		}
	}
	for _, dc := range p.Edit.DocumentChanges {
		var op struct {
			Kind         string `json:"kind"`
			URI          string `json:"uri"`
			TextDocument struct {
				URI     string `json:"uri"`
				Version *int32 `json:"version"`
			} `json:"textDocument"`
			Edits []textEdit `json:"edits"`
		}
		if err := json.Unmarshal(dc, &op); err != nil {
			return nil, err
		}
		switch op.Kind {
		case "create":
			path := uri.URI(op.URI).FsPath()
			e.mu.Lock()
			if _, ok := e.buffers[path]; !ok {
				e.buffers[path] = &Buffer{Path: path, Version: 0}
			}
			e.mu.Unlock()
		case "":
			if err := e.applyTextEdits(op.TextDocument.URI, op.TextDocument.Version, op.Edits); err != nil {
				return rpc.Raw(map[string]any{"applied": false, "failureReason": err.Error()})
			}
		default:
			return rpc.Raw(map[string]any{"applied": false, "failureReason": "fake editor does not do " + op.Kind})
		}
	}
	return rpc.Raw(map[string]any{"applied": true})
}

type textEdit struct {
	Range struct {
		Start diffs.Position `json:"start"`
		End   diffs.Position `json:"end"`
	} `json:"range"`
	NewText string `json:"newText"`
}

func (e *Editor) applyTextEdits(u string, version *int32, edits []textEdit) error {
	path := uri.URI(u).FsPath()
	e.mu.Lock()
	b, open := e.buffers[path]
	if !open {
		text, err := os.ReadFile(path)
		if err != nil {
			e.mu.Unlock()
			return fmt.Errorf("opening %s: %v", path, err)
		}
		b = &Buffer{Path: path, Text: string(text), Version: 0}
		e.buffers[path] = b
	}
	if version != nil && *version != b.Version {
		e.mu.Unlock()
		return fmt.Errorf("%s is at version %d, the edit is for version %d", path, b.Version, *version)
	}
	te := make([]diffs.TextEdit, len(edits))
	for i, ed := range edits {
		te[i] = diffs.TextEdit{Start: ed.Range.Start, End: ed.Range.End, NewText: ed.NewText}
	}
	b.Text = diffs.Apply(b.Text, te)
	b.Dirty = true
	b.Version++
	v, text := b.Version, b.Text
	e.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	if v == 1 {
		return e.peer.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "plaintext", "version": v, "text": text}})
	}
	return e.peer.Notify(ctx, "textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": u, "version": v},
		"contentChanges": []map[string]any{{"text": text}},
	})
}

// Save writes a buffer to disk, as the user saving.
func (e *Editor) Save(path string) {
	e.t.Helper()
	b, ok := e.Buffer(path)
	if !ok {
		e.t.Fatalf("Save: %s is not open", path)
	}
	if err := os.WriteFile(path, []byte(b.Text), 0o644); err != nil {
		e.t.Fatal(err)
	}
	e.mu.Lock()
	e.buffers[path].Dirty = false
	e.mu.Unlock()
	e.Notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": string(uri.File(path))}, "text": b.Text})
}

// Notifications returns the notifications received so far.
func (e *Editor) Notifications() []Notification {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Notification(nil), e.notes...)
}

// Updates returns the session/update notifications received so far for
// a session.
func (e *Editor) Updates(sessionID string) []schema.Update {
	var out []schema.Update
	for _, n := range e.Notifications() {
		if n.Method != "session/update" {
			continue
		}
		var sn schema.SessionNotification
		if err := json.Unmarshal(n.Params, &sn); err != nil {
			e.t.Errorf("bad session/update %s: %v", n.Params, err)
			continue
		}
		if sn.SessionID == sessionID {
			out = append(out, sn.Update)
		}
	}
	return out
}

// Permissions returns the permission requests received so far.
func (e *Editor) Permissions() []schema.RequestPermissionParams {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]schema.RequestPermissionParams(nil), e.permissions...)
}

// Edits returns the params of the workspace/applyEdit requests so far.
func (e *Editor) Edits() []json.RawMessage {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]json.RawMessage(nil), e.edits...)
}

// Requests returns the methods of the server's requests so far.
func (e *Editor) Requests() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.requests...)
}

// timedOut fails the test for a wait that timed out, with the server's
// goroutines and stderr when it is a process.
func (e *Editor) timedOut(format string, args ...any) {
	e.t.Helper()
	msg := fmt.Sprintf(format, args...)
	if e.dump != nil {
		msg += "\nthe server's stderr, ending with its goroutines:\n" + e.dump()
	}
	e.t.Fatal(msg)
}

// WaitFor waits until cond holds, checking after every event, and fails
// the test with what after Timeout.
func (e *Editor) WaitFor(what string, cond func() bool) {
	e.t.Helper()
	deadline := time.After(Timeout)
	for {
		e.mu.Lock()
		ch := e.changed
		e.mu.Unlock()
		if cond() {
			return
		}
		select {
		case <-ch:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			e.timedOut("timed out after %s waiting for %s", Timeout, what)
		}
	}
}

// Transcript renders a session's updates as text, for golden files:
// message and thought text joined, tool calls one line each.
func (e *Editor) Transcript(sessionID string) string {
	var b strings.Builder
	last := ""
	for _, u := range e.Updates(sessionID) {
		kind := u.SessionUpdate
		switch kind {
		case schema.UpdateAgentMessageChunk, schema.UpdateAgentThoughtChunk, schema.UpdateUserMessageChunk:
			if kind != last {
				fmt.Fprintf(&b, "\n[%s] ", kind)
			}
			if u.Content != nil {
				b.WriteString(u.Content.Text)
			}
		case schema.UpdateToolCall, schema.UpdateToolCallUpdate:
			tc := u.ToolCall
			fmt.Fprintf(&b, "\n[%s] %s", kind, tc.ToolCallID)
			if tc.Title != "" {
				fmt.Fprintf(&b, " title=%q", tc.Title)
			}
			if tc.Kind != "" {
				fmt.Fprintf(&b, " kind=%s", tc.Kind)
			}
			if tc.Status != "" {
				fmt.Fprintf(&b, " status=%s", tc.Status)
			}
			for _, c := range tc.Content {
				if c.Type == "diff" {
					fmt.Fprintf(&b, " diff=%s", c.Path)
				}
			}
		default:
			fmt.Fprintf(&b, "\n[%s]", kind)
		}
		last = kind
	}
	return strings.TrimSpace(b.String()) + "\n"
}
