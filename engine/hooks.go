package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agent-lsp/agent-lsp/hooks"
	"github.com/agent-lsp/agent-lsp/permission"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/tools"
)

// maxStopBlocks bounds how often Stop hooks may send the model back to
// work within one prompt.
const maxStopBlocks = 3

// runHook runs the hooks of an event and reports what the user should
// see of them.
func (s *Session) runHook(ctx context.Context, event string, in hooks.Input) hooks.Outcome {
	if s.pipe.hooks == nil || !s.pipe.hooks.Has(event) {
		return hooks.Outcome{}
	}
	s.awaitCheckpoint() // a hook's command may change files too
	in.SessionID = s.ID
	in.Cwd = s.cwd
	in.PermissionMode = s.Mode()
	if s.conv.log != nil {
		in.TranscriptPath = s.conv.log.Path()
	}
	in.Status = func(msg string) { s.status(ctx, Status{Kind: StatusInfo, Message: msg}) }
	in.Ask = func(ctx context.Context, prompt string) (string, error) {
		return s.ask(ctx, hooks.PromptSystem, prompt)
	}
	out := s.pipe.hooks.Run(ctx, event, in)
	for _, e := range out.Errors {
		s.svc.cfg.Logf("session %s: %s hook: %s", s.ID, event, e)
		s.status(ctx, Status{Kind: StatusWarning, Message: fmt.Sprintf("%s hook failed: %s", event, e)})
	}
	if out.SystemMessage != "" {
		s.status(ctx, Status{Kind: StatusInfo, Message: out.SystemMessage})
	}
	return out
}

// startHooks runs SessionStart once, before the first model call, and
// returns context the hooks add.
func (s *Session) startHooks(ctx context.Context) string {
	if s.turn.markStarted() {
		return ""
	}
	source := "startup"
	if s.resumed {
		source = "resume"
	}
	if src := s.hookSt.takeStart(); src != "" {
		source = src
	}
	return s.runHook(ctx, hooks.SessionStart, hooks.Input{Source: source, Model: s.requestModel(), EnvFile: s.hookEnvFile()}).AdditionalContext
}

// hookState is what a session's hooks carry from one event to the
// next. Its methods are safe for concurrent use.
type hookState struct {
	mu          sync.Mutex // guards the fields below
	startSource string     // the source of the next SessionStart ("clear"), or ""
	envDir      string     // holds the CLAUDE_ENV_FILE of SessionStart hooks, once made
}

// envFileName is the name of CLAUDE_ENV_FILE in hookState.envDir.
const envFileName = "env.sh"

// hookEnvFile returns the session's CLAUDE_ENV_FILE, making it (in a
// private folder) when the session has SessionStart hooks; "" when it
// has none or the file cannot be made.
func (s *Session) hookEnvFile() string {
	if s.pipe.hooks == nil || !s.pipe.hooks.Has(hooks.SessionStart) {
		return ""
	}
	h := &s.hookSt
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.envDir == "" {
		dir, err := os.MkdirTemp("", "agent-lsp-env-")
		if err != nil {
			s.svc.cfg.Logf("session %s: CLAUDE_ENV_FILE: %v", s.ID, err)
			return ""
		}
		if err := os.WriteFile(filepath.Join(dir, envFileName), nil, 0o600); err != nil {
			s.svc.cfg.Logf("session %s: CLAUDE_ENV_FILE: %v", s.ID, err)
			os.RemoveAll(dir)
			return ""
		}
		h.envDir = dir
	}
	return filepath.Join(h.envDir, envFileName)
}

// withHookEnv puts what SessionStart hooks wrote to CLAUDE_ENV_FILE in
// front of a shell command's script (argv is sh -c script), as Claude
// Code sources it before each Bash command: it runs in the command's own
// shell, inside whatever holds the command.
func (s *Session) withHookEnv(argv []string) []string {
	s.hookSt.mu.Lock()
	dir := s.hookSt.envDir
	s.hookSt.mu.Unlock()
	if dir == "" || len(argv) != 3 || argv[1] != "-c" {
		return argv
	}
	data, err := os.ReadFile(filepath.Join(dir, envFileName))
	if err != nil || len(bytes.TrimSpace(data)) == 0 {
		return argv
	}
	return []string{argv[0], "-c", string(data) + "\n" + argv[2]}
}

// removeHookEnv deletes the session's CLAUDE_ENV_FILE.
func (s *Session) removeHookEnv() {
	s.hookSt.mu.Lock()
	dir := s.hookSt.envDir
	s.hookSt.envDir = ""
	s.hookSt.mu.Unlock()
	if dir != "" {
		os.RemoveAll(dir)
	}
}

func (h *hookState) takeStart() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	src := h.startSource
	h.startSource = ""
	return src
}

// cleared runs what /clear means to hooks: SessionEnd with reason
// clear now, and SessionStart with source clear before the next model
// call, its context going with the next prompt.
func (s *Session) cleared(ctx context.Context) {
	s.runHook(ctx, hooks.SessionEnd, hooks.Input{Reason: "clear"})
	s.hookSt.mu.Lock()
	s.hookSt.startSource = "clear"
	s.hookSt.mu.Unlock()
	s.turn.unmarkStarted()
}

// sessionEndTimeout bounds the SessionEnd hooks of a closing session.
const sessionEndTimeout = 5 * time.Second

// endHooks runs SessionEnd when a session closes (not a subagent's).
func (s *Session) endHooks() {
	if s.agent != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), sessionEndTimeout)
	defer cancel()
	s.runHook(ctx, hooks.SessionEnd, hooks.Input{Reason: "other"})
	s.removeHookEnv()
}

// compactHooks runs PreCompact before a compaction; it returns why a
// hook blocked it, or "".
func (s *Session) preCompactHooks(ctx context.Context, trigger, instructions string) string {
	out := s.runHook(ctx, hooks.PreCompact, hooks.Input{Trigger: trigger, CustomInstructions: instructions})
	if out.Block {
		return firstNonEmpty(out.Reason, "a PreCompact hook blocked the compaction")
	}
	return ""
}

// postCompactHooks runs PostCompact and then SessionStart with source
// compact; it returns the context SessionStart adds to the compacted
// conversation.
func (s *Session) postCompactHooks(ctx context.Context, trigger, summary string) string {
	s.runHook(ctx, hooks.PostCompact, hooks.Input{Trigger: trigger, CompactSummary: summary})
	return s.runHook(ctx, hooks.SessionStart, hooks.Input{Source: "compact", Model: s.requestModel(), EnvFile: s.hookEnvFile()}).AdditionalContext
}

// notifyHooks runs Notification, e.g. when the user is asked for a
// permission.
func (s *Session) notifyHooks(ctx context.Context, kind, message string) {
	s.runHook(ctx, hooks.Notification, hooks.Input{NotificationType: kind, Message: message})
}

// hookRule returns the matcher of a tool call's hooks' "if" rules: the
// permission policy's, for the call as the policy sees it.
func (s *Session) hookRule(name string, input json.RawMessage) func(string) bool {
	t, ok := s.tools.lookup(name)
	if !ok {
		return nil
	}
	// Built when a hook has "if": resolving paths costs.
	call := sync.OnceValue(func() permission.Call {
		pc := permissionCall(t.Spec(), input, nil, s.cwd)
		if pc.Tool == "Bash" && pc.Command == "" {
			var in struct {
				Command string `json:"command"`
			}
			_ = json.Unmarshal(input, &in)
			pc.Command = in.Command
		}
		return pc
	})
	return func(rule string) bool {
		ok, err := s.pipe.gate.policy.Matches(rule, call())
		if err != nil {
			s.svc.cfg.Logf("session %s: hook condition %q: %v", s.ID, rule, err)
		}
		return ok
	}
}

// permissionRequestHooks runs PermissionRequest before the user is asked
// about a call. done is set when a hook answered: v is then the verdict,
// input the input to run with (nil: unchanged).
func (s *Session) permissionRequestHooks(ctx context.Context, id, name string, input json.RawMessage, command string) (v verdict, updated json.RawMessage, done bool) {
	out := s.runHook(ctx, hooks.PermissionRequest, hooks.Input{ToolName: name, ToolInput: input, ToolUseID: id, Matches: s.hookRule(name, input)})
	s.hookStop(out)
	switch out.Decision {
	case "deny":
		return verdict{refusal: tools.Errorf("a PermissionRequest hook denied this call: %s", firstNonEmpty(out.Reason, "no reason given"))}, nil, true
	case "allow":
		return verdict{confine: s.approvedConfinement(command)}, out.UpdatedInput, true
	}
	return verdict{}, nil, false
}

// subagentStartHooks runs SubagentStart; it returns context for the
// subagent.
func (s *Session) subagentStartHooks(ctx context.Context, agentID, agentType string) string {
	return s.runHook(ctx, hooks.SubagentStart, hooks.Input{AgentID: agentID, AgentType: agentType}).AdditionalContext
}

// subagentStopHooks runs SubagentStop when a subagent ends its turn, in
// its parent's session. It returns a message to send the subagent back
// to work with, or "".
func (c *Session) subagentStopHooks(ctx context.Context, blocks int) string {
	run := c.agent
	in := hooks.Input{AgentID: run.id, AgentType: run.def.Name, StopHookActive: blocks > 0, LastAssistantMessage: c.lastText()}
	if c.conv.log != nil {
		in.AgentTranscriptPath = c.conv.log.Path()
	}
	out := run.parent.runHook(ctx, hooks.SubagentStop, in)
	if !out.Block || out.Stop || blocks >= maxStopBlocks {
		return ""
	}
	return firstNonEmpty(out.Reason, "A SubagentStop hook asked you to continue.")
}

// promptHooks runs SessionStart (first prompt) and UserPromptSubmit. It
// returns the context to add to the prompt, or a reason the prompt is
// blocked.
func (s *Session) promptHooks(ctx context.Context, prompt []schema.ContentBlock) (extra []string, blocked string) {
	if c := s.startHooks(ctx); c != "" {
		extra = append(extra, c)
	}
	out := s.runHook(ctx, hooks.UserPromptSubmit, hooks.Input{Prompt: promptText(prompt)})
	if out.Block || out.Stop {
		reason := firstNonEmpty(out.Reason, out.StopReason, "a UserPromptSubmit hook blocked the prompt")
		return nil, reason
	}
	if out.AdditionalContext != "" {
		extra = append(extra, out.AdditionalContext)
	}
	return extra, ""
}

// preToolHooks runs PreToolUse. It may refuse the call, replace its input,
// settle the permission question ("allow", "deny", "ask"), or add
// context for the model, which follows the call's result.
func (s *Session) preToolHooks(ctx context.Context, id, name string, input json.RawMessage) (_ json.RawMessage, decision, extra string, refusal *tools.Result) {
	out := s.runHook(ctx, hooks.PreToolUse, hooks.Input{ToolName: name, ToolInput: input, ToolUseID: id, Matches: s.hookRule(name, input)})
	s.hookStop(out)
	if out.Block || out.Decision == "deny" || out.Stop {
		return input, "", "", tools.Errorf("a PreToolUse hook blocked this call: %s", firstNonEmpty(out.Reason, "no reason given"))
	}
	if len(out.UpdatedInput) > 0 {
		input = out.UpdatedInput
	}
	return input, out.Decision, out.AdditionalContext, nil
}

// postToolHooks runs PostToolUse, or PostToolUseFailure for a call that
// failed, and adds what the hooks say (and the PreToolUse hooks' extra
// context) to the result the model sees.
func (s *Session) postToolHooks(ctx context.Context, id, name string, input json.RawMessage, res *tools.Result, extra string) {
	in := hooks.Input{ToolName: name, ToolInput: input, ToolUseID: id, Matches: s.hookRule(name, input)}
	event := hooks.PostToolUse
	if res.IsError {
		event = hooks.PostToolUseFailure
		in.Error, in.IsInterrupt = res.Content, ctx.Err() != nil
	} else {
		in.ToolResponse, _ = json.Marshal(map[string]any{"content": res.Content, "is_error": res.IsError})
	}
	out := s.runHook(ctx, event, in)
	s.hookStop(out)
	var notes []string
	if extra != "" {
		notes = append(notes, extra)
	}
	if out.Block {
		notes = append(notes, event+" hook feedback: "+firstNonEmpty(out.Reason, "(no reason given)"))
	}
	if out.AdditionalContext != "" {
		notes = append(notes, out.AdditionalContext)
	}
	if len(notes) > 0 {
		res.Content += "\n\n" + strings.Join(notes, "\n")
	}
}

// stopHooks runs Stop when the model ends its turn. It returns a message
// to send the model back to work with, or "" to end the turn.
func (s *Session) stopHooks(ctx context.Context, blocks int) string {
	out := s.runHook(ctx, hooks.Stop, hooks.Input{StopHookActive: blocks > 0})
	if !out.Block || out.Stop || blocks >= maxStopBlocks {
		if out.Block && blocks >= maxStopBlocks {
			s.status(ctx, Status{Kind: StatusWarning, Message: fmt.Sprintf("a Stop hook blocked the end of the turn %d times; ending it anyway", blocks+1)})
		}
		return ""
	}
	return firstNonEmpty(out.Reason, "A Stop hook asked you to continue.")
}

func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

// hookStop records a hook's {"continue": false}: the turn ends after the
// current tool calls, and the user is told why.
func (s *Session) hookStop(out hooks.Outcome) {
	if !out.Stop {
		return
	}
	s.turn.requestStop("Stopped by a hook: " + firstNonEmpty(out.StopReason, "a hook stopped the session"))
}
