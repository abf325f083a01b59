package server

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/rpc"
	"github.com/agent-lsp/agent-lsp/schema"
)

// The plain-LSP door's session and its turns: one session at a time,
// started by the first prompt and replaced by agent.newSession; each turn
// reports through work done progress, log messages and the transcript,
// and ends with window/showMessage.

// session returns the door's session, starting one if needed. Callers
// hold d.mu.
func (d *plainDoor) session() (*engine.Session, *plainClient, error) {
	if d.sess != nil {
		return d.sess, d.client, nil
	}
	roots := d.lsp.workspaceRoots()
	cwd, err := os.Getwd()
	if len(roots) > 0 {
		cwd, err = roots[0], nil
	}
	if err != nil {
		return nil, nil, err
	}
	pc := &plainClient{editorDiagnostics: editorDiagnostics{d.lsp}, d: d}
	opts, _ := d.lsp.sessionOptions(cwd, nil)
	opts.Client = pc
	sess, err := d.lsp.c.service().NewSession(context.Background(), opts)
	if err != nil {
		return nil, nil, err
	}
	pc.setTranscript(newTranscript(filepath.Join(d.lsp.c.opts.TranscriptDir, sess.ID+".md"), d.lsp.c.logf))
	d.sess, d.client = sess, pc
	// The session's queued notices (settings problems, what an untrusted
	// folder holds back) go out as log messages.
	sess.AnnounceCommands(context.Background())
	return sess, pc, nil
}

// endSession lets the next prompt start a new session, unless a turn is
// running; the old session's transcript is closed.
func (d *plainDoor) endSession() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.running {
		return false
	}
	if d.client != nil {
		d.client.transcript().close()
	}
	d.sess, d.client = nil, nil
	return true
}

// progressCancel serves window/workDoneProgress/cancel: the user
// cancelled the running turn from its progress.
func (d *plainDoor) progressCancel(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p protocol.WorkDoneProgressCancelParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	d.mu.Lock()
	pc, cancel := d.client, d.cancel
	d.mu.Unlock()
	if pc != nil && cancel != nil && pc.ownsToken(p.Token) {
		cancel()
	}
	return nil, nil
}

// logMessage sends window/logMessage.
func (d *plainDoor) logMessage(ctx context.Context, typ protocol.MessageType, msg string) {
	if err := d.lsp.c.peer.Notify(ctx, "window/logMessage", protocol.LogMessageParams{Type: typ, Message: msg}); err != nil {
		d.lsp.c.logf("window/logMessage: %v", err)
	}
}

// nudge writes a log message (type 4, the quietest) while the editor has
// not answered one of our requests, for editors without our plugin: Emacs
// 28's eglot reads a request that came with the answer to one of its own
// synchronous requests only when we write again (rpc.Peer.Nudge).
func (d *plainDoor) nudge(ctx context.Context) {
	if !d.lsp.capabilities().agent {
		d.logMessage(ctx, protocol.MessageTypeLog, "agent: waiting for the editor's answer")
	}
}

// trail nudges an editor without our plugin after a turn's last message
// (rpc.NudgeAfter): eglot answers the command that started the turn
// synchronously, and a short turn's messages can all come in the read
// that holds that answer, where Emacs 28 leaves them until we write
// again. The next turn, the next trail or the connection's end stops it.
func (d *plainDoor) trail() {
	if d.lsp.capabilities().agent {
		return
	}
	stop := make(chan struct{})
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return
	}
	d.stopTrailLocked()
	d.trailing = stop
	d.turns.Add(1)
	d.mu.Unlock()
	go func() {
		defer d.turns.Done()
		rpc.NudgeAfter(context.Background(), stop, func(ctx context.Context) {
			d.logMessage(ctx, protocol.MessageTypeLog, "agent: idle")
		})
	}()
}

// stopTrailLocked stops the nudges after the last turn; d.mu is held.
func (d *plainDoor) stopTrailLocked() {
	if d.trailing != nil {
		close(d.trailing)
		d.trailing = nil
	}
}

// plainClient is the engine.Client of a plain-LSP session: updates become
// progress reports and transcript lines, permission requests become
// window/showMessageRequest.
type plainClient struct {
	// editorDiagnostics answers like the LSP door's client (wrap mode's
	// agent gets the wrapped server's diagnostics this way).
	editorDiagnostics
	d *plainDoor

	mu     sync.Mutex           // guards the fields below
	tr     *transcript          // set once the session exists (nil drops entries)
	token  string               // progress token of the running turn
	tools  map[string]plainStep // tool calls, by id
	answer strings.Builder      // the model's text since its last tool call
}

var (
	_ engine.Client            = (*plainClient)(nil)
	_ engine.StatusClient      = (*plainClient)(nil)
	_ engine.EditorDiagnostics = (*plainClient)(nil)
)

// transcript returns the session's transcript: nil until the session
// exists, as the engine may send updates while it starts it.
func (c *plainClient) transcript() *transcript {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tr
}

func (c *plainClient) setTranscript(t *transcript) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tr = t
}

// runTurn runs one prompt with progress, transcript and status messages,
// and calls free once the session is idle again, before announcing the
// end. The answer reaches every editor as window/showMessage (eglot 1.9
// has neither showDocument nor progress); the transcript is opened at the
// end of the turn, when it holds the answer.
func (c *plainClient) runTurn(ctx context.Context, sess *engine.Session, text string, prompt []schema.ContentBlock, free func()) {
	d := c.d
	c.mu.Lock()
	c.answer.Reset()
	c.mu.Unlock()
	c.beginProgress(ctx, text)
	c.transcript().append(fmt.Sprintf("\n\n## You (%s)\n\n%s\n", time.Now().Format("15:04"), strings.TrimSpace(text)), "user")
	d.logMessage(ctx, protocol.MessageTypeInfo, "agent: working on: "+firstLine(text))
	stop, err := sess.Prompt(ctx, prompt)
	free()
	ctx = context.WithoutCancel(ctx)
	msg := "agent: done (" + stop + ")"
	typ := protocol.MessageTypeInfo
	if err != nil {
		msg, typ = "agent: "+err.Error(), protocol.MessageTypeError
	}
	d.logMessage(ctx, typ, msg)
	c.transcript().append("\n\n_"+strings.TrimPrefix(msg, "agent: ")+"_\n", "end")
	c.endProgress(ctx, msg)
	if err := d.lsp.c.peer.Notify(ctx, "window/showMessage", protocol.ShowMessageParams{Type: typ, Message: c.finalMessage(msg)}); err != nil {
		d.lsp.c.logf("window/showMessage: %v", err)
	}
	c.transcript().show(ctx, d.lsp)
	d.trail()
}

// answerBudget bounds the answer shown in window/showMessage; the
// transcript holds all of it.
const answerBudget = 400

// finalMessage is the end of a turn as one message: the model's last
// answer, shortened, then how the turn ended and where the transcript is.
func (c *plainClient) finalMessage(end string) string {
	c.mu.Lock()
	answer := strings.TrimSpace(c.answer.String())
	c.mu.Unlock()
	if r := []rune(answer); len(r) > answerBudget {
		answer = strings.TrimSpace(string(r[:answerBudget])) + "…"
	}
	var b strings.Builder
	b.WriteString(end)
	if answer != "" {
		b.WriteString("\n\n" + answer)
	}
	if tr := c.transcript(); tr != nil {
		b.WriteString("\n\nTranscript: " + tr.path)
	}
	return b.String()
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	if len(line) > 80 {
		line = line[:80] + "…"
	}
	return line
}

// beginProgress creates a progress token and sends begin, when the client
// supports work done progress.
func (c *plainClient) beginProgress(ctx context.Context, title string) {
	lsp := c.d.lsp
	if !lsp.capabilities().workDoneProgress {
		return
	}
	token := "agent-" + uuid.NewString()
	if err := lsp.c.peer.Call(ctx, "window/workDoneProgress/create", protocol.WorkDoneProgressCreateParams{Token: protocol.String(token)}, nil); err != nil {
		lsp.c.logf("window/workDoneProgress/create: %v", err)
		return
	}
	c.mu.Lock()
	c.token = token
	c.mu.Unlock()
	cancellable, message := true, firstLine(title)
	c.progress(ctx, protocol.WorkDoneProgressBegin{Kind: "begin", Title: "Agent", Message: &message, Cancellable: &cancellable})
}

// progress sends a $/progress of the running turn: value is a
// protocol.WorkDoneProgressBegin, Report or End.
func (c *plainClient) progress(ctx context.Context, value any) {
	c.mu.Lock()
	token := c.token
	c.mu.Unlock()
	if token == "" {
		return
	}
	if err := c.d.lsp.c.peer.Notify(ctx, "$/progress", protocol.ProgressParams{Token: protocol.String(token), Value: lspAny(value)}); err != nil {
		c.d.lsp.c.logf("$/progress: %v", err)
	}
}

func (c *plainClient) endProgress(ctx context.Context, msg string) {
	c.progress(ctx, protocol.WorkDoneProgressEnd{Kind: "end", Message: &msg})
	c.mu.Lock()
	c.token = ""
	c.mu.Unlock()
}

// ownsToken reports whether token is the running turn's progress token.
func (c *plainClient) ownsToken(token protocol.ProgressToken) bool {
	tok, ok := token.(protocol.String)
	if !ok {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return tok != "" && string(tok) == c.token
}

// Update turns a session update into transcript text and progress.
func (c *plainClient) Update(ctx context.Context, sessionID string, u schema.Update) error {
	switch u.SessionUpdate {
	case schema.UpdateAgentMessageChunk:
		if u.Content != nil {
			c.transcript().append(u.Content.Text, "agent")
			c.mu.Lock()
			c.answer.WriteString(u.Content.Text)
			c.mu.Unlock()
		}
	case schema.UpdateUserMessageChunk: // a prompt that steers the turn
		if u.Content != nil {
			c.transcript().append(fmt.Sprintf("\n\n## You (%s, while the agent works)\n\n%s\n", time.Now().Format("15:04"), strings.TrimSpace(u.Content.Text)), "user")
		}
	case schema.UpdateToolCall, schema.UpdateToolCallUpdate:
		if u.SessionUpdate == schema.UpdateToolCall {
			// The answer is what the model says after its last call.
			c.mu.Lock()
			c.answer.Reset()
			c.mu.Unlock()
		}
		c.toolUpdate(ctx, u.ToolCall)
	case schema.UpdatePlan:
		var b strings.Builder
		b.WriteString("\n\n**Plan**\n")
		for _, e := range u.Entries {
			mark := " "
			if e.Status == "completed" {
				mark = "x"
			}
			fmt.Fprintf(&b, "- [%s] %s\n", mark, e.Content)
		}
		c.transcript().append(b.String(), "plan")
	}
	return nil
}

// toolUpdate reports a tool call's step in the progress and transcript.
func (c *plainClient) toolUpdate(ctx context.Context, tc *schema.ToolCall) {
	c.mu.Lock()
	if c.tools == nil {
		c.tools = make(map[string]plainStep)
	}
	st := c.tools[tc.ToolCallID]
	if tc.Title != "" {
		st.title = shorten(c.d.lsp.workspaceRoots(), tc.Title)
	}
	if tc.Kind != "" {
		st.kind = tc.Kind
	}
	if name := tc.ToolName(); name != "" {
		st.tool = name
	}
	c.tools[tc.ToolCallID] = st
	title := st.title
	c.mu.Unlock()
	switch tc.Status {
	case schema.StatusInProgress:
		step := st.name()
		c.progress(ctx, protocol.WorkDoneProgressReport{Kind: "report", Message: &step})
		c.transcript().append("\n\n- "+schema.InlineCode(title), "tool") // a Bash title holds backticks
	case schema.StatusFailed:
		c.transcript().append(" — failed", "tool")
	case schema.StatusCompleted:
		c.transcript().append(" — done", "tool")
	}
}

// shorten makes the paths of a title relative to the workspace roots.
func shorten(roots []string, title string) string {
	for _, r := range roots {
		title = strings.ReplaceAll(title, r+string(filepath.Separator), "")
	}
	return title
}

// plainStep is what the plain door knows of a tool call.
type plainStep struct {
	title string // shortened
	kind  string // the ACP tool kind
	tool  string // the tool's name
}

// kindSteps are the progress verbs of the tool kinds.
var kindSteps = map[string]string{
	schema.KindRead: "Reading", schema.KindEdit: "Editing", schema.KindSearch: "Searching",
	schema.KindExecute: "Running", schema.KindThink: "Planning", schema.KindFetch: "Fetching",
}

// name describes the call as a progress step: "Reading calc.py" for a
// call titled "Read calc.py", by the kind of the tool, whose name the
// title starts with.
func (st plainStep) name() string {
	ing, ok := kindSteps[st.kind]
	if !ok || st.tool == "" {
		return st.title
	}
	if st.title == st.tool {
		return ing
	}
	if rest, ok := strings.CutPrefix(st.title, st.tool+" "); ok {
		return ing + " " + rest
	}
	return st.title
}

// Status shows notices as log messages.
func (c *plainClient) Status(ctx context.Context, sessionID string, st engine.Status) error {
	typ := protocol.MessageTypeInfo
	if st.Kind == engine.StatusWarning {
		typ = protocol.MessageTypeWarning
	}
	c.d.logMessage(ctx, typ, "agent: "+st.Message)
	return nil
}
