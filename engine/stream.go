package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/schema"
)

// request builds the next model request from the session's state.
func (s *Session) request() *providers.Request {
	// What the session may use now: language servers come with trust
	// and settings (MCP servers' tools join and leave as they report).
	s.tools.syncCode()
	all := s.tools.all()
	specs := make([]providers.ToolSpec, 0, len(all))
	for _, t := range all {
		if a, ok := t.(*agentTool); ok {
			a.reload()
		}
		sp := t.Spec()
		specs = append(specs, providers.ToolSpec{Name: sp.Name, Description: sp.Description, InputSchema: sp.InputSchema})
	}
	budget, effort := s.thinking()
	return &providers.Request{
		Model:          s.requestModel(),
		System:         s.systemPrompt(),
		Messages:       s.History(),
		Tools:          specs,
		MaxTokens:      s.svc.cfg.MaxTokens,
		ThinkingBudget: budget,
		Effort:         effort,
	}
}

// forwarder turns a model's stream events into session updates, and
// remembers what streamed so a cancelled call keeps it.
type forwarder struct {
	ctx context.Context
	s   *Session

	mu       sync.Mutex
	text     strings.Builder // guarded by mu
	thinking strings.Builder // guarded by mu
	calls    []string        // tool calls announced by this attempt, guarded by mu
}

func newForwarder(ctx context.Context, s *Session) *forwarder {
	return &forwarder{ctx: ctx, s: s}
}

func (f *forwarder) emit(ev providers.Event) {
	switch ev.Kind {
	case providers.EventText:
		f.mu.Lock()
		f.text.WriteString(ev.Text)
		f.mu.Unlock()
		b := schema.TextBlock(ev.Text)
		f.s.update(f.ctx, schema.Update{SessionUpdate: schema.UpdateAgentMessageChunk, Content: &b})
	case providers.EventThinking:
		f.mu.Lock()
		f.thinking.WriteString(ev.Text)
		f.mu.Unlock()
		b := schema.TextBlock(ev.Text)
		f.s.update(f.ctx, schema.Update{SessionUpdate: schema.UpdateAgentThoughtChunk, Content: &b})
	case providers.EventToolStart:
		f.mu.Lock()
		f.calls = append(f.calls, ev.ToolID)
		f.mu.Unlock()
		f.s.update(f.ctx, schema.Update{SessionUpdate: schema.UpdateToolCall, ToolCall: &schema.ToolCall{
			ToolCallID: ev.ToolID,
			Title:      ev.ToolName,
			Kind:       f.s.kindOf(ev.ToolName),
			Status:     schema.StatusPending,
			Meta:       schema.ToolMeta(ev.ToolName),
		}})
	case providers.EventRetry:
		if ev.Retry != nil {
			// The failed attempt's output is void: the next attempt
			// streams the response from the start.
			f.mu.Lock()
			f.text.Reset()
			f.thinking.Reset()
			calls := f.calls
			f.calls = nil
			f.mu.Unlock()
			for _, id := range calls {
				f.s.update(f.ctx, schema.Update{SessionUpdate: schema.UpdateToolCallUpdate, ToolCall: &schema.ToolCall{
					ToolCallID: id, Status: schema.StatusFailed, Title: "interrupted: the model call is retried",
				}})
			}
			f.s.status(f.ctx, Status{
				Kind:      StatusRetry,
				Message:   fmt.Sprintf("model call failed (%s); retrying in %s (attempt %d)", ev.Retry.Reason, ev.Retry.Delay.Round(100e6), ev.Retry.Attempt+1),
				RetryInMs: ev.Retry.Delay.Milliseconds(),
			})
		}
	}
}

// partial returns what streamed before a cancel, as an assistant message.
func (f *forwarder) partial() providers.Message {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := providers.Message{Role: providers.RoleAssistant}
	if t := f.text.String(); t != "" {
		m.Content = append(m.Content, providers.TextBlock(t+"\n\n[interrupted by the user]"))
	}
	return m
}

// kindOf returns the ACP kind of the named tool.
func (s *Session) kindOf(name string) string {
	if t, ok := s.tools.lookup(name); ok && t.Spec().Kind != "" {
		return t.Spec().Kind
	}
	return schema.KindOther
}

// reportUsage sends a usage_update after a model call.
func (s *Session) reportUsage(ctx context.Context, resp *providers.Response) {
	s.conv.counts(resp.Usage)
	used := resp.Usage.ContextTokens()
	size := s.svc.cfg.Window
	u := schema.Update{SessionUpdate: schema.UpdateUsage, Used: &used, Size: &size}
	if price := s.svc.cfg.Price; price != nil {
		owner := s // a subagent's calls are the parent session's cost
		if s.agent != nil {
			owner = s.agent.parent
		}
		cost := owner.conv.addCost(price(resp.Usage))
		if cost > 0 {
			u.Cost = &schema.Cost{Amount: cost, Currency: "USD"}
		}
	}
	s.update(ctx, u)
}
