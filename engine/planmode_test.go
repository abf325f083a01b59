package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/schema"
)

// TestExitPlanMode: the model presents its plan; the user's answer
// decides the mode, and the model gets the plan as the user edited it.
// "Keep planning" stays in plan mode and ends the turn.
func TestExitPlanMode(t *testing.T) {
	const plan = "1. Add the flag.\n2. Test it."
	const edited = "1. Add the flag.\n2. Test it.\n3. Document it."
	editedAnswer := func(optionID string) answer {
		return func(ctx context.Context, p *schema.RequestPermissionParams) (*schema.RequestPermissionResult, error) {
			return &schema.RequestPermissionResult{Outcome: schema.PermissionOutcome{Outcome: "selected", OptionID: optionID, Meta: map[string]any{"editedText": edited}}}, nil
		}
	}
	for _, tt := range []struct {
		name     string
		answer   answer
		mode     string // the mode after the turn
		result   string // in the tool result
		calls    int    // model calls in the turn
		isError  bool
		stopText string
	}{
		{name: "accept edits, edited", answer: editedAnswer(optPlanAcceptEdits), mode: "acceptEdits", result: "3. Document it.", calls: 2},
		{name: "manually approve", answer: pick(optPlanDefault), mode: "default", result: "2. Test it.", calls: 2},
		{name: "keep planning", answer: pick(optPlanKeep), mode: "plan", result: "keep planning", calls: 1, isError: true, stopText: "Still planning"},
		{name: "cancelled", answer: func(ctx context.Context, p *schema.RequestPermissionParams) (*schema.RequestPermissionResult, error) {
			return &schema.RequestPermissionResult{Outcome: schema.PermissionOutcome{Outcome: "cancelled"}}, nil
		}, mode: "plan", result: "cancelled", calls: 1, isError: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			model := newScript(t,
				use("toolu_1", "ExitPlanMode", map[string]any{"plan": plan}),
				say("on it"),
			)
			client := &recordingClient{answers: []answer{tt.answer}}
			h := newHarness(t, model, client, func(c *Config) { c.Mode = "plan" })
			h.prompt(t, "plan the flag")
			asked := client.permissionRequests()
			if len(asked) != 1 {
				t.Fatalf("asked %d questions, want the plan's", len(asked))
			}
			q := asked[0]
			if q.ToolCall.Kind != schema.KindSwitchMode || len(q.ToolCall.Content) == 0 || q.ToolCall.Content[0].Content.Text != plan {
				t.Errorf("the question does not hold the plan: %+v", q.ToolCall)
			}
			var ids []string
			for _, o := range q.Options {
				ids = append(ids, o.OptionID)
			}
			if got := strings.Join(ids, ","); got != "acceptEdits,default,plan" {
				t.Errorf("options = %s, want acceptEdits,default,plan (Claude Code's adapter's)", got)
			}
			if got := h.sess.Mode(); got != tt.mode {
				t.Errorf("mode = %s, want %s", got, tt.mode)
			}
			res := h.toolResult(t, "toolu_1")
			if !strings.Contains(resultText(res), tt.result) || res.IsError != tt.isError {
				t.Errorf("tool result (error %v) = %q, want %q (error %v)", res.IsError, resultText(res), tt.result, tt.isError)
			}
			if n := len(model.requests()); n != tt.calls {
				t.Errorf("model calls = %d, want %d", n, tt.calls)
			}
			if tt.stopText != "" && !strings.Contains(client.text(), tt.stopText) {
				t.Errorf("the user was not told the turn ended: %q", client.text())
			}
			modeUpdate := false
			client.mu.Lock()
			updates := append([]schema.Update(nil), client.updates...)
			client.mu.Unlock()
			for _, u := range updates {
				if u.SessionUpdate == schema.UpdateCurrentMode && u.CurrentModeID == tt.mode {
					modeUpdate = true
				}
			}
			if tt.mode != "plan" && !modeUpdate {
				t.Errorf("no current_mode_update to %s", tt.mode)
			}
		})
	}
}

// TestEnterAndExitPlanMode: ExitPlanMode refuses outside plan mode
// without asking, and EnterPlanMode switches in without a question.
func TestEnterAndExitPlanMode(t *testing.T) {
	model := newScript(t,
		use("toolu_1", "ExitPlanMode", map[string]any{"plan": "x"}),
		use("toolu_2", "EnterPlanMode", map[string]any{}),
		use("toolu_3", "Write", map[string]any{"file_path": "a.txt", "content": "x"}),
		say("planning"),
	)
	h := newHarness(t, model, nil, nil)
	h.prompt(t, "go")
	if r := h.toolResult(t, "toolu_1"); !r.IsError || !strings.Contains(resultText(r), "not in plan mode") {
		t.Errorf("ExitPlanMode outside plan mode = %q", resultText(r))
	}
	if got := h.sess.Mode(); got != "plan" {
		t.Errorf("mode after EnterPlanMode = %s, want plan", got)
	}
	if r := h.toolResult(t, "toolu_3"); !r.IsError || !strings.Contains(resultText(r), "plan mode") {
		t.Errorf("Write after EnterPlanMode = %q, want refused in plan mode", resultText(r))
	}
}
