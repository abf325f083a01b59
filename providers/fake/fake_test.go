package fake_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	aoption "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/openai/openai-go/v3"
	ooption "github.com/openai/openai-go/v3/option"

	"github.com/agent-lsp/agent-lsp/providers/fake"
)

// recorder is a T that collects failures, to test the server's own
// failure reports.
type recorder struct {
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) failures() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errs...)
}

func anthropicClient(srv *fake.Server) anthropic.Client {
	return anthropic.NewClient(
		aoption.WithAPIKey("test-key"),
		aoption.WithBaseURL(srv.BaseURL()),
		aoption.WithMaxRetries(0),
	)
}

func anthropicParams() anthropic.MessageNewParams {
	return anthropic.MessageNewParams{
		Model:     "claude-test",
		MaxTokens: 1024,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))},
	}
}

// streamAnthropic runs one streaming request and returns the accumulated
// message, the event types seen and the stream error.
func streamAnthropic(ctx context.Context, c anthropic.Client) (anthropic.Message, []string, error) {
	s := c.Messages.NewStreaming(ctx, anthropicParams())
	defer s.Close()
	var msg anthropic.Message
	var types []string
	for s.Next() {
		ev := s.Current()
		types = append(types, ev.Type)
		if err := msg.Accumulate(ev); err != nil {
			return msg, types, err
		}
	}
	return msg, types, s.Err()
}

func TestAnthropicStream(t *testing.T) {
	srv := fake.NewAnthropic(t, fake.Turn{
		fake.Thinking("let me think", "sig-1"),
		fake.Text("Reading the file now."),
		fake.ToolUse("toolu_1", "Read", `{"file_path":"a.go"}`),
		fake.Usage{Input: 42, Output: 7, CacheRead: 5},
	})
	msg, types, err := streamAnthropic(context.Background(), anthropicClient(srv))
	if err != nil {
		t.Fatal(err)
	}
	if types[0] != "message_start" || types[len(types)-1] != "message_stop" {
		t.Errorf("event types = %v", types)
	}
	if len(msg.Content) != 3 {
		t.Fatalf("content = %+v", msg.Content)
	}
	if th := msg.Content[0].AsThinking(); th.Thinking != "let me think" || th.Signature != "sig-1" {
		t.Errorf("thinking = %+v", th)
	}
	if got := msg.Content[1].AsText().Text; got != "Reading the file now." {
		t.Errorf("text = %q", got)
	}
	tu := msg.Content[2].AsToolUse()
	if tu.ID != "toolu_1" || tu.Name != "Read" || string(tu.Input) != `{"file_path":"a.go"}` {
		t.Errorf("tool_use = %s %s %s", tu.ID, tu.Name, tu.Input)
	}
	if msg.StopReason != "tool_use" || msg.Usage.InputTokens != 42 || msg.Usage.OutputTokens != 7 || msg.Usage.CacheReadInputTokens != 5 {
		t.Errorf("stop %q usage %+v", msg.StopReason, msg.Usage)
	}
	if msg.Model != "claude-test" {
		t.Errorf("model = %q", msg.Model)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].JSON["model"] != "claude-test" || reqs[0].Header.Get("X-Api-Key") != "test-key" {
		t.Fatalf("requests = %+v", reqs)
	}
	var body struct {
		Messages []struct{ Role string } `json:"messages"`
	}
	if err := reqs[0].Decode(&body); err != nil || len(body.Messages) != 1 || body.Messages[0].Role != "user" {
		t.Errorf("decoded body = %+v, %v", body, err)
	}
}

func TestAnthropicTurnsInOrderAndNonStreaming(t *testing.T) {
	srv := fake.NewAnthropic(t, fake.Turn{fake.Text("one")}, fake.Turn{fake.Text("two")})
	c := anthropicClient(srv)
	msg, _, err := streamAnthropic(context.Background(), c)
	if err != nil || msg.Content[0].AsText().Text != "one" || msg.StopReason != "end_turn" {
		t.Fatalf("first = %+v, %v", msg, err)
	}
	m2, err := c.Messages.New(context.Background(), anthropicParams())
	if err != nil || m2.Content[0].AsText().Text != "two" {
		t.Fatalf("second = %+v, %v", m2, err)
	}
	if srv.Remaining() != 0 {
		t.Errorf("remaining = %d", srv.Remaining())
	}
}

func TestAnthropicHTTPErrors(t *testing.T) {
	srv := fake.NewAnthropic(t,
		fake.Turn{fake.RateLimited("3")},
		fake.Turn{fake.Overloaded()},
		fake.Turn{fake.ContextTooLong()},
	)
	c := anthropicClient(srv)
	for _, want := range []struct {
		status     int
		typ        string
		retryAfter string
	}{
		{429, "rate_limit_error", "3"},
		{529, "overloaded_error", ""},
		{400, "invalid_request_error", ""},
	} {
		_, _, err := streamAnthropic(context.Background(), c)
		var apiErr *anthropic.Error
		if !errors.As(err, &apiErr) {
			t.Fatalf("err = %v, want *anthropic.Error", err)
		}
		if apiErr.StatusCode != want.status || apiErr.Response.Header.Get("Retry-After") != want.retryAfter ||
			!strings.Contains(apiErr.RawJSON(), want.typ) {
			t.Errorf("got %d %q %s, want %+v", apiErr.StatusCode, apiErr.Response.Header.Get("Retry-After"), apiErr.RawJSON(), want)
		}
	}
}

func TestAnthropicCuts(t *testing.T) {
	srv := fake.NewAnthropic(t,
		fake.Turn{fake.Text("hello there world"), fake.Cut{Event: "text_delta", Nth: 2}},
		fake.Turn{fake.ToolUse("toolu_1", "Read", `{"file_path":"a.go"}`), fake.Cut{Event: "message_delta", Clean: true}},
		fake.Turn{fake.Text("x"), fake.StreamError{Event: "ping", Type: "overloaded_error"}},
	)
	c := anthropicClient(srv)

	msg, types, err := streamAnthropic(context.Background(), c)
	if err == nil {
		t.Errorf("abrupt cut: no error, types %v", types)
	}
	if len(msg.Content) != 1 || msg.Content[0].Text != "hello there " {
		t.Errorf("abrupt cut: content %+v", msg.Content)
	}

	msg, types, err = streamAnthropic(context.Background(), c)
	if err != nil || types[len(types)-1] != "message_delta" {
		t.Errorf("clean cut: err %v, types %v", err, types)
	}
	if string(msg.Content[0].AsToolUse().Input) != `{"file_path":"a.go"}` {
		t.Errorf("clean cut: content %+v", msg.Content)
	}

	_, _, err = streamAnthropic(context.Background(), c)
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) || !strings.Contains(apiErr.RawJSON(), "overloaded_error") {
		t.Errorf("stream error: %v", err)
	}
}

func TestHoldReleaseAndHang(t *testing.T) {
	release := make(chan struct{})
	srv := fake.NewAnthropic(t,
		fake.Turn{fake.Text("a b"), fake.Hold{Event: "text_delta", Release: release}},
		fake.Turn{fake.Text("never finished"), fake.Hang(3)},
	)
	c := anthropicClient(srv)

	s := c.Messages.NewStreaming(context.Background(), anthropicParams())
	var got []string
	for s.Next() {
		ev := s.Current()
		if ev.Type == "content_block_delta" {
			got = append(got, ev.Delta.Text)
			if len(got) == 1 {
				close(release) // the second delta only comes after this
			}
		}
	}
	if s.Err() != nil || strings.Join(got, "|") != "a |b" {
		t.Errorf("held stream: %v %q", s.Err(), got)
	}
	s.Close()

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, _, err := streamAnthropic(ctx, c)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("hang: err = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("cancel took %v", d)
	}
}

func TestFailuresInsteadOfHanging(t *testing.T) {
	rec := &recorder{}
	srv := fake.NewAnthropic(rec, fake.Turn{fake.Text("stuck"), fake.Hang(2)})
	defer srv.Close()
	srv.SetHoldTimeout(200 * time.Millisecond)
	c := anthropicClient(srv)
	if _, _, err := streamAnthropic(context.Background(), c); err == nil {
		t.Error("held stream ended without error")
	}
	// No turn left.
	if _, _, err := streamAnthropic(context.Background(), c); err == nil {
		t.Error("unscripted request succeeded")
	}
	f := rec.failures()
	if len(f) != 2 || !strings.Contains(f[0], "held for 200ms") || !strings.Contains(f[1], "no scripted turn") {
		t.Errorf("failures = %q", f)
	}
	if len(srv.Errors()) != 2 {
		t.Errorf("Errors() = %q", srv.Errors())
	}
}

func TestNilTAndSlowFirstByte(t *testing.T) {
	srv := fake.NewAnthropic(nil, fake.Turn{fake.Text("late"), fake.Delay{FirstByte: 150 * time.Millisecond}})
	defer srv.Close()
	start := time.Now()
	msg, _, err := streamAnthropic(context.Background(), anthropicClient(srv))
	if err != nil || msg.Content[0].Text != "late" {
		t.Fatalf("msg %+v err %v", msg, err)
	}
	if time.Since(start) < 150*time.Millisecond {
		t.Error("first byte was not delayed")
	}
}

func openaiClient(srv *fake.Server) openai.Client {
	return openai.NewClient(
		ooption.WithAPIKey("test-key"),
		ooption.WithBaseURL(srv.BaseURL()),
		ooption.WithMaxRetries(0),
	)
}

func TestOpenAIStreamParallelToolCalls(t *testing.T) {
	for _, interleave := range []bool{false, true} {
		t.Run(fmt.Sprint("interleave=", interleave), func(t *testing.T) {
			turn := fake.Turn{
				fake.Thinking("hmm", ""),
				fake.Text("Two reads."),
				fake.ToolUse("call_1", "Read", `{"file_path":"a.go"}`),
				fake.ToolUse("call_2", "Read", `{"file_path":"b.go","limit":10}`),
			}
			if interleave {
				turn = append(turn, fake.Interleave())
			}
			srv := fake.NewOpenAI(t, turn)
			c := openaiClient(srv)
			s := c.Chat.Completions.NewStreaming(context.Background(), openai.ChatCompletionNewParams{
				Model:         "gpt-test",
				Messages:      []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
				StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
			})
			defer s.Close()
			var acc openai.ChatCompletionAccumulator
			var reasoning string
			argChunks := 0
			for s.Next() {
				ch := s.Current()
				acc.AddChunk(ch)
				if len(ch.Choices) > 0 {
					if f, ok := ch.Choices[0].Delta.JSON.ExtraFields["reasoning_content"]; ok {
						reasoning += strings.Trim(f.Raw(), `"`)
					}
					for _, tc := range ch.Choices[0].Delta.ToolCalls {
						if tc.Function.Arguments != "" {
							argChunks++
						}
					}
				}
			}
			if err := s.Err(); err != nil {
				t.Fatal(err)
			}
			if reasoning != "hmm" {
				t.Errorf("reasoning = %q", reasoning)
			}
			m := acc.Choices[0].Message
			if m.Content != "Two reads." || acc.Choices[0].FinishReason != "tool_calls" {
				t.Errorf("content %q finish %q", m.Content, acc.Choices[0].FinishReason)
			}
			if len(m.ToolCalls) != 2 || m.ToolCalls[0].ID != "call_1" || m.ToolCalls[1].Function.Arguments != `{"file_path":"b.go","limit":10}` {
				t.Errorf("tool calls = %+v", m.ToolCalls)
			}
			if argChunks < 4 {
				t.Errorf("arguments came in %d chunks, want several per call", argChunks)
			}
			if acc.Usage.PromptTokens != 100 {
				t.Errorf("usage = %+v", acc.Usage)
			}
		})
	}
}

func TestOpenAIErrors(t *testing.T) {
	srv := fake.NewOpenAI(t,
		fake.Turn{fake.RateLimited("2")},
		fake.Turn{fake.ContextTooLong()},
		fake.Turn{fake.Text("a b c"), fake.StreamError{Event: "content", Nth: 2}},
		fake.Turn{fake.Text("a b c"), fake.Cut{Event: "content", Nth: 1}},
	)
	c := openaiClient(srv)
	run := func() error {
		s := c.Chat.Completions.NewStreaming(context.Background(), openai.ChatCompletionNewParams{
			Model:    "gpt-test",
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
		})
		defer s.Close()
		for s.Next() {
		}
		return s.Err()
	}
	var apiErr *openai.Error
	if err := run(); !errors.As(err, &apiErr) || apiErr.StatusCode != 429 || apiErr.Response.Header.Get("Retry-After") != "2" {
		t.Errorf("429: %v", err)
	}
	if err := run(); !errors.As(err, &apiErr) || apiErr.Code != "context_length_exceeded" {
		t.Errorf("context too long: %v", err)
	}
	if err := run(); err == nil || !strings.Contains(err.Error(), "server_error") {
		t.Errorf("stream error: %v", err)
	}
	if err := run(); err == nil {
		t.Error("cut: no error")
	}
}

func TestUnknownPath(t *testing.T) {
	rec := &recorder{}
	srv := fake.NewOpenAI(rec)
	defer srv.Close()
	resp, err := http.Post(srv.URL+"/v1/embeddings", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 || len(rec.failures()) != 1 {
		t.Errorf("status %d failures %q", resp.StatusCode, rec.failures())
	}
}
