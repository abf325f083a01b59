package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/agent-lsp/agent-lsp/hooks"
	"github.com/agent-lsp/agent-lsp/mcp"
	"github.com/agent-lsp/agent-lsp/permission"
	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/session"
	"github.com/agent-lsp/agent-lsp/settings"
	"github.com/agent-lsp/agent-lsp/tools"
)

// ErrBusy is returned by Prompt for a slash command while another prompt
// of the same session is running (other prompts steer the running turn).
var ErrBusy = errors.New("a prompt is already running in this session; wait for it to end or cancel it before running a command")

// Session is one conversation with the model in one workspace. It is
// made of five parts, each with its own rules:
//   - what the session can do: its workspace, tools, MCP servers and
//     code intelligence, set up by newSession (and updated when the
//     folder becomes trusted);
//   - pipe, what its tool calls go through: the permission gate, hooks
//     and sandboxes (callpipe.go), shared with its subagents; run.go
//     chains them as middleware around the tool (package pipeline);
//   - conv, what was said: the history, its usage and cost, compaction
//     and the session file (conversation.go);
//   - turn, the running turn: its cancel, the prompts that steer it, a
//     hook's stop request and what a command narrowed for it (turn.go,
//     steer.go);
//   - its settings as they change (model, cached system prompt, notices,
//     loaded skills), under mu.
//
// The loop (loop.go) runs a turn: prepare, stream, run tools, persist.
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
	// pipe is what every tool call goes through: the permission gate,
	// hooks and sandbox. A subagent shares its parent's.
	pipe *callPipe
	mcp  *mcp.Manager // nil when the session has no MCP servers
	code *codeIntel   // nil when no language server covers anything
	// editorMCP are the MCP servers the editor passed; mcpNames the
	// servers started (or reported) so far.
	editorMCP []schema.MCPServer
	mcpNames  map[string]bool
	// conv is what was said and its file; turn is the running turn.
	// Each guards itself.
	conv conversation
	turn turnState
	// agent is set in a subagent's session (see agent.go).
	agent *agentRun
	// resumed is set when the session was reopened from storage,
	// before it is shared.
	resumed bool

	// mu guards the session's settings as they change, below.
	mu      sync.Mutex
	model   string // the model asked
	started bool   // SessionStart hooks ran
	// notices are queued until AnnounceCommands, which sets announced.
	notices   []Status
	announced bool
	stopWatch context.CancelFunc      // stops the workspace watcher
	watchDone chan struct{}           // closed when the watcher has stopped; set before it is shared
	system    []providers.SystemBlock // cached system prompt
	// trustedMCP are the servers started once the folder was trusted.
	trustedMCP *mcp.Manager
	// startSettings and startModel are the settings and default model the
	// session started with; startSettings becomes the trusted folder's
	// settings once they apply.
	startSettings *settings.Settings
	startModel    string
	skillDirs     []string // folders of the skills loaded

	effort effortChoice // what /effort chose (thinking.go); guards itself
	hookSt hookState    // what hooks carry between events (hooks.go); guards itself
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
		pipe:   &callPipe{},
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
	// env.Code is not set yet: the Diagnostics and LSP tools are not
	// built-ins but a group that follows what answers (setCode).
	builtin := append(tools.New(s.env), &agentTool{s: s}, &skillTool{s}, &exitPlanModeTool{s}, &enterPlanModeTool{s})
	if svc.cfg.WebSearch {
		builtin = append(builtin, &webSearchTool{s})
	}
	s.tools = newToolset(builtin)
	s.setCode(opts.Client)
	s.pipe.gate = newGate(policy)
	s.applyOverrides(opts.Overrides)
	s.pipe.hooks = hooks.NewRunner(st)
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
	if allow := s.svc.cfg.AllowModel; allow != nil {
		if err := allow(model); err != nil {
			return err
		}
	}
	s.mu.Lock()
	s.model = model
	s.mu.Unlock()
	s.saveState()
	return nil
}

// History returns a copy of the conversation.
func (s *Session) History() []providers.Message { return s.conv.messages() }

// Cancel stops the running prompt, if any: the model stream and running
// tools stop at once, pending permission requests resolve as cancelled,
// and Prompt returns stop reason cancelled.
func (s *Session) Cancel() {
	s.turn.cancelRunning()
	// Background shells are part of the work being cancelled.
	s.env.KillShells()
}

// begin starts a turn (see turnState.begin).
func (s *Session) begin(ctx context.Context, steer *steered) (context.Context, error) {
	ctx, err := s.turn.begin(ctx, steer)
	if errors.Is(err, errClosed) {
		return nil, fmt.Errorf("session %s is closed", s.ID)
	}
	return ctx, err
}

// stopWait bounds how long closing a session waits for its running prompt
// to wind down (kill its commands, save the interrupted turn).
const stopWait = 5 * time.Second

// close cancels the running prompt and stops what the session started.
func (s *Session) close() {
	s.endHooks()
	if s.turn.close() {
		// Let the turn stop its tools (killing their process groups)
		// and save what happened before the session goes away.
		stopped := make(chan struct{})
		go func() { s.turn.wait(); close(stopped) }()
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
	if s.conv.log != nil {
		if err := s.conv.log.Close(); err != nil {
			s.svc.cfg.Logf("session %s: closing session file: %v", s.ID, err)
		}
	}
}

// appendMessage adds a message to the conversation and its file.
func (s *Session) appendMessage(m providers.Message) {
	s.saved(s.conv.add(m, nil))
}

// appendResponse is appendMessage for a model's response, saved with its
// model, stop reason and usage.
func (s *Session) appendResponse(resp *providers.Response) {
	u := resp.Usage
	model := resp.Model
	if model == "" {
		model = s.Model()
	}
	s.saved(s.conv.add(resp.Message, &session.ResponseInfo{Model: model, StopReason: string(resp.StopReason), Usage: &u}))
}

// saved reports the outcome of a write to the session file: the first
// failure is shown to the user (the conversation goes on, unsaved), and a
// later success says saving works again.
func (s *Session) saved(err error) {
	was := s.conv.noteSave(err)
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
	if s.conv.log == nil {
		return
	}
	if err := s.conv.log.Sync(); err != nil {
		s.svc.cfg.Logf("session %s: syncing session file: %v", s.ID, err)
	}
}

// say sends text as the agent's message.
func (s *Session) say(ctx context.Context, text string) {
	b := schema.TextBlock(text)
	s.update(ctx, schema.Update{SessionUpdate: schema.UpdateAgentMessageChunk, Content: &b})
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
