package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/providers/anthropic"
	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/rpc"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/server"
)

// acpClient is a minimal ACP client over newline-delimited JSON-RPC: it
// serves fs/read_text_file from its buffers, records fs/write_text_file,
// and answers permission requests.
type acpPeer struct {
	t    *testing.T
	peer rpc.Peer
	raw  net.Conn

	mu      sync.Mutex
	buffers map[string]string // path -> text the client has
	writes  map[string]string
	updates []schema.SessionNotification
	reads   int
}

func newACP(t *testing.T, turns ...fake.Turn) (*acpPeer, *fake.Server, string) {
	t.Helper()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	model := fake.NewAnthropic(t, turns...)
	provider := anthropic.New(anthropic.Options{APIKey: "k", BaseURL: model.BaseURL()})
	a, b := net.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- server.ServeACP(ctx, a, server.Options{Logf: t.Logf, NewService: func(server.InitOptions) (*engine.Service, error) {
			return engine.NewService(engine.Config{Provider: provider, Model: "claude-test", Home: root}), nil
		}})
	}()
	c := &acpPeer{t: t, raw: b, buffers: map[string]string{}, writes: map[string]string{}}
	conn := jsonrpc2.NewConn(jsonrpc2.NewNDJSONStream(b))
	c.peer = rpc.Peer{Conn: conn}
	conn.Go(context.Background(), c.handle)
	t.Cleanup(func() {
		cancel()
		conn.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("the ACP door did not stop")
		}
	})
	return c, model, root
}

func (c *acpPeer) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	params := json.RawMessage(append([]byte(nil), req.Params()...))
	switch req.Method() {
	case "session/update":
		var n schema.SessionNotification
		json.Unmarshal(params, &n)
		c.mu.Lock()
		c.updates = append(c.updates, n)
		c.mu.Unlock()
		return nil, nil
	case "session/request_permission":
		return rpc.Raw(schema.RequestPermissionResult{Outcome: schema.PermissionOutcome{Outcome: "selected", OptionID: "allow_once"}})
	case "fs/read_text_file":
		var p struct{ Path string }
		json.Unmarshal(params, &p)
		c.mu.Lock()
		defer c.mu.Unlock()
		c.reads++
		text, ok := c.buffers[p.Path]
		if !ok {
			b, err := os.ReadFile(p.Path)
			if err != nil {
				return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "%v", err)
			}
			text = string(b)
		}
		return rpc.Raw(map[string]string{"content": text})
	case "fs/write_text_file":
		var p struct{ Path, Content string }
		json.Unmarshal(params, &p)
		c.mu.Lock()
		c.writes[p.Path] = p.Content
		c.buffers[p.Path] = p.Content
		c.mu.Unlock()
		return rpc.Raw(nil)
	}
	if !req.IsCall() {
		return nil, nil
	}
	return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "client does not handle %s", req.Method())
}

func (c *acpPeer) call(method string, params, result any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return c.peer.Call(ctx, method, params, result)
}

func (c *acpPeer) initialize(fs bool) map[string]any {
	c.t.Helper()
	var res map[string]any
	if err := c.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{"fs": map[string]bool{"readTextFile": fs, "writeTextFile": fs}}}, &res); err != nil {
		c.t.Fatal(err)
	}
	return res
}

func TestACPDoor(t *testing.T) {
	for _, fs := range []bool{true, false} {
		t.Run(fmt.Sprintf("fs delegation %v", fs), func(t *testing.T) {
			c, model, root := newACP(t,
				fake.Turn{fake.ToolUse("toolu_1", "Read", `{"file_path":"a.py"}`)},
				fake.Turn{fake.ToolUse("toolu_2", "Edit", `{"file_path":"a.py","old_string":"x = 1","new_string":"x = 2"}`)},
				fake.Turn{fake.Text("done")},
			)
			path := filepath.Join(root, "a.py")
			os.WriteFile(path, []byte("x = 1 # on disk\n"), 0o644)
			c.buffers[path] = "x = 1 # in the editor, unsaved\n"
			res := c.initialize(fs)
			if res["protocolVersion"] != float64(1) || res["agentCapabilities"].(map[string]any)["loadSession"] != true {
				t.Fatalf("initialize = %v", res)
			}
			var ns schema.NewSessionResult
			if err := c.call("session/new", schema.NewSessionParams{Cwd: root, MCPServers: []schema.MCPServer{}}, &ns); err != nil {
				t.Fatal(err)
			}
			var pr schema.PromptResult
			if err := c.call("session/prompt", schema.PromptParams{SessionID: ns.SessionID, Prompt: []schema.ContentBlock{schema.TextBlock("bump x")}}, &pr); err != nil || pr.StopReason != "end_turn" {
				t.Fatalf("prompt = %v, %v", pr, err)
			}
			var body struct {
				Messages []json.RawMessage `json:"messages"`
			}
			model.Requests()[1].Decode(&body)
			sawEditor := strings.Contains(string(body.Messages[len(body.Messages)-1]), "in the editor, unsaved")
			disk, _ := os.ReadFile(path)
			if fs {
				if !sawEditor {
					t.Error("Read did not go through fs/read_text_file")
				}
				if c.writes[path] != "x = 2 # in the editor, unsaved\n" || string(disk) != "x = 1 # on disk\n" {
					t.Errorf("write went to disk (%q) instead of fs/write_text_file (%q)", disk, c.writes[path])
				}
			} else {
				if sawEditor || c.reads != 0 || len(c.writes) != 0 {
					t.Error("fs methods used although the client did not offer them")
				}
				if string(disk) != "x = 2 # on disk\n" {
					t.Errorf("disk = %q", disk)
				}
			}
			c.mu.Lock()
			n := len(c.updates)
			c.mu.Unlock()
			if n == 0 {
				t.Error("no session/update received")
			}
		})
	}
}

func TestACPBadInputAndNegotiation(t *testing.T) {
	c, _, root := newACP(t)
	// A line that is not JSON gets a parse error; the door keeps serving.
	fmt.Fprintf(c.raw, "this is not json\n")
	var res map[string]any
	if err := c.call("initialize", map[string]any{"protocolVersion": 7, "clientCapabilities": map[string]any{}}, &res); err != nil {
		t.Fatal(err)
	}
	if res["protocolVersion"] != float64(1) {
		t.Errorf("a client asking for version 7 got %v, want 1", res["protocolVersion"])
	}
	err := c.call("textDocument/codeAction", map[string]any{}, nil)
	wantCode(t, err, -32601, "method not found")
	err = c.call("session/new", map[string]any{"cwd": 3}, nil)
	wantCode(t, err, -32602, "cwd")
	err = c.call("authenticate", map[string]any{"methodId": "nope"}, nil)
	wantCode(t, err, -32602, "anthropic-api-key")
	if err := c.call("authenticate", map[string]any{"methodId": "anthropic-api-key"}, nil); err != nil {
		t.Errorf("authenticate with a provider configured: %v", err)
	}
	_ = root
}
