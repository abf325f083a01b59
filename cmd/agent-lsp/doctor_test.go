package main

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/settings"
)

// TestDoctor runs `agent-lsp doctor --json` against a good workspace and
// broken ones; each gives its message and exit code.
func TestDoctor(t *testing.T) {
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNotFound) }))
	defer model.Close()

	// A PATH with git and bwrap but no rg.
	noRG := t.TempDir()
	for _, prog := range []string{"git", "bwrap"} {
		if p, err := exec.LookPath(prog); err == nil {
			os.Symlink(p, filepath.Join(noRG, prog))
		}
	}

	type want struct {
		name, status, message, fix string
	}
	tests := []struct {
		name      string
		key       string
		untrusted bool
		files     map[string]string // relative to the workspace
		path      string            // PATH; empty keeps the test's
		exit      int
		want      []want
	}{
		{
			name: "good", key: "k", exit: 0,
			want: []want{
				{name: "provider", status: "ok", message: "(reachable)"},
				{name: "settings", status: "ok"},
				{name: "trust", status: "ok", message: "trusted before"},
				{name: "sessions", status: "ok", message: "is writable"},
				{name: "mcp", status: "ok", message: "no MCP servers"},
			},
		},
		{
			name: "no key", exit: 1,
			// The same words as the prompt's error and the editors.
			want: []want{{name: "provider", status: "error", message: engine.NoProviderMessage, fix: "ANTHROPIC_API_KEY"}},
		},
		{
			name: "bad JSON", key: "k", exit: 1,
			files: map[string]string{".claude/settings.local.json": "{\n  \"permissions\": {\"deny\": [\"Bash\",]}\n}\n"},
			want:  []want{{name: "settings", status: "error", message: "settings.local.json:2:", fix: "correct"}},
		},
		{
			// A valid Claude Code file whose hooks agent-lsp does not all
			// run: warnings naming what will not run, exit 0.
			name: "claude code hooks", key: "k", exit: 0,
			files: map[string]string{".claude/settings.json": `{"hooks": {
  "TeammateIdle": [{"hooks": [{"type": "command", "command": "notify"}]}],
  "Stop": [{"hooks": [{"type": "agent", "prompt": "Is the work done?"}]}],
  "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard", "if": "Bash(rm *)", "statusMessage": "Guarding"}]}]
}}`},
			want: []want{
				{name: "settings", status: "warning", message: "no TeammateIdle event, so its hook never runs"},
				{name: "settings", status: "warning", message: `agent hooks are not supported by agent-lsp, so this one ("Is the work done?") never runs`},
			},
		},
		{
			// A Claude Code key with a typo is named with the key it
			// misspells; a known key agent-lsp reads past says why. The
			// session runs: exit 0.
			name: "unknown and inert keys", key: "k", exit: 0,
			files: map[string]string{".claude/settings.json": `{
  "includeCoAuthoredBy": false,
  "cleanupPeriodDay": 3,
  "statusLine": {"type": "command", "command": "status.sh"}
}`},
			want: []want{
				{name: "settings", status: "warning", message: `settings.json:3:23: unknown setting "cleanupPeriodDay": Claude Code 2.1.332 does not have it, and it has no effect (did you mean "cleanupPeriodDays"?)`},
				{name: "settings", status: "warning", message: "settings.json:4:17: statusLine has no effect in agent-lsp: the editor draws the status"},
			},
		},
		{
			// Claude Code's switch in the settings' env: Bedrock, named
			// by doctor with its region and credentials.
			name: "bedrock", exit: 0,
			files: map[string]string{".claude/settings.json": `{"env": {"CLAUDE_CODE_USE_BEDROCK": "1", "AWS_REGION": "eu-west-1", "CLAUDE_CODE_SKIP_BEDROCK_AUTH": "1", "ANTHROPIC_BEDROCK_BASE_URL": "` + model.URL + `"}}`},
			want:  []want{{name: "provider", status: "ok", message: "Claude through Amazon Bedrock (region eu-west-1), model eu.anthropic.claude-sonnet-4-5-20250929-v1:0, no credentials (CLAUDE_CODE_SKIP_BEDROCK_AUTH"}},
		},
		{
			name: "vertex without project", exit: 1,
			files: map[string]string{".claude/settings.json": `{"env": {"CLAUDE_CODE_USE_VERTEX": "1", "CLOUD_ML_REGION": "us-east5"}}`},
			want:  []want{{name: "provider", status: "error", message: "CLAUDE_CODE_USE_VERTEX is set but ANTHROPIC_VERTEX_PROJECT_ID not", fix: "set the variable named"}},
		},
		{
			// An untrusted folder cannot switch the provider: its env
			// is held back, the key and endpoint stay Anthropic's.
			name: "untrusted bedrock", key: "k", untrusted: true, exit: 0,
			files: map[string]string{".claude/settings.json": `{"env": {"CLAUDE_CODE_USE_BEDROCK": "1", "AWS_REGION": "eu-west-1", "CLAUDE_CODE_SKIP_BEDROCK_AUTH": "1"}}`},
			want:  []want{{name: "provider", status: "ok", message: "anthropic, model claude-sonnet-4-5, key from ANTHROPIC_API_KEY, " + model.URL}},
		},
		{
			name: "missing rg", key: "k", path: noRG, exit: 0,
			want: []want{{name: "ripgrep", status: "warning", message: "rg is not on PATH", fix: "install ripgrep"}},
		},
		{
			name: "untrusted folder", key: "k", untrusted: true, exit: 0,
			files: map[string]string{
				".mcp.json":             `{"mcpServers": {"evil": {"command": "sh", "args": ["-c", "touch started"]}}}`,
				".claude/settings.json": `{"enableAllProjectMcpServers": true}`,
			},
			want: []want{{name: "trust", status: "warning", message: "is not trusted", fix: "trust"}},
		},
		{
			name: "language server not installed", key: "k", exit: 0,
			files: map[string]string{".claude/settings.json": `{"lsp": {"zig": {"command": ["/nonexistent/zls"], "filetypes": ["zig"]}}}`},
			want:  []want{{name: "lsp:zig", status: "warning", message: "/nonexistent/zls is not on PATH", fix: "install"}},
		},
		{
			name: "broken MCP server", key: "k", exit: 0,
			files: map[string]string{".claude/settings.json": `{"mcpServers": {"broken": {"command": "/nonexistent/mcp-server"}}}`},
			want:  []want{{name: "mcp:broken", status: "warning", message: "failed", fix: "command"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			ws := filepath.Join(tmp, "ws")
			state := filepath.Join(tmp, "state")
			for name, text := range tc.files {
				p := filepath.Join(ws, name)
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			os.MkdirAll(ws, 0o755)
			if !tc.untrusted {
				if err := settings.NewTrustStore(filepath.Join(state, "trust.json")).Trust(settings.ResolveFolder(ws)); err != nil {
					t.Fatal(err)
				}
			}
			env := []string{"HOME=" + filepath.Join(tmp, "home"), "AGENT_LSP_HOME=" + state, "AGENT_LSP_NO_USER_SETTINGS=1",
				"ANTHROPIC_API_KEY=" + tc.key, "ANTHROPIC_BASE_URL=" + model.URL}
			for _, kv := range os.Environ() {
				k, _, _ := strings.Cut(kv, "=")
				if strings.HasPrefix(k, "ANTHROPIC_") || strings.HasPrefix(k, "OPENAI_") || strings.HasPrefix(k, "CLAUDE_CODE_") || strings.HasPrefix(k, "AWS_") || strings.HasPrefix(k, "CLOUD_ML_") || strings.HasPrefix(k, "AGENT_LSP_") || k == "HOME" || k == "CLAUDE_CONFIG_DIR" || k == "XDG_STATE_HOME" || (k == "PATH" && tc.path != "") {
					continue
				}
				env = append(env, kv)
			}
			if tc.path != "" {
				env = append(env, "PATH="+tc.path)
			}
			cmd := exec.Command(binary, "doctor", "--json", "-C", ws)
			cmd.Env = env
			out, err := cmd.Output()
			code := 0
			var exitErr *exec.ExitError
			if errors.As(err, &exitErr) {
				code = exitErr.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			var r doctorReport
			if err := json.Unmarshal(out, &r); err != nil {
				t.Fatalf("doctor --json printed %q: %v", out, err)
			}
			if code != tc.exit || r.OK != (tc.exit == 0) {
				t.Errorf("exit code %d, ok %v; want %d\n%s", code, r.OK, tc.exit, out)
			}
			for _, w := range tc.want {
				found := false
				for _, c := range r.Checks {
					if c.Name == w.name && c.Status == w.status && strings.Contains(c.Message, w.message) && strings.Contains(c.Fix, w.fix) {
						found = true
					}
				}
				if !found {
					t.Errorf("no %s check %q with message %q and fix %q in\n%s", w.status, w.name, w.message, w.fix, out)
				}
			}
			if _, err := os.Stat(filepath.Join(ws, "started")); err == nil {
				t.Errorf("doctor started a server of an untrusted folder's .mcp.json")
			}
		})
	}
}
