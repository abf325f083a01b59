//go:build unix

package wrap_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/providers/fake"
)

// TestMain lets the test binary play a wrapped language server when
// WRAP_FAKE says how (see fakeServer).
func TestMain(m *testing.M) {
	if mode := os.Getenv("WRAP_FAKE"); mode != "" {
		fakeServer(mode, os.Getenv("WRAP_FAKE_DIR"))
		return
	}
	os.Exit(m.Run())
}

// fakeServer is a language server that misbehaves: "crash" exits at its
// first hover (then, started again, answers hovers with what it was
// told), "hang" answers initialize and nothing else. It writes its pid
// into dir.
func fakeServer(mode, dir string) {
	os.WriteFile(filepath.Join(dir, fmt.Sprintf("pid-%d", os.Getpid())), nil, 0o644)
	marker := filepath.Join(dir, "crashed")
	_, statErr := os.Stat(marker)
	firstRun := statErr != nil
	r := bufio.NewReader(os.Stdin)
	opened := 0
	send := func(v any) {
		body, _ := json.Marshal(v)
		fmt.Fprintf(os.Stdout, "Content-Length: %d\r\n\r\n%s", len(body), body)
	}
	for {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		n := 0
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				os.Exit(0)
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length:"); ok {
				n, _ = strconv.Atoi(strings.TrimSpace(v))
			}
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			os.Exit(0)
		}
		json.Unmarshal(body, &msg)
		switch {
		case msg.Method == "initialize":
			send(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": map[string]any{
				"capabilities": map[string]any{"hoverProvider": true, "textDocumentSync": 1},
				"serverInfo":   map[string]any{"name": "fake-" + mode}}})
		case mode == "hang":
			// never answers
		case msg.Method == "textDocument/didOpen":
			opened++
		case msg.Method == "textDocument/hover":
			if firstRun {
				os.WriteFile(marker, nil, 0o644)
				os.Exit(3)
			}
			send(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": map[string]any{
				"contents": map[string]any{"kind": "plaintext", "value": fmt.Sprintf("restarted with %d open document(s)", opened)}}})
		case msg.Method == "shutdown":
			send(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": nil})
		case msg.Method == "exit":
			os.Exit(0)
		}
	}
}

func fakeWrap(t *testing.T, mode string) (*wrapEditor, string, string) {
	t.Helper()
	dir := t.TempDir()
	root := t.TempDir()
	t.Setenv("WRAP_FAKE", mode)
	t.Setenv("WRAP_FAKE_DIR", dir)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e := startWrap(t, root, []string{self}, fake.Turn{fake.Text("ok")})
	e.call("initialize", map[string]any{"processId": os.Getpid(), "rootUri": "file://" + root, "capabilities": map[string]any{}}, nil)
	e.conn.Notify(t.Context(), "initialized", map[string]any{})
	return e, root, dir
}

// TestWrapCrashedServer: a wrapped server that exits is reported, its
// pending request is answered with an error, and it is started again with
// the editor's initialize and open documents.
func TestWrapCrashedServer(t *testing.T) {
	e, root, dir := fakeWrap(t, "crash")
	path := filepath.Join(root, "a.txt")
	e.open(path, "hello\n")
	pos := map[string]any{"textDocument": map[string]string{"uri": "file://" + path}, "position": map[string]int{"line": 0, "character": 1}}
	if _, err := e.conn.Call(t.Context(), "textDocument/hover", pos, nil); err == nil || !strings.Contains(err.Error(), "exited before answering") {
		t.Fatalf("hover on a crashing server: err = %v", err)
	}
	e.waitNote("the crash report", func(n note) bool {
		return n.method == "window/showMessage" && strings.Contains(string(n.params), "restarting it")
	})
	var hover struct {
		Contents struct {
			Value string `json:"value"`
		} `json:"contents"`
	}
	deadline := time.Now().Add(20 * time.Second)
	for hover.Contents.Value == "" && time.Now().Before(deadline) {
		e.call("textDocument/hover", pos, &hover)
	}
	if hover.Contents.Value != "restarted with 1 open document(s)" {
		t.Errorf("hover after the restart = %q", hover.Contents.Value)
	}
	pids, _ := filepath.Glob(filepath.Join(dir, "pid-*"))
	if len(pids) != 2 {
		t.Errorf("servers started: %d, want 2", len(pids))
	}
}

// TestWrapHungServer: a wrapped server that answers nothing after
// initialize delays the agent's code actions and shutdown by a bounded
// time, and is killed at exit.
func TestWrapHungServer(t *testing.T) {
	e, root, dir := fakeWrap(t, "hang")
	path := filepath.Join(root, "a.txt")
	e.open(path, "hello\n")
	var actions []struct {
		Title string `json:"title"`
	}
	e.call("textDocument/codeAction", map[string]any{"textDocument": map[string]string{"uri": "file://" + path},
		"range":   map[string]any{"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 0, "character": 3}},
		"context": map[string]any{"diagnostics": []any{}}}, &actions)
	if len(actions) == 0 || actions[0].Title != "Agent: explain" {
		t.Errorf("code actions = %+v, want the agent's", actions)
	}
	e.call("shutdown", nil, nil)
	e.conn.Notify(t.Context(), "exit", nil)
	select {
	case code := <-e.done:
		e.done <- code
	case <-time.After(20 * time.Second):
		t.Fatal("ServeWrap did not end")
	}
	pids, _ := filepath.Glob(filepath.Join(dir, "pid-*"))
	if len(pids) != 1 {
		t.Fatalf("pid files = %v", pids)
	}
	pid, _ := strconv.Atoi(strings.TrimPrefix(filepath.Base(pids[0]), "pid-"))
	var ws syscall.WaitStatus
	_, _ = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("the hung server (pid %d) is still running", pid)
	}
}
