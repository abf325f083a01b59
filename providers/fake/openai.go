package fake

import (
	"encoding/json"
	"fmt"
	"strings"
)

// NewOpenAI starts a fake OpenAI Chat Completions API (POST
// /v1/chat/completions). Configure the client with BaseURL (URL + "/v1").
//
// A streamed turn is a sequence of chat.completion.chunk data events:
// "role" (the assistant role), one "reasoning_content" chunk per Thinking
// fragment, one "content" chunk per Text fragment, per ToolUse a
// "tool_call_start" chunk (index, id, name, empty arguments) and one
// "tool_call_args" chunk per input fragment, then "finish" (finish_reason),
// "usage" (only when the request set stream_options.include_usage) and
// "done" (data: [DONE]). Those are the labels for Cut, Hold and
// StreamError. Parallel tool calls carry their own index; with Interleave
// their argument chunks alternate.
func NewOpenAI(t T, turns ...Turn) *Server {
	return newServer(t, openaiWire{}, turns)
}

type openaiWire struct{}

func (openaiWire) name() string { return "openai" }

func (openaiWire) path(p string) bool { return strings.HasSuffix(p, "/chat/completions") }

func (openaiWire) baseURL(root string) string { return root + "/v1" }

func (openaiWire) errorBody(e HTTPError) []byte {
	typ, msg := e.Type, e.Message
	var code any
	switch {
	case e.contextTooLong:
		typ = "invalid_request_error"
		msg = "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages."
		code = "context_length_exceeded"
	case e.Status == 429:
		code = "rate_limit_exceeded"
		if typ == "" {
			typ = "requests"
		}
	}
	if typ == "" {
		typ = defaultErrorType(e.Status)
	}
	if msg == "" {
		msg = defaultErrorMessage(e.Status)
	}
	return mustJSON(map[string]any{
		"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": code},
	})
}

func (openaiWire) streamError(e StreamError) event {
	typ, msg := e.Type, e.Message
	if typ == "" {
		typ = "server_error"
	}
	if msg == "" {
		msg = "The server had an error while processing your request."
	}
	return event{label: "error", data: mustJSON(map[string]any{
		"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": nil},
	})}
}

func openaiModel(p *plan, req map[string]any) string {
	if m, _ := req["model"].(string); m != "" {
		return m
	}
	return "gpt-fake"
}

// finishReason maps an Anthropic stop reason to OpenAI's.
func finishReason(stop string) string {
	switch stop {
	case "tool_use":
		return "tool_calls"
	case "max_tokens":
		return "length"
	case "refusal":
		return "content_filter"
	default:
		return "stop"
	}
}

func openaiUsage(u Usage) map[string]any {
	return map[string]any{
		"prompt_tokens":         u.Input,
		"completion_tokens":     u.Output,
		"total_tokens":          u.Input + u.Output,
		"prompt_tokens_details": map[string]any{"cached_tokens": u.CacheRead},
	}
}

func (w openaiWire) stream(p *plan, req map[string]any, seq int) ([]event, error) {
	id := fmt.Sprintf("chatcmpl-fake-%d", seq)
	model := openaiModel(p, req)
	var evs []event
	chunk := func(label string, delta map[string]any, finish any) {
		evs = append(evs, event{label: label, data: mustJSON(map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": 1700000000, "model": model,
			"system_fingerprint": nil,
			"choices": []any{map[string]any{
				"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish,
			}},
		})})
	}
	chunk("role", map[string]any{"role": "assistant", "content": ""}, nil)

	// Tool calls are numbered from 0 in the order they appear.
	type call struct {
		index int
		b     block
	}
	var calls []call
	flushCalls := func() {
		for _, c := range calls {
			chunk("tool_call_start", map[string]any{"tool_calls": []any{map[string]any{
				"index": c.index, "id": c.b.id, "type": "function",
				"function": map[string]any{"name": c.b.name, "arguments": ""},
			}}}, nil)
			if !p.interleave {
				w.args(chunk, c.index, c.b.fragments)
			}
		}
		if p.interleave {
			for f := 0; ; f++ {
				sent := false
				for _, c := range calls {
					if f < len(c.b.fragments) {
						w.args(chunk, c.index, c.b.fragments[f:f+1])
						sent = true
					}
				}
				if !sent {
					break
				}
			}
		}
		calls = nil
	}
	ncalls := 0
	for _, b := range p.blocks {
		if b.kind != kindToolUse {
			flushCalls()
		}
		switch b.kind {
		case kindText:
			for _, f := range b.fragments {
				chunk("content", map[string]any{"content": f}, nil)
			}
		case kindThinking:
			for _, f := range b.fragments {
				chunk("reasoning_content", map[string]any{"reasoning_content": f}, nil)
			}
		case kindToolUse:
			if !json.Valid([]byte(b.joined())) {
				return nil, fmt.Errorf("tool call %s arguments are not valid JSON: %s", b.id, b.joined())
			}
			calls = append(calls, call{index: ncalls, b: b})
			ncalls++
		}
	}
	flushCalls()
	chunk("finish", map[string]any{}, finishReason(p.stop()))
	if opts, _ := req["stream_options"].(map[string]any); opts != nil {
		if inc, _ := opts["include_usage"].(bool); inc {
			evs = append(evs, event{label: "usage", data: mustJSON(map[string]any{
				"id": id, "object": "chat.completion.chunk", "created": 1700000000, "model": model,
				"choices": []any{}, "usage": openaiUsage(p.usageOrDefault()),
			})})
		}
	}
	evs = append(evs, event{label: "done", data: []byte("[DONE]")})
	return evs, nil
}

func (openaiWire) args(chunk func(string, map[string]any, any), index int, fragments []string) {
	for _, f := range fragments {
		chunk("tool_call_args", map[string]any{"tool_calls": []any{map[string]any{
			"index": index, "function": map[string]any{"arguments": f},
		}}}, nil)
	}
}

func (w openaiWire) message(p *plan, req map[string]any, seq int) ([]byte, error) {
	var text, reasoning strings.Builder
	var calls []any
	for _, b := range p.blocks {
		switch b.kind {
		case kindText:
			text.WriteString(b.joined())
		case kindThinking:
			reasoning.WriteString(b.joined())
		case kindToolUse:
			if !json.Valid([]byte(b.joined())) {
				return nil, fmt.Errorf("tool call %s arguments are not valid JSON: %s", b.id, b.joined())
			}
			calls = append(calls, map[string]any{"id": b.id, "type": "function",
				"function": map[string]any{"name": b.name, "arguments": b.joined()}})
		}
	}
	msg := map[string]any{"role": "assistant", "content": text.String()}
	if reasoning.Len() > 0 {
		msg["reasoning_content"] = reasoning.String()
	}
	if len(calls) > 0 {
		msg["tool_calls"] = calls
	}
	return mustJSON(map[string]any{
		"id": fmt.Sprintf("chatcmpl-fake-%d", seq), "object": "chat.completion", "created": 1700000000,
		"model": openaiModel(p, req),
		"choices": []any{map[string]any{"index": 0, "message": msg, "logprobs": nil,
			"finish_reason": finishReason(p.stop())}},
		"usage": openaiUsage(p.usageOrDefault()),
	}), nil
}
