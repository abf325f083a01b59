package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/schema"
)

// Prompt runs one turn of the conversation: the user's prompt, then model
// calls and tool runs until the model ends its turn, the turn limit is
// reached or the prompt is cancelled. It returns the stop reason. An error
// means the turn could not go on (no provider, an API error after
// retries); the history keeps everything that happened before it.
func (s *Session) Prompt(ctx context.Context, prompt []schema.ContentBlock) (string, error) {
	defer entered(ctx) // on every path; a no-op once called
	msg, err := userMessage(prompt)
	if err != nil {
		return "", err
	}
	if !isCommand(prompt) {
		reminders, notes := s.ambientContext(prompt)
		s.notifyAmbient(ctx, notes)
		msg.Content = append(reminders, msg.Content...)
	}
	for {
		var steer *steered
		if !isCommand(prompt) {
			steer = &steered{msg: msg, done: make(chan steerOutcome, 1)}
		}
		runCtx, err := s.begin(ctx, steer)
		entered(ctx)
		if errors.Is(err, errSteered) {
			// Another turn runs: it takes this prompt at its next
			// model call (see steer.go).
			out := s.waitSteered(ctx, steer)
			if out.retry {
				continue
			}
			return out.stop, out.err
		}
		if err != nil {
			return "", err
		}
		return s.runTurn(runCtx, prompt, msg)
	}
}

// runTurn runs a prompt in a session that begin marked as running.
func (s *Session) runTurn(ctx context.Context, prompt []schema.ContentBlock, msg providers.Message) (stop string, err error) {
	defer func() { s.turn.end(stop, err) }()
	defer s.persist()
	msg, stop, done, err := s.prepare(ctx, prompt, msg)
	if done {
		return stop, err
	}
	return s.start(ctx, prompt, msg)
}

// start begins a turn with the user's message msg: the title, a
// checkpoint of the workspace, then the loop.
func (s *Session) start(ctx context.Context, prompt []schema.ContentBlock, msg providers.Message) (string, error) {
	s.setTitle(prompt)
	s.checkpointStart(ctx, prompt)
	defer s.checkpointEnd()
	s.appendMessage(msg)
	if s.tools.code != nil {
		s.tools.code.beginTurn()
	}
	return s.loop(ctx)
}

// prepare readies a prompt for the model: it settles the folder's trust,
// runs the session's own commands (/compact, /clear), expands the user's
// commands and runs the prompt hooks. It returns the message to send, or
// done with the turn's outcome when the prompt ends here.
func (s *Session) prepare(ctx context.Context, prompt []schema.ContentBlock, msg providers.Message) (_ providers.Message, stop string, done bool, err error) {
	// An untrusted folder's held-back settings are settled before
	// anything of the turn runs (hooks included).
	s.svc.settleTrust(ctx, s)
	s.approveProjectMCP(ctx)
	if ctx.Err() != nil {
		return msg, schema.StopCancelled, true, nil
	}
	if stop, ok, err := s.slashCommand(ctx, prompt); ok {
		return msg, stop, true, err
	}
	if expanded, ok, err := s.expandCommand(ctx, prompt); ok {
		if ctx.Err() != nil {
			return msg, schema.StopCancelled, true, nil
		}
		if err != nil {
			return msg, "", true, err
		}
		msg = expanded
	}
	msg.Content = append(msg.Content, s.mcpMentions(ctx, prompt)...)
	extra, blocked := s.promptHooks(ctx, prompt)
	if blocked != "" {
		s.say(ctx, "The prompt was blocked by a hook: "+blocked)
		return msg, schema.StopEndTurn, true, nil
	}
	for _, c := range extra {
		msg.Content = append(msg.Content, providers.TextBlock(c))
	}
	return msg, "", false, nil
}

// loop calls the model and runs the tools it asks for until it ends its
// turn. The history ends with the user's message. A subagent runs the
// same loop in its own session.
func (s *Session) loop(ctx context.Context) (string, error) {
	var guard repeatGuard
	stopBlocks := 0
	for calls := 0; calls != s.maxTurns(); calls++ {
		// Prepare: prompts sent meanwhile join the conversation.
		s.takeSteered(ctx)
		// Stream the model's response into the history.
		resp, err := s.callModel(ctx)
		if ctx.Err() != nil {
			return schema.StopCancelled, nil
		}
		if err != nil {
			return "", err
		}
		uses := resp.Message.ToolUses()
		if len(uses) == 0 {
			if stop, end := s.mayEnd(ctx, resp, &stopBlocks); end {
				return stop, nil
			}
			continue
		}
		// Run the tools and persist their results.
		results := s.runTools(ctx, uses)
		s.checkRepeats(&guard, uses, results)
		results = append(results, s.memoryAttachment(uses, results)...)
		s.appendMessage(providers.Message{Role: providers.RoleUser, Content: results})
		if ctx.Err() != nil {
			return schema.StopCancelled, nil
		}
		if reason := s.turn.takeStop(); reason != "" {
			s.say(ctx, reason)
			return schema.StopEndTurn, nil
		}
	}
	return schema.StopMaxTurnRequests, nil
}

// mayEnd decides, when the model answered without calling a tool,
// whether the turn ends (and with which stop reason) or the model goes
// on: the user said more meanwhile, or a Stop hook or the end-of-turn
// checks send it back. stopBlocks counts the Stop hooks' sends.
func (s *Session) mayEnd(ctx context.Context, resp *providers.Response, stopBlocks *int) (stop string, end bool) {
	endTurn := resp.StopReason == providers.StopEndTurn
	if endTurn && s.turn.hasQueued() {
		return "", false // the user said more while the model answered
	}
	if s.agent != nil {
		if again := s.subagentStopHooks(ctx, *stopBlocks); again != "" && endTurn {
			*stopBlocks++
			s.appendMessage(providers.Message{Role: providers.RoleUser, Content: []providers.Block{providers.TextBlock(again)}})
			return "", false
		}
		return stopReason(resp.StopReason), true
	}
	if again := s.stopHooks(ctx, *stopBlocks); again != "" && endTurn {
		*stopBlocks++
		s.appendMessage(providers.Message{Role: providers.RoleUser, Content: []providers.Block{providers.TextBlock(again)}})
		return "", false
	}
	if again := s.checkOnStop(ctx); again != "" && endTurn {
		s.appendMessage(providers.Message{Role: providers.RoleUser, Content: []providers.Block{providers.TextBlock(again)}})
		return "", false
	}
	return stopReason(resp.StopReason), true
}

// callModel streams one model response, forwarding it to the editor, and
// adds it to the history. A cancelled call keeps what was streamed.
func (s *Session) callModel(ctx context.Context) (*providers.Response, error) {
	p, err := s.svc.provider()
	if err != nil {
		return nil, err
	}
	if err := s.fitContext(ctx); err != nil {
		return nil, err
	}
	resp, err := s.stream(ctx, p)
	if providers.IsContextTooLong(err) {
		// The estimate was off: compact and try once more.
		if cerr := s.compact(ctx, false); cerr != nil {
			return nil, fmt.Errorf("%w (and compacting failed: %v)", err, cerr)
		}
		resp, err = s.stream(ctx, p)
	}
	if err != nil {
		return nil, err
	}
	s.appendResponse(resp)
	s.reportUsage(ctx, resp)
	return resp, nil
}

// stream makes one model call, forwarding its events. A cancelled call
// keeps what was streamed in the history.
func (s *Session) stream(ctx context.Context, p Provider) (*providers.Response, error) {
	req := s.request()
	s.conv.noteOverhead(estimateRequestOverhead(req))
	fwd := newForwarder(ctx, s)
	resp, err := p.Stream(ctx, req, fwd.emit)
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, context.Canceled) {
			if partial := fwd.partial(); len(partial.Content) > 0 {
				s.appendMessage(partial)
			}
			return nil, ctx.Err()
		}
		return nil, err
	}
	return resp, nil
}

// estimateRequestOverhead estimates the tokens of a request's system
// prompt and tool schemas.
func estimateRequestOverhead(req *providers.Request) int64 {
	n := 0
	for _, b := range req.System {
		n += len(b.Text)
	}
	for _, t := range req.Tools {
		n += len(t.Description) + len(t.InputSchema) + len(t.Name)
	}
	return int64(n / charsPerToken)
}

// stopReason maps a model stop reason to the prompt's.
func stopReason(r providers.StopReason) string {
	switch r {
	case providers.StopMaxTokens:
		return schema.StopMaxTokens
	case providers.StopRefusal:
		return schema.StopRefusal
	}
	return schema.StopEndTurn
}
