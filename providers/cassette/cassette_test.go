package cassette_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/providers/anthropic"
	"github.com/agent-lsp/agent-lsp/providers/cassette"
	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/providers/retry"
)

func noSleep(ctx context.Context, d time.Duration) error { return ctx.Err() }

func conversation() []*providers.Request {
	tools := []providers.ToolSpec{{Name: "Read", InputSchema: json.RawMessage(`{"type":"object"}`)}}
	first := &providers.Request{Model: "claude-sonnet-4-5", Tools: tools, Messages: []providers.Message{
		{Role: providers.RoleUser, Content: []providers.Block{providers.TextBlock("what is in a.go?")}},
	}}
	second := *first
	second.Messages = append(append([]providers.Message(nil), first.Messages...),
		providers.Message{Role: providers.RoleAssistant, Content: []providers.Block{{Type: "tool_use", ID: "toolu_1", Name: "Read", Input: json.RawMessage(`{"file_path":"a.go"}`)}}},
		providers.Message{Role: providers.RoleUser, Content: []providers.Block{providers.ToolResultBlock("toolu_1", "package a", false)}},
	)
	return []*providers.Request{first, &second}
}

type run struct {
	events []providers.Event
	resps  []*providers.Response
}

func play(t *testing.T, p retry.Streamer) run {
	t.Helper()
	var r run
	for _, req := range conversation() {
		resp, err := retry.Wrap(p, retry.Policy{Sleep: noSleep, Jitter: func() float64 { return 0.5 }}).Stream(context.Background(), req, func(ev providers.Event) {
			r.events = append(r.events, ev)
		})
		if err != nil {
			t.Fatal(err)
		}
		r.resps = append(r.resps, resp)
	}
	return r
}

// TestRecordAndReplay records a session with a failed call against the
// fake API and replays it: the same events and responses, the error
// included.
func TestRecordAndReplay(t *testing.T) {
	srv := fake.NewAnthropic(t,
		fake.Turn{fake.Overloaded()},
		fake.Turn{fake.Thinking("look at it", "sig"), fake.Text("Reading it."), fake.ToolUse("toolu_1", "Read", `{"file_path":"a.go"}`)},
		fake.Turn{fake.Text("It declares package a.")},
	)
	path := filepath.Join(t.TempDir(), "session.jsonl")
	rec, err := cassette.Create(path, anthropic.New(anthropic.Options{APIKey: "k", BaseURL: srv.BaseURL()}))
	if err != nil {
		t.Fatal(err)
	}
	live := play(t, rec)
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}

	c, err := cassette.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Calls) != 3 || c.Calls[0].Error == nil || c.Calls[0].Error.Status != 529 || !c.Calls[0].Error.Retryable {
		t.Fatalf("calls = %+v", c.Calls)
	}
	if got := c.Calls[2].Request; got.Messages != 3 || got.Last != "user: [tool_result toolu_1]" || !reflect.DeepEqual(got.Tools, []string{"Read"}) {
		t.Errorf("request summary = %+v", got)
	}

	replayer := cassette.NewReplayer(c, cassette.ReplayOptions{Strict: true, Name: path})
	replayed := play(t, replayer)
	if !reflect.DeepEqual(live.events, replayed.events) {
		t.Errorf("events differ:\nlive     %+v\nreplayed %+v", live.events, replayed.events)
	}
	if !reflect.DeepEqual(live.resps, replayed.resps) {
		t.Errorf("responses differ:\nlive     %+v\nreplayed %+v", live.resps, replayed.resps)
	}
	if replayer.Remaining() != 0 {
		t.Errorf("remaining = %d", replayer.Remaining())
	}
	_, err = replayer.Stream(context.Background(), conversation()[0], func(providers.Event) {})
	if err == nil || !strings.Contains(err.Error(), "no recorded model call left: it has 3 and call 4 was asked for") || !strings.Contains(err.Error(), path) {
		t.Errorf("exhausted: %v", err)
	}
}

func TestStrictMismatch(t *testing.T) {
	c := &cassette.Cassette{Calls: []cassette.Call{cassette.Synthesize(providers.Message{Content: []providers.Block{providers.TextBlock("hi")}}, providers.StopEndTurn, providers.Usage{}, 0)}}
	c.Calls[0].Request = cassette.Request{Messages: 5}
	_, err := cassette.NewReplayer(c, cassette.ReplayOptions{Strict: true}).Stream(context.Background(), conversation()[0], func(providers.Event) {})
	if err == nil || !strings.Contains(err.Error(), "request has 1 messages, the recording 5") {
		t.Errorf("err = %v", err)
	}
}

func TestSynthesizeWriteRead(t *testing.T) {
	msg := providers.Message{Content: []providers.Block{
		providers.TextBlock("Let me fix it."),
		{Type: "tool_use", ID: "toolu_7", Name: "Edit", Input: json.RawMessage(`{"file_path":"a.go","old_string":"a","new_string":"b"}`)},
	}}
	c := &cassette.Cassette{Calls: []cassette.Call{
		cassette.Synthesize(msg, providers.StopToolUse, providers.Usage{InputTokens: 10, OutputTokens: 5}, 20*time.Millisecond),
		{Events: []cassette.Event{}, Error: &cassette.ErrorRecord{Status: 400, Message: "prompt is too long", ContextTooLong: true}},
	}}
	var buf bytes.Buffer
	if err := c.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), `{"agentLspCassette":1}`+"\n") {
		t.Errorf("file starts %q", buf.String()[:40])
	}
	back, err := cassette.Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	r := cassette.NewReplayer(back, cassette.ReplayOptions{Speed: 4})
	var text strings.Builder
	var ends []providers.Event
	start := time.Now()
	resp, err := r.Stream(context.Background(), conversation()[0], func(ev providers.Event) {
		switch ev.Kind {
		case providers.EventText:
			text.WriteString(ev.Text)
		case providers.EventToolEnd:
			ends = append(ends, ev)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	// 7 events 20 ms apart at 4x speed: about 35 ms.
	if d := time.Since(start); d < 30*time.Millisecond {
		t.Errorf("replay took %v, want recorded pacing", d)
	}
	if text.String() != "Let me fix it." || len(ends) != 1 || ends[0].ToolID != "toolu_7" {
		t.Errorf("text %q ends %+v", text.String(), ends)
	}
	if resp.StopReason != providers.StopToolUse || resp.Message.Role != providers.RoleAssistant || resp.Model != "claude-sonnet-4-5" {
		t.Errorf("resp = %+v", resp)
	}
	_, err = r.Stream(context.Background(), conversation()[0], func(providers.Event) {})
	if !providers.IsContextTooLong(err) {
		t.Errorf("replayed error = %v", err)
	}
}

func TestReplayCancel(t *testing.T) {
	msg := providers.Message{Content: []providers.Block{providers.TextBlock(strings.Repeat("word ", 100))}}
	c := &cassette.Cassette{Calls: []cassette.Call{cassette.Synthesize(msg, providers.StopEndTurn, providers.Usage{}, 0)}}
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	_, err := cassette.NewReplayer(c, cassette.ReplayOptions{Delay: 10 * time.Millisecond}).Stream(ctx, conversation()[0], func(providers.Event) {
		if n++; n == 3 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || n != 3 {
		t.Errorf("err = %v after %d events", err, n)
	}
}

func TestReadErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "", "cassette is empty"},
		{"no header", `{"request":{}}`, "not a cassette header"},
		{"newer", `{"agentLspCassette":9}`, "version 9 is newer"},
		{"bad line", "{\"agentLspCassette\":1}\n{\"request\":{},\"bogus\":1}", "line 2"},
		{"neither", "{\"agentLspCassette\":1}\n{\"request\":{\"messages\":1},\"events\":[]}", "exactly one of response and error"},
		{"bad kind", "{\"agentLspCassette\":1}\n{\"request\":{},\"events\":[{\"kind\":\"nope\"}],\"response\":{}}", "unknown event kind"},
	} {
		_, err := cassette.Read(strings.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}

// A cancelled call is not recorded: it has no ending to replay.
func TestCancelledCallNotRecorded(t *testing.T) {
	srv := fake.NewAnthropic(t, fake.Turn{fake.Text("a b c"), fake.Hang(4)})
	var buf bytes.Buffer
	rec, err := cassette.NewRecorder(anthropic.New(anthropic.Options{APIKey: "k", BaseURL: srv.BaseURL()}), &buf)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	_, err = rec.Stream(ctx, conversation()[0], func(ev providers.Event) {
		if ev.Kind == providers.EventText {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if strings.Count(buf.String(), "\n") != 1 {
		t.Errorf("cassette = %q, want only the header", buf.String())
	}
}
