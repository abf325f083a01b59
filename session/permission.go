package session

import "github.com/agent-lsp/agent-lsp/providers"

// Permission is the user's answer to the permission request of a tool
// call, kept so that a reloaded session shows it as the live one did.
type Permission struct {
	// Outcome is "allowed", "rejected" or "cancelled".
	Outcome string `json:"outcome"`
	// OptionID is the option the user picked ("allow_once", ...);
	// empty when the request was cancelled.
	OptionID string `json:"optionId,omitempty"`
	// Name is the option's name as the user read it ("Always allow
	// edits to calc.go").
	Name string `json:"name,omitempty"`
}

// SetPermission appends an agent-lsp-permission line recording the
// answer to the permission request of the tool call toolUseID. Claude
// Code reads past lines of types it does not know.
func (l *Log) SetPermission(toolUseID string, p Permission) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	le := newLineEncoder()
	line := metaLine{Type: typePermission, ToolUseID: toolUseID, Permission: &p, SessionID: l.id, Timestamp: timestamp()}
	if err := le.add(line); err != nil {
		return err
	}
	return l.writeLocked(le.buf.Bytes())
}

// permissionsOf collects the permission lines of entries by tool call;
// a later answer for the same call wins.
func permissionsOf(entries []parsed) map[string]Permission {
	var out map[string]Permission
	for i := range entries {
		e := &entries[i].e
		if e.Type != typePermission || e.Permission == nil || e.ToolUseID == "" {
			continue
		}
		if out == nil {
			out = make(map[string]Permission)
		}
		out[e.ToolUseID] = *e.Permission
	}
	return out
}

// ResponseUsage is what one model response used.
type ResponseUsage struct {
	Model string
	Usage providers.Usage
	// Sidechain is set for a subagent's response, which does not count
	// toward the session's context.
	Sidechain bool
}

// usageOf collects the usage of every response in entries, once per
// response (Claude Code writes one line per content block, each with
// the response's usage).
func usageOf(entries []parsed) []ResponseUsage {
	var out []ResponseUsage
	seen := map[string]bool{}
	for i := range entries {
		e := &entries[i].e
		if e.Type != typeAssistant || e.Usage == nil || e.Model == "<synthetic>" {
			continue
		}
		if e.MessageID != "" {
			if seen[e.MessageID] {
				continue
			}
			seen[e.MessageID] = true
		}
		out = append(out, ResponseUsage{Model: e.Model, Usage: *e.Usage, Sidechain: e.Sidechain})
	}
	return out
}
