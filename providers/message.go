package providers

import (
	"encoding/json"
	"fmt"
)

// Role is the author of a message.
type Role string

// Roles.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Message is one turn of the conversation.
type Message struct {
	Role    Role    `json:"role"`
	Content []Block `json:"content"`
}

// Block types.
const (
	BlockText     = "text"
	BlockThinking = "thinking"
	// BlockRedactedThinking is thinking the API returned encrypted in Data;
	// it must be sent back unchanged.
	BlockRedactedThinking = "redacted_thinking"
	BlockToolUse          = "tool_use"
	BlockToolResult       = "tool_result"
	BlockImage            = "image"
	// BlockWebSearchResult is what a server-side web search found: its
	// Content holds one text block per page ("title\nurl"), or Text the
	// error code. Responses hold it; requests never carry it.
	BlockWebSearchResult = "web_search_tool_result"
)

// Block is one content block of a message.
type Block struct {
	Type string `json:"type"`

	// text
	Text string `json:"text,omitempty"`

	// thinking
	Thinking  string `json:"thinking,omitempty"`
	Signature string `json:"signature,omitempty"`

	// redacted_thinking
	Data string `json:"data,omitempty"`

	// tool_use
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`

	// tool_result: Content holds text (and image) blocks.
	ToolUseID string  `json:"tool_use_id,omitempty"`
	Content   []Block `json:"content,omitempty"`
	IsError   bool    `json:"is_error,omitempty"`

	// image
	Source *ImageSource `json:"source,omitempty"`
}

// ImageSource is an inline base64 image.
type ImageSource struct {
	Type      string `json:"type"` // "base64"
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

type blockFields Block

// UnmarshalJSON accepts a tool_result whose content is a plain string, as
// the Messages API and Claude Code's session files allow.
func (b *Block) UnmarshalJSON(data []byte) error {
	var raw struct {
		blockFields
		Content json.RawMessage `json:"content,omitempty"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*b = Block(raw.blockFields)
	b.Content = nil
	if len(raw.Content) == 0 || string(raw.Content) == "null" {
		return nil
	}
	if raw.Content[0] == '"' {
		var s string
		if err := json.Unmarshal(raw.Content, &s); err != nil {
			return fmt.Errorf("tool_result content: %w", err)
		}
		b.Content = []Block{{Type: BlockText, Text: s}}
		return nil
	}
	if err := json.Unmarshal(raw.Content, &b.Content); err != nil {
		return fmt.Errorf("tool_result content: %w", err)
	}
	return nil
}

// UnmarshalJSON accepts content given as a plain string (a single text
// block), as Claude Code writes user messages.
func (m *Message) UnmarshalJSON(data []byte) error {
	var raw struct {
		Role    Role            `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	m.Role, m.Content = raw.Role, nil
	if len(raw.Content) == 0 || string(raw.Content) == "null" {
		return nil
	}
	if raw.Content[0] == '"' {
		var s string
		if err := json.Unmarshal(raw.Content, &s); err != nil {
			return err
		}
		m.Content = []Block{{Type: BlockText, Text: s}}
		return nil
	}
	return json.Unmarshal(raw.Content, &m.Content)
}

// TextBlock returns a text block.
func TextBlock(s string) Block { return Block{Type: BlockText, Text: s} }

// ToolResultBlock returns a tool_result block holding text.
func ToolResultBlock(toolUseID, text string, isError bool) Block {
	return Block{Type: BlockToolResult, ToolUseID: toolUseID, Content: []Block{TextBlock(text)}, IsError: isError}
}

// Text returns the concatenated text blocks of m.
func (m Message) Text() string {
	var s string
	for _, b := range m.Content {
		if b.Type == BlockText {
			s += b.Text
		}
	}
	return s
}

// ToolUses returns the tool_use blocks of m in order.
func (m Message) ToolUses() []Block {
	var uses []Block
	for _, b := range m.Content {
		if b.Type == BlockToolUse {
			uses = append(uses, b)
		}
	}
	return uses
}
