package openai

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/agent-lsp/agent-lsp/providers"
)

// params maps a Request to a streaming Chat Completions request.
func (p *Provider) params(req *providers.Request) (openai.ChatCompletionNewParams, error) {
	model := req.Model
	if model == "" {
		model = p.opts.Model
	}
	if model == "" {
		return openai.ChatCompletionNewParams{}, &providers.Error{Type: "invalid_request_error", Message: "no model named: set the model in the settings or choose one"}
	}
	if req.WebSearch != nil {
		return openai.ChatCompletionNewParams{}, &providers.Error{Type: "invalid_request_error", Message: "OpenAI-compatible servers have no server-side web search"}
	}
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = p.opts.MaxTokens
	}
	params := openai.ChatCompletionNewParams{Model: shared.ChatModel(model)}
	if p.official {
		params.MaxCompletionTokens = openai.Int(int64(maxTokens))
	} else {
		params.MaxTokens = openai.Int(int64(maxTokens))
	}
	if !p.opts.NoStreamUsage {
		params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	}
	if p.opts.ReasoningEffort != "" {
		params.ReasoningEffort = shared.ReasoningEffort(p.opts.ReasoningEffort)
	} else if e := p.reasoningEffort(model, req.Effort); e != "" {
		params.ReasoningEffort = shared.ReasoningEffort(e)
	}
	for _, t := range req.Tools {
		fn := shared.FunctionDefinitionParam{Name: t.Name}
		if t.Description != "" {
			fn.Description = openai.String(t.Description)
		}
		if len(t.InputSchema) > 0 {
			if err := json.Unmarshal(t.InputSchema, &fn.Parameters); err != nil {
				return params, &providers.Error{Type: "invalid_request_error", Message: fmt.Sprintf("tool %s: input schema: %v", t.Name, err)}
			}
		}
		params.Tools = append(params.Tools, openai.ChatCompletionToolUnionParam{OfFunction: &openai.ChatCompletionFunctionToolParam{Function: fn}})
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
func messages(req *providers.Request) ([]openai.ChatCompletionMessageParamUnion, error) {
	var out []openai.ChatCompletionMessageParamUnion
	if len(req.System) > 0 {
		var blocks []providers.Block
		for _, s := range req.System {
			blocks = append(blocks, providers.TextBlock(s.Text))
		}
		out = append(out, openai.SystemMessage(joinText(blocks)))
	}
	for i, m := range req.Messages {
		switch m.Role {
		case providers.RoleAssistant:
			msg, ok := assistantMessage(m)
			if ok {
				out = append(out, msg)
			}
		case providers.RoleUser:
			var parts []openai.ChatCompletionContentPartUnionParam
			for _, b := range m.Content {
				switch b.Type {
				case providers.BlockToolResult:
					text, images := toolResult(b)
					out = append(out, openai.ToolMessage(text, b.ToolUseID))
					parts = append(parts, images...)
				case providers.BlockText:
					parts = append(parts, openai.TextContentPart(b.Text))
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
func userMessage(parts []openai.ChatCompletionContentPartUnionParam) openai.ChatCompletionMessageParamUnion {
	text := ""
	for i, p := range parts {
		if p.OfText == nil {
			return openai.UserMessage(parts)
		}
		if i > 0 {
			text += "\n\n"
		}
		text += p.OfText.Text
	}
	return openai.UserMessage(text)
}

func assistantMessage(m providers.Message) (openai.ChatCompletionMessageParamUnion, bool) {
	var a openai.ChatCompletionAssistantMessageParam
	if text := joinText(m.Content); text != "" {
		a.Content.OfString = openai.String(text)
	}
	for _, b := range m.ToolUses() {
		args := string(b.Input)
		if args == "" {
			args = "{}"
		}
		a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
			OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
				ID:       b.ID,
				Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: b.Name, Arguments: args},
			},
		})
	}
	if !a.Content.OfString.Valid() && len(a.ToolCalls) == 0 {
		return openai.ChatCompletionMessageParamUnion{}, false
	}
	return openai.ChatCompletionMessageParamUnion{OfAssistant: &a}, true
}

// toolResult returns a tool result's text (prefixed when it is an error)
// and its images, which tool messages cannot carry.
func toolResult(b providers.Block) (string, []openai.ChatCompletionContentPartUnionParam) {
	text := joinText(b.Content)
	if b.IsError {
		text = "Error: " + text
	}
	var images []openai.ChatCompletionContentPartUnionParam
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

func imagePart(b providers.Block) (openai.ChatCompletionContentPartUnionParam, error) {
	if b.Source == nil {
		return openai.ChatCompletionContentPartUnionParam{}, fmt.Errorf("image block without source")
	}
	return openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{
		URL: "data:" + b.Source.MediaType + ";base64," + b.Source.Data,
	}), nil
}

// reasoningEffort is the reasoning_effort to send for the effort a
// request asks, or "". Only api.openai.com's reasoning models (the o
// series and gpt-5) are known to take it: compatible servers and other
// models may answer an unknown field with a 400, so they get none (set
// Options.ReasoningEffort for a server known to take it). Claude's
// "xhigh" and "max" become "high", the highest every reasoning model
// takes.
func (p *Provider) reasoningEffort(model, effort string) string {
	if !p.official || !reasoningModel(model) {
		return ""
	}
	switch effort {
	case "low", "medium", "high":
		return effort
	case "xhigh", "max":
		return "high"
	}
	return ""
}

// reasoningModel reports whether model is one of OpenAI's reasoning
// models.
func reasoningModel(model string) bool {
	for _, prefix := range []string{"o1", "o3", "o4", "gpt-5"} {
		if strings.HasPrefix(model, prefix) {
			return true
		}
	}
	return false
}
