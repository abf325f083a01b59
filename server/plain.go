package server

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/diffs"
	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/schema"
)

// The plain-LSP door serves editors that have no agent plugin (Helix,
// Kate, eglot, vanilla Neovim) with standard LSP 3.17 messages only: code
// actions and commands start turns, progress shows what the agent does,
// window/showMessageRequest asks for approvals, workspace/applyEdit makes
// the edits and a markdown transcript (opened with window/showDocument)
// holds the whole exchange. It is offered to clients that did not announce
// experimental.agent.

func init() {
	lspMethods.register("textDocument/codeAction", (*Server).codeAction)
	lspMethods.register("workspace/executeCommand", (*Server).executeCommand)
	lspMethods.register("window/workDoneProgress/cancel", (*Server).progressCancel)
}

// Commands of the plain-LSP door.
const (
	cmdPrompt     = "agent.prompt"
	cmdCancel     = "agent.cancel"
	cmdNewSession = "agent.newSession"
)

var plainCommands = []string{cmdPrompt, cmdCancel, cmdNewSession}

// plainDoor is the state of the plain-LSP door of a connection: one
// session at a time and the turn running in it.
type plainDoor struct {
	mu      sync.Mutex
	sess    *engine.Session    // guarded by mu
	client  *plainClient       // of sess, guarded by mu
	cancel  context.CancelFunc // of the running turn, guarded by mu
	ctx     context.Context    // of the running turn, guarded by mu
	running bool               // guarded by mu
	// steering counts the prompts sent into the running turn that have
	// not returned yet, guarded by mu. The turn is not over for the
	// door until they have: one that came as the engine's turn ended
	// runs as a turn of its own, under the same turn context.
	steering int
	idle     *sync.Cond // signalled when steering drops, L is &mu
	turns    sync.WaitGroup
}

type codeActionParams struct {
	TextDocument struct {
		URI string `json:"uri"`
	} `json:"textDocument"`
	Range   lspRange `json:"range"`
	Context struct {
		// TriggerKind is 1 when the user asked for code actions, 2 when
		// the editor asked on its own (cursor rest).
		TriggerKind int `json:"triggerKind"`
		Diagnostics []struct {
			Range    lspRange `json:"range"`
			Message  string   `json:"message"`
			Source   string   `json:"source"`
			Severity int      `json:"severity"`
		} `json:"diagnostics"`
	} `json:"context"`
}

type command struct {
	Title     string `json:"title"`
	Command   string `json:"command"`
	Arguments []any  `json:"arguments,omitempty"`
}

type codeAction struct {
	Title       string   `json:"title"`
	Kind        string   `json:"kind"`
	Command     *command `json:"command,omitempty"`
	IsPreferred bool     `json:"isPreferred,omitempty"`
}

func (s *Server) codeAction(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p codeActionParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	path, err := documentPath(req.Method(), p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	actions := []codeAction{}
	if p.Context.TriggerKind == triggerAutomatic && len(p.Context.Diagnostics) == 0 {
		// Editors ask on every cursor rest: without a problem to fix,
		// offering the agent there would put a lightbulb on every line.
		// An automatic request with diagnostics gets their fixes only.
		return actions, nil
	}
	rel := s.relative(path)
	for _, d := range p.Context.Diagnostics {
		prompt := fmt.Sprintf("Fix this problem in %s at line %d: %s", rel, d.Range.Start.Line+1, d.Message)
		if d.Source != "" {
			prompt += " (reported by " + d.Source + ")"
		}
		actions = append(actions, codeAction{
			Title:       "Agent: fix this",
			Kind:        "quickfix",
			IsPreferred: false,
			Command:     &command{Title: "Agent: fix this", Command: cmdPrompt, Arguments: []any{prompt, p.TextDocument.URI, d.Range}},
		})
	}
	if p.Range.Start != p.Range.End && p.Context.TriggerKind != triggerAutomatic {
		where := fmt.Sprintf("%s, lines %d-%d", rel, p.Range.Start.Line+1, p.Range.End.Line+1)
		for _, a := range []struct{ title, kind, prompt string }{
			{"Agent: explain", "refactor", "Explain the selected code in " + where + "."},
			{"Agent: refactor…", "refactor.rewrite", "Refactor the selected code in " + where + " to be clearer and simpler, without changing its behaviour."},
			{"Agent: write tests", "refactor", "Write tests for the selected code in " + where + ", in the project's test style, and run them."},
		} {
			actions = append(actions, codeAction{Title: a.title, Kind: a.kind, Command: &command{Title: a.title, Command: cmdPrompt, Arguments: []any{a.prompt, p.TextDocument.URI, p.Range}}})
		}
	}
	if p.Context.TriggerKind == triggerAutomatic {
		return actions, nil
	}
	return append(actions, s.plainControls()...), nil
}

// triggerAutomatic is CodeActionTriggerKind.Automatic.
const triggerAutomatic = 2

// plainControls are the actions that control the agent itself: cancel
// the running turn, or start a new session once there is one.
func (s *Server) plainControls() []codeAction {
	d := &s.plain
	d.mu.Lock()
	running, started := d.running, d.sess != nil
	d.mu.Unlock()
	var title, cmd string
	switch {
	case running:
		title, cmd = "Agent: cancel", cmdCancel
	case started:
		title, cmd = "Agent: new session", cmdNewSession
	default:
		return nil
	}
	return []codeAction{{Title: title, Kind: "quickfix", Command: &command{Title: title, Command: cmd}}}
}

func (s *Server) relative(path string) string {
	s.mu.Lock()
	roots := s.roots
	s.mu.Unlock()
	for _, r := range roots {
		if rel, err := filepath.Rel(r, path); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
	}
	return path
}

type executeCommandParams struct {
	Command   string            `json:"command"`
	Arguments []json.RawMessage `json:"arguments"`
}

func (s *Server) executeCommand(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p executeCommandParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	switch p.Command {
	case cmdPrompt:
		return nil, s.plainPrompt(p.Arguments)
	case cmdCancel:
		s.plain.mu.Lock()
		cancel := s.plain.cancel
		s.plain.mu.Unlock()
		if cancel != nil {
			cancel()
		}
		return nil, nil
	case cmdNewSession:
		s.plain.mu.Lock()
		busy := s.plain.running
		if !busy {
			s.plain.sess = nil
		}
		s.plain.mu.Unlock()
		if busy {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "agent.newSession: a turn is running; cancel it first (agent.cancel)")
		}
		s.logMessage(context.WithoutCancel(ctx), 3, "agent: new session started")
		return nil, nil
	}
	return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "workspace/executeCommand: unknown command %q (want one of %s)", p.Command, strings.Join(plainCommands, ", "))
}

// plainPrompt starts a turn from agent.prompt's arguments: the prompt,
// then optionally a document URI and a range the prompt is about. The
// command returns at once; the turn runs in the background, reporting
// through progress, the transcript and log messages.
func (s *Server) plainPrompt(args []json.RawMessage) error {
	var text, docURI string
	var rng *lspRange
	if len(args) == 0 || json.Unmarshal(args[0], &text) != nil || strings.TrimSpace(text) == "" {
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "agent.prompt: the first argument must be the prompt text")
	}
	if len(args) > 1 && json.Unmarshal(args[1], &docURI) != nil {
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "agent.prompt: the second argument must be a document URI")
	}
	if len(args) > 2 {
		rng = new(lspRange)
		if err := json.Unmarshal(args[2], rng); err != nil {
			return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "agent.prompt: the third argument must be a range: %v", err)
		}
	}
	prompt := []schema.ContentBlock{schema.TextBlock(text)}
	if docURI != "" {
		path, err := documentPath("agent.prompt", docURI)
		if err != nil {
			return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%v", err)
		}
		prompt = append(prompt, s.scopeBlock(path, docURI, rng))
	}

	if err := s.service().CheckProvider(); err != nil {
		// Say so now: the editor shows a failed command at once, while a
		// turn that fails later only reaches its log.
		return jsonrpc2.Errorf(codeAuthRequired, "agent.prompt: %v", err)
	}
	d := &s.plain
	d.mu.Lock()
	if d.running {
		// A second prompt steers the running turn: the engine gives it
		// to the model at its next call and it ends with that turn.
		sess, turnCtx := d.sess, d.ctx
		d.turns.Add(1)
		d.steering++
		d.mu.Unlock()
		// Say it joins only once the engine has it queued: said
		// before, an editor may go on as if the turn had it, and
		// under load the turn can end first.
		entered := make(chan struct{})
		go func() {
			defer d.turns.Done()
			defer func() {
				d.mu.Lock()
				d.steering--
				d.idle.Broadcast()
				d.mu.Unlock()
			}()
			if _, err := sess.Prompt(engine.WithEntered(turnCtx, func() { close(entered) }), prompt); err != nil {
				s.logMessage(context.WithoutCancel(turnCtx), 1, "agent: "+err.Error())
			}
		}()
		<-entered
		s.logMessage(turnCtx, 3, "agent: your message joins the running turn: "+firstLine(text))
		return nil
	}
	sess, pc, err := s.plainSession()
	if err != nil {
		d.mu.Unlock()
		return failed("agent.prompt: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	d.running, d.cancel, d.ctx = true, cancel, ctx
	d.turns.Add(1)
	d.mu.Unlock()

	// free ends the turn for the door before its end is announced: an
	// editor that sends the next command as soon as it reads "done" must
	// not find the agent busy.
	free := func() {
		d.mu.Lock()
		for d.steering > 0 {
			d.idle.Wait()
		}
		d.running, d.cancel, d.ctx = false, nil, nil
		d.mu.Unlock()
	}
	go func() {
		defer d.turns.Done()
		defer cancel()
		pc.runTurn(ctx, sess, text, prompt, free)
	}()
	return nil
}

// scopeBlock embeds the document (or the range of it) the prompt is about.
func (s *Server) scopeBlock(path, docURI string, rng *lspRange) schema.ContentBlock {
	text, ok := s.overlay.Get(path)
	if !ok {
		b, err := os.ReadFile(path)
		if err != nil {
			return schema.ContentBlock{Type: schema.BlockResourceLink, URI: docURI, Name: filepath.Base(path)}
		}
		text = string(b)
	}
	res := &schema.EmbeddedResource{URI: docURI, Text: text}
	if rng != nil {
		lines := strings.SplitAfter(text, "\n")
		start, end := int(rng.Start.Line), int(rng.End.Line)
		if start < len(lines) {
			end = min(end+1, len(lines))
			res.Text = strings.Join(lines[start:end], "")
			res.URI = fmt.Sprintf("%s#L%d-L%d", docURI, start+1, end)
		}
	}
	return schema.ContentBlock{Type: schema.BlockResource, Resource: res}
}

// plainSession returns the door's session, starting one if needed.
// Callers hold s.plain.mu.
func (s *Server) plainSession() (*engine.Session, *plainClient, error) {
	d := &s.plain
	if d.sess != nil {
		return d.sess, d.client, nil
	}
	s.mu.Lock()
	roots := s.roots
	s.mu.Unlock()
	cwd, err := os.Getwd()
	if len(roots) > 0 {
		cwd, err = roots[0], nil
	}
	if err != nil {
		return nil, nil, err
	}
	pc := &plainClient{s: s}
	opts := s.sessionOptions(cwd, nil)
	opts.Client = pc
	sess, err := s.service().NewSession(context.Background(), opts)
	if err != nil {
		return nil, nil, err
	}
	pc.transcript = filepath.Join(s.opts.TranscriptDir, sess.ID+".md")
	d.sess, d.client = sess, pc
	// The session's queued notices (settings problems, what an untrusted
	// folder holds back) go out as log messages.
	sess.AnnounceCommands(context.Background())
	return sess, pc, nil
}

func (s *Server) progressCancel(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p struct {
		Token json.RawMessage `json:"token"`
	}
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	d := &s.plain
	d.mu.Lock()
	pc, cancel := d.client, d.cancel
	d.mu.Unlock()
	if pc != nil && cancel != nil && pc.ownsToken(p.Token) {
		cancel()
	}
	return nil, nil
}

// logMessage sends window/logMessage (type 1 error ... 4 log).
func (s *Server) logMessage(ctx context.Context, typ int, msg string) {
	if err := s.peer.Notify(ctx, "window/logMessage", map[string]any{"type": typ, "message": msg}); err != nil {
		s.logf("window/logMessage: %v", err)
	}
}

// nudge writes a log message (type 4, the quietest) while the editor has
// not answered one of our requests, for editors without our plugin: Emacs
// 28's eglot reads a request that came with the answer to one of its own
// synchronous requests only when we write again (rpc.Peer.Nudge).
func (s *Server) nudge(ctx context.Context) {
	s.mu.Lock()
	plugin := s.caps.agent
	s.mu.Unlock()
	if !plugin {
		s.logMessage(ctx, 4, "agent: waiting for the editor's answer")
	}
}

// plainClient is the engine.Client of a plain-LSP session: updates become
// progress reports and transcript lines, permission requests become
// window/showMessageRequest.
type plainClient struct {
	s          *Server
	transcript string

	mu     sync.Mutex
	token  string            // progress token of the running turn, guarded by mu
	last   string            // kind of the last transcript entry, guarded by mu
	tools  map[string]string // tool call titles, guarded by mu
	answer strings.Builder   // the model's text since its last tool call, guarded by mu
}

var (
	_ engine.Client       = (*plainClient)(nil)
	_ engine.StatusClient = (*plainClient)(nil)
)

// runTurn runs one prompt with progress, transcript and status messages,
// and calls free once the session is idle again, before announcing the
// end. The answer reaches every editor as window/showMessage (eglot 1.9
// has neither showDocument nor progress); the transcript is opened at the
// end of the turn, when it holds the answer.
func (c *plainClient) runTurn(ctx context.Context, sess *engine.Session, text string, prompt []schema.ContentBlock, free func()) {
	s := c.s
	c.mu.Lock()
	c.answer.Reset()
	c.mu.Unlock()
	c.beginProgress(ctx, text)
	c.appendTranscript(fmt.Sprintf("\n\n## You (%s)\n\n%s\n", time.Now().Format("15:04"), strings.TrimSpace(text)), "user")
	s.logMessage(ctx, 3, "agent: working on: "+firstLine(text))
	stop, err := sess.Prompt(ctx, prompt)
	free()
	ctx = context.WithoutCancel(ctx)
	msg := "agent: done (" + stop + ")"
	typ := 3
	if err != nil {
		msg, typ = "agent: "+err.Error(), 1
	}
	s.logMessage(ctx, typ, msg)
	c.appendTranscript("\n\n_"+strings.TrimPrefix(msg, "agent: ")+"_\n", "end")
	c.endProgress(ctx, msg)
	if err := s.peer.Notify(ctx, "window/showMessage", map[string]any{"type": typ, "message": c.finalMessage(msg)}); err != nil {
		s.logf("window/showMessage: %v", err)
	}
	c.showTranscript(ctx)
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
	if c.transcript != "" {
		b.WriteString("\n\nTranscript: " + c.transcript)
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
	s := c.s
	s.mu.Lock()
	supported := s.caps.workDoneProgress
	s.mu.Unlock()
	if !supported {
		return
	}
	token := "agent-" + uuid.NewString()
	if err := s.peer.Call(ctx, "window/workDoneProgress/create", map[string]any{"token": token}, nil); err != nil {
		s.logf("window/workDoneProgress/create: %v", err)
		return
	}
	c.mu.Lock()
	c.token = token
	c.mu.Unlock()
	c.progress(ctx, map[string]any{"kind": "begin", "title": "Agent", "message": firstLine(title), "cancellable": true})
}

func (c *plainClient) progress(ctx context.Context, value map[string]any) {
	c.mu.Lock()
	token := c.token
	c.mu.Unlock()
	if token == "" {
		return
	}
	if err := c.s.peer.Notify(ctx, "$/progress", map[string]any{"token": token, "value": value}); err != nil {
		c.s.logf("$/progress: %v", err)
	}
}

func (c *plainClient) endProgress(ctx context.Context, msg string) {
	c.progress(ctx, map[string]any{"kind": "end", "message": msg})
	c.mu.Lock()
	c.token = ""
	c.mu.Unlock()
}

func (c *plainClient) ownsToken(raw json.RawMessage) bool {
	var tok string
	if json.Unmarshal(raw, &tok) != nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return tok != "" && tok == c.token
}

// Update turns a session update into transcript text and progress.
func (c *plainClient) Update(ctx context.Context, sessionID string, u schema.Update) error {
	switch u.SessionUpdate {
	case schema.UpdateAgentMessageChunk:
		if u.Content != nil {
			c.appendTranscript(u.Content.Text, "agent")
			c.mu.Lock()
			c.answer.WriteString(u.Content.Text)
			c.mu.Unlock()
		}
	case schema.UpdateUserMessageChunk: // a prompt that steers the turn
		if u.Content != nil {
			c.appendTranscript(fmt.Sprintf("\n\n## You (%s, while the agent works)\n\n%s\n", time.Now().Format("15:04"), strings.TrimSpace(u.Content.Text)), "user")
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
		c.appendTranscript(b.String(), "plan")
	}
	return nil
}

// toolUpdate reports a tool call's step in the progress and transcript.
func (c *plainClient) toolUpdate(ctx context.Context, tc *schema.ToolCall) {
	c.mu.Lock()
	if c.tools == nil {
		c.tools = make(map[string]string)
	}
	if tc.Title != "" {
		c.tools[tc.ToolCallID] = c.s.shorten(tc.Title)
	}
	title := c.tools[tc.ToolCallID]
	c.mu.Unlock()
	switch tc.Status {
	case schema.StatusInProgress:
		c.progress(ctx, map[string]any{"kind": "report", "message": stepName(title)})
		c.appendTranscript(fmt.Sprintf("\n\n- `%s`", title), "tool")
	case schema.StatusFailed:
		c.appendTranscript(" — failed", "tool")
	case schema.StatusCompleted:
		c.appendTranscript(" — done", "tool")
	}
}

// shorten makes the paths of a title relative to the workspace.
func (s *Server) shorten(title string) string {
	s.mu.Lock()
	roots := s.roots
	s.mu.Unlock()
	for _, r := range roots {
		title = strings.ReplaceAll(title, r+string(filepath.Separator), "")
	}
	return title
}

// stepName describes a tool call as a progress step: "Reading calc.py".
func stepName(title string) string {
	verb, rest, _ := strings.Cut(title, " ")
	steps := map[string]string{
		"Read": "Reading", "Edit": "Editing", "MultiEdit": "Editing", "Write": "Writing",
		"Grep": "Searching", "Glob": "Finding files", "LS": "Listing", "Bash": "Running",
		"TodoWrite": "Planning",
	}
	if ing, ok := steps[verb]; ok {
		return strings.TrimSpace(ing + " " + rest)
	}
	return title
}

// RequestPermission asks with window/showMessageRequest.
func (c *plainClient) RequestPermission(ctx context.Context, p *schema.RequestPermissionParams) (*schema.RequestPermissionResult, error) {
	if engine.IsTrustRequest(p) {
		return c.requestTrust(ctx, p)
	}
	msg := c.s.approvalText(p.ToolCall)
	titles := map[string]string{"Allow": "", "Always allow": "", "Reject": ""}
	for _, o := range p.Options {
		switch o.Kind {
		case schema.AllowOnce:
			titles["Allow"] = o.OptionID
		case schema.AllowAlways:
			titles["Always allow"] = o.OptionID
		case schema.RejectOnce:
			titles["Reject"] = o.OptionID
		}
	}
	var res *struct {
		Title string `json:"title"`
	}
	err := c.s.peer.Call(ctx, "window/showMessageRequest", map[string]any{
		"type":    2, // warning: it changes something
		"message": msg,
		"actions": []map[string]string{{"title": "Allow"}, {"title": "Always allow"}, {"title": "Reject"}},
	}, &res)
	if err != nil {
		return nil, err
	}
	if res == nil || titles[res.Title] == "" {
		// Dismissed: treat as a rejection, never as consent.
		return &schema.RequestPermissionResult{Outcome: schema.PermissionOutcome{Outcome: "selected", OptionID: titles["Reject"]}}, nil
	}
	return &schema.RequestPermissionResult{Outcome: schema.PermissionOutcome{Outcome: "selected", OptionID: titles[res.Title]}}, nil
}

// requestTrust asks to trust a folder with window/showMessageRequest:
// "Trust" or "Not now". Dismissing it is "not now".
func (c *plainClient) requestTrust(ctx context.Context, p *schema.RequestPermissionParams) (*schema.RequestPermissionResult, error) {
	var trust, notNow string
	for _, o := range p.Options {
		switch o.Kind {
		case schema.AllowAlways, schema.AllowOnce:
			trust = o.OptionID
		default:
			notNow = o.OptionID
		}
	}
	msg := "agent: " + p.ToolCall.Title + ". Until you trust it, its hooks, MCP servers and settings that loosen the rules stay off."
	var res *struct {
		Title string `json:"title"`
	}
	err := c.s.peer.Call(ctx, "window/showMessageRequest", map[string]any{
		"type":    2,
		"message": msg,
		"actions": []map[string]string{{"title": "Trust"}, {"title": "Not now"}},
	}, &res)
	if err != nil {
		return nil, err
	}
	choice := notNow
	if res != nil && res.Title == "Trust" {
		choice = trust
	}
	return &schema.RequestPermissionResult{Outcome: schema.PermissionOutcome{Outcome: "selected", OptionID: choice}}, nil
}

// approvalText is the text of an approval request: the tool (by name,
// not the model's description of the call), then what it would do: the
// command for Bash, the changed lines of an edit.
func (s *Server) approvalText(tc schema.ToolCall) string {
	name := tc.ToolName()
	if name == "" {
		name, _, _ = strings.Cut(tc.Title, " ")
	}
	var in struct {
		Command string `json:"command"`
	}
	raw, _ := tc.RawInput.(json.RawMessage)
	if len(raw) > 0 && json.Unmarshal(raw, &in) == nil && in.Command != "" {
		return fmt.Sprintf("Agent wants to run %s:\n$ %s", name, truncateLines(in.Command, approvalLines))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Agent wants to use %s", name)
	var where []string
	for _, l := range tc.Locations {
		where = append(where, s.relative(l.Path))
	}
	if len(where) > 0 {
		b.WriteString(" on " + strings.Join(where, ", "))
	} else if tc.Title != "" && tc.Title != name {
		b.WriteString(": " + s.shorten(tc.Title))
	}
	for _, c := range tc.Content {
		if c.Type != "diff" {
			continue
		}
		old := ""
		if c.OldText != nil {
			old = *c.OldText
		}
		b.WriteString("\n")
		if c.OldText == nil {
			fmt.Fprintf(&b, "\nnew file %s, %d lines:", s.relative(c.Path), strings.Count(strings.TrimSuffix(c.NewText, "\n"), "\n")+1)
		}
		b.WriteString("\n" + changedLines(c.Path, old, c.NewText, approvalLines))
	}
	return b.String()
}

// approvalLines bounds the lines an approval request shows.
const approvalLines = 12

// changedLines are the removed (-) and added (+) lines of a change, at
// most limit of them.
func changedLines(path, old, new string, limit int) string {
	var lines []string
	for _, l := range strings.Split(diffs.Unified(path, old, new), "\n") {
		if strings.HasPrefix(l, "---") || strings.HasPrefix(l, "+++") {
			continue
		}
		if strings.HasPrefix(l, "-") || strings.HasPrefix(l, "+") {
			lines = append(lines, l)
		}
	}
	return truncateLines(strings.Join(lines, "\n"), limit)
}

// truncateLines keeps the first limit lines of text.
func truncateLines(text string, limit int) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) <= limit {
		return strings.Join(lines, "\n")
	}
	return strings.Join(lines[:limit], "\n") + fmt.Sprintf("\n… (%d more lines)", len(lines)-limit)
}

// Status shows notices as log messages.
func (c *plainClient) Status(ctx context.Context, sessionID string, st engine.Status) error {
	typ := 3
	if st.Kind == engine.StatusWarning {
		typ = 2
	}
	c.s.logMessage(ctx, typ, "agent: "+st.Message)
	return nil
}

// appendTranscript appends text to the session's markdown transcript.
func (c *plainClient) appendTranscript(text, kind string) {
	if c.transcript == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if kind == "agent" && c.last != "agent" {
		text = "\n\n## Agent\n\n" + text
	}
	c.last = kind
	if err := os.MkdirAll(filepath.Dir(c.transcript), 0o755); err != nil {
		c.s.logf("transcript: %v", err)
		return
	}
	f, err := os.OpenFile(c.transcript, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		c.s.logf("transcript: %v", err)
		return
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		c.s.logf("transcript: %v", err)
	}
}

// showTranscript opens the transcript in the editor, when it can.
func (c *plainClient) showTranscript(ctx context.Context) {
	s := c.s
	s.mu.Lock()
	supported := s.caps.showDocument
	s.mu.Unlock()
	if !supported || c.transcript == "" {
		return
	}
	var res json.RawMessage
	if err := s.peer.Call(ctx, "window/showDocument", map[string]any{"uri": string(uri.File(c.transcript)), "takeFocus": false}, &res); err != nil {
		s.logf("window/showDocument: %v", err)
	}
}
