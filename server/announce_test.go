package server_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

// TestACPFirstUpdateFollowsTheSessionResponse checks that a new session's
// first session/update (its slash commands) is written after the
// session/new response that tells the editor the session's id.
func TestACPFirstUpdateFollowsTheSessionResponse(t *testing.T) {
	root := t.TempDir()
	raw, _ := startACP(t, root, nil)
	lines := make(chan map[string]any, 32)
	go func() {
		defer close(lines)
		r := bufio.NewReaderSize(raw, 1<<16)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				return
			}
			var m map[string]any
			if err := json.Unmarshal(line, &m); err != nil {
				t.Errorf("not JSON: %q", line)
				continue
			}
			lines <- m
		}
	}()
	next := func(what string) map[string]any {
		t.Helper()
		select {
		case m, ok := <-lines:
			if !ok {
				t.Fatalf("the stream ended before %s", what)
			}
			return m
		case <-time.After(10 * time.Second):
			t.Fatalf("nothing written for %s", what)
		}
		return nil
	}
	send := func(s string) {
		t.Helper()
		if _, err := raw.Write([]byte(s + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	if m := next("initialize"); m["id"] != float64(1) {
		t.Fatalf("got %v, want initialize's result", m)
	}
	for i := range 3 {
		id := float64(2 + i)
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`, id, root))
		m := next("session/new")
		res, _ := m["result"].(map[string]any)
		if m["id"] != id || res["sessionId"] == nil {
			t.Fatalf("first message after session/new: %v, want its response", m)
		}
		u := next("the first session/update")
		params, _ := u["params"].(map[string]any)
		if u["method"] != "session/update" || params["sessionId"] != res["sessionId"] {
			t.Fatalf("after the response: %v, want the new session's first update", u)
		}
	}
}
