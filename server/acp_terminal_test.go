package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"golang.org/x/sys/unix"

	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/rpc"
	"github.com/agent-lsp/agent-lsp/schema"
)

// editorTerminals is an ACP client's terminal: it runs real processes for
// terminal/create and answers the other terminal methods as an editor
// does, recording every request.
type editorTerminals struct {
	t *testing.T

	mu       sync.Mutex
	next     int                          // guarded by mu
	running  map[string]*editorTerminal   // by id, guarded by mu
	requests []string                     // "method id", guarded by mu
	created  []map[string]json.RawMessage // terminal/create params, guarded by mu
}

type editorTerminal struct {
	cmd  *exec.Cmd
	out  *tailBuffer
	done chan struct{} // closed when the command has ended
}

// tailBuffer keeps the last limit bytes written to it.
type tailBuffer struct {
	mu        sync.Mutex
	buf       []byte // guarded by mu
	limit     int
	truncated bool // guarded by mu
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if b.limit > 0 && len(b.buf) > b.limit {
		b.buf, b.truncated = append([]byte(nil), b.buf[len(b.buf)-b.limit:]...), true
	}
	return len(p), nil
}

func (b *tailBuffer) read() (string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf), b.truncated
}

func (et *editorTerminals) handle(method string, params json.RawMessage) (any, error) {
	var p struct {
		SessionID  string `json:"sessionId"`
		TerminalID string `json:"terminalId"`
		Command    string `json:"command"`
		Args       []string
		Env        []struct{ Name, Value string }
		Cwd        string
		Limit      int `json:"outputByteLimit"`
	}
	if err := json.Unmarshal(params, &p); err != nil || p.SessionID == "" {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: bad params %s", method, params)
	}
	et.mu.Lock()
	et.requests = append(et.requests, method+" "+p.TerminalID)
	if method == "terminal/create" {
		var all map[string]json.RawMessage
		json.Unmarshal(params, &all)
		et.created = append(et.created, all)
	}
	term := et.running[p.TerminalID]
	et.mu.Unlock()
	if method != "terminal/create" && term == nil {
		return nil, jsonrpc2.Errorf(-32002, "%s: no terminal %q", method, p.TerminalID)
	}
	switch method {
	case "terminal/create":
		cmd := exec.Command(p.Command, p.Args...)
		cmd.Dir = p.Cwd
		cmd.Env = os.Environ()
		for _, e := range p.Env {
			cmd.Env = append(cmd.Env, e.Name+"="+e.Value)
		}
		out := &tailBuffer{limit: p.Limit}
		cmd.Stdout, cmd.Stderr = out, out
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "%v", err)
		}
		term := &editorTerminal{cmd: cmd, out: out, done: make(chan struct{})}
		go func() { cmd.Wait(); close(term.done) }()
		et.mu.Lock()
		et.next++
		id := fmt.Sprintf("term_%d", et.next)
		et.running[id] = term
		et.mu.Unlock()
		return rpc.Raw(map[string]string{"terminalId": id})
	case "terminal/output":
		out, truncated := term.out.read()
		res := map[string]any{"output": out, "truncated": truncated}
		select {
		case <-term.done:
			res["exitStatus"] = term.status()
		default:
		}
		return rpc.Raw(res)
	case "terminal/wait_for_exit":
		select {
		case <-term.done:
		case <-time.After(30 * time.Second):
			et.t.Errorf("terminal %s: the command never ended", p.TerminalID)
		}
		return rpc.Raw(term.status())
	case "terminal/kill":
		term.kill()
		return rpc.Raw(map[string]any{})
	case "terminal/release":
		term.kill()
		et.mu.Lock()
		delete(et.running, p.TerminalID)
		et.mu.Unlock()
		return rpc.Raw(map[string]any{})
	}
	return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "no %s", method)
}

func (term *editorTerminal) kill() {
	syscall.Kill(-term.cmd.Process.Pid, syscall.SIGKILL)
	<-term.done
}

func (term *editorTerminal) status() map[string]any {
	ws := term.cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		return map[string]any{"exitCode": nil, "signal": unix.SignalName(ws.Signal())}
	}
	return map[string]any{"exitCode": ws.ExitStatus(), "signal": nil}
}

func (et *editorTerminals) log() []string {
	et.mu.Lock()
	defer et.mu.Unlock()
	return append([]string(nil), et.requests...)
}

// TestACPTerminalBash: with the client's terminal capability, Bash runs in
// the editor's terminal (embedded in the tool call while it runs), the
// model gets the output and exit code, a timeout kills the command there,
// and every terminal is released.
func TestACPTerminalBash(t *testing.T) {
	c := newACP(t, nil,
		fake.Turn{fake.ToolUse("toolu_1", "Bash", `{"command":"echo from-terminal; echo pager=$GIT_PAGER; exit 4"}`)},
		fake.Turn{fake.Text("it failed")},
		fake.Turn{fake.ToolUse("toolu_2", "Bash", `{"command":"sleep 30.25 & echo $! > child.pid; wait","timeout":1000}`)},
		fake.Turn{fake.Text("too slow")},
		fake.Turn{fake.ToolUse("toolu_3", "Bash", `{"command":"sleep 30.5 & echo $! > cancelled.pid; wait"}`)},
	)
	et := &editorTerminals{t: t, running: map[string]*editorTerminal{}}
	c.terminals = et
	c.mustCall("initialize", map[string]any{
		"protocolVersion":    1,
		"clientCapabilities": map[string]any{"fs": map[string]bool{"readTextFile": false, "writeTextFile": false}, "terminal": true},
	}, nil)
	sid := c.newSession().SessionID

	c.prompt(sid, "run it")
	if m := lastMessage(t, c.model, 1); !strings.Contains(m, `from-terminal\npager=cat\n[exit code 4]\n`) || !strings.Contains(m, `"is_error":true`) {
		t.Errorf("the model got %s, want the terminal's output and exit code", m)
	}
	et.mu.Lock()
	create := et.created[0]
	et.mu.Unlock()
	var args []string
	json.Unmarshal(create["args"], &args)
	if string(create["sessionId"]) != strconv.Quote(sid) || string(create["cwd"]) != strconv.Quote(c.root) ||
		string(create["outputByteLimit"]) != "30000" || len(args) == 0 || !strings.Contains(args[len(args)-1], "echo from-terminal") {
		t.Errorf("terminal/create params %v", create)
	}
	if got, want := strings.Join(et.log(), ", "), "terminal/create , terminal/wait_for_exit term_1, terminal/output term_1, terminal/release term_1"; got != want {
		t.Errorf("terminal requests: %s\nwant %s", got, want)
	}
	// The tool call embeds the terminal while it runs and after.
	var embedded []string
	for _, u := range c.updates(sid) {
		if tc := u.ToolCall; tc != nil && tc.ToolCallID == "toolu_1" && len(tc.Content) > 0 && tc.Content[0].Type == "terminal" {
			embedded = append(embedded, tc.Status+" "+tc.Content[0].TerminalID)
		}
	}
	if got := strings.Join(embedded, ", "); got != "in_progress term_1, failed term_1" {
		t.Errorf("tool call updates embedding the terminal: %q", got)
	}

	c.prompt(sid, "run the slow one")
	if m := lastMessage(t, c.model, 3); !strings.Contains(m, "timed out after 1s") {
		t.Errorf("the model got %s, want the timeout", m)
	}
	// The command may run in a PID namespace, where $! is no host pid:
	// look for its child by its command line.
	if pids := running("sleep 30.25"); len(pids) > 0 {
		t.Errorf("the timed-out command's child still runs: %v", pids)
	}
	log := et.log()
	if got, want := strings.Join(log[4:], ", "), "terminal/create , terminal/wait_for_exit term_2, terminal/kill term_2, terminal/output term_2, terminal/release term_2"; got != want {
		t.Errorf("terminal requests: %s\nwant %s", got, want)
	}
	c.mu.Lock()
	cancelled := false
	for _, n := range c.notes {
		cancelled = cancelled || n.Method == "$/cancel_request"
	}
	c.mu.Unlock()
	if !cancelled {
		t.Error("the timed-out terminal/wait_for_exit was not cancelled with $/cancel_request")
	}

	// The user cancels the turn while the command runs in the terminal.
	var res schema.PromptResult
	wait := c.goCall("session/prompt", schema.PromptParams{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock("run forever")}}, &res)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		// Once the shell has written the pid, not merely opened the file.
		b, err := os.ReadFile(filepath.Join(c.root, "cancelled.pid"))
		if err == nil && bytes.HasSuffix(b, []byte("\n")) && len(et.log()) >= 11 {
			break // the command runs and the agent waits for it
		}
		if time.Now().After(deadline) {
			t.Fatalf("the third command did not start: %q", et.log())
		}
	}
	c.notify("session/cancel", schema.SessionIDParams{SessionID: sid})
	if err := wait(); err != nil || res.StopReason != "cancelled" {
		t.Fatalf("prompt cancelled mid-command: %+v, %v", res, err)
	}
	if pids := running("sleep 30.5"); len(pids) > 0 {
		t.Errorf("the cancelled command's child still runs: %v", pids)
	}
	if got, want := strings.Join(et.log()[9:], ", "), "terminal/create , terminal/wait_for_exit term_3, terminal/kill term_3, terminal/output term_3, terminal/release term_3"; got != want {
		t.Errorf("terminal requests: %s\nwant %s", got, want)
	}
}

// running returns the live (not zombie) processes whose command line is
// cmdline, waiting a moment for killed ones to go.
func running(cmdline string) []int {
	var pids []int
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		pids = pids[:0]
		dirs, _ := filepath.Glob("/proc/[0-9]*")
		for _, d := range dirs {
			b, err := os.ReadFile(filepath.Join(d, "cmdline"))
			pid, _ := strconv.Atoi(filepath.Base(d))
			if err == nil && strings.TrimRight(strings.ReplaceAll(string(b), "\x00", " "), " ") == cmdline && !zombie(pid) {
				pids = append(pids, pid)
			}
		}
		if len(pids) == 0 || time.Now().After(deadline) {
			return pids
		}
	}
}

func zombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return err != nil || bytes.Contains(b, []byte(") Z "))
}
