package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agent-lsp/agent-lsp/hooks"
	"github.com/agent-lsp/agent-lsp/mcp"
	"github.com/agent-lsp/agent-lsp/permission"
	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/sandbox"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/session"
	"github.com/agent-lsp/agent-lsp/settings"
	"github.com/agent-lsp/agent-lsp/tools"
)

// ErrBusy is returned by Prompt for a slash command while another prompt
// of the same session is running (other prompts steer the running turn).
var ErrBusy = errors.New("a prompt is already running in this session; wait for it to end or cancel it before running a command")

// Session is one conversation with the model in one workspace.
type Session struct {
	ID string
	// overrides are the client's options, set before the session is
	// shared and read-only after.
	overrides Overrides

	svc    *Service
	cwd    string
	client Client
	env    *tools.Env
	tools  *toolset
	gate   *gate
	hooks  *hooks.Runner
	mcp    *mcp.Manager // nil when the session has no MCP servers
	code   *codeIntel   // nil when no language server covers anything
	// editorMCP are the MCP servers the editor passed; mcpNames the
	// servers started (or reported) so far.
	editorMCP []schema.MCPServer
	mcpNames  map[string]bool
	// sandbox is where Bash runs; replaced when the settings change.
	sandbox atomic.Pointer[sandbox.Sandbox]
	// confiner holds the commands that run without a question.
	confiner *sandbox.Confiner
	// classifierOff makes every Bash call that would ask run confined
	// (AGENT_LSP_CLASSIFIER=off, for testing the sandbox alone).
	classifierOff bool
	log           *session.Log // nil when sessions are not persisted

	stateMu    sync.Mutex     // serializes saveState
	savedState *session.State // what the file holds last, guarded by stateMu

	mu            sync.Mutex
	history       []providers.Message // guarded by mu
	model         string              // guarded by mu
	cost          float64             // spent so far in USD, guarded by mu
	started       bool                // SessionStart hooks ran, guarded by mu
	resumed       bool                // the session was reopened from storage
	notices       []Status            // queued until AnnounceCommands, guarded by mu
	announced     bool                // AnnounceCommands ran, guarded by mu
	saveFailed    bool                // the last write to the session file failed, guarded by mu
	prompts       sync.WaitGroup      // the running prompt, for close to wait on
	stopRequested string              // a hook asked to end the turn, guarded by mu
	stopWatch     context.CancelFunc  // stops the workspace watcher, guarded by mu
	watchDone     chan struct{}       // closed when the watcher has stopped
	cancel        context.CancelFunc  // of the running prompt, guarded by mu
	steerQueue    []*steered          // prompts sent while a turn runs, not yet given to the model, guarded by mu
	steerTaken    []*steered          // prompts the running turn took, answered when it ends, guarded by mu
	// agent is set in a subagent's session (see agent.go).
	agent    *agentRun
	running  bool                    // guarded by mu
	closed   bool                    // guarded by mu
	titled   bool                    // the session has a title, guarded by mu
	counted  int                     // history messages the last usage covers, guarded by mu
	overhead int64                   // tokens of system prompt and tools, estimated, guarded by mu
	usage    providers.Usage         // of the last model call, guarded by mu
	system   []providers.SystemBlock // cached system prompt, guarded by mu
	// shown are what finished file-changing calls did (toolUseResult),
	// by tool_use_id, until their results are saved; guarded by mu.
	shown      map[string]json.RawMessage
	trustedMCP *mcp.Manager // servers started once the folder was trusted, guarded by mu
	// startSettings and startModel are the settings and default model the
	// session started with; startSettings becomes the trusted folder's
	// settings once they apply. Guarded by mu.
	startSettings *settings.Settings
	startModel    string
	// turnTools, when set, are the only tools the running turn may call
	// (a command's or skill's allowed-tools, see restrictTools), and
	// turnToolsBy names who narrowed them; turnModel is the model a
	// command chose for the turn. Reset when the turn ends. Guarded by
	// mu.
	turnTools   map[string]bool
	turnToolsBy string
	turnModel   string
	skillDirs   []string // folders of the skills loaded, guarded by mu
}

func newSession(svc *Service, id string, opts SessionOptions) *Session {
	st, _ := svc.settings()
	if st == nil {
		st = &settings.Settings{Project: opts.Cwd}
	}
	policy := permission.NewPolicy(opts.Cwd, st, permission.Mode(svc.cfg.Mode))
	policy.AddRoots(opts.Roots...) // the editor's other workspace folders
	roots := tools.ResolveRoots(append(append([]string{opts.Cwd}, opts.Roots...), policy.Roots()...)...)
	s := &Session{
		ID:     id,
		svc:    svc,
		cwd:    roots[0],
		client: opts.Client,
		model:  opts.Model,
	}
	s.startModel = svc.defaultModel()
	if s.model == "" {
		s.model = s.startModel
	}
	s.startSettings = st

	s.env = &tools.Env{
		Cwd:      s.cwd,
		Roots:    roots,
		Files:    opts.Files,
		Terminal: opts.Terminal,
		Reads:    tools.NewReadTracker(),
		OnPlan:   s.onPlan,
		Hide:     policy, // Read deny rules hide files from Grep, Glob and LS
		Ask:      s.ask,
		// Read may read the folders of the skills loaded.
		ReadOnlyRoots: s.readableSkillDirs,
	}
	s.setSandbox(st)
	s.setConfiner(policy)
	s.env.WrapCommand = s.wrapCommand
	s.setCode(st, opts.Client)
	builtin := append(tools.New(s.env), &agentTool{s: s}, &skillTool{s})
	if svc.cfg.WebSearch {
		builtin = append(builtin, &webSearchTool{s})
	}
	s.tools = newToolset(builtin)
	s.gate = newGate(policy)
	s.applyOverrides(opts.Overrides)
	s.hooks = hooks.NewRunner(st)
	s.editorMCP = opts.MCPServers
	s.startMCP(st, opts.MCPServers)
	s.noticeHeldBack(st)
	s.startWatching()
	return s
}

// Cwd returns the session's working directory.
func (s *Session) Cwd() string { return s.cwd }

// Model returns the model the session asks.
func (s *Session) Model() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.model
}

// SetModel changes the model for the next model call.
func (s *Session) SetModel(model string) error {
	if model == "" {
		return fmt.Errorf("model is empty")
	}
	s.mu.Lock()
	s.model = model
	s.mu.Unlock()
	s.saveState()
	return nil
}

// History returns a copy of the conversation.
func (s *Session) History() []providers.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]providers.Message(nil), s.history...)
}

// Cancel stops the running prompt, if any: the model stream and running
// tools stop at once, pending permission requests resolve as cancelled,
// and Prompt returns stop reason cancelled.
func (s *Session) Cancel() {
	s.mu.Lock()
	cancel := s.cancel
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	// Background shells are part of the work being cancelled.
	s.env.KillShells()
}

// begin marks a prompt as running and returns its context. While
// another prompt runs, a prompt that can steer (steer not nil) is queued
// for it and errSteered returned; any other gets ErrBusy.
func (s *Session) begin(ctx context.Context, steer *steered) (context.Context, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, fmt.Errorf("session %s is closed", s.ID)
	}
	if s.running {
		if steer == nil {
			return nil, ErrBusy
		}
		s.steerQueue = append(s.steerQueue, steer)
		return nil, errSteered
	}
	ctx, cancel := context.WithCancel(ctx)
	s.running, s.cancel = true, cancel
	s.prompts.Add(1)
	return ctx, nil
}

// end marks the running prompt as done, with its outcome. Prompts it
// took to steer it end with it; those still queued run next.
func (s *Session) end(stop string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil {
		s.cancel()
	}
	for _, st := range s.steerTaken {
		st.done <- steerOutcome{stop: stop, err: err}
	}
	for _, st := range s.steerQueue {
		if stop == schema.StopCancelled {
			st.done <- steerOutcome{stop: stop}
		} else {
			st.done <- steerOutcome{retry: true}
		}
	}
	s.steerTaken, s.steerQueue = nil, nil
	s.running, s.cancel = false, nil
	s.prompts.Done()
}

// stopWait bounds how long closing a session waits for its running prompt
// to wind down (kill its commands, save the interrupted turn).
const stopWait = 5 * time.Second

// close cancels the running prompt and stops what the session started.
func (s *Session) close() {
	s.mu.Lock()
	s.closed = true
	cancel := s.cancel
	s.mu.Unlock()
	if cancel != nil {
		cancel()
		// Let the turn stop its tools (killing their process groups)
		// and save what happened before the session goes away.
		stopped := make(chan struct{})
		go func() { s.prompts.Wait(); close(stopped) }()
		select {
		case <-stopped:
		case <-time.After(stopWait):
			s.svc.cfg.Logf("session %s: the running prompt did not stop within %s", s.ID, stopWait)
		}
	}
	for _, t := range s.tools.all() {
		if c, ok := t.(interface{ Close() }); ok {
			c.Close()
		}
	}
	if s.mcp != nil {
		s.mcp.Close()
	}
	s.mu.Lock()
	trusted := s.trustedMCP
	s.mu.Unlock()
	if trusted != nil {
		trusted.Close()
	}
	s.stopWatching()
	if s.log != nil {
		if err := s.log.Close(); err != nil {
			s.svc.cfg.Logf("session %s: closing session file: %v", s.ID, err)
		}
	}
}

// appendMessage adds a message to the history, merging it into the last
// one when both have the same role (the API wants roles to alternate), and
// appends it to the session file.
func (s *Session) appendMessage(m providers.Message) {
	s.record(m, nil)
}

// appendResponse is appendMessage for a model's response, saved with its
// model, stop reason and usage.
func (s *Session) appendResponse(resp *providers.Response) {
	u := resp.Usage
	model := resp.Model
	if model == "" {
		model = s.Model()
	}
	s.record(resp.Message, &session.ResponseInfo{Model: model, StopReason: string(resp.StopReason), Usage: &u})
}

func (s *Session) record(m providers.Message, info *session.ResponseInfo) {
	s.mu.Lock()
	if n := len(s.history); n > 0 && s.history[n-1].Role == m.Role {
		last := &s.history[n-1]
		last.Content = append(append([]providers.Block(nil), last.Content...), m.Content...)
	} else {
		s.history = append(s.history, m)
	}
	var results map[string]json.RawMessage
	for _, b := range m.Content {
		if r, ok := s.shown[b.ToolUseID]; ok && b.Type == providers.BlockToolResult {
			if results == nil {
				results = make(map[string]json.RawMessage)
			}
			results[b.ToolUseID] = r
			delete(s.shown, b.ToolUseID)
		}
	}
	s.mu.Unlock()
	switch {
	case s.log == nil:
	case info != nil:
		s.saved(s.log.AppendResponse(m, *info))
	default:
		s.saved(s.log.AppendResults(m, results))
	}
}

// remember keeps what a finished call did for display until its result
// is saved with it.
func (s *Session) remember(toolUseID string, result json.RawMessage) {
	if result == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shown == nil {
		s.shown = make(map[string]json.RawMessage)
	}
	s.shown[toolUseID] = result
}

// saved reports the outcome of a write to the session file: the first
// failure is shown to the user (the conversation goes on, unsaved), and a
// later success says saving works again.
func (s *Session) saved(err error) {
	s.mu.Lock()
	was := s.saveFailed
	s.saveFailed = err != nil
	s.mu.Unlock()
	switch {
	case err != nil && !was:
		s.svc.cfg.Logf("session %s: saving message: %v", s.ID, err)
		s.status(context.Background(), Status{Kind: StatusWarning, Message: fmt.Sprintf("saving the session failed: %v; the conversation goes on but is not being saved", err)})
	case err != nil:
		s.svc.cfg.Logf("session %s: saving message: %v", s.ID, err)
	case was:
		s.status(context.Background(), Status{Kind: StatusInfo, Message: "the session is being saved again"})
	}
}

// persist makes what the session wrote durable, at a turn boundary.
func (s *Session) persist() {
	if s.log == nil {
		return
	}
	if err := s.log.Sync(); err != nil {
		s.svc.cfg.Logf("session %s: syncing session file: %v", s.ID, err)
	}
}

// update sends a session update, logging a failure: a lost notification
// must not stop the turn.
func (s *Session) update(ctx context.Context, u schema.Update) {
	if err := s.client.Update(ctx, s.ID, u); err != nil && ctx.Err() == nil {
		s.svc.cfg.Logf("session %s: sending %s: %v", s.ID, u.SessionUpdate, err)
	}
}

// status sends a status notice.
func (s *Session) status(ctx context.Context, st Status) {
	if sc, ok := s.client.(StatusClient); ok {
		if err := sc.Status(ctx, s.ID, st); err != nil && ctx.Err() == nil {
			s.svc.cfg.Logf("session %s: sending status: %v", s.ID, err)
		}
		return
	}
	b := schema.TextBlock(st.Message + "\n")
	s.update(ctx, schema.Update{SessionUpdate: schema.UpdateAgentThoughtChunk, Content: &b})
}

func (s *Session) onPlan(entries []schema.PlanEntry) {
	s.update(context.Background(), schema.Update{SessionUpdate: schema.UpdatePlan, Entries: entries})
}
