package engine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/hooks"
	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/settings"
)

// hookLog is a hook command that appends its event's JSON, one line, to
// log and then runs then.
func hookLog(log, then string) settings.Hook {
	return settings.Hook{Type: "command", Command: `{ tr -d '\n'; echo; } >> "` + log + `"; ` + then}
}

// events reads a hookLog file.
func events(t *testing.T, log string) []map[string]any {
	t.Helper()
	data, _ := os.ReadFile(log)
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("hook input %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// requestText is every text block of a model request's messages.
func requestText(req *providers.Request) string {
	var b strings.Builder
	for _, m := range req.Messages {
		for _, c := range m.Content {
			b.WriteString(c.Text)
			b.WriteString("\n")
		}
	}
	return b.String()
}

// TestHookIfRule: a tool hook with "if" runs only for the calls its
// permission rule covers.
func TestHookIfRule(t *testing.T) {
	tests := []struct {
		name, rule string
		want       []string // the files whose Read ran the hook
	}{
		{"path rule", "Read(b.txt)", []string{"b.txt"}},
		{"other tool's rule", "Bash(cat *)", nil},
		{"bare tool", "Read", []string{"a.txt", "b.txt"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := newScript(t, use("r1", "Read", map[string]string{"file_path": "a.txt"}), use("r2", "Read", map[string]string{"file_path": "b.txt"}), say("done"))
			log := filepath.Join(t.TempDir(), "log")
			h := newHarness(t, model, nil, func(c *Config) {
				hook := hookLog(log, "true")
				hook.If = tt.rule
				c.Settings.Hooks = map[string][]settings.HookMatcher{hooks.PreToolUse: {{Matcher: "Read", Hooks: []settings.Hook{hook}}}}
			})
			for _, f := range []string{"a.txt", "b.txt"} {
				os.WriteFile(filepath.Join(h.dir, f), []byte("x\n"), 0o644)
			}
			h.prompt(t, "read both")
			var got []string
			for _, e := range events(t, log) {
				in, _ := e["tool_input"].(map[string]any)
				got = append(got, filepath.Base(in["file_path"].(string)))
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("the hook ran for %v, want %v", got, tt.want)
			}
		})
	}
}

// TestSessionLifecycleHooks: SessionStart fires with startup, then with
// clear after /clear (after SessionEnd with reason clear), and with
// compact after /compact (between PreCompact and PostCompact's summary);
// each SessionStart's context reaches the model.
func TestSessionLifecycleHooks(t *testing.T) {
	model := newScript(t, say("one"), say("two"), say("THE SUMMARY"), say("three"))
	log := filepath.Join(t.TempDir(), "log")
	h := newHarness(t, model, nil, func(c *Config) {
		all := []settings.HookMatcher{{Hooks: []settings.Hook{hookLog(log, "echo from-the-start-hook")}}}
		c.Settings.Hooks = map[string][]settings.HookMatcher{
			hooks.SessionStart: all, hooks.SessionEnd: all, hooks.PreCompact: all, hooks.PostCompact: all,
		}
	})
	h.prompt(t, "first")
	h.prompt(t, "/clear")
	h.prompt(t, "second")
	h.prompt(t, "/compact")
	h.prompt(t, "third")
	h.svc.Close() // the session ends
	var got []string
	for _, e := range events(t, log) {
		s := e["hook_event_name"].(string)
		for _, k := range []string{"source", "reason", "trigger"} {
			if v, ok := e[k].(string); ok {
				s += ":" + v
			}
		}
		if e["hook_event_name"] == hooks.PostCompact && e["compact_summary"] != "THE SUMMARY" {
			t.Errorf("PostCompact compact_summary = %v", e["compact_summary"])
		}
		got = append(got, s)
	}
	want := "SessionStart:startup SessionEnd:clear SessionStart:clear PreCompact:manual PostCompact:manual SessionStart:compact SessionEnd:other"
	if strings.Join(got, " ") != want {
		t.Errorf("events:\n%s\nwant\n%s", strings.Join(got, " "), want)
	}
	reqs := model.requests()
	for i, n := range []int{0, 1, 3} {
		if !strings.Contains(requestText(reqs[n]), "from-the-start-hook") {
			t.Errorf("prompt %d: the model did not get SessionStart's context:\n%s", i+1, requestText(reqs[n]))
		}
	}
}

// TestPermissionRequestAndNotificationHooks: a PermissionRequest hook
// answers for the user (allow, with its updated input, or deny); when it
// does not, the user is asked and Notification fires.
func TestPermissionRequestAndNotificationHooks(t *testing.T) {
	tests := []struct {
		name, output string
		asked        bool
		written      string // what new.txt holds, "" for not written
		result       string // in the tool result
	}{
		{"allow", `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"file_path":"new.txt","content":"from the hook\n"}}}}`, false, "from the hook\n", ""},
		{"deny", `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"no new files"}}}`, false, "", "no new files"},
		{"no opinion", `{}`, true, "from the model\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := newScript(t, use("w1", "Write", map[string]string{"file_path": "new.txt", "content": "from the model\n"}), say("done"))
			client := &recordingClient{}
			if tt.asked {
				client.answers = []answer{pick(optAllowOnce)}
			}
			log := filepath.Join(t.TempDir(), "log")
			h := newHarness(t, model, client, func(c *Config) {
				c.Settings.Hooks = map[string][]settings.HookMatcher{
					hooks.PermissionRequest: {{Matcher: "Write", Hooks: []settings.Hook{hookLog(log, "echo '"+tt.output+"'")}}},
					hooks.Notification:      {{Matcher: "permission_prompt", Hooks: []settings.Hook{hookLog(log, "true")}}},
				}
			})
			h.prompt(t, "write it")
			if asked := len(client.permissionRequests()) > 0; asked != tt.asked {
				t.Errorf("user asked %v, want %v", asked, tt.asked)
			}
			data, _ := os.ReadFile(filepath.Join(h.dir, "new.txt"))
			if string(data) != tt.written {
				t.Errorf("new.txt = %q, want %q", data, tt.written)
			}
			if res := resultText(h.toolResult(t, "w1")); !strings.Contains(res, tt.result) {
				t.Errorf("result %q lacks %q", res, tt.result)
			}
			evs := events(t, log)
			if evs[0]["hook_event_name"] != hooks.PermissionRequest || evs[0]["tool_name"] != "Write" {
				t.Errorf("first hook input %v", evs[0])
			}
			notified := len(evs) == 2 && evs[1]["hook_event_name"] == hooks.Notification && evs[1]["notification_type"] == "permission_prompt"
			if notified != tt.asked {
				t.Errorf("Notification ran %v, want %v (%v)", notified, tt.asked, evs)
			}
		})
	}
}

// TestToolContextHooks: PreToolUse's additionalContext follows the
// result; a failed call runs PostToolUseFailure (not PostToolUse), with
// its error, and its context reaches the model too; statusMessage is
// shown while a hook runs.
func TestToolContextHooks(t *testing.T) {
	model := newScript(t, use("r1", "Read", map[string]string{"file_path": "missing.txt"}), say("done"))
	log := filepath.Join(t.TempDir(), "log")
	client := &recordingClient{}
	h := newHarness(t, model, client, func(c *Config) {
		pre := hookLog(log, `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"pre-context"}}'`)
		pre.StatusMessage = "Checking the read"
		c.Settings.Hooks = map[string][]settings.HookMatcher{
			hooks.PreToolUse:         {{Hooks: []settings.Hook{pre}}},
			hooks.PostToolUse:        {{Hooks: []settings.Hook{hookLog(log, "true")}}},
			hooks.PostToolUseFailure: {{Hooks: []settings.Hook{hookLog(log, `echo '{"hookSpecificOutput":{"hookEventName":"PostToolUseFailure","additionalContext":"failure-context"}}'`)}}},
		}
	})
	status := client.watch(thought("Checking the read"))
	h.prompt(t, "read it")
	res := resultText(h.toolResult(t, "r1"))
	if !strings.Contains(res, "pre-context") || !strings.Contains(res, "failure-context") {
		t.Errorf("result %q lacks the hooks' context", res)
	}
	evs := events(t, log)
	if len(evs) != 2 || evs[1]["hook_event_name"] != hooks.PostToolUseFailure || evs[1]["error"] == "" {
		t.Errorf("hook inputs %v, want PreToolUse then PostToolUseFailure with the error", evs)
	}
	select {
	case <-status:
	default:
		t.Errorf("statusMessage was not shown")
	}
}

// TestSubagentHooks: SubagentStart's context reaches the subagent, and
// SubagentStop gets its last message and may send it back to work once.
func TestSubagentHooks(t *testing.T) {
	model := newScript(t,
		use("a1", "Agent", map[string]string{"description": "look", "prompt": "look around", "subagent_type": "general-purpose"}),
		say("first report"), say("second report"), say("done"))
	log := filepath.Join(t.TempDir(), "log")
	h := newHarness(t, model, nil, func(c *Config) {
		c.Settings.Hooks = map[string][]settings.HookMatcher{
			hooks.SubagentStart: {{Matcher: "general-purpose", Hooks: []settings.Hook{hookLog(log, "echo start-context")}}},
			hooks.SubagentStop:  {{Hooks: []settings.Hook{hookLog(log, `if [ ! -e "`+log+`.once" ]; then touch "`+log+`.once"; echo '{"decision":"block","reason":"look again"}'; fi`)}}},
		}
	})
	h.prompt(t, "delegate")
	reqs := model.requests()
	if !strings.Contains(requestText(reqs[1]), "start-context") {
		t.Errorf("the subagent's first request lacks SubagentStart's context:\n%s", requestText(reqs[1]))
	}
	if !strings.Contains(requestText(reqs[2]), "look again") {
		t.Errorf("SubagentStop's block did not send the subagent back:\n%s", requestText(reqs[2]))
	}
	evs := events(t, log)
	if len(evs) != 3 || evs[0]["agent_type"] != "general-purpose" || evs[1]["last_assistant_message"] != "first report" || evs[2]["stop_hook_active"] != true {
		t.Errorf("hook inputs %v", evs)
	}
	if res := resultText(h.toolResult(t, "a1")); !strings.Contains(res, "second report") {
		t.Errorf("Agent result %q", res)
	}
}

// TestPromptStopHook: a Stop prompt hook asks the model; its {"ok":
// false} sends the model back to work with the reason, its {"ok": true}
// lets the turn end.
func TestPromptStopHook(t *testing.T) {
	model := newScript(t, say("first"), say(`{"ok": false, "reason": "run the tests"}`), say("ran them"), say(`{"ok": true}`))
	h := newHarness(t, model, nil, func(c *Config) {
		c.Settings.Hooks = map[string][]settings.HookMatcher{hooks.Stop: {{Hooks: []settings.Hook{{Type: "prompt", Prompt: "Did the agent test its work? $ARGUMENTS"}}}}}
	})
	h.prompt(t, "fix it")
	reqs := model.requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model calls, want 4", len(reqs))
	}
	if !strings.Contains(requestText(reqs[1]), "Did the agent test its work?") || !strings.Contains(requestText(reqs[1]), `"hook_event_name":"Stop"`) {
		t.Errorf("the hook's question: %s", requestText(reqs[1]))
	}
	if !strings.Contains(requestText(reqs[2]), "run the tests") {
		t.Errorf("the model was not sent back with the reason: %s", requestText(reqs[2]))
	}
}

// TestHookIfBash: a PreToolUse hook scoped to Bash(rm *) blocks an rm,
// also inside a compound command, and leaves other commands alone.
func TestHookIfBash(t *testing.T) {
	tests := []struct {
		command string
		blocked bool
	}{
		{"rm -rf build", true},
		{"ls && rm -f x", true},
		{"echo hello", false},
	}
	for _, tt := range tests {
		t.Run(tt.command, func(t *testing.T) {
			model := newScript(t, use("b1", "Bash", map[string]string{"command": tt.command}), say("done"))
			h := newHarness(t, model, nil, func(c *Config) {
				hook := settings.Hook{Type: "command", Command: "echo 'no rm here' >&2; exit 2", If: "Bash(rm *)"}
				c.Settings.Hooks = map[string][]settings.HookMatcher{hooks.PreToolUse: {{Matcher: "Bash", Hooks: []settings.Hook{hook}}}}
			})
			h.prompt(t, "run it")
			res := resultText(h.toolResult(t, "b1"))
			if blocked := strings.Contains(res, "no rm here"); blocked != tt.blocked {
				t.Errorf("blocked %v, want %v; result %q", blocked, tt.blocked, res)
			}
		})
	}
}

// TestClaudeEnvFile: what a SessionStart hook writes to CLAUDE_ENV_FILE
// is in force in the session's Bash commands; the file goes when the
// session closes.
func TestClaudeEnvFile(t *testing.T) {
	model := newScript(t, use("b1", "Bash", map[string]string{"command": "echo value=$HOOK_VAR"}), say("done"))
	record := filepath.Join(t.TempDir(), "envfile")
	h := newHarness(t, model, nil, func(c *Config) {
		hook := settings.Hook{Type: "command", Command: `echo "$CLAUDE_ENV_FILE" > "` + record + `"; echo 'export HOOK_VAR=from-the-hook' >> "$CLAUDE_ENV_FILE"`}
		c.Settings.Hooks = map[string][]settings.HookMatcher{hooks.SessionStart: {{Hooks: []settings.Hook{hook}}}}
	})
	h.prompt(t, "show it")
	if res := resultText(h.toolResult(t, "b1")); !strings.Contains(res, "value=from-the-hook") {
		t.Errorf("Bash result %q, want the variable the hook exported", res)
	}
	data, _ := os.ReadFile(record)
	path := strings.TrimSpace(string(data))
	if path == "" {
		t.Fatal("the hook got no CLAUDE_ENV_FILE")
	}
	h.svc.Close()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("%s is still there after the session closed: %v", path, err)
	}
}
