package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/settings"
)

// script writes an executable shell script and returns its path.
func script(t *testing.T, dir, name, body string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func runner(project string, event string, matchers ...settings.HookMatcher) *Runner {
	return NewRunner(&settings.Settings{Project: project, Hooks: map[string][]settings.HookMatcher{event: matchers}})
}

func cmd(command string, timeout float64) settings.Hook {
	return settings.Hook{Type: "command", Command: command, Timeout: timeout}
}

func TestPayloadAndEnvironment(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "payload.json")
	hook := script(t, dir, "record.sh", `cat > "`+out+`"; echo "$CLAUDE_PROJECT_DIR" > "`+out+`.env"; pwd > "`+out+`.pwd"`)
	r := runner(dir, PreToolUse, settings.HookMatcher{Matcher: "Bash", Hooks: []settings.Hook{cmd(hook, 0)}})
	o := r.Run(context.Background(), PreToolUse, Input{
		SessionID: "s1", TranscriptPath: "/t.jsonl", PermissionMode: "default",
		ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"ls"}`), ToolUseID: "tu1",
	})
	if o.Block || len(o.Errors) != 0 {
		t.Fatalf("outcome %+v", o)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("payload %s: %v", data, err)
	}
	want := map[string]any{
		"session_id": "s1", "transcript_path": "/t.jsonl", "cwd": dir, "permission_mode": "default",
		"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_use_id": "tu1",
		"tool_input": map[string]any{"command": "ls"},
	}
	for k, v := range want {
		if g, _ := json.Marshal(got[k]); string(g) != mustJSON(v) {
			t.Errorf("payload[%s] = %s, want %s", k, g, mustJSON(v))
		}
	}
	if env, _ := os.ReadFile(out + ".env"); strings.TrimSpace(string(env)) != dir {
		t.Errorf("CLAUDE_PROJECT_DIR = %q", env)
	}
	if pwd, _ := os.ReadFile(out + ".pwd"); strings.TrimSpace(string(pwd)) != dir {
		t.Errorf("hook ran in %q, want %q", pwd, dir)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	pass := script(t, dir, "pass.sh", `echo "just a log line"; exit 0`)
	block := script(t, dir, "block.sh", `cat >/dev/null; echo "rm is not allowed here" >&2; exit 2`)
	fail := script(t, dir, "fail.sh", `echo "oops" >&2; exit 1`)

	r := runner(dir, PreToolUse, settings.HookMatcher{Matcher: "*", Hooks: []settings.Hook{cmd(pass, 0)}})
	if o := r.Run(context.Background(), PreToolUse, Input{ToolName: "Bash"}); o.Block || o.Decision != "" || len(o.Errors) != 0 || o.AdditionalContext != "" {
		t.Errorf("exit 0: %+v", o)
	}

	r = runner(dir, PreToolUse, settings.HookMatcher{Matcher: "Bash", Hooks: []settings.Hook{cmd(block, 0)}})
	o := r.Run(context.Background(), PreToolUse, Input{ToolName: "Bash"})
	if !o.Block || o.Reason != "rm is not allowed here" || o.Decision != "deny" {
		t.Errorf("exit 2: %+v", o)
	}

	r = runner(dir, PreToolUse, settings.HookMatcher{Hooks: []settings.Hook{cmd(fail, 0)}})
	o = r.Run(context.Background(), PreToolUse, Input{ToolName: "Bash"})
	if o.Block || len(o.Errors) != 1 || !strings.Contains(o.Errors[0], "status 1: oops") {
		t.Errorf("exit 1: %+v", o)
	}

	// Plain stdout of UserPromptSubmit is context; exit 2 blocks the prompt.
	r = runner(dir, UserPromptSubmit, settings.HookMatcher{Hooks: []settings.Hook{cmd(pass, 0)}})
	if o := r.Run(context.Background(), UserPromptSubmit, Input{Prompt: "hi"}); o.AdditionalContext != "just a log line" {
		t.Errorf("UserPromptSubmit context: %+v", o)
	}
	r = runner(dir, Stop, settings.HookMatcher{Hooks: []settings.Hook{cmd(block, 0)}})
	if o := r.Run(context.Background(), Stop, Input{}); !o.Block || o.Decision != "" {
		t.Errorf("Stop exit 2: %+v", o)
	}
	// SessionStart cannot block.
	r = runner(dir, SessionStart, settings.HookMatcher{Hooks: []settings.Hook{cmd(block, 0)}})
	if o := r.Run(context.Background(), SessionStart, Input{Source: "startup"}); o.Block || len(o.Errors) != 1 {
		t.Errorf("SessionStart exit 2: %+v", o)
	}
}

func TestJSONOutput(t *testing.T) {
	dir := t.TempDir()
	hook := func(name, output string) settings.Hook {
		return cmd(script(t, dir, name, "cat >/dev/null; cat <<'EOF'\n"+output+"\nEOF"), 0)
	}
	ctx := context.Background()

	r := runner(dir, PostToolUse, settings.HookMatcher{Matcher: "Edit|Write", Hooks: []settings.Hook{
		hook("post.sh", `{"decision": "block", "reason": "lint failed: missing semicolon"}`)}})
	if o := r.Run(ctx, PostToolUse, Input{ToolName: "Write"}); !o.Block || o.Reason != "lint failed: missing semicolon" {
		t.Errorf("PostToolUse block: %+v", o)
	}

	for _, c := range []struct{ decision, reason string }{{"allow", ""}, {"ask", "check this one"}, {"deny", "no network"}} {
		r := runner(dir, PreToolUse, settings.HookMatcher{Matcher: "WebFetch", Hooks: []settings.Hook{
			hook("pre-"+c.decision+".sh", `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "`+c.decision+`", "permissionDecisionReason": "`+c.reason+`"}}`)}})
		o := r.Run(ctx, PreToolUse, Input{ToolName: "WebFetch"})
		if o.Decision != c.decision || o.Block != (c.decision == "deny") || o.Reason != c.reason {
			t.Errorf("permissionDecision %s: %+v", c.decision, o)
		}
	}

	r = runner(dir, PreToolUse, settings.HookMatcher{Matcher: "Bash", Hooks: []settings.Hook{
		hook("rewrite.sh", `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"command": "npm test -- --ci"}, "additionalContext": "CI mode"}}`)}})
	o := r.Run(ctx, PreToolUse, Input{ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"npm test"}`)})
	if string(o.UpdatedInput) != `{"command": "npm test -- --ci"}` || o.AdditionalContext != "CI mode" || o.Block {
		t.Errorf("updatedInput: %+v (%s)", o, o.UpdatedInput)
	}

	r = runner(dir, Stop, settings.HookMatcher{Hooks: []settings.Hook{
		hook("stop.sh", `{"continue": false, "stopReason": "budget exhausted", "systemMessage": "stopping"}`)}})
	if o := r.Run(ctx, Stop, Input{}); !o.Stop || o.StopReason != "budget exhausted" || o.SystemMessage != "stopping" {
		t.Errorf("continue false: %+v", o)
	}

	r = runner(dir, SessionStart, settings.HookMatcher{Matcher: "startup", Hooks: []settings.Hook{
		hook("start.sh", `{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "branch: main"}}`)}})
	if o := r.Run(ctx, SessionStart, Input{Source: "startup"}); o.AdditionalContext != "branch: main" {
		t.Errorf("SessionStart context: %+v", o)
	}
	if o := r.Run(ctx, SessionStart, Input{Source: "resume"}); o.AdditionalContext != "" {
		t.Errorf("SessionStart matcher ignored: %+v", o)
	}

	r = runner(dir, PreToolUse, settings.HookMatcher{Hooks: []settings.Hook{hook("bad.sh", `{"decision": `)}})
	if o := r.Run(ctx, PreToolUse, Input{ToolName: "Bash"}); len(o.Errors) != 1 || o.Block {
		t.Errorf("invalid JSON: %+v", o)
	}
}

func TestCombining(t *testing.T) {
	dir := t.TempDir()
	allow := cmd(`echo '{"hookSpecificOutput": {"permissionDecision": "allow"}}'`, 0)
	ask := cmd(`echo '{"hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": "sure?"}}'`, 0)
	deny := cmd(`echo nope >&2; exit 2`, 0)
	r := runner(dir, PreToolUse,
		settings.HookMatcher{Matcher: "Bash", Hooks: []settings.Hook{allow, ask}},
		settings.HookMatcher{Matcher: "Ba.*", Hooks: []settings.Hook{allow}}, // duplicate: runs once
	)
	if o := r.Run(context.Background(), PreToolUse, Input{ToolName: "Bash"}); o.Decision != "ask" || o.Block {
		t.Errorf("allow+ask: %+v", o)
	}
	r = runner(dir, PreToolUse, settings.HookMatcher{Hooks: []settings.Hook{allow, deny, ask}})
	if o := r.Run(context.Background(), PreToolUse, Input{ToolName: "Bash"}); o.Decision != "deny" || !o.Block || !strings.Contains(o.Reason, "nope") {
		t.Errorf("allow+deny+ask: %+v", o)
	}
}

func TestMatchers(t *testing.T) {
	r := NewRunner(&settings.Settings{Hooks: map[string][]settings.HookMatcher{
		PreToolUse: {{Matcher: "(", Hooks: []settings.Hook{cmd("true", 0)}}},
	}})
	cases := []struct {
		matcher, name string
		want          bool
	}{
		{"", "Bash", true},
		{"*", "mcp__x__y", true},
		{"Bash", "Bash", true},
		{"Bash", "BashOutput", false},
		{"Edit|Write", "Write", true},
		{"Edit|Write", "MultiEdit", false},
		{"mcp__github__.*", "mcp__github__create_issue", true},
		{"mcp__github__.*", "mcp__gitlab__x", false},
		{"Notebook.*", "NotebookEdit", true},
	}
	for _, c := range cases {
		r2 := NewRunner(&settings.Settings{Hooks: map[string][]settings.HookMatcher{PreToolUse: {{Matcher: c.matcher}}}})
		if got, _ := r2.match(c.matcher, c.name); got != c.want {
			t.Errorf("%q vs %q: %v, want %v", c.matcher, c.name, got, c.want)
		}
	}
	if o := r.Run(context.Background(), PreToolUse, Input{ToolName: "Bash"}); len(o.Errors) != 1 || !strings.Contains(o.Errors[0], "not a valid regular expression") {
		t.Errorf("bad matcher: %+v", o)
	}
	if NewRunner(&settings.Settings{DisableAllHooks: true, Hooks: r.s.Hooks}).Has(PreToolUse) {
		t.Error("disableAllHooks ignored")
	}
}

// alive reports whether process pid exists.
func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// waitGone waits for pid to disappear.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d still runs", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

func TestTimeoutKillsTheHook(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	// The hook starts a child and then hangs itself.
	hook := script(t, dir, "hang.sh", `sleep 300 & echo $! > "`+pidFile+`"; sleep 300`)
	r := runner(dir, PreToolUse, settings.HookMatcher{Hooks: []settings.Hook{cmd(hook, 0.5)}})
	start := time.Now()
	o := r.Run(context.Background(), PreToolUse, Input{ToolName: "Bash"})
	if took := time.Since(start); took > 4*time.Second {
		t.Errorf("Run took %s with a 0.5 s timeout", took)
	}
	if o.Block || len(o.Errors) != 1 || !strings.Contains(o.Errors[0], "timed out") {
		t.Errorf("outcome %+v", o)
	}
	waitGone(t, readPid(t, pidFile))
}

func TestChildHoldingOutputDoesNotHang(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	// The hook exits at once, but its child keeps stdout open.
	hook := script(t, dir, "daemon.sh", `sleep 300 & echo $! > "`+pidFile+`"; echo '{"decision":"block","reason":"held"}'; exit 0`)
	r := runner(dir, Stop, settings.HookMatcher{Hooks: []settings.Hook{cmd(hook, 0)}})
	start := time.Now()
	o := r.Run(context.Background(), Stop, Input{})
	if took := time.Since(start); took > waitDelay+3*time.Second {
		t.Errorf("Run took %s", took)
	}
	if !o.Block || o.Reason != "held" {
		t.Errorf("outcome %+v", o)
	}
	waitGone(t, readPid(t, pidFile))
}

func TestCancelStopsHooks(t *testing.T) {
	dir := t.TempDir()
	hook := script(t, dir, "slow.sh", `sleep 300`)
	r := runner(dir, UserPromptSubmit, settings.HookMatcher{Hooks: []settings.Hook{cmd(hook, 0)}})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	o := r.Run(ctx, UserPromptSubmit, Input{Prompt: "x"})
	if took := time.Since(start); took > 4*time.Second {
		t.Errorf("Run took %s after cancel", took)
	}
	if len(o.Errors) != 1 || !strings.Contains(o.Errors[0], "cancelled") {
		t.Errorf("outcome %+v", o)
	}
}
