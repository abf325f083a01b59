package engine

import (
	"context"
	"errors"
	"strings"

	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/schema"
)

// Steering: a prompt sent while a turn runs in the same session is not
// refused. It waits in the session's queue and the running turn gives it
// to the model at its next call, as a user message after the pending
// tool results (merged into the message holding them, so roles still
// alternate). The editor sees it then as a user_message_chunk. The
// steering prompt returns when the turn that took it ends, with that
// turn's stop reason; a prompt the turn did not take (it ended first)
// runs as the next turn. A prompt sent after the running turn was
// cancelled, while it winds down, is not cancelled with it: it runs as
// the next turn too. Slash commands are not steered: they need the
// session idle and get ErrBusy. The queue lives in turnState (turn.go).

// errSteered is begin's answer to a prompt queued to steer a running turn.
var errSteered = errors.New("queued to steer the running turn")

// steered is a prompt queued to steer a running turn.
type steered struct {
	msg  providers.Message
	done chan steerOutcome // buffered: end sends exactly once
	// afterCancel is set when the prompt came after the running turn
	// was cancelled; guarded by the turnState's mu.
	afterCancel bool
}

// steerOutcome ends a steering prompt: the outcome of the turn that took
// it, or retry when no turn took it.
type steerOutcome struct {
	stop  string
	err   error
	retry bool
}

// isCommand reports whether a prompt is a slash command.
func isCommand(prompt []schema.ContentBlock) bool {
	return strings.HasPrefix(strings.TrimSpace(promptText(prompt)), "/")
}

// waitSteered waits until the turn a queued prompt steers ends. When ctx
// ends first, a prompt not yet taken leaves the queue.
func (s *Session) waitSteered(ctx context.Context, st *steered) steerOutcome {
	s.svc.cfg.Logf("session %s: prompt queued to steer the running turn", s.ID)
	s.status(ctx, Status{Kind: StatusInfo, Message: "A turn is running: your message will be given to the agent at its next step."})
	select {
	case out := <-st.done:
		return out
	case <-ctx.Done():
	}
	s.turn.dequeue(st)
	return steerOutcome{stop: schema.StopCancelled}
}

// takeSteered gives the queued steering prompts to the model: they join
// the history as the user's words and are shown to the editor.
func (s *Session) takeSteered(ctx context.Context) {
	if s.agent != nil {
		return
	}
	for _, st := range s.turn.take() {
		s.appendMessage(st.msg)
		for _, b := range st.msg.Content {
			if b.Type == providers.BlockText {
				c := schema.TextBlock(b.Text)
				s.update(ctx, schema.Update{SessionUpdate: schema.UpdateUserMessageChunk, Content: &c})
			}
		}
		s.svc.cfg.Logf("session %s: a steering prompt joins the turn", s.ID)
	}
}
