package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/hooks"
	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/session"
	"github.com/agent-lsp/agent-lsp/settings"
	"github.com/agent-lsp/agent-lsp/tools"
)

// TestStopReasons checks how a turn ends for each way a model call ends.
func TestStopReasons(t *testing.T) {
	apiErr := &providers.Error{Status: 400, Message: "bad request"}
	tests := []struct {
		name    string
		step    step
		want    string
		wantErr error
	}{
		{name: "end turn", step: say("done"), want: schema.StopEndTurn},
		{name: "max tokens", step: stopWith("cut", providers.StopMaxTokens), want: schema.StopMaxTokens},
		{name: "refusal", step: stopWith("no", providers.StopRefusal), want: schema.StopRefusal},
		{name: "api error", step: fail(apiErr), wantErr: apiErr},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, newScript(t, tt.step), nil, nil)
			stop, err := h.sess.Prompt(context.Background(), []schema.ContentBlock{schema.TextBlock("go")})
			if stop != tt.want || !errors.Is(err, tt.wantErr) {
				t.Errorf("Prompt = %q, %v; want %q, %v", stop, err, tt.want, tt.wantErr)
			}
			// The user's message is kept whatever happened.
			if got := userTexts(h.sess.History()); len(got) != 1 || got[0] != "go" {
				t.Errorf("history's user texts = %q", got)
			}
		})
	}
}

// TestUnknownTool: a call of a tool that does not exist is answered with
// an error result naming the tools there are, and the model goes on.
func TestUnknownTool(t *testing.T) {
	model := newScript(t, use("x1", "Teleport", map[string]any{}), say("sorry"))
	h := newHarness(t, model, nil, nil)
	if stop := h.prompt(t, "go"); stop != schema.StopEndTurn {
		t.Errorf("stop = %q", stop)
	}
	res := h.toolResult(t, "x1")
	if !res.IsError || !strings.Contains(resultText(res), `unknown tool "Teleport"`) || !strings.Contains(resultText(res), "Read") {
		t.Errorf("result = %q (error %v), want an error naming the tools", resultText(res), res.IsError)
	}
	if n := len(model.requests()); n != 2 {
		t.Errorf("%d model calls, want 2", n)
	}
}

// TestReadOnlyCallsRunTogether: read-only calls of one message run at
// once (each of these two tools only ends once the other has started),
// and their results go back in the model's order.
func TestReadOnlyCallsRunTogether(t *testing.T) {
	a := &meetTool{name: "MeetA", started: make(chan struct{})}
	b := &meetTool{name: "MeetB", started: make(chan struct{})}
	a.others, b.others = []*meetTool{b}, []*meetTool{a}
	model := newScript(t, calls(call{"b1", "MeetB", map[string]any{}}, call{"a1", "MeetA", map[string]any{}}), say("met"))
	h := newHarness(t, model, nil, nil)
	h.sess.SetTools("test", []tools.Tool{a, b})

	ended(t, h.promptAsync("meet"), "the prompt", schema.StopEndTurn)
	msgs := model.requests()[1].Messages
	last := msgs[len(msgs)-1]
	if len(last.Content) != 2 || last.Content[0].ToolUseID != "b1" || last.Content[1].ToolUseID != "a1" {
		t.Errorf("results = %+v, want b1 then a1", last.Content)
	}
}

// TestMaxTurnsOverride: a session's MaxTurns override bounds its turns
// instead of the service's.
func TestMaxTurnsOverride(t *testing.T) {
	tests := []struct {
		name     string
		config   int
		override int
		want     int
	}{
		{name: "service", config: 2, want: 2},
		{name: "override", config: 5, override: 1, want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := newScript(t)
			model.then = use("g", "Glob", map[string]any{"pattern": "*"})
			h := newHarness(t, model, nil, func(c *Config) { c.MaxTurns = tt.config })
			sess, err := h.svc.NewSession(context.Background(), SessionOptions{Cwd: h.dir, Client: h.client, Overrides: Overrides{MaxTurns: tt.override}})
			if err != nil {
				t.Fatal(err)
			}
			stop, err := sess.Prompt(context.Background(), []schema.ContentBlock{schema.TextBlock("loop")})
			if err != nil || stop != schema.StopMaxTurnRequests {
				t.Errorf("Prompt = %q, %v; want %q", stop, err, schema.StopMaxTurnRequests)
			}
			if n := len(model.requests()); n != tt.want {
				t.Errorf("%d model calls, want %d", n, tt.want)
			}
		})
	}
}

// TestStopHooks checks what a Stop hook's answer does to the end of a
// turn.
func TestStopHooks(t *testing.T) {
	tests := []struct {
		name    string
		output  string // the hook's stdout
		calls   int    // model calls of the turn
		warning string // a status the user is shown, if any
	}{
		{name: "no opinion", output: `{}`, calls: 1},
		{name: "block always", output: `{"decision":"block","reason":"not yet"}`, calls: maxStopBlocks + 1, warning: "blocked the end of the turn"},
		{name: "block but stop", output: `{"decision":"block","reason":"not yet","continue":false}`, calls: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := newScript(t)
			model.then = say("done")
			h := newHarness(t, model, nil, func(c *Config) {
				c.Settings.Hooks = map[string][]settings.HookMatcher{
					hooks.Stop: {{Hooks: []settings.Hook{{Type: "command", Command: "echo '" + tt.output + "'"}}}},
				}
			})
			var warned <-chan struct{}
			if tt.warning != "" {
				warned = h.client.watch(thought(tt.warning))
			}
			if stop := h.prompt(t, "work"); stop != schema.StopEndTurn {
				t.Errorf("stop = %q", stop)
			}
			if n := len(model.requests()); n != tt.calls {
				t.Errorf("%d model calls, want %d", n, tt.calls)
			}
			if warned != nil {
				select {
				case <-warned:
				default:
					t.Errorf("no warning containing %q", tt.warning)
				}
			}
		})
	}
}

// TestCompactCommand: /compact summarizes the whole conversation; /clear
// forgets it without a model call.
func TestCompactCommand(t *testing.T) {
	model := newScript(t, say("first answer"))
	h := newHarness(t, model, nil, nil)
	h.prompt(t, "first question")

	model.steps = []step{say("THE SUMMARY")}
	if stop := h.prompt(t, "/compact"); stop != schema.StopEndTurn {
		t.Fatalf("/compact: stop = %q", stop)
	}
	reqs := model.requests()
	if got := reqs[1].Messages[0].Text(); !strings.Contains(got, "first question") || !strings.Contains(got, "first answer") {
		t.Errorf("the summary call did not see the whole conversation: %q", got)
	}
	hist := h.sess.History()
	if len(hist) != 1 || hist[0].Text() != summaryPreamble+"THE SUMMARY" {
		t.Errorf("history after /compact = %+v, want the summary alone", hist)
	}
	if !strings.Contains(h.client.text(), "Conversation compacted.") {
		t.Errorf("the editor was not told: %q", h.client.text())
	}

	if stop := h.prompt(t, "/clear"); stop != schema.StopEndTurn {
		t.Fatalf("/clear: stop = %q", stop)
	}
	if n := len(model.requests()); n != 2 {
		t.Errorf("/clear called the model: %d calls, want 2", n)
	}
	if hist := h.sess.History(); len(hist) != 0 {
		t.Errorf("history after /clear = %+v", hist)
	}
	if stop := h.prompt(t, "/compact"); stop != schema.StopEndTurn || !strings.Contains(h.client.text(), "Nothing to compact yet.") {
		t.Errorf("/compact of nothing: stop %q, editor saw %q", stop, h.client.text())
	}
}

// TestContextTooLong: when the model refuses a request as too long (the
// estimate was off), the session compacts and asks once more.
func TestContextTooLong(t *testing.T) {
	model := newScript(t, say("first answer"))
	h := newHarness(t, model, nil, func(c *Config) { c.Window = 100_000 })
	h.prompt(t, "first question")
	model.steps = []step{
		fail(&providers.Error{Status: 400, Message: "prompt is too long", ContextTooLong: true}),
		say("THE SUMMARY"),
		say("second answer"),
	}
	if stop := h.prompt(t, "second question"); stop != schema.StopEndTurn {
		t.Fatalf("stop = %q", stop)
	}
	reqs := model.requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model calls, want 4 (answer, refused, summary, retry)", len(reqs))
	}
	retry := reqs[3].Messages
	if !strings.Contains(retry[0].Text(), "THE SUMMARY") || !strings.Contains(retry[len(retry)-1].Text(), "second question") {
		t.Errorf("the retry = %+v; want the summary first and the new question last", retry)
	}
}

// TestCompactionIsSaved: a compacted session resumed from its file
// continues from the summary, not from the messages it replaced.
func TestCompactionIsSaved(t *testing.T) {
	store := session.NewStore(t.TempDir(), "-")
	model := newScript(t, say("first answer"))
	h := newHarness(t, model, nil, func(c *Config) { c.Store = store })
	h.prompt(t, "first question")
	model.steps = []step{say("THE SUMMARY")}
	h.prompt(t, "/compact")
	if err := h.svc.CloseSession(h.sess.ID); err != nil {
		t.Fatal(err)
	}

	svc := NewService(Config{Provider: model, Model: "test-model", Home: t.TempDir(), Logf: t.Logf, Settings: &settings.Settings{Project: h.dir}, Store: store})
	t.Cleanup(svc.Close)
	sess, err := svc.ResumeSession(context.Background(), h.sess.ID, SessionOptions{Cwd: h.dir, Client: &recordingClient{t: t}}, false)
	if err != nil {
		t.Fatal(err)
	}
	hist := sess.History()
	if len(hist) == 0 || !strings.Contains(hist[0].Text(), "THE SUMMARY") {
		t.Fatalf("resumed history = %+v, want the summary first", hist)
	}
	for _, text := range userTexts(hist) {
		if strings.Contains(text, "first question") {
			t.Errorf("the resumed session still holds what the summary replaced: %q", text)
		}
	}
}

// TestConversationTokens checks the context estimate: the model's own
// count of its last call, plus an estimate of what came after it.
func TestConversationTokens(t *testing.T) {
	var c conversation
	msg := func(role providers.Role, text string) providers.Message {
		return providers.Message{Role: role, Content: []providers.Block{providers.TextBlock(text)}}
	}
	if err := c.add(msg(providers.RoleUser, "question"), nil); err != nil {
		t.Fatal(err)
	}
	c.noteOverhead(1000)
	if got, want := c.tokens(), estimateTokens(c.messages())+1000; got != want {
		t.Errorf("before any count: %d, want the estimate with the overhead, %d", got, want)
	}
	c.counts(providers.Usage{InputTokens: 5000})
	c.noteOverhead(9999) // counted: the overhead no longer applies
	if got := c.tokens(); got != 5000 {
		t.Errorf("right after a count: %d, want the model's 5000", got)
	}
	tail := msg(providers.RoleAssistant, strings.Repeat("x", 400))
	if err := c.add(tail, nil); err != nil {
		t.Fatal(err)
	}
	if got, want := c.tokens(), 5000+estimateTokens([]providers.Message{tail}); got != want {
		t.Errorf("after a new message: %d, want %d", got, want)
	}
	// Same roles merge: the API wants them to alternate.
	if err := c.add(msg(providers.RoleAssistant, "more"), nil); err != nil {
		t.Fatal(err)
	}
	if hist := c.messages(); len(hist) != 2 || len(hist[1].Content) != 2 {
		t.Errorf("history = %+v, want the assistant messages merged", hist)
	}
}

// TestPermissionRequestShowsTheCall checks what the user is asked: the
// call's title relative to the workspace and the four answers.
func TestPermissionRequestShowsTheCall(t *testing.T) {
	model := newScript(t)
	client := &recordingClient{answers: []answer{pick(optAllowOnce)}}
	h := newHarness(t, model, client, nil)
	model.steps = []step{use("w1", "Write", map[string]any{"file_path": filepath.Join(h.dir, "a.txt"), "content": "x"}), say("ok")}
	h.prompt(t, "write")
	asked := client.permissionRequests()
	if len(asked) != 1 {
		t.Fatalf("asked %d times", len(asked))
	}
	p := asked[0]
	if p.ToolCall.ToolCallID != "w1" || !strings.Contains(p.ToolCall.Title, "a.txt") || strings.Contains(p.ToolCall.Title, h.dir) {
		t.Errorf("tool call = %+v, want w1 titled with the relative path", p.ToolCall)
	}
	var ids []string
	for _, o := range p.Options {
		ids = append(ids, o.OptionID)
	}
	if got := strings.Join(ids, ","); got != strings.Join([]string{optAllowOnce, optAllowAlways, optRejectOnce, optRejectAlways}, ",") {
		t.Errorf("options = %s", got)
	}
}

// TestAlwaysAnswersSurviveResume: the session's "always" answers and its
// model are saved in its file, and a resumed session keeps them.
func TestAlwaysAnswersSurviveResume(t *testing.T) {
	tests := []struct {
		name    string
		answer  string
		written bool // whether the resumed session's Write runs
	}{
		{name: "allow always", answer: optAllowAlways, written: true},
		{name: "reject always", answer: optRejectAlways},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := session.NewStore(t.TempDir(), "-")
			model := newScript(t)
			client := &recordingClient{answers: []answer{pick(tt.answer)}}
			h := newHarness(t, model, client, func(c *Config) { c.Store = store })
			a := filepath.Join(h.dir, "a.txt")
			if err := h.sess.SetModel("other-model"); err != nil {
				t.Fatal(err)
			}
			model.steps = []step{use("w1", "Write", map[string]any{"file_path": a, "content": "one"}), say("ok")}
			h.prompt(t, "write a")
			if err := h.svc.CloseSession(h.sess.ID); err != nil {
				t.Fatal(err)
			}

			svc := NewService(Config{Provider: model, Model: "test-model", Home: t.TempDir(), Logf: t.Logf, Settings: &settings.Settings{Project: h.dir}, Store: store})
			t.Cleanup(svc.Close)
			again := &recordingClient{t: t} // no answers: asking fails the test
			sess, err := svc.ResumeSession(context.Background(), h.sess.ID, SessionOptions{Cwd: h.dir, Client: again}, false)
			if err != nil {
				t.Fatal(err)
			}
			if got := sess.Model(); got != "other-model" {
				t.Errorf("resumed model = %q, want other-model", got)
			}
			// A resumed session has read nothing yet: Read before Write.
			model.steps = []step{use("r2", "Read", map[string]any{"file_path": a}), use("w2", "Write", map[string]any{"file_path": a, "content": "two"}), say("ok")}
			if _, err := sess.Prompt(context.Background(), []schema.ContentBlock{schema.TextBlock("write a again")}); err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(a)
			if (string(b) == "two") != tt.written {
				t.Errorf("after resume the file holds %q; want the second write to run: %v", b, tt.written)
			}
			if n := len(again.permissionRequests()); n != 0 {
				t.Errorf("the resumed session asked %d times", n)
			}
		})
	}
}
