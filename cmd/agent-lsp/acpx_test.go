package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/internal/proctest"
	"github.com/agent-lsp/agent-lsp/internal/testenv"
	"github.com/agent-lsp/agent-lsp/providers/fake"
)

// acpxPath returns the acpx that scripts/install-acpx.sh installs. Without
// it the test is skipped, unless AGENT_LSP_REQUIRE_EDITORS is set (as
// `make test` does), when it fails.
func acpxPath(t *testing.T) string {
	t.Helper()
	p := filepath.Join(testenv.CacheDir(), "acpx", "node_modules", ".bin", "acpx")
	return testenv.NeedFile(t, p, "acpx", "run scripts/install-acpx.sh")
}

// acpxRun runs acpx with agent-lsp as its agent in root, as its users run
// it from a shell, and returns its output.
type acpxEnv struct {
	t     *testing.T
	acpx  string
	root  string
	env   []string
	model *fake.Server
}

func newACPXEnv(t *testing.T, turns ...fake.Turn) *acpxEnv {
	acpx := acpxPath(t)
	root, _ := filepath.EvalSymlinks(t.TempDir())
	os.Mkdir(filepath.Join(root, ".git"), 0o755)
	model := fake.NewAnthropic(t, turns...)
	env := append(os.Environ(), "HOME="+t.TempDir(), "ANTHROPIC_API_KEY=test", "ANTHROPIC_BASE_URL="+model.BaseURL(),
		"AGENT_LSP_HOME="+t.TempDir(), "AGENT_LSP_NO_USER_SETTINGS=1")
	proctest.Reaped(t)
	// acpx's queue owner leaves on its own, --ttl after its last prompt,
	// once its bookkeeping (a scan of the process table) is done: under
	// load that takes longer than proctest's grace, so wait for it first
	// (this cleanup runs before Reaped's).
	t.Cleanup(func() {
		for deadline := time.Now().Add(30 * time.Second); running(acpxQueueOwner) || running(binary); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Error("acpx's queue owner or agent-lsp still runs 30 s after the test")
				return
			}
		}
	})
	return &acpxEnv{t: t, acpx: acpx, root: root, env: env, model: model}
}

// acpxQueueOwner marks the command line of acpx's queue owner process.
const acpxQueueOwner = "__queue-owner"

func (a *acpxEnv) command(args ...string) *exec.Cmd {
	cmd := exec.Command(a.acpx, append([]string{"--agent", binary + " acp", "--approve-all", "--format", "text", "--ttl", "1"}, args...)...)
	cmd.Dir, cmd.Env = a.root, a.env
	return cmd
}

func (a *acpxEnv) run(args ...string) string {
	a.t.Helper()
	out, err := a.command(args...).CombinedOutput()
	if err != nil {
		a.t.Fatalf("acpx %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestACPXOneShotAndSessions: a one-shot prompt, and a persistent session
// that a second acpx process continues (the model sees the first turn).
func TestACPXOneShotAndSessions(t *testing.T) {
	a := newACPXEnv(t,
		fake.Turn{fake.Text("Hello from the fake model.")},
		fake.Turn{fake.Text("First answer.")},
		fake.Turn{fake.Text("Second answer.")},
	)
	if out := a.run("exec", "say hi"); !strings.Contains(out, "Hello from the fake model.") {
		t.Fatalf("acpx exec output lacks the answer:\n%s", out)
	}
	a.run("sessions", "new")
	if out := a.run("prompt", "remember the word pelican"); !strings.Contains(out, "First answer.") {
		t.Fatalf("first prompt:\n%s", out)
	}
	// acpx's queue owner keeps the agent for --ttl (1 s) after a prompt;
	// once it is gone the next command starts a new agent-lsp, which must
	// continue the session from its file.
	for deadline := time.Now().Add(20 * time.Second); running(binary); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("acpx's queue owner or agent-lsp still runs 20 s after the prompt")
		}
	}
	out := ""
	for try := 0; try < 20; try++ {
		cmd := a.command("prompt", "which word?")
		b, err := cmd.CombinedOutput()
		out = string(b)
		if err == nil || !strings.Contains(out, "Queue owner is shutting down") {
			break
		}
		time.Sleep(250 * time.Millisecond) // the previous owner is still leaving
	}
	if !strings.Contains(out, "Second answer.") {
		t.Fatalf("second prompt:\n%s", out)
	}
	reqs := a.model.Requests()
	if last := string(reqs[len(reqs)-1].Body); !strings.Contains(last, "pelican") {
		t.Errorf("the second prompt's model request lacks the first turn: the session was not continued:\n%s", last)
	}
}

// TestACPXCtrlC: Ctrl-C in a one-shot run reaches agent-lsp as SIGINT
// (the terminal signals the whole foreground process group); the prompt
// is answered "cancelled" and nothing is left running.
func TestACPXCtrlC(t *testing.T) {
	a := newACPXEnv(t,
		fake.Turn{fake.Text("Working on it..."), fake.Hang(3)},
	)
	cmd := a.command("exec", "do something long")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.Now().Add(30 * time.Second)
	for len(a.model.Requests()) == 0 { // the prompt runs: the model was asked
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the turn did not start:\n%s", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGINT) // Ctrl-C: the whole group
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		t.Fatalf("acpx did not end after Ctrl-C:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "cancelled") {
		t.Errorf("acpx did not report the prompt cancelled:\n%s", out.String())
	}
}
