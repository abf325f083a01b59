package langserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/langserver"
)

// TestMain lets the test binary play a broken language server when
// LANGSERVER_FAKE says how: "hang" never answers, "crash" answers
// initialize and exits at the first document.
func TestMain(m *testing.M) {
	switch os.Getenv("LANGSERVER_FAKE") {
	case "hang":
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	case "crash":
		r := bufio.NewReader(os.Stdin)
		for {
			msg, err := readMessage(r)
			if err != nil {
				os.Exit(1)
			}
			switch msg.Method {
			case "initialize":
				body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": map[string]any{"capabilities": map[string]any{"hoverProvider": true}}})
				fmt.Fprintf(os.Stdout, "Content-Length: %d\r\n\r\n%s", len(body), body)
			case "textDocument/didOpen":
				os.Exit(2)
			}
		}
	}
	os.Exit(m.Run())
}

type fakeMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

func readMessage(r *bufio.Reader) (fakeMessage, error) {
	var msg fakeMessage
	n := 0
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return msg, err
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
		return msg, err
	}
	err := json.Unmarshal(body, &msg)
	return msg, err
}

func fakeManager(t *testing.T, mode string) *langserver.Manager {
	t.Setenv("LANGSERVER_FAKE", mode)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	m := langserver.New(langserver.Config{
		Servers:     []langserver.ServerConfig{{Name: "fake", Command: []string{self}, Filetypes: []string{"go"}}},
		Logf:        t.Logf,
		MaxRestarts: 2,
	})
	return m
}

// TestHungServer: a server that never answers costs an edit its bounded
// wait, and Close still ends it.
func TestHungServer(t *testing.T) {
	m := fakeManager(t, "hang")
	dir := t.TempDir()
	_, ok, err := m.Diagnostics(context.Background(), dir, dir+"/a.go", []byte("package a\n"), 200*time.Millisecond)
	if ok || err != nil {
		t.Fatalf("ok=%v err=%v, want no answer and no error", ok, err)
	}
	if m.Running() != 1 {
		t.Fatalf("Running = %d", m.Running())
	}
	m.Close()
	if m.Running() != 0 {
		t.Fatalf("Running after Close = %d", m.Running())
	}
}

// TestCrashedServerRestarts: a crash is noticed, the server is started
// again on the next use, and given up after MaxRestarts.
func TestCrashedServerRestarts(t *testing.T) {
	m := fakeManager(t, "crash")
	defer m.Close()
	dir := t.TempDir()
	var errs []string
	for i := 0; i < 5; i++ {
		_, ok, err := m.Diagnostics(context.Background(), dir, dir+"/a.go", []byte("package a\n"), 20*time.Second)
		if ok {
			t.Fatal("diagnostics from a crashed server")
		}
		if err != nil {
			errs = append(errs, err.Error())
		} else {
			errs = append(errs, "")
		}
	}
	last := errs[len(errs)-1]
	if !strings.Contains(last, "crashed 3 times; not restarting it") {
		t.Fatalf("errors = %q, want the last to give up", errs)
	}
}
