package wrap

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/procgroup"
	"github.com/agent-lsp/agent-lsp/rpc"
	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/workspace"
)

// wrapAnswerWait bounds how long a merged request (codeAction, shutdown)
// waits for a real server that does not answer.
const wrapAnswerWait = 3 * time.Second

// wrapMaxRestarts bounds the restarts of a crashing real server.
const wrapMaxRestarts = 5

// startTimeoutWrap bounds the wait for the real server's initialize.
const startTimeoutWrap = 60 * time.Second

// frameIO reads and writes whole frames; jsonrpc2's header stream
// implements it.
type frameIO interface {
	ReadFrame(ctx context.Context) ([]byte, int64, error)
	WriteFrame(ctx context.Context, data []byte) (int64, error)
	Close() error
}

// envelope is what the proxy reads of a frame.
type envelope struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *wireError      `json:"error,omitempty"`
}

type wireError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e envelope) key() string { return string(bytes.TrimSpace(e.ID)) }

func (e envelope) isResponse() bool { return e.Method == "" && len(e.ID) > 0 }

// wrapper is one wrap-mode connection.
type wrapper struct {
	argv []string
	door *server.PlainAgent // the agent, served in process
	logf func(string, ...any)
	ctx  context.Context

	editor   frameIO
	editorMu sync.Mutex // serializes writes to the editor

	agent     jsonrpc2.Conn
	agentDone chan int // the agent door's exit code

	docs  *workspace.Overlay // the editor's documents, for restarts and versions
	diags *diagStore

	bg sync.WaitGroup // request handlers in flight

	mu         sync.Mutex
	real       *realServer              // the running server; nil while (re)starting, guarded by mu
	queued     [][]byte                 // frames for the real server while it restarts, guarded by mu
	intercepts map[string]chan envelope // real server responses to hold back, by id, guarded by mu
	forwarded  map[string]bool          // editor requests the real server has to answer, guarded by mu
	agentCalls map[string]chan envelope // editor responses to the agent's requests, guarded by mu
	seq        int                      // for the proxy's own ids, guarded by mu
	initParams json.RawMessage          // the editor's initialize params, guarded by mu
	restarts   int                      // guarded by mu
	stopping   bool                     // shutdown or exit was sent, guarded by mu
	exitCode   int                      // guarded by mu
	agentCmds  []string                 // commands the agent serves, guarded by mu
}

// realServer is one run of the wrapped server's process.
type realServer struct {
	cmd    *exec.Cmd
	io     frameIO
	mu     sync.Mutex    // serializes writes
	exited chan struct{} // closed when the process ended
}

// Serve serves an editor on rwc in wrap mode around the language server
// argv, until the editor exits or the stream ends; the agent is the plain
// door configured by opts. It returns the process exit code (0 after
// shutdown and exit).
func Serve(ctx context.Context, rwc io.ReadWriteCloser, argv []string, opts server.Options) int {
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	w := &wrapper{
		argv:       argv,
		door:       server.NewPlainAgent(opts),
		logf:       opts.Logf,
		ctx:        ctx,
		editor:     jsonrpc2.NewHeaderStream(rwc).(frameIO),
		docs:       workspace.NewOverlay(),
		diags:      newDiagStore(),
		intercepts: map[string]chan envelope{},
		forwarded:  map[string]bool{},
		agentCalls: map[string]chan envelope{},
		agentDone:  make(chan int, 1),
		exitCode:   1,
	}
	if len(argv) == 0 {
		w.logf("--wrap needs the language server's command after --")
		return 2
	}
	if err := w.startReal(); err != nil {
		w.logf("%v", err)
		return 1
	}
	w.startAgent(ctx)
	w.readEditor(ctx)
	return w.finish()
}

// agentCall calls the agent, cancelling the call when ctx ends.
func (w *wrapper) agentCall(ctx context.Context, method string, params, result any) error {
	return rpc.Peer{Conn: w.agent}.Call(ctx, method, params, result)
}

// startAgent runs the agent's LSP door in process, on a pipe.
func (w *wrapper) startAgent(ctx context.Context) {
	a, b := net.Pipe()
	go func() { w.agentDone <- w.door.Serve(ctx, a) }() // owned: ends when b closes (finish)
	w.agent = jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(b))
	w.agent.Go(ctx, w.fromAgent)
}

// startReal starts the wrapped server and the goroutine that forwards its
// messages.
func (w *wrapper) startReal() error {
	r, err := w.spawnReal()
	if err != nil {
		return fmt.Errorf("starting the wrapped language server %s: %w", w.argv[0], err)
	}
	w.mu.Lock()
	w.real = r
	w.mu.Unlock()
	w.bg.Go(func() { w.readReal(r) })
	return nil
}

// spawnReal starts the wrapped server's process, in a process group of
// its own, with its stdio as a framed stream.
func (w *wrapper) spawnReal() (*realServer, error) {
	cmd := exec.Command(w.argv[0], w.argv[1:]...)
	cmd.Stderr = os.Stderr
	procgroup.Set(cmd)
	cmd.WaitDelay = 2 * time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &realServer{
		cmd: cmd,
		io: jsonrpc2.NewHeaderStream(struct {
			io.Reader
			io.WriteCloser
		}{stdout, stdin}).(frameIO),
		exited: make(chan struct{}),
	}, nil
}

// toEditor writes a frame to the editor.
func (w *wrapper) toEditor(frame []byte) {
	w.editorMu.Lock()
	defer w.editorMu.Unlock()
	if _, err := w.editor.WriteFrame(context.Background(), frame); err != nil {
		w.logf("wrap: writing to the editor: %v", err)
	}
}

// toReal writes a frame to the real server, or queues it while the
// server restarts.
func (w *wrapper) toReal(frame []byte) {
	w.mu.Lock()
	r := w.real
	if r == nil {
		w.queued = append(w.queued, frame)
		w.mu.Unlock()
		return
	}
	w.mu.Unlock()
	r.write(frame)
}

func (r *realServer) write(frame []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, _ = r.io.WriteFrame(context.Background(), frame)
}

func marshalFrame(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// respond writes a response to an editor request.
func (w *wrapper) respond(id json.RawMessage, result any, rerr *wireError) {
	msg := map[string]any{"jsonrpc": "2.0", "id": id}
	if rerr != nil {
		msg["error"] = rerr
	} else {
		if result == nil {
			result = json.RawMessage("null")
		}
		msg["result"] = result
	}
	w.toEditor(marshalFrame(msg))
}

// readEditor forwards the editor's messages until its stream ends or it
// sends exit.
func (w *wrapper) readEditor(ctx context.Context) {
	for {
		raw, _, err := w.editor.ReadFrame(ctx)
		if err != nil {
			if err != io.EOF {
				w.logf("wrap: reading from the editor: %v", err)
			}
			return
		}
		frame := bytes.Clone(raw)
		var env envelope
		if err := json.Unmarshal(frame, &env); err != nil {
			w.toReal(frame) // not ours to judge
			continue
		}
		if env.isResponse() {
			w.mu.Lock()
			ch, ours := w.agentCalls[env.key()]
			delete(w.agentCalls, env.key())
			w.mu.Unlock()
			if ours {
				ch <- env
			} else {
				w.toReal(frame)
			}
			continue
		}
		if w.fromEditor(ctx, frame, env) {
			return
		}
	}
}

// agentCommand reports whether an executeCommand is the agent's.
func (w *wrapper) agentCommand(params json.RawMessage) bool {
	var p struct {
		Command string `json:"command"`
	}
	_ = json.Unmarshal(params, &p)
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Contains(w.agentCmds, p.Command) || slices.Contains(w.door.Commands(), p.Command)
}

// fromEditor routes one request or notification; it reports true after
// exit.
func (w *wrapper) fromEditor(ctx context.Context, frame []byte, env envelope) (exit bool) {
	switch env.Method {
	case "initialize":
		w.mu.Lock()
		w.initParams = env.Params
		w.mu.Unlock()
		ch := w.intercept(env.key())
		w.toReal(frame)
		w.bg.Go(func() { w.initialize(ctx, env, ch) })
	case "textDocument/codeAction":
		ch := w.intercept(env.key())
		w.toReal(frame)
		w.bg.Go(func() { w.codeAction(ctx, env, ch) })
	case "workspace/executeCommand":
		if !w.agentCommand(env.Params) {
			w.forward(frame, env)
			break
		}
		w.bg.Go(func() {
			var res json.RawMessage
			if err := w.agentCall(ctx, env.Method, env.Params, &res); err != nil {
				w.respond(env.ID, nil, toWireError(err))
				return
			}
			w.respond(env.ID, res, nil)
		})
	case "shutdown":
		w.mu.Lock()
		w.stopping = true
		w.mu.Unlock()
		ch := w.intercept(env.key())
		w.toReal(frame)
		w.bg.Go(func() { w.shutdown(ctx, env, ch) })
	case "exit":
		w.mu.Lock()
		w.stopping = true
		w.mu.Unlock()
		w.toReal(frame)
		_ = w.agent.Notify(ctx, "exit", nil)
		return true
	case "textDocument/didOpen", "textDocument/didChange", "textDocument/didClose", "textDocument/didSave":
		w.track(env)
		w.toReal(frame)
		_ = w.agent.Notify(ctx, env.Method, env.Params)
	case "initialized", "window/workDoneProgress/cancel", "workspace/didChangeWorkspaceFolders":
		w.toReal(frame)
		_ = w.agent.Notify(ctx, env.Method, env.Params)
	default:
		w.forward(frame, env)
	}
	return false
}

// forward passes a frame to the real server, remembering requests it has
// to answer.
func (w *wrapper) forward(frame []byte, env envelope) {
	if len(env.ID) > 0 {
		w.mu.Lock()
		w.forwarded[env.key()] = true
		w.mu.Unlock()
	}
	w.toReal(frame)
}

// intercept holds back the real server's response to request id.
func (w *wrapper) intercept(id string) chan envelope {
	ch := make(chan envelope, 1)
	w.mu.Lock()
	w.intercepts[id] = ch
	w.mu.Unlock()
	return ch
}

// awaitReal waits for an intercepted response, at most wait; it stops
// holding it back when it gives up.
func (w *wrapper) awaitReal(ctx context.Context, id string, ch chan envelope, wait time.Duration) (envelope, bool) {
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case env, ok := <-ch:
		return env, ok // closed: the server exited
	case <-t.C:
	case <-ctx.Done():
	}
	w.mu.Lock()
	delete(w.intercepts, id)
	w.mu.Unlock()
	return envelope{}, false
}

// readReal forwards the real server's messages to the editor until it
// exits, then restarts it unless the editor is shutting down.
func (w *wrapper) readReal(r *realServer) {
	for {
		raw, _, err := r.io.ReadFrame(context.Background())
		if err != nil {
			break
		}
		frame := bytes.Clone(raw)
		var env envelope
		if json.Unmarshal(frame, &env) == nil {
			if env.isResponse() {
				w.mu.Lock()
				ch, held := w.intercepts[env.key()]
				delete(w.intercepts, env.key())
				delete(w.forwarded, env.key())
				w.mu.Unlock()
				if held {
					ch <- env
					continue
				}
			} else if env.Method == "textDocument/publishDiagnostics" {
				w.diags.publish(env.Params)
			}
		}
		w.toEditor(frame)
	}
	err := r.cmd.Wait()
	close(r.exited)
	w.crashed(r, err)
}

// crashed handles the end of the real server's process.
func (w *wrapper) crashed(r *realServer, err error) {
	w.mu.Lock()
	if w.real == r {
		w.real = nil
	}
	stopping := w.stopping
	pending := w.forwarded
	w.forwarded = map[string]bool{}
	held := w.intercepts
	w.intercepts = map[string]chan envelope{}
	w.restarts++
	n := w.restarts
	w.mu.Unlock()
	if stopping {
		return
	}
	// The requests it will never answer get an error.
	for id := range pending {
		w.respond(json.RawMessage(id), nil, &wireError{Code: int64(jsonrpc2.InternalError), Message: "the language server exited before answering"})
	}
	for _, ch := range held {
		close(ch)
	}
	name := w.argv[0]
	if n > wrapMaxRestarts {
		msg := fmt.Sprintf("agent-lsp: the language server %s exited (%v) %d times; not restarting it", name, err, n)
		w.logf("%s", msg)
		w.notifyEditor("window/showMessage", map[string]any{"type": 1, "message": msg})
		return
	}
	msg := fmt.Sprintf("agent-lsp: the language server %s exited (%v); restarting it", name, err)
	w.logf("%s", msg)
	w.notifyEditor("window/showMessage", map[string]any{"type": 2, "message": msg})
	if err := w.restart(); err != nil {
		w.logf("wrap: %v", err)
		w.notifyEditor("window/showMessage", map[string]any{"type": 1, "message": "agent-lsp: " + err.Error()})
	}
}

// restart starts the real server again, initializes it with the editor's
// initialize, reopens the documents, then sends what was queued.
func (w *wrapper) restart() error {
	w.mu.Lock()
	params := w.initParams
	w.mu.Unlock()
	// Hold frames for the new server until it is initialized.
	r, err := w.spawnReal()
	if err != nil {
		return fmt.Errorf("restarting the language server %s: %w", w.argv[0], err)
	}
	if params != nil {
		id := w.ownID("restart")
		ch := w.intercept(id)
		w.bg.Go(func() { w.readReal(r) })
		r.write(marshalFrame(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "method": "initialize", "params": params}))
		if _, ok := w.awaitReal(w.ctx, id, ch, startTimeoutWrap); !ok {
			return fmt.Errorf("the restarted language server %s did not answer initialize", w.argv[0])
		}
		r.write(marshalFrame(map[string]any{"jsonrpc": "2.0", "method": "initialized", "params": map[string]any{}}))
		for _, path := range w.docs.Paths() {
			text, _ := w.docs.Get(path)
			v, _ := w.docs.Version(path)
			r.write(marshalFrame(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": map[string]any{
				"textDocument": map[string]any{"uri": uri.File(path), "languageId": w.diags.languageID(path), "version": v, "text": text},
			}}))
		}
	} else {
		w.bg.Go(func() { w.readReal(r) })
	}
	w.mu.Lock()
	queued := w.queued
	w.queued = nil
	w.real = r
	w.mu.Unlock()
	for _, f := range queued {
		var env envelope
		if json.Unmarshal(f, &env) == nil && strings.HasPrefix(env.Method, "textDocument/did") {
			continue // the reopened documents hold these changes
		}
		r.write(f)
	}
	return nil
}

// ownID returns a fresh id of the proxy's own ("agent-lsp:<what>:N").
func (w *wrapper) ownID(what string) string {
	w.mu.Lock()
	w.seq++
	n := w.seq
	w.mu.Unlock()
	return fmt.Sprintf("%q", fmt.Sprintf("agent-lsp:%s:%d", what, n))
}

func (w *wrapper) notifyEditor(method string, params any) {
	w.toEditor(marshalFrame(map[string]any{"jsonrpc": "2.0", "method": method, "params": params}))
}

// track keeps the editor's documents (for restarts and agent/diagnostics).
func (w *wrapper) track(env envelope) {
	var p struct {
		TextDocument struct {
			URI        string `json:"uri"`
			LanguageID string `json:"languageId"`
			Version    int32  `json:"version"`
			Text       string `json:"text"`
		} `json:"textDocument"`
		ContentChanges []struct {
			Range *protocol.Range `json:"range"`
			Text  string          `json:"text"`
		} `json:"contentChanges"`
		Text *string `json:"text"`
	}
	if json.Unmarshal(env.Params, &p) != nil {
		return
	}
	path, err := documentPath(env.Method, p.TextDocument.URI)
	if err != nil {
		return
	}
	switch env.Method {
	case "textDocument/didOpen":
		w.docs.Open(path, p.TextDocument.Text, p.TextDocument.Version)
		w.diags.opened(path, p.TextDocument.LanguageID, p.TextDocument.Version)
	case "textDocument/didChange":
		changes := make([]workspace.Change, 0, len(p.ContentChanges))
		for _, c := range p.ContentChanges {
			ch := workspace.Change{Text: c.Text}
			if c.Range != nil {
				ch.Range = &workspace.Range{Start: toDiffsPos(c.Range.Start), End: toDiffsPos(c.Range.End)}
			}
			changes = append(changes, ch)
		}
		_ = w.docs.Change(path, p.TextDocument.Version, changes)
		w.diags.changed(path, p.TextDocument.Version)
	case "textDocument/didClose":
		w.docs.Close(path)
	case "textDocument/didSave":
		w.docs.Saved(path, p.Text)
	}
}

// initialize answers the editor's initialize with the real server's
// result and the agent's code actions and commands merged in.
func (w *wrapper) initialize(ctx context.Context, env envelope, ch chan envelope) {
	agentParams := agentInitParams(env.Params)
	var agentRes json.RawMessage
	agentErr := w.agentCall(ctx, "initialize", agentParams, &agentRes)
	if agentErr != nil {
		w.logf("wrap: the agent's initialize failed: %v", agentErr)
	}
	real, ok := w.awaitReal(ctx, env.key(), ch, startTimeoutWrap)
	if !ok {
		w.respond(env.ID, nil, &wireError{Code: int64(jsonrpc2.InternalError), Message: "the language server exited or did not answer initialize"})
		return
	}
	if real.Error != nil || agentErr != nil {
		w.respond(env.ID, real.Result, real.Error)
		return
	}
	merged, cmds, err := mergeInitialize(real.Result, agentRes)
	if err != nil {
		w.logf("wrap: merging capabilities: %v", err)
		merged = real.Result
	}
	w.mu.Lock()
	w.agentCmds = cmds
	w.mu.Unlock()
	w.respond(env.ID, merged, nil)
}

// agentInitParams are the editor's initialize params as the agent gets
// them: without the real server's initializationOptions, and announcing
// that agent/diagnostics is answered (from the real server's
// diagnostics).
func agentInitParams(params json.RawMessage) json.RawMessage {
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil {
		return params
	}
	delete(p, "initializationOptions")
	var caps map[string]json.RawMessage
	_ = json.Unmarshal(p["capabilities"], &caps)
	if caps == nil {
		caps = map[string]json.RawMessage{}
	}
	var exp map[string]json.RawMessage
	_ = json.Unmarshal(caps["experimental"], &exp)
	if exp == nil {
		exp = map[string]json.RawMessage{}
	}
	exp[server.DiagnosticsCapability] = json.RawMessage("{}")
	caps["experimental"], _ = json.Marshal(exp)
	p["capabilities"], _ = json.Marshal(caps)
	out, _ := json.Marshal(p)
	return out
}

// mergeInitialize merges the agent's capabilities into the real server's
// initialize result: the union of features, code actions on, the agent's
// commands added. It returns the agent's commands.
func mergeInitialize(real, agent json.RawMessage) (json.RawMessage, []string, error) {
	var r, a map[string]json.RawMessage
	if err := json.Unmarshal(real, &r); err != nil {
		return nil, nil, err
	}
	if err := json.Unmarshal(agent, &a); err != nil {
		return nil, nil, err
	}
	var rc, ac map[string]json.RawMessage
	_ = json.Unmarshal(r["capabilities"], &rc)
	_ = json.Unmarshal(a["capabilities"], &ac)
	if rc == nil {
		rc = map[string]json.RawMessage{}
	}
	// Features only the agent has are added; the real server's stay as
	// they are (its document sync above all).
	for k, v := range ac {
		if _, ok := rc[k]; !ok && k != "experimental" {
			rc[k] = v
		}
	}
	// Code actions: on, with the agent's kinds when kinds are listed.
	var realCA map[string]json.RawMessage
	if json.Unmarshal(rc["codeActionProvider"], &realCA) == nil && realCA != nil {
		var kinds []string
		if raw, ok := realCA["codeActionKinds"]; ok && json.Unmarshal(raw, &kinds) == nil {
			for _, k := range []string{"quickfix", "refactor", "refactor.rewrite"} {
				if !slices.Contains(kinds, k) {
					kinds = append(kinds, k)
				}
			}
			realCA["codeActionKinds"], _ = json.Marshal(kinds)
			rc["codeActionProvider"], _ = json.Marshal(realCA)
		}
	} else if string(rc["codeActionProvider"]) != "true" {
		rc["codeActionProvider"] = ac["codeActionProvider"]
	}
	// Commands: the union.
	type cmds struct {
		Commands []string `json:"commands"`
	}
	var realCmds, agentCmds cmds
	_ = json.Unmarshal(ac["executeCommandProvider"], &agentCmds)
	var realExec map[string]json.RawMessage
	_ = json.Unmarshal(rc["executeCommandProvider"], &realExec)
	if realExec == nil {
		realExec = map[string]json.RawMessage{}
	}
	_ = json.Unmarshal(rc["executeCommandProvider"], &realCmds)
	all := realCmds.Commands
	for _, c := range agentCmds.Commands {
		if !slices.Contains(all, c) {
			all = append(all, c)
		}
	}
	realExec["commands"], _ = json.Marshal(all)
	rc["executeCommandProvider"], _ = json.Marshal(realExec)
	r["capabilities"], _ = json.Marshal(rc)
	out, err := json.Marshal(r)
	return out, agentCmds.Commands, err
}

// codeAction answers with the real server's actions followed by the
// agent's. A real server that does not answer in time leaves the agent's
// alone.
func (w *wrapper) codeAction(ctx context.Context, env envelope, ch chan envelope) {
	var agentActions []json.RawMessage
	if err := w.agentCall(ctx, env.Method, env.Params, &agentActions); err != nil {
		w.logf("wrap: the agent's code actions: %v", err)
	}
	real, ok := w.awaitReal(ctx, env.key(), ch, wrapAnswerWait)
	if ok && real.Error != nil {
		if len(agentActions) == 0 {
			w.respond(env.ID, nil, real.Error)
			return
		}
		ok = false
	}
	var actions []json.RawMessage
	if ok {
		_ = json.Unmarshal(real.Result, &actions)
	}
	actions = append(actions, agentActions...)
	if actions == nil {
		w.respond(env.ID, json.RawMessage("null"), nil)
		return
	}
	w.respond(env.ID, actions, nil)
}

// shutdown shuts both down and answers the editor once both did (or the
// real server failed to answer in time).
func (w *wrapper) shutdown(ctx context.Context, env envelope, ch chan envelope) {
	if err := w.agentCall(ctx, "shutdown", nil, nil); err != nil {
		w.logf("wrap: the agent's shutdown: %v", err)
	}
	real, ok := w.awaitReal(ctx, env.key(), ch, wrapAnswerWait)
	w.mu.Lock()
	w.exitCode = 0
	w.mu.Unlock()
	if ok && real.Error != nil {
		w.respond(env.ID, nil, real.Error)
		return
	}
	w.respond(env.ID, nil, nil)
}

// fromAgent forwards the agent's requests and notifications to the
// editor, and answers agent/diagnostics from the real server's.
func (w *wrapper) fromAgent(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	method, params := strings.Clone(req.Method()), json.RawMessage(bytes.Clone(req.Params()))
	if method == "agent/diagnostics" {
		jsonrpc2.Async(ctx)
		var p diagnosticsParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, jsonrpc2.ErrInvalidParams
		}
		return w.diags.answer(ctx, p, w.docs), nil
	}
	if !req.IsCall() {
		w.notifyEditor(method, params)
		return nil, nil
	}
	jsonrpc2.Async(ctx)
	id := w.ownID("req")
	ch := make(chan envelope, 1)
	w.mu.Lock()
	w.agentCalls[id] = ch
	w.mu.Unlock()
	w.toEditor(marshalFrame(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "method": method, "params": params}))
	select {
	case env := <-ch:
		if env.Error != nil {
			return nil, jsonrpc2.NewError(jsonrpc2.Code(env.Error.Code), env.Error.Message)
		}
		if len(env.Result) == 0 {
			return nil, nil
		}
		return env.Result, nil
	case <-ctx.Done():
		w.mu.Lock()
		delete(w.agentCalls, id)
		w.mu.Unlock()
		w.notifyEditor("$/cancelRequest", map[string]any{"id": json.RawMessage(id)})
		return nil, ctx.Err()
	}
}

// finish stops the agent and the real server and returns the exit code.
func (w *wrapper) finish() int {
	w.mu.Lock()
	exitSent := w.stopping
	w.stopping = true
	r := w.real
	code := w.exitCode
	w.mu.Unlock()
	if r != nil {
		if exitSent {
			// It got exit: give it a moment to end on its own.
			select {
			case <-r.exited:
			case <-time.After(wrapAnswerWait):
			}
		}
		select {
		case <-r.exited:
		default:
			procgroup.KillCmd(r.cmd)
		}
	}
	_ = w.agent.Close()
	select {
	case <-w.agentDone:
	case <-time.After(10 * time.Second):
		w.logf("wrap: the agent did not stop")
	}
	w.bg.Wait()
	return code
}

func toWireError(err error) *wireError {
	if e, ok := err.(*jsonrpc2.Error); ok {
		return &wireError{Code: int64(e.Code), Message: e.Message}
	}
	return &wireError{Code: int64(jsonrpc2.InternalError), Message: err.Error()}
}
