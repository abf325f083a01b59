package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/agent-lsp/agent-lsp/hooks"
	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/settings"
	"github.com/agent-lsp/agent-lsp/tools"
)

// These tests drive a running turn and the prompts that arrive while it
// runs, at each point where they can meet: while a tool runs, while the
// model answers, as the turn ends, and while a cancelled turn winds
// down. Goroutines meet on channels; nothing sleeps.

// newSteerHarness is a session with the Gate tool.
func newSteerHarness(t *testing.T, edit func(*Config)) (*harness, *gateTool) {
	t.Helper()
	h := newHarness(t, newScript(t), nil, edit)
	g := newGateTool()
	h.sess.SetTools("test", []tools.Tool{g})
	return h, g
}

// userTexts returns the text of every user message block in msgs.
func userTexts(msgs []providers.Message) []string {
	var out []string
	for _, m := range msgs {
		if m.Role != providers.RoleUser {
			continue
		}
		for _, b := range m.Content {
			if b.Type == providers.BlockText {
				out = append(out, b.Text)
			}
		}
	}
	return out
}

func count(list []string, s string) int {
	n := 0
	for _, x := range list {
		if x == s {
			n++
		}
	}
	return n
}

// TestSteeringWhileAToolRuns: a prompt sent while a tool runs reaches the
// model at its next call, after the tool's result in the same user
// message; the editor sees it as the user's; both prompts end with the
// turn.
func TestSteeringWhileAToolRuns(t *testing.T) {
	h, g := newSteerHarness(t, nil)
	h.model.steps = []step{use("g1", "Gate", map[string]any{}), say("done both")}

	first := h.promptAsync("open the gate")
	await(t, g.started, "the tool to run")
	queued := h.client.watch(queuedNotice)
	second := h.promptAsync("and say hello")
	await(t, queued, "the second prompt to queue")
	close(g.release)

	ended(t, first, "the first prompt", schema.StopEndTurn)
	ended(t, second, "the steering prompt", schema.StopEndTurn)
	reqs := h.model.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want 2 (one turn)", len(reqs))
	}
	msgs := reqs[1].Messages
	last := msgs[len(msgs)-1]
	if last.Role != providers.RoleUser || len(last.Content) != 2 ||
		last.Content[0].ToolUseID != "g1" || last.Content[1].Text != "and say hello" {
		t.Errorf("the second call ends with %+v; want g1's result, then the steering text", last)
	}
	if n := count(h.client.userChunks(), "and say hello"); n != 1 {
		t.Errorf("the editor saw the steering text %d times as the user's, want 1", n)
	}
}

// TestSteeringWhileTheModelAnswers: a prompt sent while the model streams
// an answer that calls no tool sends the model back to answer it, in the
// same turn.
func TestSteeringWhileTheModelAnswers(t *testing.T) {
	h, _ := newSteerHarness(t, nil)
	streaming, proceed := make(chan struct{}), make(chan struct{})
	h.model.steps = []step{holdThen("first answer", streaming, proceed), say("second answer")}

	first := h.promptAsync("one")
	await(t, streaming, "the model to stream")
	queued := h.client.watch(queuedNotice)
	second := h.promptAsync("two")
	await(t, queued, "the second prompt to queue")
	close(proceed)

	ended(t, first, "the first prompt", schema.StopEndTurn)
	ended(t, second, "the steering prompt", schema.StopEndTurn)
	reqs := h.model.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want 2", len(reqs))
	}
	if got := userTexts(reqs[1].Messages); len(got) != 2 || got[0] != "one" || got[1] != "two" {
		t.Errorf("the second call's user texts = %q, want [one two]", got)
	}
}

// TestPromptAsTheTurnEnds: a prompt that arrives after the turn has
// decided to end (here while its Stop hook runs) but before it has ended
// is not lost: it runs as the next turn, and both prompts return.
func TestPromptAsTheTurnEnds(t *testing.T) {
	h, _ := newSteerHarness(t, func(c *Config) {
		c.Settings.Hooks = map[string][]settings.HookMatcher{
			hooks.Stop: {{Hooks: []settings.Hook{{Type: "command", Command: `echo '{"systemMessage":"checking the work"}'`}}}},
		}
	})
	h.model.steps = []step{say("first answer"), say("second answer")}
	var once sync.Once
	var second <-chan outcome
	h.client.setOnUpdate(func(u schema.Update) {
		if !thought("checking the work")(u) {
			return
		}
		// On the turn's goroutine, after the loop decided to end.
		once.Do(func() {
			queued := h.client.watch(queuedNotice)
			second = h.promptAsync("two")
			<-queued
		})
	})

	first := h.promptAsync("one")
	ended(t, first, "the first prompt", schema.StopEndTurn)
	ended(t, second, "the second prompt", schema.StopEndTurn)
	reqs := h.model.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want 2", len(reqs))
	}
	if got := userTexts(reqs[1].Messages); len(got) != 2 || got[1] != "two" {
		t.Errorf("the second call's user texts = %q, want the second prompt last", got)
	}
}

// TestPromptWhileACancelledTurnWindsDown: a prompt sent after the user
// cancelled the running turn, while that turn still stops its tools, is
// a new request: it is not cancelled with the turn but runs next (an
// editor's "stop, and do this instead").
func TestPromptWhileACancelledTurnWindsDown(t *testing.T) {
	h, g := newSteerHarness(t, nil)
	g.drain = make(chan struct{})
	h.model.steps = []step{use("g1", "Gate", map[string]any{}), say("ok, instead")}

	first := h.promptAsync("one")
	await(t, g.started, "the tool to run")
	h.sess.Cancel()
	await(t, g.cancelled, "the tool to see the cancel")
	queued := h.client.watch(queuedNotice)
	second := h.promptAsync("do this instead")
	await(t, queued, "the second prompt to queue")
	close(g.drain)

	ended(t, first, "the cancelled prompt", schema.StopCancelled)
	ended(t, second, "the prompt after the cancel", schema.StopEndTurn)
	reqs := h.model.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want 2", len(reqs))
	}
	if got := userTexts(reqs[1].Messages); count(got, "do this instead") != 1 || got[len(got)-1] != "do this instead" {
		t.Errorf("the second call's user texts = %q, want the new prompt once, last", got)
	}
}

// TestSteeringPromptsEndWithACancelledTurn: prompts queued before the
// user cancels are part of what is cancelled: they end cancelled and
// never reach the model; the session takes the next prompt.
func TestSteeringPromptsEndWithACancelledTurn(t *testing.T) {
	h, g := newSteerHarness(t, nil)
	h.model.steps = []step{use("g1", "Gate", map[string]any{})}

	first := h.promptAsync("one")
	await(t, g.started, "the tool to run")
	queued := h.client.watch(queuedNotice)
	second := h.promptAsync("two")
	await(t, queued, "the second prompt to queue")
	h.sess.Cancel()

	ended(t, first, "the first prompt", schema.StopCancelled)
	ended(t, second, "the steering prompt", schema.StopCancelled)
	if got := userTexts(h.sess.History()); count(got, "two") != 0 {
		t.Errorf("the cancelled steering prompt reached the history: %q", got)
	}
	h.model.steps = []step{say("ok")}
	if stop := h.prompt(t, "three"); stop != schema.StopEndTurn {
		t.Errorf("next prompt: stop = %q", stop)
	}
}

// TestSteeringPromptGivesUp: a queued prompt whose own request is
// cancelled leaves the queue; the turn goes on without it.
func TestSteeringPromptGivesUp(t *testing.T) {
	h, g := newSteerHarness(t, nil)
	h.model.steps = []step{use("g1", "Gate", map[string]any{}), say("done")}

	first := h.promptAsync("one")
	await(t, g.started, "the tool to run")
	ctx, cancel := context.WithCancel(context.Background())
	queued := h.client.watch(queuedNotice)
	second := make(chan outcome, 1)
	go func() {
		stop, err := h.sess.Prompt(ctx, []schema.ContentBlock{schema.TextBlock("never mind")})
		second <- outcome{stop, err}
	}()
	await(t, queued, "the second prompt to queue")
	cancel()
	ended(t, second, "the abandoned prompt", schema.StopCancelled)
	close(g.release)

	ended(t, first, "the first prompt", schema.StopEndTurn)
	if got := userTexts(h.model.requests()[1].Messages); count(got, "never mind") != 0 {
		t.Errorf("the abandoned prompt reached the model: %q", got)
	}
}

// TestCommandWhileATurnRuns: a slash command needs the session idle: it
// gets ErrBusy instead of steering.
func TestCommandWhileATurnRuns(t *testing.T) {
	h, g := newSteerHarness(t, nil)
	h.model.steps = []step{use("g1", "Gate", map[string]any{}), say("done")}

	first := h.promptAsync("one")
	await(t, g.started, "the tool to run")
	if _, err := h.sess.Prompt(context.Background(), []schema.ContentBlock{schema.TextBlock("/compact")}); !errors.Is(err, ErrBusy) {
		t.Errorf("a command during a turn: err = %v, want ErrBusy", err)
	}
	close(g.release)
	ended(t, first, "the first prompt", schema.StopEndTurn)
}

// TestPromptsRacingTheEndOfTurns sends pairs of prompts at once, many
// times: whichever way each pair meets (one steers the other's turn,
// arrives as it ends, or runs after it), both return and each prompt
// reaches the model exactly once. A lost wake-up hangs here (and fails
// before the test's deadline); a lost or doubled prompt fails the count.
func TestPromptsRacingTheEndOfTurns(t *testing.T) {
	h, _ := newSteerHarness(t, nil)
	h.model.then = say("ok")
	const rounds = 100
	for i := range rounds {
		a := h.promptAsync(fmt.Sprintf("a%d", i))
		b := h.promptAsync(fmt.Sprintf("b%d", i))
		ended(t, a, fmt.Sprintf("prompt a%d", i), schema.StopEndTurn)
		ended(t, b, fmt.Sprintf("prompt b%d", i), schema.StopEndTurn)
	}
	got := userTexts(h.sess.History())
	for i := range rounds {
		for _, p := range []string{"a", "b"} {
			if n := count(got, fmt.Sprintf("%s%d", p, i)); n != 1 {
				t.Errorf("prompt %s%d is in the history %d times, want 1", p, i, n)
			}
		}
	}
	hist := h.sess.History()
	for i := 1; i < len(hist); i++ {
		if hist[i].Role == hist[i-1].Role {
			t.Fatalf("messages %d and %d are both %s: roles must alternate", i-1, i, hist[i].Role)
		}
	}
}

// TestCancelBetweenModelCalls cancels after a tool's result is in and
// before the model is called again: the turn ends cancelled without
// another call, and the history (ending with the result) takes the next
// prompt.
func TestCancelBetweenModelCalls(t *testing.T) {
	h, g := newSteerHarness(t, nil)
	close(g.release)
	h.model.steps = []step{use("g1", "Gate", map[string]any{})}
	h.client.setOnUpdate(func(u schema.Update) {
		if u.ToolCall != nil && u.ToolCall.ToolCallID == "g1" && u.ToolCall.Status == schema.StatusCompleted {
			h.sess.Cancel() // on the turn's goroutine, as the call ends
		}
	})
	if stop := h.prompt(t, "one"); stop != schema.StopCancelled {
		t.Errorf("stop = %q, want cancelled", stop)
	}
	if n := len(h.model.requests()); n != 1 {
		t.Errorf("%d model calls, want 1", n)
	}
	if res := h.toolResult(t, "g1"); res.IsError {
		t.Errorf("the finished call's result = %+v, want its output", res)
	}
	h.client.setOnUpdate(nil)
	h.model.steps = []step{say("ok")}
	if stop := h.prompt(t, "two"); stop != schema.StopEndTurn {
		t.Errorf("next prompt: stop = %q", stop)
	}
}

// TestCancelWhenIdle: a cancel with no turn running is not kept for the
// next prompt.
func TestCancelWhenIdle(t *testing.T) {
	h := newHarness(t, newScript(t, say("ok")), nil, nil)
	h.sess.Cancel()
	if stop := h.prompt(t, "one"); stop != schema.StopEndTurn {
		t.Errorf("stop = %q, want end_turn", stop)
	}
}

// TestHookStopEndsWithItsTurn: a hook's request to stop the turn
// ({"continue": false}) belongs to that turn: when the user cancels the
// turn first, the next turn is not stopped by it.
func TestHookStopEndsWithItsTurn(t *testing.T) {
	h, g := newSteerHarness(t, func(c *Config) {
		c.Settings.Hooks = map[string][]settings.HookMatcher{
			hooks.PreToolUse: {{Matcher: "Glob", Hooks: []settings.Hook{{Type: "command", Command: `echo '{"continue":false,"stopReason":"enough"}'`}}}},
		}
	})
	close(g.release)
	h.model.steps = []step{
		use("l1", "Glob", map[string]any{"pattern": "*"}),
		use("g1", "Gate", map[string]any{}), say("finished"),
	}
	h.client.setOnUpdate(func(u schema.Update) {
		if u.ToolCall != nil && u.ToolCall.ToolCallID == "l1" && u.ToolCall.Status == schema.StatusFailed {
			h.sess.Cancel() // before the loop sees the hook's stop
		}
	})
	if stop := h.prompt(t, "one"); stop != schema.StopCancelled {
		t.Fatalf("stop = %q, want cancelled", stop)
	}
	if res := h.toolResult(t, "l1"); !strings.Contains(resultText(res), "hook blocked") {
		t.Fatalf("Glob result = %q, want the hook's refusal", resultText(res))
	}
	h.client.setOnUpdate(nil)
	if stop := h.prompt(t, "two"); stop != schema.StopEndTurn {
		t.Errorf("next prompt: stop = %q", stop)
	}
	if n := len(h.model.requests()); n != 3 {
		t.Errorf("%d model calls, want 3: the next turn must not stop after its first tool", n)
	}
	if strings.Contains(h.client.text(), "Stopped by a hook") {
		t.Errorf("the next turn was stopped by the cancelled turn's hook: %q", h.client.text())
	}
}

// TestTurnState checks the running turn's bookkeeping alone: which
// prompts a turn takes, and how each queued prompt is answered when the
// turn ends.
func TestTurnState(t *testing.T) {
	type queued struct {
		name        string
		afterCancel bool // queued after the turn was cancelled
		taken       bool // the turn took it before ending
	}
	tests := []struct {
		name    string
		prompts []queued
		stop    string // the turn's stop reason
		want    map[string]steerOutcome
	}{
		{
			name:    "taken prompts end with the turn",
			prompts: []queued{{name: "a", taken: true}},
			stop:    schema.StopEndTurn,
			want:    map[string]steerOutcome{"a": {stop: schema.StopEndTurn}},
		},
		{
			name:    "prompts not taken run next",
			prompts: []queued{{name: "a"}},
			stop:    schema.StopMaxTurnRequests,
			want:    map[string]steerOutcome{"a": {retry: true}},
		},
		{
			name:    "a cancel ends the prompts queued before it",
			prompts: []queued{{name: "a", taken: true}, {name: "b"}},
			stop:    schema.StopCancelled,
			want:    map[string]steerOutcome{"a": {stop: schema.StopCancelled}, "b": {stop: schema.StopCancelled}},
		},
		{
			name:    "a prompt after the cancel runs next",
			prompts: []queued{{name: "a"}, {name: "b", afterCancel: true}},
			stop:    schema.StopCancelled,
			want:    map[string]steerOutcome{"a": {stop: schema.StopCancelled}, "b": {retry: true}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ts turnState
			if _, err := ts.begin(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
			if _, err := ts.begin(context.Background(), nil); !errors.Is(err, ErrBusy) {
				t.Errorf("a second begin without a prompt to steer: %v, want ErrBusy", err)
			}
			byName := map[string]*steered{}
			for _, p := range tt.prompts {
				st := &steered{done: make(chan steerOutcome, 1)}
				byName[p.name] = st
				if p.afterCancel {
					ts.cancelRunning()
				}
				if _, err := ts.begin(context.Background(), st); !errors.Is(err, errSteered) {
					t.Fatalf("begin(%s) = %v, want errSteered", p.name, err)
				}
				if p.taken {
					if got := ts.take(); len(got) != 1 || got[0] != st {
						t.Fatalf("take() = %v, want %s", got, p.name)
					}
				}
			}
			if tt.stop == schema.StopCancelled {
				ts.cancelRunning()
				if got := ts.take(); got != nil {
					t.Errorf("a cancelled turn took %d prompts", len(got))
				}
			}
			ts.requestStop("a hook")
			ts.restrict("a command", map[string]bool{"Read": true})
			ts.setModel("other")
			ts.end(tt.stop, nil)
			for name, want := range tt.want {
				select {
				case got := <-byName[name].done:
					if got != want {
						t.Errorf("prompt %s got %+v, want %+v", name, got, want)
					}
				default:
					t.Errorf("prompt %s got no answer", name)
				}
			}
			if ts.takeStop() != "" || ts.restricted("Bash") != "" || ts.chosenModel() != "" {
				t.Error("the turn's stop request, tools or model outlived it")
			}
			if _, err := ts.begin(context.Background(), nil); err != nil {
				t.Errorf("begin after end: %v", err)
			}
			ts.end(schema.StopEndTurn, nil)
			ts.close()
			if _, err := ts.begin(context.Background(), nil); !errors.Is(err, errClosed) {
				t.Errorf("begin after close: %v, want errClosed", err)
			}
		})
	}
}

// TestSteeringWaitsForTheParent: a prompt sent while a subagent works is
// the parent's: the subagent never sees it, and the parent's next call
// has it after the Agent call's result.
func TestSteeringWaitsForTheParent(t *testing.T) {
	h, _ := newSteerHarness(t, nil)
	streaming, proceed := make(chan struct{}), make(chan struct{})
	h.model.steps = []step{
		use("a1", "Agent", map[string]any{"description": "look around", "prompt": "list the files"}),
		holdThen("the subagent's report", streaming, proceed),
		say("parent done"),
	}
	first := h.promptAsync("delegate")
	await(t, streaming, "the subagent's model call")
	queued := h.client.watch(queuedNotice)
	second := h.promptAsync("and then stop")
	await(t, queued, "the second prompt to queue")
	close(proceed)

	ended(t, first, "the first prompt", schema.StopEndTurn)
	ended(t, second, "the steering prompt", schema.StopEndTurn)
	reqs := h.model.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model calls, want 3 (parent, subagent, parent)", len(reqs))
	}
	if got := userTexts(reqs[1].Messages); count(got, "and then stop") != 0 {
		t.Errorf("the subagent saw the parent's steering prompt: %q", got)
	}
	last := reqs[2].Messages[len(reqs[2].Messages)-1]
	if len(last.Content) != 2 || last.Content[0].ToolUseID != "a1" || last.Content[1].Text != "and then stop" {
		t.Errorf("the parent's next call ends with %+v; want the Agent result, then the steering text", last)
	}
}
