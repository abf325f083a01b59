package server_test

import (
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"

	"github.com/agent-lsp/agent-lsp/providers/fake"
)

// TestACPRefusalHoldsForEveryTool: once the client refused to serve a
// file, no tool of the session reads it from the disk: not Grep (whose
// engine reads the disk itself), not a second Read (which is not asked
// of the client again), and Glob and LS leave it out, as for a file a
// deny rule hides.
func TestACPRefusalHoldsForEveryTool(t *testing.T) {
	c := newACP(t, nil,
		fake.Turn{fake.ToolUse("toolu_1", "Read", `{"file_path":"secret.txt"}`)},
		fake.Turn{
			fake.ToolUse("toolu_2", "Grep", `{"pattern":"DISK SECRET","output_mode":"content"}`),
			fake.ToolUse("toolu_3", "Grep", `{"pattern":"SECRET","path":"secret.txt","output_mode":"content"}`),
			fake.ToolUse("toolu_4", "Read", `{"file_path":"secret.txt","limit":5}`),
			fake.ToolUse("toolu_5", "Glob", `{"pattern":"*.txt"}`),
		},
		fake.Turn{fake.Text("done")},
	)
	path := filepath.Join(c.root, "secret.txt")
	c.write(path, "DISK SECRET\n")
	c.write(filepath.Join(c.root, "open.txt"), "DISK SECRET is not here\n")
	c.failRead = map[string]*jsonrpc2.Error{path: {Code: -32000, Message: "permission denied: secret.txt is excluded"}}
	c.initialize(true)
	sid := c.newSession().SessionID
	c.prompt(sid, "read it")
	m := lastMessage(t, c.model, 2) // the second turn's results
	if strings.Contains(m, "DISK SECRET\\n") || strings.Contains(m, "secret.txt:1:") || strings.Contains(m, "secret.txt\\n") {
		t.Errorf("a file the client refused reached the model through another tool: %s", m)
	}
	if !strings.Contains(m, "open.txt") {
		t.Errorf("the searches found nothing at all: %s", m)
	}
	asked := 0
	for _, p := range c.reads {
		if p == path {
			asked++
		}
	}
	if asked != 1 {
		t.Errorf("the client was asked for the refused file %d times, want once (the refusal holds)", asked)
	}
}
