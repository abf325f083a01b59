package anthropic

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/agent-lsp/agent-lsp/providers"
)

// maxCacheBreakpoints is the API's limit of cache_control marks a request.
const maxCacheBreakpoints = 4

// params maps a Request to the SDK's. System blocks with Cache get a
// cache_control breakpoint (it also covers the tools, which come first in
// the prompt); when any does, the last block of the last message gets one
// too, so each call of an agent loop reads the history so far from cache.
func (p *Provider) params(req *providers.Request) (anthropic.MessageNewParams, error) {
	model := req.Model
	if model == "" {
		model = p.opts.Model
	}
	if model == "" {
		return anthropic.MessageNewParams{}, &providers.Error{Type: "invalid_request_error", Message: "no model named: set ANTHROPIC_MODEL or choose a model"}
	}
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = p.opts.MaxTokens
	}
	params := anthropic.MessageNewParams{
		Model:     anthropic.Model(model),
		MaxTokens: int64(maxTokens),
	}
	breakpoints := 0
	for _, sb := range req.System {
		tb := anthropic.TextBlockParam{Text: sb.Text}
		if sb.Cache && breakpoints < maxCacheBreakpoints-1 {
			tb.CacheControl = anthropic.NewCacheControlEphemeralParam()
			breakpoints++
		}
		params.System = append(params.System, tb)
	}
	for _, t := range req.Tools {
		schema, err := inputSchema(t.InputSchema)
		if err != nil {
			return params, &providers.Error{Type: "invalid_request_error", Message: fmt.Sprintf("tool %s: %v", t.Name, err)}
		}
		tp := anthropic.ToolParam{Name: t.Name, InputSchema: schema}
		if t.Description != "" {
			tp.Description = anthropic.String(t.Description)
		}
		params.Tools = append(params.Tools, anthropic.ToolUnionParam{OfTool: &tp})
	}
	if ws := req.WebSearch; ws != nil {
		tool := &anthropic.WebSearchTool20250305Param{AllowedDomains: ws.AllowedDomains, BlockedDomains: ws.BlockedDomains}
		if ws.MaxUses > 0 {
			tool.MaxUses = anthropic.Int(int64(ws.MaxUses))
		}
		params.Tools = append(params.Tools, anthropic.ToolUnionParam{OfWebSearchTool20250305: tool})
	}
	for i, m := range req.Messages {
		blocks := make([]anthropic.ContentBlockParamUnion, 0, len(m.Content))
		for _, b := range m.Content {
			cb, err := contentBlock(b)
			if err != nil {
				return params, &providers.Error{Type: "invalid_request_error", Message: fmt.Sprintf("message %d: %v", i, err)}
			}
			blocks = append(blocks, cb)
		}
		if len(blocks) == 0 {
			continue // the API refuses empty content
		}
		if breakpoints > 0 && i == len(req.Messages)-1 {
			if cc := blocks[len(blocks)-1].GetCacheControl(); cc != nil {
				*cc = anthropic.NewCacheControlEphemeralParam()
			}
		}
		params.Messages = append(params.Messages, anthropic.MessageParam{
			Role:    anthropic.MessageParamRole(m.Role),
			Content: blocks,
		})
	}
	if req.ThinkingBudget > 0 && thinks(model) {
		if takesThinkingBudget(model) {
			budget := int64(req.ThinkingBudget)
			params.Thinking = anthropic.ThinkingConfigParamOfEnabled(budget)
			if params.MaxTokens <= budget {
				params.MaxTokens = budget + int64(p.opts.MaxTokens)
			}
		} else {
			params.Thinking = anthropic.ThinkingConfigParamUnion{OfAdaptive: &anthropic.ThinkingConfigAdaptiveParam{
				Display: anthropic.ThinkingConfigAdaptiveDisplaySummarized,
			}}
		}
	}
	if e := effortFor(model, req.Effort); e != "" {
		params.OutputConfig.Effort = anthropic.OutputConfigEffort(e)
	}
	return params, nil
}

// effortFor is the output_config.effort to send model for the effort
// asked, or "" when the model takes none. Claude Opus 4.5 is the one
// budget-thinking model that takes an effort, up to "high"; older models
// answer one with a 400. Unknown models are taken to be new.
func effortFor(model, effort string) string {
	switch effort {
	case "low", "medium", "high", "xhigh", "max":
	default:
		return ""
	}
	if !takesThinkingBudget(model) {
		return effort
	}
	if strings.HasPrefix(model, "claude-opus-4-5") {
		if effort == "xhigh" || effort == "max" {
			return "high"
		}
		return effort
	}
	return ""
}

// thinks reports whether model can think at all: Claude 3 models before
// Claude 3.7 Sonnet answer a thinking request with a 400.
func thinks(model string) bool {
	for _, prefix := range []string{"claude-2", "claude-instant", "claude-3-opus", "claude-3-sonnet", "claude-3-haiku", "claude-3-5"} {
		if strings.HasPrefix(model, prefix) {
			return false
		}
	}
	return true
}

// takesThinkingBudget reports whether model takes extended thinking with
// a token budget. Models from Claude Opus 4.6 and Sonnet 4.6 on think
// adaptively, and the 5 series answer a budget with a 400; unknown models
// are taken to be new.
func takesThinkingBudget(model string) bool {
	switch model {
	case "claude-opus-4", "claude-sonnet-4":
		return true
	}
	for _, prefix := range []string{
		"claude-3",
		"claude-opus-4-0", "claude-opus-4-1", "claude-opus-4-2025", "claude-opus-4-5",
		"claude-sonnet-4-0", "claude-sonnet-4-2025", "claude-sonnet-4-5",
		"claude-haiku-4-5",
	} {
		if strings.HasPrefix(model, prefix) {
			return true
		}
	}
	return false
}

// inputSchema maps a JSON schema object to the SDK's tool input schema,
// keeping every keyword.
func inputSchema(raw json.RawMessage) (anthropic.ToolInputSchemaParam, error) {
	var s anthropic.ToolInputSchemaParam
	if len(raw) == 0 {
		return s, nil
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return s, fmt.Errorf("input schema: %w", err)
	}
	s.Properties = m["properties"]
	delete(m, "properties")
	if req, ok := m["required"].([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				s.Required = append(s.Required, name)
			}
		}
	}
	delete(m, "required")
	delete(m, "type")
	if len(m) > 0 {
		s.ExtraFields = m
	}
	return s, nil
}

func contentBlock(b providers.Block) (anthropic.ContentBlockParamUnion, error) {
	switch b.Type {
	case providers.BlockText:
		return anthropic.NewTextBlock(b.Text), nil
	case providers.BlockThinking:
		return anthropic.NewThinkingBlock(b.Signature, b.Thinking), nil
	case providers.BlockRedactedThinking:
		return anthropic.NewRedactedThinkingBlock(b.Data), nil
	case providers.BlockToolUse:
		input := b.Input
		if len(input) == 0 {
			input = json.RawMessage("{}")
		}
		return anthropic.NewToolUseBlock(b.ID, input, b.Name), nil
	case providers.BlockToolResult:
		tr := anthropic.ToolResultBlockParam{ToolUseID: b.ToolUseID}
		if b.IsError {
			tr.IsError = anthropic.Bool(true)
		}
		for _, c := range b.Content {
			switch c.Type {
			case providers.BlockText:
				tr.Content = append(tr.Content, anthropic.ToolResultBlockParamContentUnion{OfText: &anthropic.TextBlockParam{Text: c.Text}})
			case providers.BlockImage:
				if c.Source == nil {
					return anthropic.ContentBlockParamUnion{}, fmt.Errorf("tool_result %s: image without source", b.ToolUseID)
				}
				img := anthropic.NewImageBlockBase64(c.Source.MediaType, c.Source.Data)
				tr.Content = append(tr.Content, anthropic.ToolResultBlockParamContentUnion{OfImage: img.OfImage})
			default:
				return anthropic.ContentBlockParamUnion{}, fmt.Errorf("tool_result %s: unsupported content block %q", b.ToolUseID, c.Type)
			}
		}
		return anthropic.ContentBlockParamUnion{OfToolResult: &tr}, nil
	case providers.BlockImage:
		if b.Source == nil {
			return anthropic.ContentBlockParamUnion{}, fmt.Errorf("image block without source")
		}
		return anthropic.NewImageBlockBase64(b.Source.MediaType, b.Source.Data), nil
	default:
		return anthropic.ContentBlockParamUnion{}, fmt.Errorf("unsupported content block %q", b.Type)
	}
}
