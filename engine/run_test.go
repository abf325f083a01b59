package engine

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/hooks"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/settings"
)

// TestCallMiddlewareOrder pins the order of a tool call's middleware
// (run.go): the editor sees every call that reaches a tool's name, even
// one a PreToolUse hook or the gate refuses; PostToolUse runs only on a
// call that ran; a hook's new input is what runs.
func TestCallMiddlewareOrder(t *testing.T) {
	tests := []struct {
		name       string
		pre        string // the PreToolUse hook's command, if any
		deny       string // a deny rule, if any
		wantResult string
		wantPost   bool
		// wantStatus: the stream announces the call (pending), the
		// editor's view of it follows (pending, with what it will do).
		wantStatus []string
	}{
		{name: "runs", wantResult: "a.txt", wantPost: true, wantStatus: []string{schema.StatusPending, schema.StatusPending, schema.StatusInProgress, schema.StatusCompleted}},
		{name: "hook refuses", pre: "echo 'no globbing' >&2; exit 2", wantResult: "a PreToolUse hook blocked this call: no globbing", wantStatus: []string{schema.StatusPending, schema.StatusPending, schema.StatusFailed}},
		{name: "hook input", pre: `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"pattern":"*.md"}}}'`, wantResult: "b.md", wantPost: true, wantStatus: []string{schema.StatusPending, schema.StatusPending, schema.StatusInProgress, schema.StatusCompleted}},
		{name: "gate refuses", deny: "Glob", wantResult: "denied", wantStatus: []string{schema.StatusPending, schema.StatusPending, schema.StatusFailed}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			marker := filepath.Join(t.TempDir(), "post")
			h := newHarness(t, newScript(t, use("g1", "Glob", map[string]any{"pattern": "*.txt"}), say("done")), nil, func(c *Config) {
				c.Settings.Hooks = map[string][]settings.HookMatcher{
					hooks.PostToolUse: {{Matcher: "Glob", Hooks: []settings.Hook{{Type: "command", Command: "touch " + marker}}}},
				}
				if tt.pre != "" {
					c.Settings.Hooks[hooks.PreToolUse] = []settings.HookMatcher{{Matcher: "Glob", Hooks: []settings.Hook{{Type: "command", Command: tt.pre}}}}
				}
				if tt.deny != "" {
					c.Settings.Permissions.Deny = []settings.Rule{{Text: tt.deny}}
				}
			})
			for _, f := range []string{"a.txt", "b.md"} {
				if err := os.WriteFile(filepath.Join(h.sess.cwd, f), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			h.prompt(t, "glob")
			if got := resultText(h.toolResult(t, "g1")); !strings.Contains(got, tt.wantResult) {
				t.Errorf("result %q, want it to hold %q", got, tt.wantResult)
			}
			if got := h.client.toolStatuses("g1"); !slices.Equal(got, tt.wantStatus) {
				t.Errorf("the editor saw %v, want %v", got, tt.wantStatus)
			}
			_, err := os.Stat(marker)
			if ran := err == nil; ran != tt.wantPost {
				t.Errorf("PostToolUse ran: %v, want %v", ran, tt.wantPost)
			}
		})
	}
}
