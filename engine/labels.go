package engine

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-lsp/agent-lsp/permission"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/session"
	"github.com/agent-lsp/agent-lsp/tools"
)

// metaKey is the _meta key of agent-lsp's extensions.
const metaKey = "agent-lsp"

// permissionOptions are the options of a permission request, named in
// the user's words: "Allow", "Always allow edits to calc.go", "Reject",
// "Always reject `go test …` commands". An "always" option carries the
// settings rule it adds in _meta["agent-lsp"].rule, for a tooltip.
// alwaysRule is what "allow always" would add ("" offers no such
// option); rejectKey is what "reject always" rejects (a rule or a tool
// name).
func (s *Session) permissionOptions(alwaysRule, rejectKey string) []schema.PermissionOption {
	ruleMeta := func(rule string) map[string]any {
		return map[string]any{metaKey: map[string]any{"rule": rule}}
	}
	options := []schema.PermissionOption{{OptionID: optAllowOnce, Name: "Allow", Kind: schema.AllowOnce}}
	if alwaysRule != "" {
		options = append(options, schema.PermissionOption{
			OptionID: optAllowAlways, Name: "Always allow " + s.pipe.gate.policy.RuleWords(alwaysRule, s.cwd),
			Kind: schema.AllowAlways, Meta: ruleMeta(alwaysRule),
		})
	}
	return append(options,
		schema.PermissionOption{OptionID: optRejectOnce, Name: "Reject", Kind: schema.RejectOnce},
		schema.PermissionOption{
			OptionID: optRejectAlways, Name: "Always reject " + s.pipe.gate.policy.RuleWords(rejectKey, s.cwd),
			Kind: schema.RejectAlways, Meta: ruleMeta(rejectKey),
		},
	)
}

// Permission outcomes, as _meta["agent-lsp"].permission.outcome says.
const (
	permAllowed   = "allowed"
	permRejected  = "rejected"
	permCancelled = "cancelled"
)

// answered tells the editor how the user answered the permission request
// of a call, with a tool_call_update whose _meta["agent-lsp"].permission
// is {"outcome", "optionId", "name"}, and records it in the session file
// so a reloaded session shows the same answer.
func (s *Session) answered(ctx context.Context, call *schema.ToolCall, options []schema.PermissionOption, outcome, optionID string) {
	p := session.Permission{Outcome: outcome, OptionID: optionID}
	for _, o := range options {
		if o.OptionID == optionID {
			p.Name = o.Name
		}
	}
	s.update(context.WithoutCancel(ctx), permissionUpdate(call.ToolCallID, call.ToolName(), p))
	if s.conv.log != nil {
		if err := s.conv.log.SetPermission(call.ToolCallID, p); err != nil {
			s.svc.cfg.Logf("session %s: saving a permission answer: %v", s.ID, err)
		}
	}
}

// permissionUpdate is the tool_call_update that reports an answered
// permission request.
func permissionUpdate(id, tool string, p session.Permission) schema.Update {
	meta := schema.ToolMeta(tool)
	perm := map[string]any{"outcome": p.Outcome}
	if p.OptionID != "" {
		perm["optionId"] = p.OptionID
	}
	if p.Name != "" {
		perm["name"] = p.Name
	}
	meta[metaKey] = map[string]any{"permission": perm}
	return schema.Update{SessionUpdate: schema.UpdateToolCallUpdate, ToolCall: &schema.ToolCall{ToolCallID: id, Meta: meta}}
}

// callTitle is the title of a call in the user's words: the tool's
// preview title ("Edit /w/calc.go", "Run `go test ./...`") with its
// paths relative to the session's folder ("Edit calc.go", "Read
// ../x.txt"). A command is shown as written. A call without a preview
// title is named by its tool (an MCP tool by its name and server).
func (s *Session) callTitle(tool string, p *tools.Preview) string {
	if p == nil || p.Title == "" {
		if strings.HasPrefix(tool, "mcp__") {
			return "Use " + permission.MCPToolWords(tool)
		}
		return tool
	}
	if p.Command != "" {
		return p.Title
	}
	return s.displayPaths(p.Title, p.Paths, p.Locations)
}

// displayPaths replaces the absolute paths of a call in title with the
// paths relative to the session's folder, longest first.
func (s *Session) displayPaths(title string, paths []string, locs []schema.Location) string {
	all := slices.Clone(paths)
	for _, l := range locs {
		all = append(all, l.Path)
	}
	slices.SortFunc(all, func(a, b string) int { return len(b) - len(a) })
	for _, p := range slices.Compact(all) {
		if filepath.IsAbs(p) && strings.Contains(title, p) {
			title = strings.ReplaceAll(title, p, permission.DisplayPath(s.cwd, p))
		}
	}
	return s.relative(title)
}

// withDescription adds the model's own description of a call (the
// "description" of its input: Bash's, Task's) to the call's
// _meta["agent-lsp"].description, secondary text beside the title.
func withDescription(call *schema.ToolCall, input json.RawMessage) {
	var in struct {
		Description string `json:"description"`
	}
	if json.Unmarshal(input, &in) != nil || strings.TrimSpace(in.Description) == "" {
		return
	}
	if call.Meta == nil {
		call.Meta = map[string]any{}
	}
	call.Meta[metaKey] = map[string]any{"description": in.Description}
}
