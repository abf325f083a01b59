package settings

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestHookProblems: what Claude Code reads but agent-lsp does not run is
// a warning naming it; only what Claude Code would refuse too is an
// error.
func TestHookProblems(t *testing.T) {
	tests := []struct {
		name    string
		hooks   string
		want    string // fragment of the one problem, "" for none
		warning bool
	}{
		{"command with if, args, status", `{"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "check", "args": ["-v"], "if": "Bash(rm *)", "statusMessage": "Checking", "timeout": 5}]}]}`, "", false},
		{"http", `{"PostToolUse": [{"hooks": [{"type": "http", "url": "http://127.0.0.1:1/h", "headers": {"Authorization": "Bearer $TOKEN"}, "allowedEnvVars": ["TOKEN"]}]}]}`, "", false},
		{"new events", `{"SessionEnd": [{"hooks": [{"type": "command", "command": "a"}]}], "PreCompact": [{"matcher": "manual", "hooks": [{"type": "command", "command": "b"}]}], "SubagentStop": [{"hooks": [{"type": "command", "command": "c"}]}]}`, "", false},
		{"unknown event", `{"TeammateIdle": [{"hooks": [{"type": "command", "command": "a"}, {"type": "command", "command": "b"}]}]}`, "no TeammateIdle event, so its 2 hooks never run", true},
		{"prompt hook", `{"Stop": [{"hooks": [{"type": "prompt", "prompt": "Is the work done?"}]}]}`, "", false},
		{"prompt hook off its events", `{"SessionStart": [{"hooks": [{"type": "prompt", "prompt": "Greet"}]}]}`, `prompt hooks run on PreToolUse, PostToolUse, PostToolUseFailure, PermissionRequest, UserPromptSubmit, Stop, SubagentStop only, so this one ("Greet") never runs`, true},
		{"prompt hook without prompt", `{"Stop": [{"hooks": [{"type": "prompt"}]}]}`, "prompt hook has no prompt", false},
		{"agent hook", `{"Stop": [{"hooks": [{"type": "agent", "prompt": "Run the tests"}]}]}`, `agent hooks are not supported by agent-lsp, so this one ("Run the tests") never runs`, true},
		{"if on a non-tool event", `{"Stop": [{"hooks": [{"type": "command", "command": "a", "if": "Bash(x)"}]}]}`, `"if" applies to tool events only`, true},
		{"bad if", `{"PreToolUse": [{"hooks": [{"type": "command", "command": "a", "if": "Bash(x"}]}]}`, `is not a permission rule`, false},
		{"no url", `{"PreToolUse": [{"hooks": [{"type": "http"}]}]}`, "http hook has no url", false},
		{"unknown type", `{"PreToolUse": [{"hooks": [{"type": "webhook", "command": "a"}]}]}`, `unknown hook type "webhook"`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			write(t, filepath.Join(f.project, ".claude", "settings.json"), `{"hooks": `+tt.hooks+`}`)
			opts := f.opts()
			opts.CheckRule = func(r string) error {
				if !strings.HasSuffix(r, ")") {
					return errors.New("missing closing parenthesis")
				}
				return nil
			}
			_, problems := Load(opts)
			if tt.want == "" {
				if len(problems) > 0 {
					t.Fatalf("problems = %v, want none", problems)
				}
				return
			}
			if len(problems) != 1 || !strings.Contains(problems[0].Message, tt.want) || problems[0].Warning != tt.warning {
				t.Fatalf("problems = %+v, want one (warning %v) saying %q", problems, tt.warning, tt.want)
			}
		})
	}
}
