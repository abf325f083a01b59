package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/internal/editortest"
	"github.com/agent-lsp/agent-lsp/providers/fake"
)

// TestExitDoesNotWaitForTheReader: after shutdown and exit the process
// ends at once, without waiting for its reader: with a blocking stdin (as
// Emacs gives it) nothing interrupts that read, and eglot kills a server
// that lingers.
func TestExitDoesNotWaitForTheReader(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	// Its stdin is a FIFO the shell opens: blocking, as Emacs's pipes
	// are (a pipe from Go is not, and Go's poller could interrupt the
	// read).
	fifo := filepath.Join(t.TempDir(), "stdin")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", `exec "$0" < "$1"`, binary, fifo)
	cmd.Env = append(os.Environ(), "ANTHROPIC_API_KEY=", "AGENT_LSP_HOME="+t.TempDir(), "AGENT_LSP_NO_USER_SETTINGS=1")
	out, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	frame := func(msg string) { fmt.Fprintf(w, "Content-Length: %d\r\n\r\n%s", len(msg), msg) }
	frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":"file://` + root + `","capabilities":{}}}`)
	frame(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`)
	buf := bufio.NewReader(out)
	for answered := ""; !strings.Contains(answered, `"id":2`); {
		line, err := buf.ReadString('}')
		if err != nil {
			t.Fatalf("reading the answers: %v", err)
		}
		answered += line
	}
	frame(`{"jsonrpc":"2.0","method":"exit"}`)
	go io.Copy(io.Discard, buf)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit after shutdown: %v, want code 0", err)
		}
	case <-time.After(editortest.Timeout):
		cmd.Process.Kill()
		t.Fatal("agent-lsp did not exit after exit")
	}
	if strings.Contains(stderr.String(), "did not close") {
		t.Errorf("agent-lsp waited for its reader after exit:\n%s", stderr.String())
	}
}

// acpProcess is the binary's ACP door driven line by line, as a
// command-line client drives it.
type acpProcess struct {
	t     *testing.T
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan map[string]any
}

func startACPProcess(t *testing.T, env ...string) *acpProcess {
	t.Helper()
	cmd := exec.Command(binary, "acp")
	cmd.Env = append(os.Environ(), env...)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &acpProcess{t: t, cmd: cmd, in: in, lines: make(chan map[string]any, 100)}
	go func() {
		defer close(p.lines)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				p.lines <- m
			}
		}
	}()
	t.Cleanup(func() {
		in.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	return p
}

func (p *acpProcess) send(id int, method string, params any) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	p.in.Write(append(b, '\n'))
}

// next returns the next message matching cond; it fails the test when the
// output ends first.
func (p *acpProcess) next(what string, cond func(map[string]any) bool) map[string]any {
	p.t.Helper()
	timeout := time.After(editortest.Timeout)
	for {
		select {
		case m, ok := <-p.lines:
			if !ok {
				p.t.Fatalf("agent-lsp's output ended before %s", what)
			}
			if cond(m) {
				return m
			}
		case <-timeout:
			p.t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func answerTo(id int) func(map[string]any) bool {
	return func(m map[string]any) bool { return m["method"] == nil && fmt.Sprint(m["id"]) == fmt.Sprint(id) }
}

// TestACPSIGINTCancelsAndAnswers: a command-line ACP client's Ctrl-C
// reaches agent-lsp as SIGINT; the running prompt is answered
// "cancelled" before the process exits.
func TestACPSIGINTCancelsAndAnswers(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	model := fake.NewAnthropic(t,
		fake.Turn{fake.ToolUse("toolu_1", "Bash", `{"command":"touch made.txt"}`)},
		fake.Turn{fake.Text("never")},
	)
	p := startACPProcess(t, "ANTHROPIC_API_KEY=test", "ANTHROPIC_BASE_URL="+model.BaseURL(), "AGENT_LSP_HOME="+t.TempDir(), "AGENT_LSP_NO_USER_SETTINGS=1")
	p.send(1, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	p.next("initialize's answer", answerTo(1))
	p.send(2, "session/new", map[string]any{"cwd": root, "mcpServers": []any{}})
	res := p.next("session/new's answer", answerTo(2))
	sid := res["result"].(map[string]any)["sessionId"]
	p.send(3, "session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": "make a file"}}})
	p.next("the permission request", func(m map[string]any) bool { return m["method"] == "session/request_permission" })
	p.cmd.Process.Signal(syscall.SIGINT)
	ans := p.next("the prompt's answer after SIGINT", answerTo(3))
	if r, _ := ans["result"].(map[string]any); r["stopReason"] != "cancelled" {
		t.Errorf("prompt answered %v after SIGINT, want stopReason cancelled", ans)
	}
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("agent-lsp acp after SIGINT: %v, want exit code 0", err)
		}
	case <-time.After(editortest.Timeout):
		t.Fatal("agent-lsp acp did not exit after SIGINT")
	}
	if _, err := os.Stat(filepath.Join(root, "made.txt")); err == nil {
		t.Error("the command ran although its permission was never given")
	}
}
