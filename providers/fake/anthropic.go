package fake

import (
	"encoding/json"
	"fmt"
	"strings"
)

// NewAnthropic starts a fake Anthropic Messages API (POST /v1/messages).
// Configure the client with BaseURL (the server's root).
//
// A streamed turn is the events message_start, ping, then for each block
// content_block_start, its deltas (text_delta, thinking_delta then
// signature_delta, or input_json_delta) and content_block_stop, then
// message_delta (stop_reason and output usage) and message_stop. Each
// event's label, for Cut, Hold and StreamError, is its type, except deltas,
// which are labelled by their delta type ("text_delta", "input_json_delta",
// ...).
func NewAnthropic(t T, turns ...Turn) *Server {
	return newServer(t, anthropicWire{}, turns)
}

type anthropicWire struct{}

func (anthropicWire) name() string { return "anthropic" }

func (anthropicWire) path(p string) bool { return strings.HasSuffix(p, "/v1/messages") }

func (anthropicWire) baseURL(root string) string { return root }

func (anthropicWire) errorBody(e HTTPError) []byte {
	typ, msg := e.Type, e.Message
	if e.contextTooLong {
		typ, msg = "invalid_request_error", "prompt is too long: 215312 tokens > 200000 maximum"
	}
	if typ == "" {
		typ = defaultErrorType(e.Status)
	}
	if msg == "" {
		msg = defaultErrorMessage(e.Status)
	}
	return mustJSON(map[string]any{
		"type":  "error",
		"error": map[string]any{"type": typ, "message": msg},
	})
}

func (anthropicWire) streamError(e StreamError) event {
	typ, msg := e.Type, e.Message
	if typ == "" {
		typ = "overloaded_error"
	}
	if msg == "" {
		msg = "Overloaded"
	}
	return event{label: "error", name: "error", data: mustJSON(map[string]any{
		"type":  "error",
		"error": map[string]any{"type": typ, "message": msg},
	})}
}

func anthropicModel(p *plan, req map[string]any) string {
	if m, _ := req["model"].(string); m != "" {
		return m
	}
	return "claude-fake"
}

func anthropicUsage(u Usage, output int) map[string]any {
	return map[string]any{
		"input_tokens":                u.Input,
		"output_tokens":               output,
		"cache_creation_input_tokens": u.CacheWrite,
		"cache_read_input_tokens":     u.CacheRead,
	}
}

func (w anthropicWire) stream(p *plan, req map[string]any, seq int) ([]event, error) {
	var evs []event
	add := func(label string, v map[string]any) {
		evs = append(evs, event{label: label, name: v["type"].(string), data: mustJSON(v)})
	}
	u := p.usageOrDefault()
	add("message_start", map[string]any{
		"type": "message_start",
		"message": map[string]any{
			"id": fmt.Sprintf("msg_fake_%d", seq), "type": "message", "role": "assistant",
			"model": anthropicModel(p, req), "content": []any{},
			"stop_reason": nil, "stop_sequence": nil,
			"usage": anthropicUsage(u, 1),
		},
	})
	add("ping", map[string]any{"type": "ping"})
	i := -1
	for _, b := range p.blocks {
		i++
		if b.kind == kindWebSearch {
			// Two blocks: the search the model ran, and what it found.
			input := mustJSON(map[string]any{"query": b.joined()})
			add("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "server_tool_use", "id": b.id, "name": "web_search", "input": map[string]any{}}})
			add("input_json_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}})
			add("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
			i++
			add("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "web_search_tool_result", "tool_use_id": b.id, "content": webSearchResults(b.results)}})
			add("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
			continue
		}
		delta := func(label string, d map[string]any) {
			d["type"] = label
			add(label, map[string]any{"type": "content_block_delta", "index": i, "delta": d})
		}
		switch b.kind {
		case kindText:
			add("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			for _, f := range b.fragments {
				delta("text_delta", map[string]any{"text": f})
			}
		case kindThinking:
			add("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "thinking", "thinking": "", "signature": ""}})
			for _, f := range b.fragments {
				delta("thinking_delta", map[string]any{"thinking": f})
			}
			delta("signature_delta", map[string]any{"signature": b.signature})
		case kindRedactedThinking:
			add("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "redacted_thinking", "data": b.joined()}})
		case kindToolUse:
			if !json.Valid([]byte(b.joined())) {
				return nil, fmt.Errorf("tool_use %s input is not valid JSON: %s", b.id, b.joined())
			}
			add("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b.id, "name": b.name, "input": map[string]any{}}})
			for _, f := range b.fragments {
				delta("input_json_delta", map[string]any{"partial_json": f})
			}
		}
		add("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	add("message_delta", map[string]any{
		"type":  "message_delta",
		"delta": map[string]any{"stop_reason": p.stop(), "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": u.Output},
	})
	add("message_stop", map[string]any{"type": "message_stop"})
	return evs, nil
}

func (w anthropicWire) message(p *plan, req map[string]any, seq int) ([]byte, error) {
	content := []any{}
	for _, b := range p.blocks {
		switch b.kind {
		case kindText:
			content = append(content, map[string]any{"type": "text", "text": b.joined()})
		case kindThinking:
			content = append(content, map[string]any{"type": "thinking", "thinking": b.joined(), "signature": b.signature})
		case kindRedactedThinking:
			content = append(content, map[string]any{"type": "redacted_thinking", "data": b.joined()})
		case kindToolUse:
			if !json.Valid([]byte(b.joined())) {
				return nil, fmt.Errorf("tool_use %s input is not valid JSON: %s", b.id, b.joined())
			}
			content = append(content, map[string]any{"type": "tool_use", "id": b.id, "name": b.name, "input": json.RawMessage(b.joined())})
		case kindWebSearch:
			content = append(content,
				map[string]any{"type": "server_tool_use", "id": b.id, "name": "web_search", "input": map[string]any{"query": b.joined()}},
				map[string]any{"type": "web_search_tool_result", "tool_use_id": b.id, "content": webSearchResults(b.results)})
		}
	}
	u := p.usageOrDefault()
	return mustJSON(map[string]any{
		"id": fmt.Sprintf("msg_fake_%d", seq), "type": "message", "role": "assistant",
		"model": anthropicModel(p, req), "content": content,
		"stop_reason": p.stop(), "stop_sequence": nil,
		"usage": anthropicUsage(u, u.Output),
	}), nil
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("fake: marshal %T: %v", v, err))
	}
	return b
}

func webSearchResults(rs []SearchResult) []any {
	out := []any{}
	for _, r := range rs {
		out = append(out, map[string]any{"type": "web_search_result", "title": r.Title, "url": r.URL, "encrypted_content": "enc", "page_age": nil})
	}
	return out
}
