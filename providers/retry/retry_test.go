package retry_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/providers/anthropic"
	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/providers/openai"
	"github.com/agent-lsp/agent-lsp/providers/retry"
)

// sleeper records the waits instead of sleeping.
type sleeper struct {
	mu     sync.Mutex
	delays []time.Duration
}

func (s *sleeper) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.delays = append(s.delays, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeper) waits() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.delays...)
}

func policy(s *sleeper) retry.Policy {
	// A jitter of 0.5 makes the factor exactly 1.
	return retry.Policy{MaxAttempts: 6, Sleep: s.sleep, Jitter: func() float64 { return 0.5 }}
}

// view is what an editor shows, following the reset rule: an EventRetry
// with Reset drops what the failed attempt streamed.
type view struct {
	text    string
	tools   []string
	retries []providers.RetryInfo
}

func (v *view) emit(ev providers.Event) {
	switch ev.Kind {
	case providers.EventText:
		v.text += ev.Text
	case providers.EventToolEnd:
		v.tools = append(v.tools, ev.ToolID)
	case providers.EventRetry:
		v.retries = append(v.retries, *ev.Retry)
		if ev.Retry.Reset {
			v.text, v.tools = "", nil
		}
	}
}

func request() *providers.Request {
	return &providers.Request{
		Model:    "test-model",
		Messages: []providers.Message{{Role: providers.RoleUser, Content: []providers.Block{providers.TextBlock("go")}}},
	}
}

// good is the turn every faulty case ends with.
var good = fake.Turn{
	fake.Text("All done here."),
	fake.ToolUse("toolu_9", "Edit", `{"file_path":"a.go","old_string":"x","new_string":"y"}`),
}

type matrixCase struct {
	name     string
	first    fake.Turn       // the faulty turn, followed by good
	requests int             // requests the server should see
	delays   []time.Duration // waits before retries
	reason   string          // the first retry's reason
	reset    bool            // whether the failed attempt had streamed
}

func checkCompleted(t *testing.T, resp *providers.Response, v *view) {
	t.Helper()
	if resp.Message.Text() != "All done here." {
		t.Errorf("response text = %q", resp.Message.Text())
	}
	uses := resp.Message.ToolUses()
	if len(uses) != 1 || uses[0].ID != "toolu_9" {
		t.Errorf("tool uses = %+v, want toolu_9 exactly once", uses)
	}
	if v.text != resp.Message.Text() {
		t.Errorf("the editor shows %q, the message is %q", v.text, resp.Message.Text())
	}
	if len(v.tools) != 1 {
		t.Errorf("the editor saw tool calls %v", v.tools)
	}
}

func runMatrix(t *testing.T, newServer func(t fake.T, turns ...fake.Turn) *fake.Server, newProvider func(*fake.Server) retry.Streamer, cases []matrixCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, tc.first, good)
			s := &sleeper{}
			var v view
			resp, err := retry.Wrap(newProvider(srv), policy(s)).Stream(context.Background(), request(), v.emit)
			if err != nil {
				t.Fatal(err)
			}
			checkCompleted(t, resp, &v)
			if n := len(srv.Requests()); n != tc.requests {
				t.Errorf("server saw %d requests, want %d", n, tc.requests)
			}
			if got := s.waits(); !equalDurations(got, tc.delays) {
				t.Errorf("waits = %v, want %v", got, tc.delays)
			}
			if tc.reason != "" {
				if len(v.retries) == 0 {
					t.Fatal("no EventRetry")
				}
				r := v.retries[0]
				if r.Reason != tc.reason || r.Attempt != 1 || r.Reset != tc.reset || r.Delay != tc.delays[0] {
					t.Errorf("retry = %+v, want reason %q reset %v", r, tc.reason, tc.reset)
				}
			} else if len(v.retries) != 0 {
				t.Errorf("unexpected retries %+v", v.retries)
			}
		})
	}
}

func equalDurations(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

const base = retry.DefaultBase

func TestAnthropicFaultMatrix(t *testing.T) {
	runMatrix(t, fake.NewAnthropic, func(srv *fake.Server) retry.Streamer {
		return anthropic.New(anthropic.Options{APIKey: "k", BaseURL: srv.BaseURL()})
	}, []matrixCase{
		{"429 with retry-after", fake.Turn{fake.RateLimited("2")}, 2, []time.Duration{2 * time.Second}, "429 rate limited", false},
		{"429 without retry-after", fake.Turn{fake.RateLimited("")}, 2, []time.Duration{base}, "429 rate limited", false},
		{"500", fake.Turn{fake.ServerError()}, 2, []time.Duration{base}, "500 server error", false},
		{"529", fake.Turn{fake.Overloaded()}, 2, []time.Duration{base}, "529 overloaded", false},
		{"overloaded error event mid-stream", fake.Turn{fake.Text("All done"), fake.StreamError{Event: "text_delta"}}, 2, []time.Duration{base}, "529 overloaded", true},
		{"cut mid-text", fake.Turn{fake.Text("All done here."), fake.Cut{Event: "text_delta", Nth: 2}}, 2, []time.Duration{base}, "stream cut", true},
		{"cut mid-tool-args", fake.Turn{fake.Text("All done here."), fake.ToolUse("toolu_1", "Edit", `{"file_path":"a.go","old_string":"x","new_string":"y"}`), fake.Cut{Event: "input_json_delta", Nth: 3}}, 2, []time.Duration{base}, "stream cut", true},
		{"clean end before message_delta, tool_use complete", fake.Turn{fake.Text("All done here."), fake.ToolUse("toolu_1", "Edit", `{}`), fake.Cut{Event: "content_block_stop", Nth: 2, Clean: true}}, 2, []time.Duration{base}, "stream cut", true},
		// Only message_stop is missing: complete, no retry, and the
		// scripted good turn is left unused.
		{"message_stop missing", fake.Turn{fake.Text("All done here."), fake.ToolUse("toolu_9", "Edit", `{"file_path":"a.go","old_string":"x","new_string":"y"}`), fake.Cut{Event: "message_delta"}}, 1, nil, "", false},
		{"slow first byte", fake.Turn{fake.Text("All done here."), fake.ToolUse("toolu_9", "Edit", `{"file_path":"a.go","old_string":"x","new_string":"y"}`), fake.Delay{FirstByte: 300 * time.Millisecond}}, 1, nil, "", false},
	})
}

func TestOpenAIFaultMatrix(t *testing.T) {
	runMatrix(t, fake.NewOpenAI, func(srv *fake.Server) retry.Streamer {
		return openai.New(openai.Options{BaseURL: srv.BaseURL()})
	}, []matrixCase{
		{"429 with retry-after", fake.Turn{fake.RateLimited("1.5")}, 2, []time.Duration{1500 * time.Millisecond}, "429 rate limited", false},
		{"500", fake.Turn{fake.ServerError()}, 2, []time.Duration{base}, "500 server error", false},
		{"503", fake.Turn{fake.HTTPError{Status: 503}}, 2, []time.Duration{base}, "503 server error", false},
		{"error chunk mid-stream", fake.Turn{fake.Text("All done here."), fake.StreamError{Event: "content", Nth: 2}}, 2, []time.Duration{base}, "server error", true},
		{"cut mid-text", fake.Turn{fake.Text("All done here."), fake.Cut{Event: "content", Nth: 2}}, 2, []time.Duration{base}, "stream cut", true},
		{"cut mid-tool-args", fake.Turn{fake.Text("All done here."), fake.ToolUse("toolu_1", "Edit", `{"file_path":"a.go"}`), fake.Cut{Event: "tool_call_args", Nth: 2}}, 2, []time.Duration{base}, "stream cut", true},
		{"finish_reason missing", fake.Turn{fake.Text("All done here."), fake.ToolUse("toolu_1", "Edit", `{}`), fake.Cut{Event: "tool_call_args", Clean: true}}, 2, []time.Duration{base}, "stream cut", true},
		{"[DONE] missing", fake.Turn{fake.Text("All done here."), fake.ToolUse("toolu_9", "Edit", `{}`), fake.Cut{Event: "finish"}}, 1, nil, "", false},
		{"slow first byte", fake.Turn{fake.Text("All done here."), fake.ToolUse("toolu_9", "Edit", `{}`), fake.Delay{FirstByte: 300 * time.Millisecond}}, 1, nil, "", false},
	})
}

func TestBackoffSequence(t *testing.T) {
	srv := fake.NewAnthropic(t,
		fake.Turn{fake.ServerError()}, fake.Turn{fake.Overloaded()}, fake.Turn{fake.ServerError()},
		fake.Turn{fake.Overloaded()}, fake.Turn{fake.HTTPError{Status: 502}}, good)
	s := &sleeper{}
	pol := policy(s)
	pol.Cap = 2 * time.Second
	var v view
	resp, err := retry.Wrap(anthropic.New(anthropic.Options{APIKey: "k", BaseURL: srv.BaseURL(), Model: "m"}), pol).Stream(context.Background(), request(), v.emit)
	if err != nil {
		t.Fatal(err)
	}
	checkCompleted(t, resp, &v)
	want := []time.Duration{200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond, 1600 * time.Millisecond, 2 * time.Second}
	if !equalDurations(s.waits(), want) {
		t.Errorf("waits = %v, want %v", s.waits(), want)
	}
	for i, r := range v.retries {
		if r.Attempt != i+1 {
			t.Errorf("retry %d attempt = %d", i, r.Attempt)
		}
	}
}

func TestJitter(t *testing.T) {
	srv := fake.NewAnthropic(t, fake.Turn{fake.ServerError()}, fake.Turn{fake.ServerError()}, good)
	s := &sleeper{}
	pol := policy(s)
	jitters := []float64{0, 0.999}
	pol.Jitter = func() float64 { j := jitters[0]; jitters = jitters[1:]; return j }
	if _, err := retry.Wrap(anthropic.New(anthropic.Options{APIKey: "k", BaseURL: srv.BaseURL(), Model: "m"}), pol).Stream(context.Background(), request(), func(providers.Event) {}); err != nil {
		t.Fatal(err)
	}
	w := s.waits()
	if w[0] != 160*time.Millisecond || w[1] < 479*time.Millisecond || w[1] > 480*time.Millisecond {
		t.Errorf("waits = %v, want 0.8×200ms and ~1.2×400ms", w)
	}
}

func TestNonRetryable(t *testing.T) {
	for _, tc := range []struct {
		name string
		turn fake.Turn
		ctx  bool
	}{
		{"400", fake.Turn{fake.HTTPError{Status: 400, Message: "bad"}}, false},
		{"401", fake.Turn{fake.HTTPError{Status: 401}}, false},
		{"403", fake.Turn{fake.HTTPError{Status: 403}}, false},
		{"context too long", fake.Turn{fake.ContextTooLong()}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fake.NewAnthropic(t, tc.turn, good)
			s := &sleeper{}
			var v view
			_, err := retry.Wrap(anthropic.New(anthropic.Options{APIKey: "k", BaseURL: srv.BaseURL(), Model: "m"}), policy(s)).Stream(context.Background(), request(), v.emit)
			var pe *providers.Error
			if !errors.As(err, &pe) || pe.Retryable {
				t.Fatalf("err = %v", err)
			}
			if providers.IsContextTooLong(err) != tc.ctx {
				t.Errorf("context too long = %v", providers.IsContextTooLong(err))
			}
			if len(srv.Requests()) != 1 || len(v.retries) != 0 || len(s.waits()) != 0 {
				t.Errorf("requests %d retries %d waits %v", len(srv.Requests()), len(v.retries), s.waits())
			}
		})
	}
}

func TestAttemptsRunOut(t *testing.T) {
	srv := fake.NewAnthropic(t, fake.Turn{fake.Overloaded()}, fake.Turn{fake.Overloaded()}, fake.Turn{fake.Overloaded()})
	s := &sleeper{}
	pol := policy(s)
	pol.MaxAttempts = 3
	var v view
	_, err := retry.Wrap(anthropic.New(anthropic.Options{APIKey: "k", BaseURL: srv.BaseURL(), Model: "m"}), pol).Stream(context.Background(), request(), v.emit)
	var pe *providers.Error
	if !errors.As(err, &pe) || pe.Status != 529 || !strings.Contains(err.Error(), "failed 3 times") {
		t.Fatalf("err = %v", err)
	}
	if len(v.retries) != 2 || len(srv.Requests()) != 3 {
		t.Errorf("retries %d requests %d", len(v.retries), len(srv.Requests()))
	}
}

func TestRetryAfterIsBounded(t *testing.T) {
	srv := fake.NewAnthropic(t, fake.Turn{fake.RateLimited("3600")}, good)
	s := &sleeper{}
	pol := policy(s)
	pol.MaxRetryAfter = 5 * time.Second
	if _, err := retry.Wrap(anthropic.New(anthropic.Options{APIKey: "k", BaseURL: srv.BaseURL(), Model: "m"}), pol).Stream(context.Background(), request(), func(providers.Event) {}); err != nil {
		t.Fatal(err)
	}
	if w := s.waits(); len(w) != 1 || w[0] != 5*time.Second {
		t.Errorf("waits = %v", w)
	}
}

// TestCancelWhileWaiting uses the real sleep: cancelling during a long
// Retry-After wait returns at once.
func TestCancelWhileWaiting(t *testing.T) {
	srv := fake.NewAnthropic(t, fake.Turn{fake.RateLimited("30")}, good)
	ctx, cancel := context.WithCancel(context.Background())
	emit := func(ev providers.Event) {
		if ev.Kind == providers.EventRetry {
			time.AfterFunc(50*time.Millisecond, cancel)
		}
	}
	start := time.Now()
	_, err := retry.Wrap(anthropic.New(anthropic.Options{APIKey: "k", BaseURL: srv.BaseURL(), Model: "m"}), retry.Policy{}).Stream(ctx, request(), emit)
	if !errors.Is(err, context.Canceled) || time.Since(start) > 2*time.Second {
		t.Errorf("err = %v after %v", err, time.Since(start))
	}
}

func TestCancelMidStream(t *testing.T) {
	srv := fake.NewAnthropic(t, fake.Turn{fake.Text("a b c"), fake.Hang(4)}, good)
	ctx, cancel := context.WithCancel(context.Background())
	emit := func(ev providers.Event) {
		if ev.Kind == providers.EventText {
			cancel()
		}
	}
	_, err := retry.Wrap(anthropic.New(anthropic.Options{APIKey: "k", BaseURL: srv.BaseURL(), Model: "m"}), retry.Policy{}).Stream(ctx, request(), emit)
	if !errors.Is(err, context.Canceled) || len(srv.Requests()) != 1 {
		t.Errorf("err = %v, requests %d", err, len(srv.Requests()))
	}
}

func TestReason(t *testing.T) {
	for _, tc := range []struct {
		e    providers.Error
		want string
	}{
		{providers.Error{Status: 429}, "429 rate limited"},
		{providers.Error{Status: 529}, "529 overloaded"},
		{providers.Error{Status: 502}, "502 server error"},
		{providers.Error{Status: 408}, "408 request timeout"},
		{providers.Error{Type: "stream_incomplete"}, "stream cut"},
		{providers.Error{Type: "stream_stalled"}, "stream stalled"},
		{providers.Error{}, "connection error"},
	} {
		if got := retry.Reason(&tc.e); got != tc.want {
			t.Errorf("Reason(%+v) = %q, want %q", tc.e, got, tc.want)
		}
	}
}
