package server_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/langserver"
)

// TestMain lets the test binary play a language server when
// FAKE_LANGSERVER is set (see fakeLangServer).
func TestMain(m *testing.M) {
	if os.Getenv("FAKE_LANGSERVER") != "" {
		fakeLangServer(os.Stdin, os.Stdout)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// withFakeLangServer makes the test binary the language server of .go
// files.
func withFakeLangServer(t *testing.T) func(*engine.Config) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("FAKE_LANGSERVER", "1")
	return func(c *engine.Config) {
		c.LangServers = []langserver.ServerConfig{{Name: "fakels", Command: []string{self}, Filetypes: []string{"go"}}}
	}
}

// fakeLangServer is a language server (full document sync) that
// publishes, for each version of a document, one error per line holding
// BROKEN: "undefined: BROKEN".
func fakeLangServer(in io.Reader, out io.Writer) {
	r := bufio.NewReader(in)
	send := func(v any) {
		body, _ := json.Marshal(v)
		fmt.Fprintf(out, "Content-Length: %d\r\n\r\n%s", len(body), body)
	}
	for {
		n := 0
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
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
			return
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				TextDocument struct {
					URI     string `json:"uri"`
					Version int    `json:"version"`
					Text    string `json:"text"`
				} `json:"textDocument"`
				ContentChanges []struct {
					Text string `json:"text"`
				} `json:"contentChanges"`
			} `json:"params"`
		}
		json.Unmarshal(body, &msg)
		doc := msg.Params.TextDocument
		switch msg.Method {
		case "initialize":
			send(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": map[string]any{
				"capabilities": map[string]any{"textDocumentSync": 1, "hoverProvider": true},
				"serverInfo":   map[string]any{"name": "fakels"}}})
		case "textDocument/didOpen", "textDocument/didChange":
			text := doc.Text
			if len(msg.Params.ContentChanges) > 0 {
				text = msg.Params.ContentChanges[len(msg.Params.ContentChanges)-1].Text
			}
			diags := []map[string]any{}
			for i, line := range strings.Split(text, "\n") {
				if c := strings.Index(line, "BROKEN"); c >= 0 {
					diags = append(diags, map[string]any{
						"range":    map[string]any{"start": map[string]int{"line": i, "character": c}, "end": map[string]int{"line": i, "character": c + 6}},
						"severity": 1, "message": "undefined: BROKEN", "source": "fakels"})
				}
			}
			send(map[string]any{"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": map[string]any{
				"uri": doc.URI, "version": doc.Version, "diagnostics": diags}})
		case "exit":
			return
		default:
			if len(msg.ID) > 0 {
				send(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": nil})
			}
		}
	}
}
