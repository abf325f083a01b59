package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/providers/openai"
)

func newProvider(srv *fake.Server) *openai.Provider {
	return openai.New(openai.Options{BaseURL: srv.BaseURL(), Model: "qwen-test"})
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

func (e events) of(kind providers.EventKind) []providers.Event {
	var out []providers.Event
	for _, ev := range e {
		if ev.Kind == kind {
			out = append(out, ev)
		}
	}
	return out
}

func TestStreamParallelToolCalls(t *testing.T) {
	for _, interleave := range []bool{false, true} {
		t.Run(fmt.Sprint("interleave=", interleave), func(t *testing.T) {
			turn := fake.Turn{
				fake.Thinking("two files to read", ""),
				fake.Text("Reading both."),
				fake.ToolUse("call_a", "Read", `{"file_path":"a.go"}`),
				fake.ToolUse("call_b", "Grep", `{"pattern":"func main","path":"."}`),
				fake.Usage{Input: 300, Output: 40, CacheRead: 200},
			}
			if interleave {
				turn = append(turn, fake.Interleave())
			}
			srv := fake.NewOpenAI(t, turn)
			var evs events
			resp, err := newProvider(srv).Stream(context.Background(), request(), evs.emit)
			if err != nil {
				t.Fatal(err)
			}
			if evs.text(providers.EventThinking) != "two files to read" || evs.text(providers.EventText) != "Reading both." {
				t.Errorf("thinking %q text %q", evs.text(providers.EventThinking), evs.text(providers.EventText))
			}
			starts, ends := evs.of(providers.EventToolStart), evs.of(providers.EventToolEnd)
			if len(starts) != 2 || starts[0].ToolID != "call_a" || starts[1].ToolName != "Grep" {
				t.Errorf("starts = %+v", starts)
			}
			if len(ends) != 2 || string(ends[0].Input) != `{"file_path":"a.go"}` || string(ends[1].Input) != `{"pattern":"func main","path":"."}` {
				t.Errorf("ends = %+v", ends)
			}
			if n := len(evs.of(providers.EventToolDelta)); n < 6 {
				t.Errorf("%d argument deltas, want them split", n)
			}
			want := []providers.Block{
				{Type: "thinking", Thinking: "two files to read"},
				{Type: "text", Text: "Reading both."},
				{Type: "tool_use", ID: "call_a", Name: "Read", Input: json.RawMessage(`{"file_path":"a.go"}`)},
				{Type: "tool_use", ID: "call_b", Name: "Grep", Input: json.RawMessage(`{"pattern":"func main","path":"."}`)},
			}
			got, _ := json.Marshal(resp.Message.Content)
			w, _ := json.Marshal(want)
			if string(got) != string(w) {
				t.Errorf("message\n%s\nwant\n%s", got, w)
			}
			if resp.StopReason != providers.StopToolUse || resp.Model != "qwen-test" {
				t.Errorf("stop %q model %q", resp.StopReason, resp.Model)
			}
			if resp.Usage != (providers.Usage{InputTokens: 100, OutputTokens: 40, CacheReadInputTokens: 200}) {
				t.Errorf("usage = %+v", resp.Usage)
			}
		})
	}
}

// TestRequestMapping checks the conversion of Anthropic-shaped history to
// chat messages.
func TestRequestMapping(t *testing.T) {
	srv := fake.NewOpenAI(t, fake.Turn{fake.Text("done")})
	req := &providers.Request{
		System: []providers.SystemBlock{{Text: "You are a coding agent.", Cache: true}, {Text: "Be brief."}},
		Tools: []providers.ToolSpec{{Name: "Read", Description: "Read a file",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"file_path":{"type":"string"}},"required":["file_path"]}`)}},
		MaxTokens: 500,
		Messages: []providers.Message{
			{Role: providers.RoleUser, Content: []providers.Block{providers.TextBlock("read a.go and b.go")}},
			{Role: providers.RoleAssistant, Content: []providers.Block{
				{Type: "thinking", Thinking: "hm", Signature: "s"},
				providers.TextBlock("Reading."),
				{Type: "tool_use", ID: "call_1", Name: "Read", Input: json.RawMessage(`{"file_path":"a.go"}`)},
				{Type: "tool_use", ID: "call_2", Name: "Read", Input: json.RawMessage(`{"file_path":"b.go"}`)},
			}},
			{Role: providers.RoleUser, Content: []providers.Block{
				providers.ToolResultBlock("call_1", "package a", false),
				providers.ToolResultBlock("call_2", "no such file", true),
				providers.TextBlock("also check c.go"),
			}},
		},
	}
	if _, err := newProvider(srv).Stream(context.Background(), req, func(providers.Event) {}); err != nil {
		t.Fatal(err)
	}
	var body struct {
		Model         string          `json:"model"`
		MaxTokens     int             `json:"max_tokens"`
		Stream        bool            `json:"stream"`
		StreamOptions map[string]bool `json:"stream_options"`
		Tools         []struct {
			Type     string `json:"type"`
			Function struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
		Messages []struct {
			Role       string `json:"role"`
			Content    any    `json:"content"`
			ToolCallID string `json:"tool_call_id"`
			ToolCalls  []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := srv.Requests()[0].Decode(&body); err != nil {
		t.Fatal(err)
	}
	if body.Model != "qwen-test" || body.MaxTokens != 500 || !body.Stream || !body.StreamOptions["include_usage"] {
		t.Errorf("model %q max_tokens %d stream %v options %v", body.Model, body.MaxTokens, body.Stream, body.StreamOptions)
	}
	if len(body.Tools) != 1 || body.Tools[0].Type != "function" || body.Tools[0].Function.Name != "Read" ||
		!strings.Contains(string(body.Tools[0].Function.Parameters), `"required":["file_path"]`) {
		t.Errorf("tools = %+v", body.Tools)
	}
	var roles []string
	for _, m := range body.Messages {
		roles = append(roles, m.Role)
	}
	if strings.Join(roles, ",") != "system,user,assistant,tool,tool,user" {
		t.Fatalf("roles = %v", roles)
	}
	m := body.Messages
	if m[0].Content != "You are a coding agent.\n\nBe brief." || m[1].Content != "read a.go and b.go" {
		t.Errorf("system %q user %q", m[0].Content, m[1].Content)
	}
	if m[2].Content != "Reading." || len(m[2].ToolCalls) != 2 || m[2].ToolCalls[1].ID != "call_2" || m[2].ToolCalls[0].Function.Arguments != `{"file_path":"a.go"}` {
		t.Errorf("assistant = %+v", m[2])
	}
	if m[3].ToolCallID != "call_1" || m[3].Content != "package a" || m[4].ToolCallID != "call_2" || m[4].Content != "Error: no such file" {
		t.Errorf("tool messages = %+v %+v", m[3], m[4])
	}
	if m[5].Content != "also check c.go" {
		t.Errorf("trailing user = %+v", m[5])
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name           string
		turn           fake.Turn
		status         int
		retryAfter     string
		retryable      bool
		contextTooLong bool
	}{
		{"429", fake.Turn{fake.RateLimited("7")}, 429, "7", true, false},
		{"500", fake.Turn{fake.ServerError()}, 500, "", true, false},
		{"503", fake.Turn{fake.HTTPError{Status: 503}}, 503, "", true, false},
		{"401", fake.Turn{fake.HTTPError{Status: 401}}, 401, "", false, false},
		{"context too long", fake.Turn{fake.ContextTooLong()}, 400, "", false, true},
		{"error chunk", fake.Turn{fake.Text("a b"), fake.StreamError{Event: "content"}}, 0, "", true, false},
		{"cut mid text", fake.Turn{fake.Text("a b c"), fake.Cut{Event: "content", Nth: 2}}, 0, "", true, false},
		{"cut mid tool args", fake.Turn{fake.ToolUse("call_1", "Read", `{"file_path":"a.go"}`), fake.Cut{Event: "tool_call_args", Nth: 2}}, 0, "", true, false},
		{"clean end before finish", fake.Turn{fake.ToolUse("call_1", "Read", `{}`), fake.Cut{Event: "tool_call_args", Clean: true}}, 0, "", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fake.NewOpenAI(t, tt.turn)
			_, err := newProvider(srv).Stream(context.Background(), request(), func(providers.Event) {})
			var e *providers.Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v (%T)", err, err)
			}
			if e.Status != tt.status || e.RetryAfter != tt.retryAfter || e.Retryable != tt.retryable || e.ContextTooLong != tt.contextTooLong || e.Message == "" {
				t.Errorf("got status %d retry-after %q retryable %v context %v: %v", e.Status, e.RetryAfter, e.Retryable, e.ContextTooLong, e)
			}
		})
	}
}

// A stream cut after finish_reason lacks only usage and [DONE]: complete.
func TestCutAfterFinishIsComplete(t *testing.T) {
	srv := fake.NewOpenAI(t, fake.Turn{fake.ToolUse("call_1", "Read", `{"file_path":"a.go"}`), fake.Cut{Event: "finish"}})
	resp, err := newProvider(srv).Stream(context.Background(), request(), func(providers.Event) {})
	if err != nil {
		t.Fatal(err)
	}
	if uses := resp.Message.ToolUses(); len(uses) != 1 || string(uses[0].Input) != `{"file_path":"a.go"}` {
		t.Errorf("message = %+v", resp.Message)
	}
}

func TestCancel(t *testing.T) {
	srv := fake.NewOpenAI(t, fake.Turn{fake.Text("never ending story"), fake.Hang(2)})
	ctx, cancel := context.WithCancel(context.Background())
	emit := func(ev providers.Event) {
		if ev.Kind == providers.EventText {
			cancel()
		}
	}
	start := time.Now()
	_, err := newProvider(srv).Stream(ctx, request(), emit)
	if !errors.Is(err, context.Canceled) || time.Since(start) > 2*time.Second {
		t.Errorf("err = %v after %v", err, time.Since(start))
	}
}

func TestStalled(t *testing.T) {
	srv := fake.NewOpenAI(t, fake.Turn{fake.Text("x"), fake.Hang(1)})
	p := openai.New(openai.Options{BaseURL: srv.BaseURL(), Model: "m", IdleTimeout: 200 * time.Millisecond})
	_, err := p.Stream(context.Background(), request(), func(providers.Event) {})
	var e *providers.Error
	if !errors.As(err, &e) || e.Type != "stream_stalled" || !e.Retryable {
		t.Errorf("err = %v", err)
	}
}

// TestQuirkyServer covers compatible servers that number every tool call
// 0, omit ids, send a call whole in one chunk, write invalid JSON
// arguments and finish with "stop" after tool calls.
func TestQuirkyServer(t *testing.T) {
	chunks := []string{
		`{"choices":[{"index":0,"delta":{"role":"assistant","reasoning":"think"}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"x1","function":{"name":"Read","arguments":"{\"file_path\":\"a.go\"}"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"x2","function":{"name":"Bash","arguments":"{command: ls"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"name":"LS","arguments":""}}]}}]}`,
		`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, c := range chunks {
			fmt.Fprintf(w, "data: %s\n\n", c)
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	defer srv.Close()
	p := openai.New(openai.Options{BaseURL: srv.URL + "/v1", Model: "llama", NoStreamUsage: true})
	resp, err := p.Stream(context.Background(), request(), func(providers.Event) {})
	if err != nil {
		t.Fatal(err)
	}
	uses := resp.Message.ToolUses()
	if len(uses) != 3 || uses[0].ID != "x1" || uses[1].ID != "x2" || uses[2].ID != "call_2" || uses[2].Name != "LS" {
		t.Fatalf("tool uses = %+v", uses)
	}
	if string(uses[1].Input) != `"{command: ls"` || string(uses[2].Input) != `{}` {
		t.Errorf("inputs = %s, %s", uses[1].Input, uses[2].Input)
	}
	if resp.StopReason != providers.StopToolUse || resp.Message.Content[0].Thinking != "think" {
		t.Errorf("stop %q content %+v", resp.StopReason, resp.Message.Content)
	}
}

func TestOfficialAPIWantsKey(t *testing.T) {
	_, err := openai.New(openai.Options{Model: "gpt-4.1"}).Stream(context.Background(), request(), func(providers.Event) {})
	if err == nil || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Errorf("err = %v", err)
	}
}

// redirect sends every request to srv, whatever host it names, so a
// provider configured for api.openai.com talks to the fake.
type redirect struct{ host string }

func (r redirect) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.URL.Scheme, req.URL.Host = "http", r.host
	return http.DefaultTransport.RoundTrip(req)
}

// TestReasoningEffort: a request's effort goes out as reasoning_effort
// only to api.openai.com's reasoning models; local servers and other
// models never see the field.
func TestReasoningEffort(t *testing.T) {
	tests := []struct {
		name, baseURL, model, effort, want string
	}{
		{"official reasoning model", "https://api.openai.com/v1", "gpt-5", "medium", "medium"},
		{"max is high", "https://api.openai.com/v1", "o3", "max", "high"},
		{"official chat model", "https://api.openai.com/v1", "gpt-4o", "high", ""},
		{"local server", "", "gpt-5", "high", ""},
		{"no effort", "https://api.openai.com/v1", "gpt-5", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fake.NewOpenAI(t, fake.Turn{fake.Text("ok")})
			opts := openai.Options{BaseURL: tt.baseURL, APIKey: "k", Model: tt.model}
			if tt.baseURL == "" {
				opts.BaseURL = srv.BaseURL()
			} else {
				opts.HTTPClient = &http.Client{Transport: redirect{host: strings.TrimPrefix(srv.URL, "http://")}}
			}
			req := request()
			req.Effort = tt.effort
			if _, err := openai.New(opts).Stream(context.Background(), req, func(providers.Event) {}); err != nil {
				t.Fatal(err)
			}
			got, _ := srv.Requests()[0].JSON["reasoning_effort"].(string)
			if got != tt.want {
				t.Errorf("reasoning_effort = %q, want %q", got, tt.want)
			}
		})
	}
}
