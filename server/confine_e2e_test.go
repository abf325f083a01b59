package server_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/internal/editortest"
	"github.com/agent-lsp/agent-lsp/internal/testenv"
	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/sandbox"
	"github.com/agent-lsp/agent-lsp/settings"
)

// requireBwrap ends the test through testenv.Missing when bubblewrap
// cannot run here.
func requireBwrap(t *testing.T) {
	t.Helper()
	if bwrap, why := sandbox.Probe(); bwrap == "" {
		testenv.Missing(t, "bubblewrap cannot run here (%s): run scripts/install-tools.sh", why)
	}
}

// TestAutoRunCommandsAreConfined checks the engine's wiring: a command
// that runs without a question runs confined, without the sidecar's
// environment and unable to write, and the system prompt's git status
// runs hardened. AGENT_LSP_CLASSIFIER=off makes every command such a
// command, whichever commands the classifier judges read-only.
func TestAutoRunCommandsAreConfined(t *testing.T) {
	requireBwrap(t)
	t.Setenv("AGENT_LSP_TEST_SECRET", "sk-test-secret")
	t.Setenv("AGENT_LSP_CLASSIFIER", "off")
	e := newEnv(t, map[string]string{"README.md": "hello\n"},
		fake.Turn{fake.ToolUse("toolu_1", "Bash", `{"command":"env"}`)},
		fake.Turn{fake.ToolUse("toolu_2", "Bash", `{"command":"echo pwned > new.txt; echo pwned >> README.md"}`)},
		fake.Turn{fake.Text("done")},
	)
	canary := filepath.Join(t.TempDir(), "fsmonitor-ran")
	git := exec.Command("git", "init", "-q", ".")
	git.Dir = e.root
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	f, err := os.OpenFile(e.path(".git/config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("[core]\n\tfsmonitor = \"touch " + canary + "\"\n")
	f.Close()

	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	if _, err := e.editor.Prompt(sid, "look around"); err != nil {
		t.Fatal(err)
	}
	envOut := resultText(e.toolResults(1)[0])
	if strings.Contains(envOut, "sk-test-secret") || !strings.Contains(envOut, "HOME=") {
		t.Errorf("the confined command saw the sidecar's environment:\n%s", envOut)
	}
	if n := len(e.editor.Permissions()); n != 0 {
		t.Errorf("%d permission requests, want none", n)
	}
	if _, err := os.Stat(e.path("new.txt")); err == nil || e.disk("README.md") != "hello\n" {
		t.Errorf("a confined command wrote the workspace")
	}
	if _, err := os.Stat(canary); err == nil {
		t.Error("the system prompt's git status ran the repository's core.fsmonitor")
	}
	if sys := e.requestText(0); !strings.Contains(sys, "Git branch:") {
		t.Errorf("the system prompt has no git status:\n%s", sys)
	}
}

// TestApprovedCommandRunsInTheWriteSandbox: a command the user approved
// writes the workspace, without the sidecar's secrets in its environment.
func TestApprovedCommandRunsInTheWriteSandbox(t *testing.T) {
	requireBwrap(t)
	t.Setenv("AGENT_LSP_TEST_SECRET", "sk-test-secret")
	e := newEnv(t, nil,
		fake.Turn{fake.ToolUse("toolu_1", "Bash", `{"command":"echo approved-$AGENT_LSP_TEST_SECRET > approved.txt"}`)},
		fake.Turn{fake.Text("done")},
	)
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	if _, err := e.editor.Prompt(sid, "write"); err != nil {
		t.Fatal(err)
	}
	if n := len(e.editor.Permissions()); n != 1 {
		t.Errorf("%d permission requests, want 1", n)
	}
	if got := e.disk("approved.txt"); got != "approved-\n" {
		t.Errorf("the approved command wrote %q", got)
	}
}

// TestGitAsksWhenItHoldsADeniedFile: a repository that holds a file a
// Read deny rule covers makes git commands ask, since the confined
// sandbox hides that repository's objects.
func TestGitAsksWhenItHoldsADeniedFile(t *testing.T) {
	requireBwrap(t)
	t.Setenv("AGENT_LSP_CLASSIFIER", "off") // whatever the classifier makes of git log
	e := newEnv(t, map[string]string{".env": "TOKEN=secret\n", ".claude/settings.json": `{"permissions": {"deny": ["Read(./.env)"]}}`},
		fake.Turn{fake.ToolUse("toolu_1", "Bash", `{"command":"git log --oneline"}`)},
		fake.Turn{fake.ToolUse("toolu_2", "Bash", `{"command":"ls"}`)},
		fake.Turn{fake.Text("done")},
	)
	git := exec.Command("bash", "-c", "git init -q . && git add .env && git -c user.name=a -c user.email=b commit -qm one")
	git.Dir = e.root
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git: %v\n%s", err, out)
	}
	st, problems := settings.Load(settings.Options{Project: e.root, Home: t.TempDir()})
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	e.configure(func(c *engine.Config) { c.Settings = st })
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	if _, err := e.editor.Prompt(sid, "look"); err != nil {
		t.Fatal(err)
	}
	perms := e.editor.Permissions()
	if len(perms) != 1 || !strings.Contains(fmt.Sprint(perms[0].ToolCall.RawInput), "git log") {
		t.Errorf("permission requests %+v, want one, for git log", perms)
	}
}

// TestDisableSandboxAsks: a read-only command that asks to leave the
// sandbox is asked about, with the model's reason, and once the user
// picks "Run outside the sandbox" runs with the host's view.
func TestDisableSandboxAsks(t *testing.T) {
	requireBwrap(t)
	t.Setenv("AGENT_LSP_CLASSIFIER", "off") // env would run confined without the flag
	t.Setenv("AGENT_LSP_TEST_SECRET", "sk-test-secret")
	e := newEnv(t, nil,
		fake.Turn{fake.ToolUse("toolu_1", "Bash", `{"command":"env","description":"Show the real environment","dangerouslyDisableSandbox":true}`)},
		fake.Turn{fake.Text("done")},
	)
	e.editor.OnPermission(editortest.Answer("allow_outside"))
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	if _, err := e.editor.Prompt(sid, "look"); err != nil {
		t.Fatal(err)
	}
	perms := e.editor.Permissions()
	if len(perms) != 1 {
		t.Fatalf("%d permission requests, want 1", len(perms))
	}
	if text := questionText(perms[0]); !strings.Contains(text, "The model asks to run it outside the sandbox, because: Show the real environment") {
		t.Errorf("the question does not give the model's reason:\n%s", text)
	}
	if out := resultText(e.toolResults(1)[0]); !strings.Contains(out, "sk-test-secret") {
		t.Errorf("the approved command did not run outside the sandbox:\n%s", out)
	}
}

// TestConfinementQuestionsInPlanMode: what would ask because of the
// sandbox is refused in plan mode, which never asks.
func TestConfinementQuestionsInPlanMode(t *testing.T) {
	requireBwrap(t)
	t.Setenv("AGENT_LSP_CLASSIFIER", "off")
	e := newEnv(t, nil,
		fake.Turn{fake.ToolUse("toolu_1", "Bash", `{"command":"ls","dangerouslyDisableSandbox":true}`)},
		fake.Turn{fake.Text("done")},
	)
	e.configure(func(c *engine.Config) { c.Mode = "plan" })
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	if _, err := e.editor.Prompt(sid, "look"); err != nil {
		t.Fatal(err)
	}
	if n := len(e.editor.Permissions()); n != 0 {
		t.Errorf("%d permission requests in plan mode", n)
	}
	if out := resultText(e.toolResults(1)[0]); !strings.Contains(out, "plan mode") {
		t.Errorf("result %q, want a refusal naming plan mode", out)
	}
}

// TestRuleAllowedCommandIsHeld: commands that the user's allow rules
// allow run without a question in the rule sandbox (issue 17 point 3): a
// prefix rule's options (git log --output) cannot write outside, a script
// cannot read the home's credentials or the sidecar's secrets, while the
// workspace stays writable and a failure says where the command ran.
func TestRuleAllowedCommandIsHeld(t *testing.T) {
	requireBwrap(t)
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("FAKE-KEY-CONTENT\n"), 0o600)
	t.Setenv("HOME", home)
	t.Setenv("AGENT_LSP_TEST_SECRET", "sk-test-secret")
	t.Setenv("CLAUDE_CODE_OAUTH_TOKEN", "oauth-test-secret")
	outside, err := os.MkdirTemp("/var/tmp", "agent-lsp-rule-e2e-")
	if err != nil {
		outside = t.TempDir()
	}
	t.Cleanup(func() { os.RemoveAll(outside) })
	escaped := filepath.Join(outside, "escaped.txt")
	// The user's own rules (a project's rules wait for folder trust).
	os.MkdirAll(filepath.Join(home, ".claude"), 0o755)
	os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte(`{"permissions": {"allow": ["Bash(git log:*)", "Bash(sh:*)"]}}`), 0o644)
	e := newEnv(t, map[string]string{"README.md": "hello\n"},
		fake.Turn{fake.ToolUse("toolu_1", "Bash", `{"command":"git log --output=`+escaped+` -1"}`)},
		fake.Turn{fake.ToolUse("toolu_2", "Bash", `{"command":"sh -c 'echo secret=$AGENT_LSP_TEST_SECRET$CLAUDE_CODE_OAUTH_TOKEN; cat ~/.ssh/id_rsa; echo built > built.txt'"}`)},
		fake.Turn{fake.Text("done")},
	)
	git := exec.Command("bash", "-c", "git init -q . && git add README.md && git -c user.name=a -c user.email=b commit -qm one")
	git.Dir = e.root
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git: %v\n%s", err, out)
	}
	st, problems := settings.Load(settings.Options{Project: e.root, Home: home})
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	e.configure(func(c *engine.Config) { c.Settings = st })
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	if _, err := e.editor.Prompt(sid, "build"); err != nil {
		t.Fatal(err)
	}
	if n := len(e.editor.Permissions()); n != 0 {
		t.Errorf("%d permission requests, want none (the rules allow both)", n)
	}
	if _, err := os.Stat(escaped); err == nil {
		t.Error("a rule-allowed git log --output wrote outside the workspace")
	}
	if got := resultText(e.toolResults(1)[0]); !strings.Contains(got, "write sandbox, where commands allowed by a rule") {
		t.Errorf("the failed git log result does not say where it ran:\n%s", got)
	}
	out := resultText(e.toolResults(2)[0])
	if strings.Contains(out, "sk-test-secret") || strings.Contains(out, "oauth-test-secret") || strings.Contains(out, "FAKE-KEY-CONTENT") {
		t.Errorf("a rule-allowed command saw a secret:\n%s", out)
	}
	if got := e.disk("built.txt"); got != "built\n" {
		t.Errorf("a rule-allowed command could not write the workspace: built.txt = %q\n%s", got, out)
	}
}
