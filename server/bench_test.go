package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/agent-lsp/agent-lsp/diffs"
	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/session"
)

// BenchmarkLoad1000Turns300Edits measures session/load of a 1,000-turn
// history with 300 Edit calls on the ACP door, answered by a client that
// serves fs/read_text_file (and every other request) after a delay. The
// load must not depend on the delay: it calls the client for nothing.
// Reported: ns/op per session/load (replay included: about 2,900
// session/update notifications read by the client) and editor-calls/op.
func BenchmarkLoad1000Turns300Edits(b *testing.B) {
	for _, delay := range []time.Duration{5 * time.Millisecond, 50 * time.Millisecond} {
		b.Run(fmt.Sprintf("fs-answers-after-%s", delay), func(b *testing.B) {
			benchLoad(b, delay)
		})
	}
}

func benchLoad(b *testing.B, delay time.Duration) {
	root, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	store := session.NewStore(b.TempDir(), "-")
	const id = "bench-load"
	writeHistory(b, store, root, id)

	a, c := net.Pipe()
	opts := Options{Version: "bench", NewService: func(InitOptions) (*engine.Service, error) {
		return engine.NewService(engine.Config{Model: "claude-test", Home: root, Logf: func(string, ...any) {}, Store: store}), nil
	}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		ServeACP(ctx, a, opts)
		close(done)
	}()
	var calls, updates atomic.Int64
	client := jsonrpc2.NewConn(jsonrpc2.NewNDJSONStream(c))
	client.Go(context.Background(), func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if !req.IsCall() {
			updates.Add(1)
			return nil, nil
		}
		jsonrpc2.Async(ctx)
		calls.Add(1)
		time.Sleep(delay)
		return map[string]string{"content": ""}, nil
	})
	b.Cleanup(func() {
		cancel()
		c.Close()
		client.Close()
		<-done
	})
	call := func(method string, params any) {
		if _, err := client.Call(context.Background(), method, params, nil); err != nil {
			b.Fatalf("%s: %v", method, err)
		}
	}
	call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{"fs": map[string]any{"readTextFile": true, "writeTextFile": true}, "terminal": true}})
	load := schema.LoadSessionParams{SessionID: id, Cwd: root, MCPServers: []schema.MCPServer{}}
	closeParams := schema.SessionIDParams{SessionID: id}
	for b.Loop() {
		call("session/load", load)
		b.StopTimer()
		call("session/close", closeParams)
		b.StartTimer()
	}
	b.ReportMetric(float64(calls.Load())/float64(b.N), "editor-calls/op")
	if calls.Load() != 0 {
		b.Errorf("session/load called the editor %d times", calls.Load())
	}
}

// writeHistory writes a session of 1,000 turns, 300 of which edit a file
// of 60 lines, storing each edit's toolUseResult as agent-lsp does.
func writeHistory(b *testing.B, store *session.Store, root, id string) {
	l, err := store.Create(root, id)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	path := filepath.Join(root, "main.go")
	var file strings.Builder
	for i := range 60 {
		fmt.Fprintf(&file, "\tfmt.Println(\"line %d\") // some code\n", i)
	}
	text := file.String()
	appendMsg := func(m providers.Message, results map[string]json.RawMessage) {
		if err := l.AppendResults(m, results); err != nil {
			b.Fatal(err)
		}
	}
	for turn := range 1000 {
		appendMsg(providers.Message{Role: providers.RoleUser, Content: []providers.Block{providers.TextBlock(fmt.Sprintf("Turn %d: please change line %d.", turn, turn%60))}}, nil)
		if turn%10 >= 3 {
			appendMsg(providers.Message{Role: providers.RoleAssistant, Content: []providers.Block{providers.TextBlock("Nothing to change there; it already reads well.")}}, nil)
			continue
		}
		old := fmt.Sprintf("\"line %d\")", turn%60)
		edited := strings.Replace(text, old, fmt.Sprintf("\"line %d, turn %d\")", turn%60, turn), 1)
		useID := fmt.Sprintf("toolu_%d", turn)
		input, _ := json.Marshal(map[string]string{"file_path": path, "old_string": old, "new_string": fmt.Sprintf("\"line %d, turn %d\")", turn%60, turn)})
		appendMsg(providers.Message{Role: providers.RoleAssistant, Content: []providers.Block{
			providers.TextBlock("I'll edit it."),
			{Type: providers.BlockToolUse, ID: useID, Name: "Edit", Input: input},
		}}, nil)
		result, _ := json.Marshal(map[string]any{
			"filePath": path, "oldString": old, "newString": "x", "originalFile": text,
			"structuredPatch": diffs.Hunks(text, edited), "userModified": false, "replaceAll": false,
		})
		appendMsg(providers.Message{Role: providers.RoleUser, Content: []providers.Block{providers.ToolResultBlock(useID, "The file "+path+" has been updated.", false)}},
			map[string]json.RawMessage{useID: result})
		appendMsg(providers.Message{Role: providers.RoleAssistant, Content: []providers.Block{providers.TextBlock("Done.")}}, nil)
		text = edited
	}
}
