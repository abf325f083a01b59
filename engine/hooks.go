package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agent-lsp/agent-lsp/hooks"
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
	in.SessionID = s.ID
	in.Cwd = s.cwd
	in.PermissionMode = s.Mode()
	if s.conv.log != nil {
		in.TranscriptPath = s.conv.log.Path()
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
	return s.runHook(ctx, hooks.SessionStart, hooks.Input{Source: source}).AdditionalContext
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
// or settle the permission question ("allow", "deny", "ask").
func (s *Session) preToolHooks(ctx context.Context, id, name string, input json.RawMessage) (json.RawMessage, string, *tools.Result) {
	out := s.runHook(ctx, hooks.PreToolUse, hooks.Input{ToolName: name, ToolInput: input, ToolUseID: id})
	s.hookStop(out)
	if out.Block || out.Decision == "deny" || out.Stop {
		return input, "", tools.Errorf("a PreToolUse hook blocked this call: %s", firstNonEmpty(out.Reason, "no reason given"))
	}
	if len(out.UpdatedInput) > 0 {
		input = out.UpdatedInput
	}
	return input, out.Decision, nil
}

// postToolHooks runs PostToolUse and adds what the hooks say to the
// result the model sees.
func (s *Session) postToolHooks(ctx context.Context, id, name string, input json.RawMessage, res *tools.Result) {
	resp, _ := json.Marshal(map[string]any{"content": res.Content, "is_error": res.IsError})
	out := s.runHook(ctx, hooks.PostToolUse, hooks.Input{ToolName: name, ToolInput: input, ToolUseID: id, ToolResponse: resp})
	s.hookStop(out)
	var notes []string
	if out.Block {
		notes = append(notes, "PostToolUse hook feedback: "+firstNonEmpty(out.Reason, "(no reason given)"))
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
	s.turn.requestStop(firstNonEmpty(out.StopReason, "a hook stopped the session"))
}
