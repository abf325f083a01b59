package langserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
	case "secret":
		fakeSecretServer(os.Getenv("LANGSERVER_FAKE_SECRET"), os.Getenv("LANGSERVER_FAKE_OPEN"))
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

// fakeSecretServer plays a server over a workspace where the symbol at
// every position is defined in secret (a file the Read rules hide) and
// used in open: hover shows its value, as gopls shows a constant's.
func fakeSecretServer(secret, open string) {
	r := bufio.NewReader(os.Stdin)
	reply := func(id json.RawMessage, result any) {
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
		fmt.Fprintf(os.Stdout, "Content-Length: %d\r\n\r\n%s", len(body), body)
	}
	loc := func(path string, line int) map[string]any {
		pos := map[string]any{"line": line, "character": 0}
		return map[string]any{"uri": "file://" + path, "range": map[string]any{"start": pos, "end": pos}}
	}
	for {
		msg, err := readMessage(r)
		if err != nil {
			return
		}
		switch msg.Method {
		case "initialize":
			reply(msg.ID, map[string]any{"capabilities": map[string]any{"hoverProvider": true, "definitionProvider": true, "referencesProvider": true, "workspaceSymbolProvider": true}})
		case "textDocument/hover":
			reply(msg.ID, map[string]any{"contents": map[string]any{"kind": "markdown", "value": "const Token = \"SECRET-TOKEN-VALUE\""}})
		case "textDocument/definition":
			reply(msg.ID, []any{loc(secret, 3)})
		case "textDocument/references":
			reply(msg.ID, []any{loc(secret, 3), loc(open, 5)})
		case "workspace/symbol":
			reply(msg.ID, []any{
				map[string]any{"name": "Token", "kind": 14, "location": loc(secret, 3)},
				map[string]any{"name": "Use", "kind": 12, "location": loc(open, 5)},
			})
		case "shutdown":
			reply(msg.ID, nil)
		case "exit":
			return
		default:
			if len(msg.ID) > 0 {
				reply(msg.ID, nil)
			}
		}
	}
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

// TestAskHidesFilesTheRulesHide: the LSP tool is in Read's family, so a
// file a Read deny rule covers must not show through it. A hover on a
// use of a constant defined there showed the constant's value, and
// definitions, references and symbols named its lines.
func TestAskHidesFilesTheRulesHide(t *testing.T) {
	dir := t.TempDir()
	secret, open := filepath.Join(dir, "secret.go"), filepath.Join(dir, "main.go")
	t.Setenv("LANGSERVER_FAKE_SECRET", secret)
	t.Setenv("LANGSERVER_FAKE_OPEN", open)
	m := fakeManager(t, "secret")
	t.Cleanup(m.Close)
	hidden := func(p string) bool { return p == secret }
	for _, op := range langserver.Operations {
		if op == langserver.OpDocumentSymbol || op == langserver.OpImplementation {
			continue // not offered by the fake
		}
		q := langserver.Query{Op: op, Path: open, Text: []byte("package main\n"), Line: 6, Character: 2, Symbol: "Tok"}
		shown, err := m.Ask(context.Background(), dir, q)
		if err != nil || !strings.Contains(shown, "secret.go") && !strings.Contains(shown, "SECRET-TOKEN-VALUE") {
			t.Errorf("%s without rules = %q, %v; the fake should show the secret file", op, shown, err)
		}
		q.Hidden = hidden
		got, err := m.Ask(context.Background(), dir, q)
		if strings.Contains(got, "secret.go") || strings.Contains(got, "SECRET-TOKEN-VALUE") || err != nil && strings.Contains(err.Error(), "SECRET") {
			t.Errorf("%s with secret.go hidden = %q, %v", op, got, err)
		}
		if op == langserver.OpReferences && !strings.Contains(got, "main.go:6") {
			t.Errorf("references lost the visible location: %q", got)
		}
	}
}
