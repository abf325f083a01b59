package schema

import (
	"encoding/json"
	"maps"
)

// SessionNotification is the params of a session/update notification.
type SessionNotification struct {
	SessionID string `json:"sessionId"`
	Update    Update `json:"update"`
}

// Update is one session update. SessionUpdate names the variant; only the
// fields of that variant are set.
type Update struct {
	SessionUpdate string `json:"sessionUpdate"`

	// user_message_chunk, agent_message_chunk, agent_thought_chunk
	Content *ContentBlock `json:"content,omitempty"`

	// tool_call, tool_call_update: the tool call's fields sit at the top
	// level of the update on the wire.
	ToolCall *ToolCall `json:"-"`

	// plan
	Entries []PlanEntry `json:"entries,omitempty"`

	// available_commands_update
	AvailableCommands []Command `json:"availableCommands,omitempty"`

	// current_mode_update
	CurrentModeID string `json:"currentModeId,omitempty"`

	// usage_update
	Used *int64 `json:"used,omitempty"`
	Size *int64 `json:"size,omitempty"`
	Cost *Cost  `json:"cost,omitempty"`

	// config_option_update
	ConfigOptions []ConfigOption `json:"configOptions,omitempty"`

	// Meta carries agent-lsp extensions (retry notices, MCP server status,
	// warnings) under the ACP _meta convention.
	Meta map[string]any `json:"_meta,omitempty"`
}

type updateFields Update

// MarshalJSON flattens a tool call update's fields into the update object.
func (u Update) MarshalJSON() ([]byte, error) {
	if u.ToolCall == nil {
		return json.Marshal(updateFields(u))
	}
	type toolCallUpdate struct {
		SessionUpdate string         `json:"sessionUpdate"`
		Meta          map[string]any `json:"_meta,omitempty"`
		ToolCall
	}
	// The update's _meta and the tool call's share one object; a key
	// both hold as objects ("agent-lsp": the subagent's ids and the
	// call's description) keeps the fields of both.
	meta := u.ToolCall.Meta
	if len(u.Meta) > 0 {
		meta = maps.Clone(u.ToolCall.Meta)
		if meta == nil {
			meta = make(map[string]any, len(u.Meta))
		}
		for k, v := range u.Meta {
			inner, ok1 := meta[k].(map[string]any)
			add, ok2 := v.(map[string]any)
			if ok1 && ok2 {
				merged := maps.Clone(inner)
				maps.Copy(merged, add)
				v = merged
			}
			meta[k] = v
		}
	}
	return json.Marshal(toolCallUpdate{u.SessionUpdate, meta, *u.ToolCall})
}

// UnmarshalJSON reads any update variant.
func (u *Update) UnmarshalJSON(data []byte) error {
	var head struct {
		SessionUpdate string `json:"sessionUpdate"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return err
	}
	if head.SessionUpdate == UpdateToolCall || head.SessionUpdate == UpdateToolCallUpdate {
		var tc struct {
			Meta map[string]any `json:"_meta,omitempty"`
			ToolCall
		}
		if err := json.Unmarshal(data, &tc); err != nil {
			return err
		}
		tc.ToolCall.Meta = tc.Meta
		*u = Update{SessionUpdate: head.SessionUpdate, Meta: tc.Meta, ToolCall: &tc.ToolCall}
		return nil
	}
	*u = Update{}
	return json.Unmarshal(data, (*updateFields)(u))
}

// Session update variants.
const (
	UpdateUserMessageChunk  = "user_message_chunk"
	UpdateAgentMessageChunk = "agent_message_chunk"
	UpdateAgentThoughtChunk = "agent_thought_chunk"
	UpdateToolCall          = "tool_call"
	UpdateToolCallUpdate    = "tool_call_update"
	UpdatePlan              = "plan"
	UpdateAvailableCommands = "available_commands_update"
	UpdateCurrentMode       = "current_mode_update"
	UpdateUsage             = "usage_update"
	UpdateConfigOption      = "config_option_update"
)

// ToolCall is a tool call as reported in tool_call and tool_call_update
// updates and in permission requests. In a tool_call_update every field but
// ToolCallID is optional.
type ToolCall struct {
	ToolCallID string            `json:"toolCallId"`
	Title      string            `json:"title,omitempty"`
	Kind       string            `json:"kind,omitempty"`
	Status     string            `json:"status,omitempty"`
	Content    []ToolCallContent `json:"content,omitempty"`
	Locations  []Location        `json:"locations,omitempty"`
	RawInput   any               `json:"rawInput,omitempty"`
	RawOutput  any               `json:"rawOutput,omitempty"`
	// Meta carries the Claude Code tool name as claude-agent-acp sends
	// it, {"claudeCode": {"toolName": "Edit"}} (see ToolMeta): clients
	// write permission policies by tool name.
	Meta map[string]any `json:"_meta,omitempty"`
}

// ToolMeta is the _meta of a tool call of the named tool.
func ToolMeta(name string) map[string]any {
	return map[string]any{"claudeCode": map[string]any{"toolName": name}}
}

// ToolName returns the tool name ToolMeta put in tc's _meta, or "".
func (tc ToolCall) ToolName() string {
	cc, _ := tc.Meta["claudeCode"].(map[string]any)
	name, _ := cc["toolName"].(string)
	return name
}

// Tool kinds.
const (
	KindRead       = "read"
	KindEdit       = "edit"
	KindDelete     = "delete"
	KindMove       = "move"
	KindSearch     = "search"
	KindExecute    = "execute"
	KindThink      = "think"
	KindFetch      = "fetch"
	KindSwitchMode = "switch_mode"
	KindOther      = "other"
)

// Tool call statuses.
const (
	StatusPending    = "pending"
	StatusInProgress = "in_progress"
	StatusCompleted  = "completed"
	StatusFailed     = "failed"
)

// ToolCallContent is content produced by a tool call: a content block, a diff
// or an embedded terminal.
type ToolCallContent struct {
	Type string `json:"type"` // ToolContentBlock, ToolContentDiff or ToolContentTerminal

	Content *ContentBlock `json:"content,omitempty"`

	Path    string  `json:"path,omitempty"`
	OldText *string `json:"oldText,omitempty"`
	NewText string  `json:"newText,omitempty"`

	TerminalID string `json:"terminalId,omitempty"`
}

// Tool call content types.
const (
	ToolContentBlock    = "content"
	ToolContentDiff     = "diff"
	ToolContentTerminal = "terminal"
)

// DiffContent returns tool call content showing a file change. An empty
// oldText with created set means a new file (oldText null on the wire).
func DiffContent(path, oldText, newText string, created bool) ToolCallContent {
	c := ToolCallContent{Type: ToolContentDiff, Path: path, NewText: newText}
	if !created {
		c.OldText = &oldText
	}
	return c
}

// TextContent returns tool call content holding text.
func TextContent(s string) ToolCallContent {
	b := TextBlock(s)
	return ToolCallContent{Type: ToolContentBlock, Content: &b}
}

// Location is a file (and optionally a line, 0-based) a tool call touches.
type Location struct {
	Path string `json:"path"`
	Line *int   `json:"line,omitempty"`
}

// PlanEntry is one entry of the agent's plan.
type PlanEntry struct {
	Content  string `json:"content"`
	Priority string `json:"priority"` // high, medium, low
	Status   string `json:"status"`   // pending, in_progress, completed
}

// Command is a slash command the client may offer.
type Command struct {
	Name        string        `json:"name"`
	Description string        `json:"description"`
	Input       *CommandInput `json:"input,omitempty"`
}

// CommandInput describes a command's free-text argument.
type CommandInput struct {
	Hint string `json:"hint"`
}

// Cost is a monetary amount spent in a session.
type Cost struct {
	Amount   float64 `json:"amount"`
	Currency string  `json:"currency"`
}

// TerminalContent returns tool call content embedding the client's
// terminal with id (one created with terminal/create).
func TerminalContent(id string) ToolCallContent {
	return ToolCallContent{Type: ToolContentTerminal, TerminalID: id}
}
