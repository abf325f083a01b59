package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/hooks"
	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/settings"
	"github.com/agent-lsp/agent-lsp/tools"
)

// These tests drive the engine alone: an in-memory provider streams typed
// events and a recording client stands for the editor. No JSON-RPC, no
// HTTP.

// TestLoopRunsToolsUntilTheModelEnds checks the loop: a tool call's result
// goes back to the model, and the turn ends when the model stops calling
// tools.
func TestLoopRunsToolsUntilTheModelEnds(t *testing.T) {
	model := newScript(t)
	h := newHarness(t, model, nil, nil)
	if err := os.WriteFile(filepath.Join(h.dir, "notes.txt"), []byte("the answer is 42\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	model.steps = []step{use("r1", "Read", map[string]any{"file_path": filepath.Join(h.dir, "notes.txt")}), say("It says 42.")}

	if stop := h.prompt(t, "what do the notes say?"); stop != schema.StopEndTurn {
		t.Errorf("stop = %q, want %q", stop, schema.StopEndTurn)
	}
	reqs := model.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want 2", len(reqs))
	}
	res := h.toolResult(t, "r1")
	if res.IsError || !strings.Contains(resultText(res), "the answer is 42") {
		t.Errorf("Read result = %+v, want the file's text", res)
	}
	second := reqs[1].Messages
	if last := second[len(second)-1]; last.Role != providers.RoleUser || last.Content[0].ToolUseID != "r1" {
		t.Errorf("second call ends with %+v, want the tool result", last)
	}
	if got := h.client.text(); got != "It says 42." {
		t.Errorf("editor saw text %q", got)
	}
	if st := h.client.toolStatuses("r1"); len(st) == 0 || st[len(st)-1] != schema.StatusCompleted {
		t.Errorf("tool statuses = %v, want to end completed", st)
	}
}

// TestMaxTurns checks that a model that never stops calling tools is
// stopped after MaxTurns calls.
func TestMaxTurns(t *testing.T) {
	model := newScript(t)
	h := newHarness(t, model, nil, func(c *Config) { c.MaxTurns = 2 })
	glob := map[string]any{"pattern": "*.txt"}
	model.steps = []step{use("g1", "Glob", glob), use("g2", "Glob", glob), say("never reached")}
	if stop := h.prompt(t, "loop"); stop != schema.StopMaxTurnRequests {
		t.Errorf("stop = %q, want %q", stop, schema.StopMaxTurnRequests)
	}
	if n := len(model.requests()); n != 2 {
		t.Errorf("%d model calls, want 2", n)
	}
}

// TestCancel cancels a prompt at each step where it can wait: while the
// model streams, while the user is asked for permission, and while a tool
// runs. Each time Prompt returns cancelled and the history stays valid
// for the next prompt.
func TestCancel(t *testing.T) {
	tests := []struct {
		name string
		// setup scripts the model and the client; it returns a channel
		// closed when the prompt waits at the step under test.
		setup func(h *harness) <-chan struct{}
		check func(t *testing.T, h *harness)
	}{
		{
			name: "streaming",
			setup: func(h *harness) <-chan struct{} {
				started := make(chan struct{})
				h.model.steps = []step{hang(started)}
				return started
			},
			check: func(t *testing.T, h *harness) {
				hist := h.sess.History()
				if last := hist[len(hist)-1]; last.Role != providers.RoleAssistant || !strings.HasPrefix(last.Text(), "partial answer") {
					t.Errorf("history ends with %+v, want the partial answer", last)
				}
			},
		},
		{
			name: "permission",
			setup: func(h *harness) <-chan struct{} {
				asked := make(chan struct{})
				h.model.steps = []step{use("w1", "Write", map[string]any{"file_path": filepath.Join(h.dir, "a.txt"), "content": "x"})}
				h.client.answers = []answer{func(ctx context.Context, p *schema.RequestPermissionParams) (*schema.RequestPermissionResult, error) {
					close(asked)
					<-ctx.Done()
					return nil, ctx.Err()
				}}
				return asked
			},
			check: func(t *testing.T, h *harness) {
				if res := h.toolResult(t, "w1"); !res.IsError || !strings.Contains(resultText(res), "cancelled") {
					t.Errorf("Write result = %+v, want cancelled", res)
				}
				if _, err := os.Stat(filepath.Join(h.dir, "a.txt")); err == nil {
					t.Error("a.txt was written after the permission request was cancelled")
				}
			},
		},
		{
			name: "tool run",
			setup: func(h *harness) <-chan struct{} {
				bt := &blockingTool{started: make(chan struct{})}
				h.sess.SetTools("test", []tools.Tool{bt})
				h.model.steps = []step{use("b1", "Block", map[string]any{})}
				return bt.started
			},
			check: func(t *testing.T, h *harness) {
				if res := h.toolResult(t, "b1"); !res.IsError || !strings.Contains(resultText(res), "cancelled") {
					t.Errorf("Block result = %+v, want cancelled", res)
				}
				if st := h.client.toolStatuses("b1"); st[len(st)-1] != schema.StatusFailed {
					t.Errorf("tool statuses = %v, want to end failed", st)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, newScript(t), nil, nil)
			waiting := tt.setup(h)
			go func() {
				<-waiting
				h.sess.Cancel()
			}()
			if stop := h.prompt(t, "start"); stop != schema.StopCancelled {
				t.Errorf("stop = %q, want %q", stop, schema.StopCancelled)
			}
			tt.check(t, h)
			// The session takes the next prompt.
			h.model.steps = []step{say("ok")}
			if stop := h.prompt(t, "again"); stop != schema.StopEndTurn {
				t.Errorf("next prompt: stop = %q", stop)
			}
		})
	}
}

// TestCompaction checks that a conversation outgrowing the window is
// summarized before the next model call, keeping the recent messages.
func TestCompaction(t *testing.T) {
	model := newScript(t)
	h := newHarness(t, model, nil, func(c *Config) { c.Window = 1000; c.CompactAt = 0.5 })
	model.steps = []step{say("first answer")}
	h.prompt(t, "a short question")

	var summaryReq *providers.Request
	model.steps = []step{
		func(ctx context.Context, req *providers.Request, emit func(providers.Event)) (*providers.Response, error) {
			summaryReq = req
			return say("SUMMARY OF EARLIER WORK")(ctx, req, emit)
		},
		say("second answer"),
	}
	big := strings.Repeat("lorem ipsum ", 400) // about 1,200 tokens
	if stop := h.prompt(t, big); stop != schema.StopEndTurn {
		t.Fatalf("stop = %q", stop)
	}
	if summaryReq == nil || !strings.Contains(summaryReq.Messages[0].Text(), "a short question") {
		t.Fatalf("the summary call did not see the earlier conversation: %+v", summaryReq)
	}
	hist := h.sess.History()
	if got := hist[0].Text(); got != summaryPreamble+"SUMMARY OF EARLIER WORK" {
		t.Errorf("history starts with %q, want the summary", got)
	}
	reqs := model.requests()
	last := reqs[len(reqs)-1]
	if !strings.Contains(last.Messages[0].Text(), "SUMMARY OF EARLIER WORK") {
		t.Error("the call after compaction did not start from the summary")
	}
	if got := last.Messages[len(last.Messages)-1].Text(); !strings.Contains(got, "lorem ipsum") {
		t.Error("the call after compaction lost the new prompt")
	}
}

// TestStopHookSendsTheModelBack checks that a Stop hook that blocks sends
// its reason to the model, which then works on.
func TestStopHookSendsTheModelBack(t *testing.T) {
	model := newScript(t, say("done"), say("tests pass now"))
	marker := filepath.Join(t.TempDir(), "blocked-once")
	cmd := `if [ -e ` + marker + ` ]; then exit 0; fi; touch ` + marker + `; echo '{"decision":"block","reason":"run the tests first"}'`
	h := newHarness(t, model, nil, func(c *Config) {
		c.Settings.Hooks = map[string][]settings.HookMatcher{
			hooks.Stop: {{Hooks: []settings.Hook{{Type: "command", Command: cmd}}}},
		}
	})
	if stop := h.prompt(t, "fix it"); stop != schema.StopEndTurn {
		t.Errorf("stop = %q", stop)
	}
	reqs := model.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want 2 (the hook sends the model back once)", len(reqs))
	}
	msgs := reqs[1].Messages
	if got := msgs[len(msgs)-1].Text(); got != "run the tests first" {
		t.Errorf("the model was sent back with %q", got)
	}
}

// TestPermissionOutcomes checks each answer to a permission request, the
// deny rules and plan mode, over two Write calls: the second shows what
// the first answer left for the rest of the session.
func TestPermissionOutcomes(t *testing.T) {
	tests := []struct {
		name    string
		answers []answer
		edit    func(*Config)
		mode    string
		asked   int  // permission requests over both calls
		written bool // whether the first call wrote the file
		second  bool // whether the second call wrote the file
		refusal string
	}{
		{name: "allow once", answers: []answer{pick(optAllowOnce), pick(optAllowOnce)}, asked: 2, written: true, second: true},
		{name: "allow always", answers: []answer{pick(optAllowAlways)}, asked: 1, written: true, second: true},
		{name: "reject once", answers: []answer{pick(optRejectOnce), pick(optAllowOnce)}, asked: 2, second: true, refusal: "the user rejected this tool call"},
		{name: "reject always", answers: []answer{pick(optRejectAlways)}, asked: 1, refusal: "rejected"},
		{name: "cancelled", answers: []answer{func(context.Context, *schema.RequestPermissionParams) (*schema.RequestPermissionResult, error) {
			return &schema.RequestPermissionResult{Outcome: schema.PermissionOutcome{Outcome: "cancelled"}}, nil
		}, pick(optAllowOnce)}, asked: 2, second: true, refusal: "cancelled"},
		{name: "deny rule", edit: func(c *Config) {
			c.Settings.Permissions.Deny = []settings.Rule{{Text: "Write"}}
		}, refusal: "Write"},
		{name: "plan mode", mode: "plan", refusal: "plan"},
		{name: "accept edits", mode: "acceptEdits", written: true, second: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := newScript(t)
			client := &recordingClient{answers: tt.answers}
			h := newHarness(t, model, client, tt.edit)
			if tt.mode != "" {
				if err := h.sess.SetMode(context.Background(), tt.mode); err != nil {
					t.Fatal(err)
				}
			}
			a := filepath.Join(h.dir, "a.txt")
			model.steps = []step{
				use("w1", "Write", map[string]any{"file_path": a, "content": "one"}), say("ok"),
				use("w2", "Write", map[string]any{"file_path": a, "content": "two"}), say("ok"),
			}
			h.prompt(t, "write a")
			if b, err := os.ReadFile(a); (err == nil && string(b) == "one") != tt.written {
				t.Errorf("first call wrote the file = %v, want %v", err == nil, tt.written)
			}
			h.prompt(t, "write a again")
			if n := len(client.permissionRequests()); n != tt.asked {
				t.Errorf("asked %d times, want %d", n, tt.asked)
			}
			if b, err := os.ReadFile(a); (err == nil && string(b) == "two") != tt.second {
				t.Errorf("second call wrote the file = %v, want %v", err == nil && string(b) == "two", tt.second)
			}
			res := h.toolResult(t, "w1")
			if res.IsError != (tt.refusal != "") || !strings.Contains(resultText(res), tt.refusal) {
				t.Errorf("first result = %q (error %v), want a refusal containing %q", resultText(res), res.IsError, tt.refusal)
			}
		})
	}
}
