package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/internal/editortest"
	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/schema"
)

// binary is the agent-lsp built for these tests.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "agent-lsp-bin-")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "agent-lsp")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		panic("building agent-lsp: " + err.Error())
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func TestDemo(t *testing.T) {
	// A language server on the user's PATH that would serve calc.py: the
	// demo asks to trust its folder, says "Not now" and never starts it.
	bin := t.TempDir()
	ran := filepath.Join(t.TempDir(), "ran")
	os.WriteFile(filepath.Join(bin, "pyright-langserver"), []byte("#!/bin/sh\necho ran > "+ran+"\n"), 0o755)
	cmd := exec.Command(binary, "demo")
	cmd.Env = append(os.Environ(), "ANTHROPIC_API_KEY=", "NO_COLOR=1", "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("agent-lsp demo: %v\n%s", err, out)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Error("the demo started a language server from PATH")
	}
	// With no user files (AGENT_LSP_NO_USER_SETTINGS) there is no
	// ~/.claude/CLAUDE.md to complain about.
	if strings.Contains(string(out), "agent-lsp: instructions:") {
		t.Errorf("demo output has a warning about instruction files:\n%s", out)
	}
	for _, want := range []string{
		"A language server would run code from it: pyright-langserver",
		"→ Not now",
		"agent> I'll start by reading `calc.py`",
		"⏺ Read",
		"? permission: Edit",
		"+    return total(values) / len(values)",
		"→ Allow",
		"stop reason: end_turn",
		"changes made in the workspace:",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}

func TestBinaryEndToEnd(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("one\ntwo\n"), 0o644)
	model := fake.NewAnthropic(t,
		fake.Turn{fake.ToolUse("toolu_1", "Read", `{"file_path":"a.txt"}`)},
		fake.Turn{fake.ToolUse("toolu_2", "Edit", `{"file_path":"a.txt","old_string":"two","new_string":"2"}`)},
		fake.Turn{fake.Text("done")},
	)
	ed, _ := editortest.NewProcess(t, binary, []string{"--stdio"},
		"ANTHROPIC_API_KEY=test", "ANTHROPIC_BASE_URL="+model.BaseURL(), "AGENT_LSP_HOME="+t.TempDir(), "AGENT_LSP_NO_USER_SETTINGS=1")
	ed.Initialize(root, nil)
	sid := ed.NewSession(root)
	stop, err := ed.Prompt(sid, "edit a.txt")
	if err != nil || stop != schema.StopEndTurn {
		t.Fatalf("prompt = %q, %v", stop, err)
	}
	if b, _ := ed.Buffer(filepath.Join(root, "a.txt")); b.Text != "one\n2\n" {
		t.Errorf("buffer = %q", b.Text)
	}
}

func TestStdinEOFExitsAndLeavesNoChild(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	marker := fmt.Sprintf("%d.%d", 900+os.Getpid()%100, time.Now().UnixNano()%1000000)
	model := fake.NewAnthropic(t,
		fake.Turn{fake.ToolUse("toolu_1", "Bash", fmt.Sprintf(`{"command":"sleep %s","run_in_background":true}`, marker))},
		fake.Turn{fake.Text("started")},
	)
	ed, proc := editortest.NewProcess(t, binary, nil,
		"ANTHROPIC_API_KEY=test", "ANTHROPIC_BASE_URL="+model.BaseURL(), "AGENT_LSP_HOME="+t.TempDir(), "AGENT_LSP_NO_USER_SETTINGS=1")
	ed.Initialize(root, nil)
	sid := ed.NewSession(root)
	if _, err := ed.Prompt(sid, "start a background job"); err != nil {
		t.Fatal(err)
	}
	// The command starts through the sandbox's launcher and bwrap after
	// the turn's answer: give a loaded machine time to get there.
	for deadline := time.Now().Add(15 * time.Second); !running(marker) && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	if !running(marker) {
		t.Fatal("the background command is not running; the test cannot check its cleanup")
	}
	proc.CloseStdin()
	select {
	case <-proc.Exited:
	case <-time.After(10 * time.Second):
		t.Fatal("agent-lsp did not exit after stdin closed")
	}
	deadline := time.Now().Add(5 * time.Second)
	for running(marker) {
		if time.Now().After(deadline) {
			t.Fatal("the background command outlived agent-lsp")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// running reports whether a process whose command line contains marker
// is alive.
func running(marker string) bool {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(b), marker) {
			stat, _ := os.ReadFile(filepath.Join(filepath.Dir(p), "stat"))
			// A zombie is dead already.
			if f := strings.Fields(string(stat)); len(f) > 2 && f[2] == "Z" {
				continue
			}
			return true
		}
	}
	return false
}

// lockedBuffer collects a child's output from several goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestChatAsksOnTheTerminal(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("one\n"), 0o644)
	model := fake.NewAnthropic(t,
		fake.Turn{fake.ToolUse("toolu_1", "Read", `{"file_path":"a.txt"}`)},
		fake.Turn{fake.ToolUse("toolu_2", "Edit", `{"file_path":"a.txt","old_string":"one","new_string":"uno"}`)},
		fake.Turn{fake.Text("Translated.")},
	)
	cmd := exec.Command(binary, "chat", "translate a.txt")
	cmd.Dir = root
	cmd.Stdin = strings.NewReader("y\n")
	cmd.Env = append(os.Environ(), "ANTHROPIC_API_KEY=test", "ANTHROPIC_BASE_URL="+model.BaseURL(),
		"AGENT_LSP_HOME="+t.TempDir(), "AGENT_LSP_NO_USER_SETTINGS=1", "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("agent-lsp chat: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "allow? [y]es once") || !strings.Contains(string(out), "Translated.") {
		t.Errorf("chat output:\n%s", out)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(b) != "uno\n" {
		t.Errorf("a.txt = %q, want the approved edit", b)
	}
}

func TestChatWithoutKeySaysWhatToSet(t *testing.T) {
	cmd := exec.Command(binary, "chat", "hello")
	cmd.Env = append(os.Environ(), "ANTHROPIC_API_KEY=", "OPENAI_API_KEY=")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "ANTHROPIC_API_KEY") {
		t.Errorf("chat without a key: err %v, output %s", err, out)
	}
}

func TestSettingsProblemsShownAndReloaded(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	os.MkdirAll(filepath.Join(root, ".claude"), 0o755)
	settingsPath := filepath.Join(root, ".claude", "settings.json")
	os.WriteFile(settingsPath, []byte("{\n  \"permissions\": {\"allow\": [\"Read\",]}\n}\n"), 0o644)
	os.WriteFile(filepath.Join(root, "secret.txt"), []byte("s3cret\n"), 0o644)
	model := fake.NewAnthropic(t,
		fake.Turn{fake.ToolUse("toolu_1", "Read", `{"file_path":"secret.txt"}`)},
		fake.Turn{fake.Text("ok")},
	)
	ed, _ := editortest.NewProcess(t, binary, nil,
		"ANTHROPIC_API_KEY=test", "ANTHROPIC_BASE_URL="+model.BaseURL(), "AGENT_LSP_HOME="+t.TempDir(), "AGENT_LSP_NO_USER_SETTINGS=1")
	ed.Initialize(root, nil)
	sid := ed.NewSession(root)
	ed.WaitFor("a warning naming the settings file and position", func() bool {
		for _, n := range ed.Notifications() {
			if n.Method == "agent/status" && strings.Contains(string(n.Params), "settings.json:2") {
				return true
			}
		}
		return false
	})
	// Fixing the file takes effect without a restart; a key Claude Code
	// does not have is a warning naming it and the key it misspells.
	os.WriteFile(settingsPath, []byte(`{"permissions": {"deny": ["Read(secret.txt)"]}, "respectGitIgnore": false}`), 0o644)
	for _, want := range []string{"settings reloaded", `unknown setting \"respectGitIgnore\"`, `did you mean \"respectGitignore\"`} {
		ed.WaitFor(want, func() bool {
			for _, n := range ed.Notifications() {
				if n.Method == "agent/status" && strings.Contains(string(n.Params), want) {
					return true
				}
			}
			return false
		})
	}
	if _, err := ed.Prompt(sid, "read the secret"); err != nil {
		t.Fatal(err)
	}
	var body struct {
		Messages []struct {
			Content []map[string]any `json:"content"`
		} `json:"messages"`
	}
	model.Requests()[1].Decode(&body)
	last := body.Messages[len(body.Messages)-1].Content[0]
	if last["is_error"] != true || strings.Contains(fmt.Sprint(last["content"]), "s3cret") {
		t.Errorf("the reloaded deny rule did not hold: %v", last)
	}
}

func TestExitAndSIGTERMEndTheProcessWithStdinOpen(t *testing.T) {
	for _, how := range []string{"exit", "SIGTERM"} {
		t.Run(how, func(t *testing.T) {
			root, _ := filepath.EvalSymlinks(t.TempDir())
			ed, proc := editortest.NewProcess(t, binary, nil, "ANTHROPIC_API_KEY=", "AGENT_LSP_HOME="+t.TempDir(), "AGENT_LSP_NO_USER_SETTINGS=1")
			ed.Initialize(root, nil)
			if how == "exit" {
				ed.MustCall("shutdown", nil, nil)
				ed.Notify("exit", nil)
			} else {
				proc.Cmd.Process.Signal(syscall.SIGTERM)
			}
			select {
			case <-proc.Exited:
			case <-time.After(5 * time.Second):
				t.Fatalf("agent-lsp still runs 5 s after %s with its stdin open", how)
			}
			if how == "exit" && proc.Cmd.ProcessState.ExitCode() != 0 {
				t.Errorf("exit after shutdown: code %d, want 0", proc.Cmd.ProcessState.ExitCode())
			}
		})
	}
}

func TestACPBinaryAnswersInitializeOnStdout(t *testing.T) {
	cmd := exec.Command(binary, "acp")
	cmd.Env = append(os.Environ(), "ANTHROPIC_API_KEY=", "AGENT_LSP_HOME="+t.TempDir(), "AGENT_LSP_NO_USER_SETTINGS=1")
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}` + "\n")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("agent-lsp acp: %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], `"protocolVersion":1`) || !strings.Contains(lines[0], `"loadSession":true`) {
		t.Errorf("stdout must hold exactly the initialize response, got:\n%s", out)
	}
}
