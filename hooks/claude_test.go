package hooks

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agent-lsp/agent-lsp/settings"
)

// TestIfFilter: a hook with "if" runs only for the tool calls its
// permission rule covers, and never on an event that is not about a
// tool call.
func TestIfFilter(t *testing.T) {
	tests := []struct {
		name    string
		event   string
		cond    string
		matches func(string) bool
		want    bool
	}{
		{"covered", PreToolUse, "Bash(rm *)", func(r string) bool { return r == "Bash(rm *)" }, true},
		{"not covered", PreToolUse, "Bash(rm *)", func(string) bool { return false }, false},
		{"no matcher given", PostToolUse, "Bash(rm *)", nil, false},
		{"failure event", PostToolUseFailure, "Bash(rm *)", func(string) bool { return true }, true},
		{"not a tool event", Stop, "Bash(rm *)", func(string) bool { return true }, false},
		{"no if", PreToolUse, "", func(string) bool { return false }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			mark := filepath.Join(dir, "ran")
			h := cmd("touch "+mark, 0)
			h.If = tt.cond
			r := runner(dir, tt.event, settings.HookMatcher{Matcher: "Bash", Hooks: []settings.Hook{h}})
			r.Run(context.Background(), tt.event, Input{ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"rm -rf x"}`), Matches: tt.matches})
			_, err := os.Stat(mark)
			if ran := err == nil; ran != tt.want {
				t.Errorf("hook ran %v, want %v", ran, tt.want)
			}
		})
	}
}

// TestArgsAndStatus: a hook with args runs its program without a shell,
// each argument as given; its statusMessage is reported before it runs.
func TestArgsAndStatus(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "args")
	prog := script(t, dir, "args.sh", `for a in "$@"; do echo "[$a]"; done > "`+out+`"`)
	h := settings.Hook{Type: "command", Command: prog, Args: []string{"two words", "$HOME", "; touch pwned"}, StatusMessage: "Checking the call"}
	r := runner(dir, PreToolUse, settings.HookMatcher{Hooks: []settings.Hook{h}})
	var status []string
	o := r.Run(context.Background(), PreToolUse, Input{ToolName: "Read", Status: func(m string) { status = append(status, m) }})
	if len(o.Errors) > 0 {
		t.Fatalf("errors %v", o.Errors)
	}
	data, _ := os.ReadFile(out)
	if string(data) != "[two words]\n[$HOME]\n[; touch pwned]\n" {
		t.Errorf("arguments = %q", data)
	}
	if len(status) != 1 || status[0] != "Checking the call" {
		t.Errorf("status = %q", status)
	}
}

// TestHTTPHook: an http hook POSTs the event's JSON; its answer is read
// as a command hook's stdout; headers expand only the allowed variables;
// a non-2xx answer is an error that blocks nothing.
func TestHTTPHook(t *testing.T) {
	t.Setenv("HOOK_TOKEN", "secret-token")
	t.Setenv("OTHER_SECRET", "do-not-send")
	var mu sync.Mutex
	var got []*http.Request
	var bodies []map[string]any
	answer := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no rm here"}}`
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var m map[string]any
		json.Unmarshal(b, &m)
		mu.Lock()
		got, bodies = append(got, r), append(bodies, m)
		st := status
		mu.Unlock()
		w.WriteHeader(st)
		io.WriteString(w, answer)
	}))
	defer srv.Close()
	h := settings.Hook{Type: "http", URL: srv.URL + "/hook", AllowedEnvVars: []string{"HOOK_TOKEN"},
		Headers: map[string]string{"Authorization": "Bearer $HOOK_TOKEN", "X-Other": "${OTHER_SECRET}"}}
	r := runner(t.TempDir(), PreToolUse, settings.HookMatcher{Matcher: "Bash", Hooks: []settings.Hook{h}})
	o := r.Run(context.Background(), PreToolUse, Input{SessionID: "s1", ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"rm x"}`)})
	if !o.Block || o.Decision != "deny" || o.Reason != "no rm here" {
		t.Errorf("outcome %+v, want the answer's deny", o)
	}
	if len(got) != 1 || got[0].Method != http.MethodPost || got[0].Header.Get("Content-Type") != "application/json" ||
		got[0].Header.Get("Authorization") != "Bearer secret-token" || got[0].Header.Get("X-Other") != "" {
		t.Fatalf("requests %+v", got)
	}
	if bodies[0]["hook_event_name"] != "PreToolUse" || bodies[0]["session_id"] != "s1" || bodies[0]["tool_name"] != "Bash" {
		t.Errorf("body %v", bodies[0])
	}
	mu.Lock()
	status = http.StatusInternalServerError
	mu.Unlock()
	o = r.Run(context.Background(), PreToolUse, Input{ToolName: "Bash"})
	if o.Block || len(o.Errors) != 1 || !strings.Contains(o.Errors[0], "500") {
		t.Errorf("outcome of a 500 %+v, want an error that blocks nothing", o)
	}
}

// TestEventPayloadsAndOutputs: each editor-session event gives its hook
// the fields Claude Code documents, and what the hook says maps to the
// outcome as Claude Code reads it.
func TestEventPayloadsAndOutputs(t *testing.T) {
	tests := []struct {
		event   string
		matcher string
		in      Input
		fields  map[string]any // in the payload
		hook    string         // the hook's shell body after reading stdin
		check   func(Outcome) bool
	}{
		{SessionStart, "clear", Input{Source: "clear", Model: "claude-opus-4-7"}, map[string]any{"source": "clear", "model": "claude-opus-4-7"},
			`echo "context after clear"`, func(o Outcome) bool { return o.AdditionalContext == "context after clear" }},
		{SessionEnd, "clear", Input{Reason: "clear"}, map[string]any{"reason": "clear"},
			`echo bye >&2; exit 2`, func(o Outcome) bool { return !o.Block && len(o.Errors) == 1 }},
		{Notification, "permission_prompt", Input{Message: "Claude needs your permission to use Bash", NotificationType: "permission_prompt"},
			map[string]any{"message": "Claude needs your permission to use Bash", "notification_type": "permission_prompt"},
			`exit 0`, func(o Outcome) bool { return !o.Block && len(o.Errors) == 0 }},
		{PreCompact, "manual", Input{Trigger: "manual", CustomInstructions: "keep the tests"}, map[string]any{"trigger": "manual", "custom_instructions": "keep the tests"},
			`echo '{"decision":"block","reason":"not now"}'`, func(o Outcome) bool { return o.Block && o.Reason == "not now" }},
		{PostCompact, "auto", Input{Trigger: "auto", CompactSummary: "we fixed x"}, map[string]any{"trigger": "auto", "compact_summary": "we fixed x"},
			`echo '{"decision":"block","reason":"ignored"}'`, func(o Outcome) bool { return !o.Block }},
		{SubagentStart, "Explore", Input{AgentID: "a1", AgentType: "Explore"}, map[string]any{"agent_id": "a1", "agent_type": "Explore"},
			`echo '{"hookSpecificOutput":{"hookEventName":"SubagentStart","additionalContext":"be brief"}}'`, func(o Outcome) bool { return o.AdditionalContext == "be brief" }},
		{SubagentStop, "Explore", Input{AgentID: "a1", AgentType: "Explore", LastAssistantMessage: "found it", StopHookActive: true},
			map[string]any{"agent_id": "a1", "agent_type": "Explore", "last_assistant_message": "found it", "stop_hook_active": true},
			`echo '{"decision":"block","reason":"check again"}'`, func(o Outcome) bool { return o.Block && o.Reason == "check again" }},
		{PostToolUseFailure, "Bash", Input{ToolName: "Bash", Error: "exit status 1", IsInterrupt: false}, map[string]any{"tool_name": "Bash", "error": "exit status 1", "is_interrupt": false},
			`echo '{"hookSpecificOutput":{"hookEventName":"PostToolUseFailure","additionalContext":"run make first"}}'`, func(o Outcome) bool { return o.AdditionalContext == "run make first" }},
		{PermissionRequest, "Bash", Input{ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"make"}`)}, map[string]any{"tool_name": "Bash"},
			`echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"command":"make -j2"}}}}'`,
			func(o Outcome) bool {
				return o.Decision == "allow" && string(o.UpdatedInput) == `{"command":"make -j2"}`
			}},
		{PermissionRequest, "Bash", Input{ToolName: "Bash"}, map[string]any{"tool_name": "Bash"},
			`echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"not on Fridays","interrupt":true}}}'`,
			func(o Outcome) bool { return o.Decision == "deny" && o.Block && o.Reason == "not on Fridays" && o.Stop }},
		{PreToolUse, "Read", Input{ToolName: "Read"}, map[string]any{"tool_name": "Read"},
			`echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"the file is generated"}}'`,
			func(o Outcome) bool { return o.AdditionalContext == "the file is generated" && !o.Block }},
	}
	for _, tt := range tests {
		t.Run(tt.event+"/"+tt.matcher, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "payload.json")
			hook := script(t, dir, "h.sh", `cat > "`+out+`"`+"\n"+tt.hook)
			r := runner(dir, tt.event, settings.HookMatcher{Matcher: tt.matcher, Hooks: []settings.Hook{cmd(hook, 0)}},
				settings.HookMatcher{Matcher: "nothing-matches-this", Hooks: []settings.Hook{cmd("exit 2", 0)}})
			o := r.Run(context.Background(), tt.event, tt.in)
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatalf("the hook did not run: %v", err)
			}
			var got map[string]any
			json.Unmarshal(data, &got)
			if got["hook_event_name"] != tt.event {
				t.Errorf("hook_event_name = %v", got["hook_event_name"])
			}
			for k, v := range tt.fields {
				if got[k] != v {
					t.Errorf("payload %s = %v, want %v", k, got[k], v)
				}
			}
			if !tt.check(o) {
				t.Errorf("outcome %+v", o)
			}
		})
	}
}

// TestPromptHook: a prompt hook asks the model with the event's JSON in
// place of $ARGUMENTS; {"ok": false} blocks with its reason, {"ok":
// true} passes, anything else is an error that blocks nothing.
func TestPromptHook(t *testing.T) {
	tests := []struct {
		name, answer string
		block        bool
		reason       string
		errs         int
	}{
		{"ok", `{"ok": true}`, false, "", 0},
		{"not ok", "Here you go: {\"ok\": false, \"reason\": \"tests still fail\"}", true, "tests still fail", 0},
		{"nonsense", "sure", false, "", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked string
			ask := func(_ context.Context, prompt string) (string, error) { asked = prompt; return tt.answer, nil }
			h := settings.Hook{Type: "prompt", Prompt: "Is the work done? Input: $ARGUMENTS"}
			r := runner(t.TempDir(), Stop, settings.HookMatcher{Hooks: []settings.Hook{h}})
			o := r.Run(context.Background(), Stop, Input{SessionID: "s9", Ask: ask})
			if !strings.HasPrefix(asked, "Is the work done? Input: {") || !strings.Contains(asked, `"session_id":"s9"`) {
				t.Errorf("asked %q", asked)
			}
			if o.Block != tt.block || o.Reason != tt.reason || len(o.Errors) != tt.errs {
				t.Errorf("outcome %+v", o)
			}
		})
	}
	// Without a model the hook fails without blocking.
	r := runner(t.TempDir(), Stop, settings.HookMatcher{Hooks: []settings.Hook{{Type: "prompt", Prompt: "x"}}})
	if o := r.Run(context.Background(), Stop, Input{}); o.Block || len(o.Errors) != 1 {
		t.Errorf("outcome without a model %+v", o)
	}
}
