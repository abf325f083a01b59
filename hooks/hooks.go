package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/agent-lsp/agent-lsp/procgroup"
	"github.com/agent-lsp/agent-lsp/settings"
)

// The events hooks run for.
const (
	PreToolUse         = "PreToolUse"
	PostToolUse        = "PostToolUse"
	PostToolUseFailure = "PostToolUseFailure"
	PermissionRequest  = "PermissionRequest"
	UserPromptSubmit   = "UserPromptSubmit"
	Stop               = "Stop"
	SessionStart       = "SessionStart"
	SessionEnd         = "SessionEnd"
	Notification       = "Notification"
	PreCompact         = "PreCompact"
	PostCompact        = "PostCompact"
	SubagentStart      = "SubagentStart"
	SubagentStop       = "SubagentStop"
)

// toolEvent reports whether event is about one tool call: its matcher
// selects tool names and a hook's "if" rule applies.
func toolEvent(event string) bool {
	switch event {
	case PreToolUse, PostToolUse, PostToolUseFailure, PermissionRequest:
		return true
	}
	return false
}

// defaultTimeout is how long a hook may run when its settings give no
// timeout.
const defaultTimeout = 60 * time.Second

// waitDelay is how long a hook that has exited may keep its output open
// (through background children) before the pipes are closed and the
// children killed.
const waitDelay = 2 * time.Second

// maxOutput bounds what is kept of a hook's stdout and stderr.
const maxOutput = 1 << 20

// Input is what a hook is told about the event.
type Input struct {
	SessionID      string
	TranscriptPath string
	// Cwd is where the session works and where the hook runs; empty
	// means the project root.
	Cwd            string
	PermissionMode string
	// ToolName, ToolInput and ToolUseID: PreToolUse and PostToolUse.
	ToolName  string
	ToolInput json.RawMessage
	ToolUseID string
	// ToolResponse: PostToolUse.
	ToolResponse json.RawMessage
	// Prompt: UserPromptSubmit.
	Prompt string
	// StopHookActive: Stop, true when the turn already continued because
	// of a Stop hook (hooks use it to avoid endless loops).
	StopHookActive bool
	// Source: SessionStart, one of startup, resume, clear, compact.
	Source string
	// Model: SessionStart, the model the session asks.
	Model string
	// Error and IsInterrupt: PostToolUseFailure, what went wrong and
	// whether the user interrupted the call.
	Error       string
	IsInterrupt bool
	// Reason: SessionEnd, why it ended (clear, logout,
	// prompt_input_exit, other).
	Reason string
	// Message, Title and NotificationType: Notification
	// (permission_prompt, idle_prompt, ...).
	Message          string
	Title            string
	NotificationType string
	// Trigger: PreCompact and PostCompact, manual or auto;
	// CustomInstructions, what the user asked of a manual /compact;
	// CompactSummary, PostCompact's summary.
	Trigger            string
	CustomInstructions string
	CompactSummary     string
	// AgentID, AgentType: SubagentStart and SubagentStop;
	// AgentTranscriptPath and LastAssistantMessage: SubagentStop.
	AgentID              string
	AgentType            string
	AgentTranscriptPath  string
	LastAssistantMessage string

	// Matches reports whether a hook's "if" permission rule covers the
	// tool call (tool events). Without it, hooks with "if" do not run.
	Matches func(rule string) bool `json:"-"`
	// Status, when set, shows a hook's statusMessage while it runs.
	Status func(message string) `json:"-"`
	// EnvFile: SessionStart, the file given to the hook as
	// CLAUDE_ENV_FILE, where it may write `export NAME=value` lines for
	// the session's shell commands.
	EnvFile string `json:"-"`
	// Ask answers a prompt hook's question with a model; without it,
	// prompt hooks fail without blocking.
	Ask func(ctx context.Context, prompt string) (string, error) `json:"-"`
}

// payload is the JSON a hook reads for event.
func (in Input) payload(event, cwd string) ([]byte, error) {
	m := map[string]any{
		"session_id":      in.SessionID,
		"transcript_path": in.TranscriptPath,
		"cwd":             cwd,
		"hook_event_name": event,
	}
	if in.PermissionMode != "" {
		m["permission_mode"] = in.PermissionMode
	}
	raw := func(r json.RawMessage) json.RawMessage {
		if len(bytes.TrimSpace(r)) == 0 {
			return json.RawMessage("{}")
		}
		return r
	}
	switch event {
	case PreToolUse, PostToolUse, PostToolUseFailure, PermissionRequest:
		m["tool_name"] = in.ToolName
		m["tool_input"] = raw(in.ToolInput)
		if in.ToolUseID != "" {
			m["tool_use_id"] = in.ToolUseID
		}
		switch event {
		case PostToolUse:
			m["tool_response"] = raw(in.ToolResponse)
		case PostToolUseFailure:
			m["error"] = in.Error
			m["is_interrupt"] = in.IsInterrupt
		}
	case UserPromptSubmit:
		m["prompt"] = in.Prompt
	case Stop:
		m["stop_hook_active"] = in.StopHookActive
	case SubagentStop:
		m["stop_hook_active"] = in.StopHookActive
		m["agent_id"] = in.AgentID
		m["agent_type"] = in.AgentType
		m["agent_transcript_path"] = in.AgentTranscriptPath
		m["last_assistant_message"] = in.LastAssistantMessage
	case SubagentStart:
		m["agent_id"] = in.AgentID
		m["agent_type"] = in.AgentType
	case SessionStart:
		m["source"] = in.Source
		if in.Model != "" {
			m["model"] = in.Model
		}
	case SessionEnd:
		m["reason"] = in.Reason
	case Notification:
		m["message"] = in.Message
		m["notification_type"] = in.NotificationType
		if in.Title != "" {
			m["title"] = in.Title
		}
	case PreCompact:
		m["trigger"] = in.Trigger
		m["custom_instructions"] = in.CustomInstructions
	case PostCompact:
		m["trigger"] = in.Trigger
		m["compact_summary"] = in.CompactSummary
	}
	return json.Marshal(m)
}

// Outcome is what the hooks of one event decided, together.
type Outcome struct {
	// Block stops what the event is about: the tool call (PreToolUse),
	// the prompt (UserPromptSubmit) or the end of the turn (Stop, where
	// the loop goes on with Reason as the next message). For PostToolUse,
	// Reason is fed back to the model.
	Block  bool
	Reason string
	// Decision is a PreToolUse permission decision: "allow" (skip the
	// prompt), "deny", "ask" (ask even when rules allow), or "".
	Decision string
	// UpdatedInput replaces the tool's input (PreToolUse).
	UpdatedInput json.RawMessage
	// AdditionalContext is text to add to the model's context.
	AdditionalContext string
	// Stop says a hook asked for the whole session to stop
	// ({"continue": false}), with StopReason for the user.
	Stop       bool
	StopReason string
	// SystemMessage is text for the user.
	SystemMessage string
	// Errors are hooks that failed without blocking (bad exit status,
	// timeout, unparseable output), for the log.
	Errors []string
}

// Runner runs the hooks of a session's settings. It is safe for
// concurrent use.
type Runner struct {
	shell string

	mu       sync.RWMutex
	s        *settings.Settings        // guarded by mu
	matchers map[string]*regexp.Regexp // guarded by mu; compiled regex matchers
	badRE    map[string]string         // guarded by mu; matcher -> compile error
}

// NewRunner returns a Runner for the hooks of s.
func NewRunner(s *settings.Settings) *Runner {
	r := &Runner{shell: "/bin/sh"}
	if bash, err := exec.LookPath("bash"); err == nil {
		r.shell = bash
	}
	r.Update(s)
	return r
}

// simpleMatcherRE matches matchers that are names or A|B lists, which
// match exactly; anything else is a regular expression.
var simpleMatcherRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_|]+$`) })

// Update replaces the hooks with those of reloaded settings.
func (r *Runner) Update(s *settings.Settings) {
	if s == nil {
		s = &settings.Settings{}
	}
	matchers := map[string]*regexp.Regexp{}
	bad := map[string]string{}
	for _, ms := range s.Hooks {
		for _, m := range ms {
			if m.Matcher == "" || m.Matcher == "*" || simpleMatcherRE().MatchString(m.Matcher) {
				continue
			}
			re, err := regexp.Compile(m.Matcher)
			if err != nil {
				bad[m.Matcher] = err.Error()
				continue
			}
			matchers[m.Matcher] = re
		}
	}
	r.mu.Lock()
	r.s, r.matchers, r.badRE = s, matchers, bad
	r.mu.Unlock()
}

// Has reports whether any hook is configured for event, so callers can
// skip building inputs.
func (r *Runner) Has(event string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return !r.s.DisableAllHooks && len(r.s.Hooks[event]) > 0
}

// match reports whether matcher selects name. Like Claude Code, "" and
// "*" match everything, names and A|B lists match exactly, and anything
// else is an unanchored regular expression.
func (r *Runner) match(matcher, name string) (bool, string) {
	switch {
	case matcher == "" || matcher == "*":
		return true, ""
	case simpleMatcherRE().MatchString(matcher):
		for _, alt := range strings.Split(matcher, "|") {
			if alt == name {
				return true, ""
			}
		}
		return false, ""
	}
	if why, bad := r.badRE[matcher]; bad {
		return false, fmt.Sprintf("hook matcher %q is not a valid regular expression: %s", matcher, why)
	}
	return r.matchers[matcher].MatchString(name), ""
}

// selected returns the hooks to run for event, without duplicates.
func (r *Runner) selected(event string, in Input) (hooks []settings.Hook, s *settings.Settings, errs []string) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	s = r.s
	if s.DisableAllHooks {
		return nil, s, nil
	}
	subject := ""
	switch event {
	case PreToolUse, PostToolUse, PostToolUseFailure, PermissionRequest:
		subject = in.ToolName
	case SessionStart:
		subject = in.Source
	case SessionEnd:
		subject = in.Reason
	case Notification:
		subject = in.NotificationType
	case PreCompact, PostCompact:
		subject = in.Trigger
	case SubagentStart, SubagentStop:
		subject = in.AgentType
	}
	seen := map[string]bool{}
	for _, m := range s.Hooks[event] {
		if subject != "" || toolEvent(event) {
			ok, why := r.match(m.Matcher, subject)
			if why != "" {
				errs = append(errs, why)
			}
			if !ok {
				continue
			}
		}
		for _, h := range m.Hooks {
			// "if" narrows a tool event's hook to the calls its
			// permission rule covers; elsewhere it never matches.
			if h.If != "" && (!toolEvent(event) || in.Matches == nil || !in.Matches(h.If)) {
				continue
			}
			key := strings.Join(append([]string{h.Type, h.Command, h.URL, h.If}, h.Args...), "\x00")
			if seen[key] {
				continue
			}
			seen[key] = true
			hooks = append(hooks, h)
		}
	}
	return hooks, s, errs
}

// Run runs the hooks configured for event and combines what they say. It
// returns when every hook has finished, timed out or been killed because
// ctx ended.
func (r *Runner) Run(ctx context.Context, event string, in Input) Outcome {
	hooks, s, errs := r.selected(event, in)
	out := Outcome{Errors: errs}
	if len(hooks) == 0 {
		return out
	}
	cwd := in.Cwd
	if cwd == "" {
		cwd = s.Project
	}
	payload, err := in.payload(event, cwd)
	if err != nil {
		out.Errors = append(out.Errors, fmt.Sprintf("encoding the %s event: %v", event, err))
		return out
	}
	env := os.Environ()
	for k, v := range s.Env {
		env = append(env, k+"="+v)
	}
	if s.Project != "" {
		env = append(env, "CLAUDE_PROJECT_DIR="+s.Project)
	}
	if event == SessionStart && in.EnvFile != "" {
		env = append(env, "CLAUDE_ENV_FILE="+in.EnvFile)
	}

	if in.Status != nil {
		for _, h := range hooks {
			if msg := strings.TrimSpace(h.StatusMessage); msg != "" {
				in.Status(msg)
			}
		}
	}
	results := make([]result, len(hooks))
	var wg sync.WaitGroup
	for i, h := range hooks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			switch h.Type {
			case "http":
				results[i] = r.post(ctx, h, payload, s.Env)
				return
			case "prompt":
				results[i] = askModel(ctx, h, payload, in.Ask)
				return
			}
			results[i] = r.runOne(ctx, h, payload, cwd, env)
		}()
	}
	wg.Wait()
	for i, res := range results {
		out.add(event, hooks[i], res)
	}
	return out
}

// result is how one hook ended.
type result struct {
	exit   int
	stdout string
	stderr string
	err    string // the hook did not run to an exit status
}

func (r *Runner) runOne(ctx context.Context, h settings.Hook, payload []byte, cwd string, env []string) result {
	if h.Type != "command" {
		return result{err: fmt.Sprintf("hook type %q is not supported", h.Type)}
	}
	timeout := hookTimeout(h)
	hctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	cmd := exec.CommandContext(hctx, r.shell, "-c", h.Command)
	if len(h.Args) > 0 {
		// A program and its arguments: no shell between them.
		cmd = exec.CommandContext(hctx, h.Command, h.Args...)
	}
	cmd.Dir = cwd
	cmd.Env = env
	cmd.Stdin = bytes.NewReader(payload)
	var stdout, stderr limitedBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// Its own process group, so everything it started can be killed.
	procgroup.Set(cmd)
	cmd.Cancel = func() error { return procgroup.Kill(cmd.Process.Pid) }
	cmd.WaitDelay = waitDelay

	err := cmd.Run()
	if cmd.Process != nil && (errors.Is(err, exec.ErrWaitDelay) || hctx.Err() != nil) {
		// Children that outlived the hook, or a hook cut short: end the
		// whole group. The group may be gone already.
		_ = procgroup.Kill(cmd.Process.Pid)
	}
	res := result{stdout: stdout.String(), stderr: strings.TrimSpace(stderr.String())}
	switch {
	case ctx.Err() != nil:
		res.err = "cancelled"
		return res
	case hctx.Err() != nil:
		res.err = fmt.Sprintf("timed out after %s and was killed", timeout)
		return res
	}
	var exitErr *exec.ExitError
	switch {
	case err == nil || errors.Is(err, exec.ErrWaitDelay):
		res.exit = cmd.ProcessState.ExitCode()
	case errors.As(err, &exitErr):
		res.exit = exitErr.ExitCode()
		if res.exit < 0 {
			res.err = "killed by " + exitErr.String()
		}
	default:
		res.err = err.Error()
	}
	return res
}

// hookOutput is the JSON a hook may print on stdout.
type hookOutput struct {
	Continue           *bool  `json:"continue"`
	StopReason         string `json:"stopReason"`
	SystemMessage      string `json:"systemMessage"`
	Decision           string `json:"decision"`
	Reason             string `json:"reason"`
	HookSpecificOutput *struct {
		PermissionDecision       string          `json:"permissionDecision"`
		PermissionDecisionReason string          `json:"permissionDecisionReason"`
		UpdatedInput             json.RawMessage `json:"updatedInput"`
		AdditionalContext        string          `json:"additionalContext"`
		// Decision is PermissionRequest's answer.
		Decision *struct {
			Behavior     string          `json:"behavior"`
			UpdatedInput json.RawMessage `json:"updatedInput"`
			Message      string          `json:"message"`
			Interrupt    bool            `json:"interrupt"`
		} `json:"decision"`
	} `json:"hookSpecificOutput"`
}

// blocking reports whether exit status 2 of an event's hook blocks
// something (the call, the prompt, the end of the turn, the compaction)
// or feeds stderr back to the model. For the other events stderr is
// shown to the user only.
func blocking(event string) bool {
	switch event {
	case SessionStart, SessionEnd, Notification, SubagentStart, PostCompact:
		return false
	}
	return true
}

// contextEvent reports whether plain stdout of an event's hook is
// context for the model.
func contextEvent(event string) bool {
	return event == UserPromptSubmit || event == SessionStart || event == SubagentStart
}

// decisionRank orders permission decisions: deny beats ask beats allow.
var decisionRank = map[string]int{"": 0, "allow": 1, "ask": 2, "deny": 3}

func (o *Outcome) decide(d string) {
	if decisionRank[d] > decisionRank[o.Decision] {
		o.Decision = d
	}
}

func appendLine(dst *string, s string) {
	s = strings.TrimSpace(s)
	if s == "" {
		return
	}
	if *dst != "" {
		*dst += "\n"
	}
	*dst += s
}

// add folds one hook's result into the outcome.
func (o *Outcome) add(event string, h settings.Hook, res result) {
	name := h.Command
	switch h.Type {
	case "http":
		name = h.URL
	case "prompt":
		name = h.Prompt
	}
	if len(name) > 80 {
		name = name[:77] + "..."
	}
	if res.err != "" {
		o.Errors = append(o.Errors, fmt.Sprintf("%s hook %q: %s", event, name, res.err))
		return
	}
	switch res.exit {
	case 0:
	case 2:
		reason := res.stderr
		if reason == "" {
			reason = fmt.Sprintf("blocked by the %s hook %q", event, name)
		}
		if !blocking(event) {
			o.Errors = append(o.Errors, fmt.Sprintf("%s hook %q: %s", event, name, reason))
			return
		}
		o.Block = true
		appendLine(&o.Reason, reason)
		if event == PreToolUse || event == PermissionRequest {
			o.decide("deny")
		}
		return
	default:
		msg := fmt.Sprintf("%s hook %q exited with status %d", event, name, res.exit)
		if res.stderr != "" {
			msg += ": " + res.stderr
		}
		o.Errors = append(o.Errors, msg)
		return
	}

	text := strings.TrimSpace(res.stdout)
	if !strings.HasPrefix(text, "{") {
		if contextEvent(event) {
			appendLine(&o.AdditionalContext, text)
		}
		return
	}
	var ho hookOutput
	if err := json.Unmarshal([]byte(text), &ho); err != nil {
		o.Errors = append(o.Errors, fmt.Sprintf("%s hook %q printed invalid JSON: %v", event, name, err))
		return
	}
	if ho.Continue != nil && !*ho.Continue {
		o.Stop = true
		appendLine(&o.StopReason, ho.StopReason)
	}
	appendLine(&o.SystemMessage, ho.SystemMessage)
	switch ho.Decision {
	case "block":
		if !blocking(event) {
			break
		}
		o.Block = true
		appendLine(&o.Reason, ho.Reason)
		if o.Reason == "" {
			o.Reason = fmt.Sprintf("blocked by the %s hook %q", event, name)
		}
		if event == PreToolUse {
			o.decide("deny")
		}
	case "approve":
		if event == PreToolUse {
			o.decide("allow")
		}
	}
	hs := ho.HookSpecificOutput
	if hs == nil {
		return
	}
	appendLine(&o.AdditionalContext, hs.AdditionalContext)
	if event == PermissionRequest {
		o.permissionRequest(name, hs.Decision)
		return
	}
	if event != PreToolUse {
		return
	}
	switch hs.PermissionDecision {
	case "allow", "ask":
		o.decide(hs.PermissionDecision)
		if hs.PermissionDecision == "ask" {
			appendLine(&o.Reason, hs.PermissionDecisionReason)
		}
	case "deny":
		o.decide("deny")
		o.Block = true
		reason := hs.PermissionDecisionReason
		if reason == "" {
			reason = fmt.Sprintf("denied by the PreToolUse hook %q", name)
		}
		appendLine(&o.Reason, reason)
	case "":
	default:
		o.Errors = append(o.Errors, fmt.Sprintf("PreToolUse hook %q: unknown permissionDecision %q", name, hs.PermissionDecision))
	}
	if len(bytes.TrimSpace(hs.UpdatedInput)) > 0 && string(bytes.TrimSpace(hs.UpdatedInput)) != "null" {
		if !bytes.HasPrefix(bytes.TrimSpace(hs.UpdatedInput), []byte("{")) {
			o.Errors = append(o.Errors, fmt.Sprintf("PreToolUse hook %q: updatedInput must be an object", name))
		} else {
			o.UpdatedInput = hs.UpdatedInput
		}
	}
}

// limitedBuffer keeps the first maxOutput bytes written to it.
type limitedBuffer struct {
	mu  sync.Mutex // guards buf: exec copies stdout and stderr from separate goroutines
	buf bytes.Buffer
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := maxOutput - b.buf.Len(); room > 0 {
		if len(p) > room {
			b.buf.Write(p[:room])
		} else {
			b.buf.Write(p)
		}
	}
	return len(p), nil
}

func (b *limitedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// permissionRequest folds a PermissionRequest hook's decision into the
// outcome: allow answers the question (with the input it may update),
// deny refuses the call with its message, and interrupt stops the turn.
func (o *Outcome) permissionRequest(name string, d *struct {
	Behavior     string          `json:"behavior"`
	UpdatedInput json.RawMessage `json:"updatedInput"`
	Message      string          `json:"message"`
	Interrupt    bool            `json:"interrupt"`
}) {
	if d == nil {
		return
	}
	switch d.Behavior {
	case "allow":
		o.decide("allow")
		if in := bytes.TrimSpace(d.UpdatedInput); len(in) > 0 && string(in) != "null" {
			if !bytes.HasPrefix(in, []byte("{")) {
				o.Errors = append(o.Errors, fmt.Sprintf("PermissionRequest hook %q: updatedInput must be an object", name))
			} else {
				o.UpdatedInput = d.UpdatedInput
			}
		}
	case "deny":
		o.decide("deny")
		o.Block = true
		appendLine(&o.Reason, firstNonEmpty(d.Message, fmt.Sprintf("denied by the PermissionRequest hook %q", name)))
		if d.Interrupt {
			o.Stop = true
			appendLine(&o.StopReason, firstNonEmpty(d.Message, "a PermissionRequest hook stopped the turn"))
		}
	default:
		o.Errors = append(o.Errors, fmt.Sprintf("PermissionRequest hook %q: unknown decision behavior %q", name, d.Behavior))
	}
}

func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

// hookTimeout is how long a hook may run.
func hookTimeout(h settings.Hook) time.Duration {
	if h.Timeout > 0 {
		return time.Duration(h.Timeout * float64(time.Second))
	}
	return defaultTimeout
}
