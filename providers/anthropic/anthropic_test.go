package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/providers/anthropic"
	"github.com/agent-lsp/agent-lsp/providers/fake"
)

func newProvider(srv *fake.Server) *anthropic.Provider {
	return anthropic.New(anthropic.Options{APIKey: "test-key", BaseURL: srv.BaseURL(), Model: "claude-test"})
}

func request() *providers.Request {
	return &providers.Request{
		Messages: []providers.Message{{Role: providers.RoleUser, Content: []providers.Block{providers.TextBlock("hi")}}},
	}
}

type events []providers.Event

func (e *events) emit(ev providers.Event) { *e = append(*e, ev) }

func (e events) text(kind providers.EventKind) string {
	var b strings.Builder
	for _, ev := range e {
		if ev.Kind == kind {
			b.WriteString(ev.Text)
		}
	}
	return b.String()
}

func (e events) count(kind providers.EventKind) int {
	n := 0
	for _, ev := range e {
		if ev.Kind == kind {
			n++
		}
	}
	return n
}

func TestStream(t *testing.T) {
	srv := fake.NewAnthropic(t, fake.Turn{
		fake.Thinking("I should read a.go first.", "sig-abc"),
		fake.Text("Let me read it."),
		fake.ToolUse("toolu_1", "Read", `{"file_path":"a.go","limit":20}`),
		fake.ToolUse("toolu_2", "Read", `{}`),
		fake.Usage{Input: 1200, Output: 80, CacheRead: 1000, CacheWrite: 50},
	})
	var evs events
	resp, err := newProvider(srv).Stream(context.Background(), request(), evs.emit)
	if err != nil {
		t.Fatal(err)
	}
	if got := evs.text(providers.EventText); got != "Let me read it." {
		t.Errorf("text events = %q", got)
	}
	if got := evs.text(providers.EventThinking); got != "I should read a.go first." {
		t.Errorf("thinking events = %q", got)
	}
	if got := evs.text(providers.EventToolDelta); got != `{"file_path":"a.go","limit":20}{}` {
		t.Errorf("tool deltas = %q", got)
	}
	if evs.count(providers.EventToolDelta) < 3 {
		t.Errorf("tool input came in %d deltas, want several", evs.count(providers.EventToolDelta))
	}
	var starts, ends []providers.Event
	for _, ev := range evs {
		switch ev.Kind {
		case providers.EventToolStart:
			starts = append(starts, ev)
		case providers.EventToolEnd:
			ends = append(ends, ev)
		}
	}
	if len(starts) != 2 || starts[0].ToolID != "toolu_1" || starts[0].ToolName != "Read" || starts[0].Index != 2 {
		t.Errorf("tool starts = %+v", starts)
	}
	if len(ends) != 2 || string(ends[0].Input) != `{"file_path":"a.go","limit":20}` || ends[1].ToolID != "toolu_2" {
		t.Errorf("tool ends = %+v", ends)
	}

	want := []providers.Block{
		{Type: "thinking", Thinking: "I should read a.go first.", Signature: "sig-abc"},
		{Type: "text", Text: "Let me read it."},
		{Type: "tool_use", ID: "toolu_1", Name: "Read", Input: json.RawMessage(`{"file_path":"a.go","limit":20}`)},
		{Type: "tool_use", ID: "toolu_2", Name: "Read", Input: json.RawMessage(`{}`)},
	}
	gotJSON, _ := json.Marshal(resp.Message.Content)
	wantJSON, _ := json.Marshal(want)
	if string(gotJSON) != string(wantJSON) {
		t.Errorf("message =\n%s\nwant\n%s", gotJSON, wantJSON)
	}
	if resp.Message.Role != providers.RoleAssistant || resp.StopReason != providers.StopToolUse || resp.Model != "claude-test" {
		t.Errorf("role %q stop %q model %q", resp.Message.Role, resp.StopReason, resp.Model)
	}
	wantUsage := providers.Usage{InputTokens: 1200, OutputTokens: 80, CacheReadInputTokens: 1000, CacheCreationInputTokens: 50}
	if resp.Usage != wantUsage {
		t.Errorf("usage = %+v", resp.Usage)
	}
	if last := evs[len(evs)-1]; last.Kind != providers.EventUsage || last.Usage != wantUsage {
		t.Errorf("last event = %+v", last)
	}
}

// TestRequestMapping checks what goes on the wire: system blocks with
// cache breakpoints, tools, thinking, and a history with a signed thinking
// block, tool_use and tool_result.
func TestRequestMapping(t *testing.T) {
	srv := fake.NewAnthropic(t, fake.Turn{fake.Text("ok")}, fake.Turn{fake.Text("ok")}, fake.Turn{fake.Text("ok")})
	req := &providers.Request{
		Model: "claude-sonnet-4-5-20250929",
		System: []providers.SystemBlock{
			{Text: "You are a coding agent.", Cache: true},
			{Text: "Today is Monday."},
		},
		Tools: []providers.ToolSpec{{
			Name:        "Read",
			Description: "Read a file",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"file_path":{"type":"string"}},"required":["file_path"],"additionalProperties":false}`),
		}},
		MaxTokens:      1000,
		ThinkingBudget: 2048,
		Messages: []providers.Message{
			{Role: providers.RoleUser, Content: []providers.Block{providers.TextBlock("read a.go")}},
			{Role: providers.RoleAssistant, Content: []providers.Block{
				{Type: "thinking", Thinking: "hm", Signature: "sig"},
				{Type: "redacted_thinking", Data: "opaque"},
				{Type: "tool_use", ID: "toolu_1", Name: "Read", Input: json.RawMessage(`{"file_path":"a.go"}`)},
			}},
			{Role: providers.RoleUser, Content: []providers.Block{providers.ToolResultBlock("toolu_1", "package a", false)}},
		},
	}
	if _, err := newProvider(srv).Stream(context.Background(), req, func(providers.Event) {}); err != nil {
		t.Fatal(err)
	}
	var body struct {
		Model     string `json:"model"`
		MaxTokens int    `json:"max_tokens"`
		Stream    bool   `json:"stream"`
		System    []struct {
			Text         string          `json:"text"`
			CacheControl json.RawMessage `json:"cache_control"`
		} `json:"system"`
		Tools    []map[string]any `json:"tools"`
		Thinking map[string]any   `json:"thinking"`
		Messages []struct {
			Role    string           `json:"role"`
			Content []map[string]any `json:"content"`
		} `json:"messages"`
	}
	reqs := srv.Requests()
	if err := reqs[0].Decode(&body); err != nil {
		t.Fatal(err)
	}
	if body.Model != "claude-sonnet-4-5-20250929" || !body.Stream || body.MaxTokens != 2048+anthropic.DefaultMaxTokens {
		t.Errorf("model %q stream %v max_tokens %d", body.Model, body.Stream, body.MaxTokens)
	}
	if len(body.System) != 2 || string(body.System[0].CacheControl) != `{"type":"ephemeral"}` || body.System[1].CacheControl != nil {
		t.Errorf("system = %+v", body.System)
	}
	schema, _ := json.Marshal(body.Tools[0]["input_schema"])
	if body.Tools[0]["name"] != "Read" || body.Tools[0]["description"] != "Read a file" ||
		string(schema) != `{"additionalProperties":false,"properties":{"file_path":{"type":"string"}},"required":["file_path"],"type":"object"}` {
		t.Errorf("tool = %v, schema %s", body.Tools[0], schema)
	}
	if body.Thinking["type"] != "enabled" || body.Thinking["budget_tokens"] != 2048.0 {
		t.Errorf("thinking = %v", body.Thinking)
	}
	// A model of the 5 series thinks adaptively and refuses a budget.
	req.Model = "claude-sonnet-5-5"
	if _, err := newProvider(srv).Stream(context.Background(), req, func(providers.Event) {}); err != nil {
		t.Fatal(err)
	}
	if th := srv.Requests()[1].JSON["thinking"].(map[string]any); th["type"] != "adaptive" || th["budget_tokens"] != nil {
		t.Errorf("thinking for claude-sonnet-5-5 = %v", th)
	}
	// Claude 3.5 models cannot think: no thinking for them.
	req.Model = "claude-3-5-haiku-20241022"
	if _, err := newProvider(srv).Stream(context.Background(), req, func(providers.Event) {}); err != nil {
		t.Fatal(err)
	}
	if th, ok := srv.Requests()[2].JSON["thinking"]; ok {
		t.Errorf("thinking for claude-3-5-haiku = %v, want none", th)
	}
	asst := body.Messages[1].Content
	if asst[0]["type"] != "thinking" || asst[0]["signature"] != "sig" || asst[1]["data"] != "opaque" || asst[2]["id"] != "toolu_1" {
		t.Errorf("assistant content = %v", asst)
	}
	tr := body.Messages[2].Content[0]
	if tr["type"] != "tool_result" || tr["tool_use_id"] != "toolu_1" || tr["cache_control"] == nil {
		t.Errorf("tool result = %v (want a cache breakpoint on the last block)", tr)
	}
	if reqs[0].Header.Get("X-Api-Key") != "test-key" {
		t.Errorf("x-api-key = %q", reqs[0].Header.Get("X-Api-Key"))
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name           string
		turn           fake.Turn
		status         int
		typ            string
		retryAfter     string
		retryable      bool
		contextTooLong bool
	}{
		{"429", fake.Turn{fake.RateLimited("3")}, 429, "rate_limit_error", "3", true, false},
		{"500", fake.Turn{fake.ServerError()}, 500, "api_error", "", true, false},
		{"529", fake.Turn{fake.Overloaded()}, 529, "overloaded_error", "", true, false},
		{"401", fake.Turn{fake.HTTPError{Status: 401}}, 401, "authentication_error", "", false, false},
		{"403", fake.Turn{fake.HTTPError{Status: 403}}, 403, "permission_error", "", false, false},
		{"400", fake.Turn{fake.HTTPError{Status: 400, Message: "messages: field required"}}, 400, "invalid_request_error", "", false, false},
		{"prompt too long", fake.Turn{fake.ContextTooLong()}, 400, "invalid_request_error", "", false, true},
		{"overloaded event mid-stream", fake.Turn{fake.Text("a b c"), fake.StreamError{Event: "text_delta", Nth: 2}}, 529, "overloaded_error", "", true, false},
		{"cut mid text", fake.Turn{fake.Text("a b c"), fake.Cut{Event: "text_delta", Nth: 2}}, 0, "connection_error", "", true, false},
		{"cut mid tool args", fake.Turn{fake.ToolUse("toolu_1", "Read", `{"file_path":"a.go"}`), fake.Cut{Event: "input_json_delta", Nth: 2}}, 0, "connection_error", "", true, false},
		{"clean end mid block", fake.Turn{fake.Text("a b c"), fake.Cut{Event: "text_delta", Clean: true}}, 0, "stream_incomplete", "", true, false},
		{"clean end before message_delta", fake.Turn{fake.ToolUse("toolu_1", "Read", `{}`), fake.Cut{Event: "content_block_stop", Clean: true}}, 0, "stream_incomplete", "", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fake.NewAnthropic(t, tt.turn)
			_, err := newProvider(srv).Stream(context.Background(), request(), func(providers.Event) {})
			var e *providers.Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v (%T), want *providers.Error", err, err)
			}
			if e.Status != tt.status || e.Type != tt.typ || e.RetryAfter != tt.retryAfter || e.Retryable != tt.retryable || e.ContextTooLong != tt.contextTooLong {
				t.Errorf("got status %d type %q retry-after %q retryable %v context %v (%v)", e.Status, e.Type, e.RetryAfter, e.Retryable, e.ContextTooLong, e)
			}
			if e.Message == "" {
				t.Error("empty message")
			}
		})
	}
}

// A stream cut after message_delta lacks only message_stop: every block
// is complete, so the response is returned without a retry.
func TestMissingMessageStopIsComplete(t *testing.T) {
	for _, clean := range []bool{true, false} {
		srv := fake.NewAnthropic(t, fake.Turn{
			fake.Text("Reading."),
			fake.ToolUse("toolu_1", "Read", `{"file_path":"a.go"}`),
			fake.Cut{Event: "message_delta", Clean: clean},
		})
		resp, err := newProvider(srv).Stream(context.Background(), request(), func(providers.Event) {})
		if err != nil {
			t.Fatalf("clean=%v: %v", clean, err)
		}
		if len(resp.Message.ToolUses()) != 1 || resp.Message.Text() != "Reading." || resp.StopReason != providers.StopToolUse {
			t.Errorf("clean=%v: resp = %+v", clean, resp)
		}
	}
}

func TestCancel(t *testing.T) {
	srv := fake.NewAnthropic(t, fake.Turn{fake.Text("partial answer that never ends"), fake.Hang(4)})
	ctx, cancel := context.WithCancel(context.Background())
	var evs events
	emit := func(ev providers.Event) {
		evs.emit(ev)
		if ev.Kind == providers.EventText {
			cancel()
		}
	}
	start := time.Now()
	_, err := newProvider(srv).Stream(ctx, request(), emit)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("cancel took %v", d)
	}
	if evs.text(providers.EventText) != "partial " {
		t.Errorf("text before cancel = %q", evs.text(providers.EventText))
	}
}

func TestStalledStream(t *testing.T) {
	srv := fake.NewAnthropic(t, fake.Turn{fake.Text("a b"), fake.Hang(3)})
	p := anthropic.New(anthropic.Options{APIKey: "k", BaseURL: srv.BaseURL(), Model: "m", IdleTimeout: 200 * time.Millisecond})
	_, err := p.Stream(context.Background(), request(), func(providers.Event) {})
	var e *providers.Error
	if !errors.As(err, &e) || e.Type != "stream_stalled" || !e.Retryable {
		t.Fatalf("err = %v, want a retryable stalled stream", err)
	}
}

func TestSlowFirstByte(t *testing.T) {
	srv := fake.NewAnthropic(t, fake.Turn{fake.Text("late"), fake.Delay{FirstByte: 300 * time.Millisecond}})
	resp, err := newProvider(srv).Stream(context.Background(), request(), func(providers.Event) {})
	if err != nil || resp.Message.Text() != "late" {
		t.Fatalf("resp %+v err %v", resp, err)
	}
}

func TestNoKeyOrModel(t *testing.T) {
	_, err := anthropic.New(anthropic.Options{Model: "m"}).Stream(context.Background(), request(), func(providers.Event) {})
	if err == nil || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") {
		t.Errorf("no key: %v", err)
	}
	_, err = anthropic.New(anthropic.Options{APIKey: "k"}).Stream(context.Background(), request(), func(providers.Event) {})
	if err == nil || !strings.Contains(err.Error(), "model") {
		t.Errorf("no model: %v", err)
	}
}

// TestConcurrent streams from one Provider on many goroutines.
func TestConcurrent(t *testing.T) {
	const n = 8
	var turns []fake.Turn
	for range n {
		turns = append(turns, fake.Turn{fake.Text("same answer for all")})
	}
	srv := fake.NewAnthropic(t, turns...)
	p := newProvider(srv)
	errs := make(chan error, n)
	for range n {
		go func() {
			resp, err := p.Stream(context.Background(), request(), func(providers.Event) {})
			if err == nil && resp.Message.Text() != "same answer for all" {
				err = errors.New("wrong text " + resp.Message.Text())
			}
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestEffort checks output_config.effort per model: sent to the models
// that take it (adaptive thinkers and Claude Opus 4.5, which stops at
// high), left out for the older ones, which answer it with a 400.
func TestEffort(t *testing.T) {
	tests := []struct {
		model, effort, want string
	}{
		{"claude-opus-4-7", "medium", "medium"},
		{"claude-sonnet-4-6", "max", "max"},
		{"claude-opus-4-5-20251101", "low", "low"},
		{"claude-opus-4-5-20251101", "max", "high"},
		{"claude-sonnet-4-5-20250929", "high", ""},
		{"claude-haiku-4-5", "low", ""},
		{"claude-opus-4-7", "", ""},
		{"claude-opus-4-7", "extreme", ""},
	}
	for _, tt := range tests {
		t.Run(tt.model+"/"+tt.effort, func(t *testing.T) {
			srv := fake.NewAnthropic(t, fake.Turn{fake.Text("ok")})
			req := &providers.Request{Model: tt.model, Effort: tt.effort, Messages: []providers.Message{{Role: providers.RoleUser, Content: []providers.Block{providers.TextBlock("hi")}}}}
			if _, err := newProvider(srv).Stream(context.Background(), req, func(providers.Event) {}); err != nil {
				t.Fatal(err)
			}
			got := ""
			if oc, ok := srv.Requests()[0].JSON["output_config"].(map[string]any); ok {
				got, _ = oc["effort"].(string)
			}
			if got != tt.want {
				t.Errorf("output_config.effort = %q, want %q (body %s)", got, tt.want, srv.Requests()[0].Body)
			}
		})
	}
}
