package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/agent-lsp/agent-lsp/hooks"
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

// Session is one conversation with the model in one workspace. Besides
// its identity (ID, the workspace, the client's options, the subagent
// run it serves) it is made of five parts, each a type in its own file
// that guards its own fields:
//   - tools, what it can do (toolset.go): the built-in tools and their
//     environment, the groups of tools that come and go (each MCP
//     server's, the Diagnostics and LSP tools), the MCP servers
//     (mcp.go), code intelligence (code.go) and the workspace watcher
//     (watch.go), set up by newSession and updated when the folder
//     becomes trusted;
//   - pipe, what its tool calls go through (callpipe.go): the
//     permission gate, hooks and sandboxes; run.go chains them as
//     middleware around the tool (package pipeline);
//   - client, the editor as it reaches it (client.go), and the notices
//     held until the editor knows the session;
//   - conv, what was said (conversation.go): the history, the model
//     asked and the system prompt, usage and cost, compaction and the
//     session file;
//   - turn, the running turn (turn.go, steer.go): its cancel, the
//     prompts that steer it, a hook's stop request and what a command
//     narrowed for it.
//
// A subagent's session (child, agent.go) is built from its parent's
// parts by pointer: it shares the parent's pipe and the toolset's groups,
// and its client sends through the parent's; it has its own built-ins,
// conversation and turn.
//
// The loop (loop.go) runs a turn: prepare, stream, run tools, persist.
type Session struct {
	ID string
	// overrides are the client's options, set before the session is
	// shared and read-only after.
	overrides Overrides

	svc *Service
	cwd string
	// rewind is the session's checkpoints (rewind.go).
	rewind rewinding
	// agent is set in a subagent's session (see agent.go).
	agent *agentRun
	// resumed is set when the session was reopened from storage,
	// before it is shared.
	resumed bool

	tools  *toolset
	pipe   *callPipe // shared with subagents
	client *sessionClient
	// conv and turn guard themselves.
	conv conversation
	turn turnState

	effort effortChoice // what /effort chose (thinking.go); guards itself
	memory memoryState  // the memory files read and attached (memory.go); guards itself
	hookSt hookState    // what hooks carry between events (hooks.go); guards itself
}

func newSession(svc *Service, id string, opts SessionOptions) *Session {
	st, _ := svc.settings()
	if st == nil {
		st = &settings.Settings{Project: opts.Cwd}
	}
	policy := permission.NewPolicy(opts.Cwd, st, permission.Mode(svc.cfg.Mode))
	policy.AddRoots(opts.Roots...) // the editor's other workspace folders
	memDir := autoMemoryDirFor(&svc.cfg, st, opts.Cwd)
	if memDir != "" {
		// The model writes its auto memory with the file tools.
		if err := os.MkdirAll(memDir, 0o700); err != nil {
			svc.cfg.Logf("session %s: auto memory is off: %v", id, err)
			memDir = ""
		} else {
			policy.AddRoots(memDir)
		}
	}
	roots := tools.ResolveRoots(append(append([]string{opts.Cwd}, opts.Roots...), policy.Roots()...)...)
	s := &Session{
		ID:     id,
		svc:    svc,
		cwd:    roots[0],
		client: newSessionClient(id, opts.Client, svc.cfg.Logf),
		pipe:   &callPipe{},
	}
	if memDir != "" {
		s.memory.autoDir = tools.ResolveRoots(memDir)[0]
	}
	s.conv.startModel = svc.defaultModel()
	s.conv.model = opts.Model
	if s.conv.model == "" {
		s.conv.model = s.conv.startModel
	}

	env := &tools.Env{
		Cwd:      s.cwd,
		Roots:    roots,
		Files:    opts.Files,
		Terminal: opts.Terminal,
		Reads:    tools.NewReadTracker(),
		OnPlan:   s.client.plan,
		Hide:     policy, // Read deny rules hide files from Grep, Glob and LS
		Ask:      s.ask,

		IncludeIgnored: st.IncludeIgnored, // respectGitignore: false
	}
	s.tools = newToolset(env)
	s.tools.settings = st
	// Read may read the folders of the skills loaded.
	env.ReadOnlyRoots = s.tools.readableSkillDirs
	s.setSandbox(st)
	s.setConfiner(policy)
	env.WrapCommand = s.wrapCommand
	// env.Code is not set yet: the Diagnostics and LSP tools are not
	// built-ins but a group that follows what answers (setCode).
	builtin := append(tools.New(env), &agentTool{s: s}, &skillTool{s}, &exitPlanModeTool{s}, &enterPlanModeTool{s})
	if svc.cfg.WebSearch {
		builtin = append(builtin, &webSearchTool{s})
	}
	if _, ok := opts.Client.(Elicitor); ok {
		builtin = append(builtin, &askUserQuestionTool{s})
	}
	s.tools.setBuiltin(builtin)
	s.setCode(opts.Client)
	s.pipe.gate = newGate(policy)
	s.applyOverrides(opts.Overrides)
	s.pipe.hooks = hooks.NewRunner(st)
	s.startMCP(st, opts.MCPServers)
	s.noticeHeldBack(st)
	s.startWatching()
	return s
}

// Cwd returns the session's working directory.
func (s *Session) Cwd() string { return s.cwd }

// Model returns the model the session asks.
func (s *Session) Model() string { return s.conv.asked() }

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
	s.conv.setModel(model)
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
	s.tools.env.KillShells()
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
	s.tools.close()
	if err := s.conv.close(); err != nil {
		s.svc.cfg.Logf("session %s: closing session file: %v", s.ID, err)
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

// update sends a session update (see sessionClient.update).
func (s *Session) update(ctx context.Context, u schema.Update) { s.client.update(ctx, u) }

// status sends a status notice (see sessionClient.status).
func (s *Session) status(ctx context.Context, st Status) { s.client.status(ctx, st) }

// notice shows a status notice once the editor knows the session (see
// sessionClient.notice).
func (s *Session) notice(st Status) { s.client.notice(st) }
