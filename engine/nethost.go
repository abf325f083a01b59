package engine

import (
	"context"
	"fmt"

	"github.com/agent-lsp/agent-lsp/netproxy"
	"github.com/agent-lsp/agent-lsp/permission"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/settings"
	"github.com/google/uuid"
)

// The options of a network host's question.
const (
	optHostOnce   = "host_once"
	optHostAlways = "host_always"
	optHostReject = "host_reject"
)

// askHost returns the question the network proxy asks while a sandboxed
// command of the tool call that runs with ctx waits on a host the
// settings neither grant nor deny: allow it for this command, always
// (added to sandbox.network.allowedDomains in the project's
// settings.local.json, as other "always" answers are saved), or refuse
// it. It returns nil in dontAsk and bypassPermissions, where nothing is
// asked: the host is refused, and the result names it.
func (s *Session) askHost(ctx context.Context) func(context.Context, string) bool {
	switch s.pipe.gate.policy.Mode() {
	case permission.DontAsk, permission.BypassPermissions:
		return nil
	}
	callID := toolCallID(ctx)
	return func(tctx context.Context, host string) bool {
		qctx, cancel := context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(tctx, cancel)()
		text := fmt.Sprintf("A sandboxed command wants to reach **%s**, which the settings' %s does not grant. Allow it for this command, always (added to %s in this project's .claude/settings.local.json), or refuse it (the command gets 403).", host, netproxy.Setting, netproxy.Setting)
		res, err := s.client.RequestPermission(qctx, &schema.RequestPermissionParams{
			SessionID: s.ID,
			ToolCall: schema.ToolCall{
				ToolCallID: "host-" + uuid.NewString(),
				Title:      "Reach " + host + " from the sandbox",
				Kind:       schema.KindFetch,
				Status:     schema.StatusPending,
				Content:    []schema.ToolCallContent{{Type: "content", Content: ptr(schema.TextBlock(text))}},
				RawInput:   map[string]any{"host": host, "toolCallId": callID},
			},
			Options: []schema.PermissionOption{
				{OptionID: optHostOnce, Name: "Allow " + host + " for this command", Kind: schema.AllowOnce},
				{OptionID: optHostAlways, Name: "Always allow " + host, Kind: schema.AllowAlways, Meta: map[string]any{metaKey: map[string]any{"allowedDomain": host}}},
				{OptionID: optHostReject, Name: "Refuse", Kind: schema.RejectOnce},
			},
		})
		if err != nil || res.Outcome.Outcome != "selected" {
			return false
		}
		switch res.Outcome.OptionID {
		case optHostOnce:
			return true
		case optHostAlways:
			if err := settings.AddLocalAllowedDomain(s.cwd, host); err != nil {
				s.notice(Status{Kind: StatusWarning, Message: fmt.Sprintf("allowed %s for this command, but saving it to %s failed: %v", host, netproxy.Setting, err)})
			}
			return true
		}
		return false
	}
}
