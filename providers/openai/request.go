package openai

import (
	"encoding/json"
	"fmt"

	"github.com/agent-lsp/agent-lsp/providers"
)

// chatRequest is the body of a streaming Chat Completions request.
type chatRequest struct {
	Model               string         `json:"model"`
	Messages            []chatMessage  `json:"messages"`
	MaxTokens           int64          `json:"max_tokens,omitempty"`
	MaxCompletionTokens int64          `json:"max_completion_tokens,omitempty"`
	Stream              bool           `json:"stream"`
	StreamOptions       *streamOptions `json:"stream_options,omitempty"`
	ReasoningEffort     string         `json:"reasoning_effort,omitempty"`
	Tools               []chatTool     `json:"tools,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type chatTool struct {
	Type     string       `json:"type"` // "function"
	Function toolFunction `json:"function"`
}

type toolFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// chatMessage is a system, user, assistant or tool message. Content is a
// string, or for a user message with images a list of contentParts; an
// assistant message that only calls tools has none.
type chatMessage struct {
	Role       string     `json:"role"`
	Content    any        `json:"content,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	ToolCalls  []toolCall `json:"tool_calls,omitempty"`
}

type toolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"` // "function"
	Function callFunction `json:"function"`
}

type callFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// contentPart is a user message's text or image part.
type contentPart struct {
	Type     string    `json:"type"` // "text" or "image_url"
	Text     string    `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
}

type imageURL struct {
	URL string `json:"url"`
}

// params maps a Request to a streaming Chat Completions request.
func (p *Provider) params(req *providers.Request) (chatRequest, error) {
	model := req.Model
	if model == "" {
		model = p.opts.Model
	}
	if model == "" {
		return chatRequest{}, &providers.Error{Type: "invalid_request_error", Message: "no model named: set the model in the settings or choose one"}
	}
	if req.WebSearch != nil {
		return chatRequest{}, &providers.Error{Type: "invalid_request_error", Message: "OpenAI-compatible servers have no server-side web search"}
	}
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = p.opts.MaxTokens
	}
	params := chatRequest{Model: model, Stream: true, ReasoningEffort: p.opts.ReasoningEffort}
	if p.official {
		params.MaxCompletionTokens = int64(maxTokens)
	} else {
		params.MaxTokens = int64(maxTokens)
	}
	if !p.opts.NoStreamUsage {
		params.StreamOptions = &streamOptions{IncludeUsage: true}
	}
	for _, t := range req.Tools {
		fn := toolFunction{Name: t.Name, Description: t.Description}
		if len(t.InputSchema) > 0 {
			var schema map[string]any
			if err := json.Unmarshal(t.InputSchema, &schema); err != nil {
				return params, &providers.Error{Type: "invalid_request_error", Message: fmt.Sprintf("tool %s: input schema: %v", t.Name, err)}
			}
			fn.Parameters = t.InputSchema
		}
		params.Tools = append(params.Tools, chatTool{Type: "function", Function: fn})
	}
	msgs, err := messages(req)
	if err != nil {
		return params, &providers.Error{Type: "invalid_request_error", Message: err.Error()}
	}
	params.Messages = msgs
	return params, nil
}

// messages converts the system prompt and the Anthropic-shaped history to
// chat messages. The system blocks become one system message. A user
// message's tool_result blocks become tool messages, which must directly
// follow the assistant message that called the tools, so they come first;
// its text and images follow as a user message. Thinking is not sent
// back: compatible servers reject or ignore it.
func messages(req *providers.Request) ([]chatMessage, error) {
	var out []chatMessage
	if len(req.System) > 0 {
		var blocks []providers.Block
		for _, s := range req.System {
			blocks = append(blocks, providers.TextBlock(s.Text))
		}
		out = append(out, chatMessage{Role: "system", Content: joinText(blocks)})
	}
	for i, m := range req.Messages {
		switch m.Role {
		case providers.RoleAssistant:
			msg, ok := assistantMessage(m)
			if ok {
				out = append(out, msg)
			}
		case providers.RoleUser:
			var parts []contentPart
			for _, b := range m.Content {
				switch b.Type {
				case providers.BlockToolResult:
					text, images := toolResult(b)
					out = append(out, chatMessage{Role: "tool", Content: text, ToolCallID: b.ToolUseID})
					parts = append(parts, images...)
				case providers.BlockText:
					parts = append(parts, contentPart{Type: "text", Text: b.Text})
				case providers.BlockImage:
					img, err := imagePart(b)
					if err != nil {
						return nil, fmt.Errorf("message %d: %w", i, err)
					}
					parts = append(parts, img)
				default:
					return nil, fmt.Errorf("message %d: unsupported user content block %q", i, b.Type)
				}
			}
			if len(parts) > 0 {
				out = append(out, userMessage(parts))
			}
		default:
			return nil, fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
	}
	return out, nil
}

// userMessage sends plain text as a string, which every compatible server
// accepts, and content parts only when there is an image.
func userMessage(parts []contentPart) chatMessage {
	text := ""
	for i, p := range parts {
		if p.Type != "text" {
			return chatMessage{Role: "user", Content: parts}
		}
		if i > 0 {
			text += "\n\n"
		}
		text += p.Text
	}
	return chatMessage{Role: "user", Content: text}
}

func assistantMessage(m providers.Message) (chatMessage, bool) {
	a := chatMessage{Role: "assistant"}
	if text := joinText(m.Content); text != "" {
		a.Content = text
	}
	for _, b := range m.ToolUses() {
		args := string(b.Input)
		if args == "" {
			args = "{}"
		}
		a.ToolCalls = append(a.ToolCalls, toolCall{ID: b.ID, Type: "function", Function: callFunction{Name: b.Name, Arguments: args}})
	}
	if a.Content == nil && len(a.ToolCalls) == 0 {
		return chatMessage{}, false
	}
	return a, true
}

// toolResult returns a tool result's text (prefixed when it is an error)
// and its images, which tool messages cannot carry.
func toolResult(b providers.Block) (string, []contentPart) {
	text := joinText(b.Content)
	if b.IsError {
		text = "Error: " + text
	}
	var images []contentPart
	for _, c := range b.Content {
		if c.Type == providers.BlockImage && c.Source != nil {
			if img, err := imagePart(c); err == nil {
				images = append(images, img)
			}
		}
	}
	if len(images) > 0 {
		text += fmt.Sprintf("\n\n(%d image(s) follow in the next user message)", len(images))
	}
	return text, images
}

func imagePart(b providers.Block) (contentPart, error) {
	if b.Source == nil {
		return contentPart{}, fmt.Errorf("image block without source")
	}
	return contentPart{Type: "image_url", ImageURL: &imageURL{URL: "data:" + b.Source.MediaType + ";base64," + b.Source.Data}}, nil
}
