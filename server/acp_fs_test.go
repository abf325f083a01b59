package server_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/session"
	"github.com/agent-lsp/agent-lsp/settings"
)

// Issue 17 over the ACP door: the client's fs refusals are final, deny
// rules hide files from the search tools, and a restored session is never
// looser than the settings allow.

// TestACPClientRefusesRead: when the client refuses fs/read_text_file, the
// file is not read from the disk behind its back; the model gets the
// client's own reason. Only a client that does not serve the method at all
// (-32601) is read around.
func TestACPClientRefusesRead(t *testing.T) {
	tests := []struct {
		name     string
		err      *jsonrpc2.Error
		want     string // in the tool result
		fromDisk bool
	}{
		{"internal error with details", &jsonrpc2.Error{Code: jsonrpc2.InternalError, Message: "Internal error", Data: jsonrpc2.RawMessage(`{"details":"blocked by the workspace policy"}`)}, "blocked by the workspace policy", false},
		{"permission denied", &jsonrpc2.Error{Code: -32000, Message: "permission denied: secret.txt is excluded"}, "permission denied: secret.txt is excluded", false},
		{"not found", &jsonrpc2.Error{Code: -32002, Message: "Resource not found", Data: jsonrpc2.RawMessage(`"no buffer for secret.txt"`)}, "no buffer for secret.txt", false},
		{"method not found", &jsonrpc2.Error{Code: jsonrpc2.MethodNotFound, Message: "Method not found"}, "DISK SECRET", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newACP(t, nil,
				fake.Turn{fake.ToolUse("toolu_1", "Read", `{"file_path":"secret.txt"}`)},
				fake.Turn{fake.Text("done")},
			)
			path := filepath.Join(c.root, "secret.txt")
			c.write(path, "DISK SECRET\n")
			c.failRead = map[string]*jsonrpc2.Error{path: tt.err}
			c.initialize(true)
			sid := c.newSession().SessionID
			c.prompt(sid, "read it")
			m := lastMessage(t, c.model, 1)
			if !strings.Contains(m, tt.want) {
				t.Errorf("the model got %s, want %q in it", m, tt.want)
			}
			if !tt.fromDisk && (strings.Contains(m, "DISK SECRET") || !strings.Contains(m, `"is_error":true`)) {
				t.Errorf("a read the client refused was served from the disk: %s", m)
			}
		})
	}
}

// TestACPReadDenyHidesFilesFromSearches: over the ACP door, with the
// client serving fs/read_text_file, a Read(./.env) deny rule keeps the
// file from Grep, Glob and LS as well as from Read.
func TestACPReadDenyHidesFilesFromSearches(t *testing.T) {
	var c *acpEditor
	c = newACP(t, func(cfg *engine.Config) { cfg.Settings = denySettings(c.root) }, denyTurns()...)
	for name, text := range denyFiles {
		os.MkdirAll(filepath.Dir(filepath.Join(c.root, name)), 0o755)
		c.write(filepath.Join(c.root, name), text)
	}
	linkToEnv(t, c.root)
	c.initialize(true)
	sid := c.newSession().SessionID
	c.prompt(sid, "find the token")
	var msg struct {
		Content []struct {
			Type    string `json:"type"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"content"`
	}
	if err := json.Unmarshal([]byte(lastMessage(t, c.model, 1)), &msg); err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, b := range msg.Content {
		if b.Type == "tool_result" && len(b.Content) > 0 {
			texts = append(texts, b.Content[0].Text)
		}
	}
	checkDenied(t, c.root, texts)
	for _, p := range c.reads {
		if strings.HasSuffix(p, "/.env") && filepath.Dir(p) == c.root {
			t.Errorf("the client was asked for the denied file %s", p)
		}
	}
}

// TestACPRestoredModeTheSettingsForbid: a session saved in
// bypassPermissions comes back in default when the settings now disable
// that mode, never looser than they allow.
func TestACPRestoredModeTheSettingsForbid(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	store := session.NewStore(t.TempDir(), "-")
	raw, model := startACP(t, root, func(cfg *engine.Config) { cfg.Store = store })
	first := connectACP(t, raw, root, model)
	first.initialize(false)
	sid := first.newSession().SessionID
	first.mustCall("session/set_mode", schema.SetModeParams{SessionID: sid, ModeID: "bypassPermissions"}, nil)
	first.mustCall("session/close", schema.SessionIDParams{SessionID: sid}, nil)

	forbid := func(cfg *engine.Config) {
		cfg.Store = store
		cfg.Settings = &settings.Settings{Project: root, Home: root}
		cfg.Settings.Permissions.DisableBypassPermissions = true
	}
	raw2, model2 := startACP(t, root, forbid)
	second := connectACP(t, raw2, root, model2)
	second.initialize(false)
	var res schema.NewSessionResult
	second.mustCall("session/resume", schema.LoadSessionParams{SessionID: sid, Cwd: root, MCPServers: []schema.MCPServer{}}, &res)
	if res.Modes == nil || res.Modes.CurrentModeID != "default" {
		t.Errorf("resumed modes = %+v, want default", res.Modes)
	}
	second.waitFor("a notice that the mode changed", func() bool {
		for _, u := range second.updatesLocked(sid) {
			if u.Content != nil && strings.Contains(u.Content.Text, `"bypassPermissions" mode, which is not available now`) {
				return true
			}
		}
		return false
	})
}

// TestACPClientFailsWrite: a write the client fails is not made on the
// disk instead, and the model gets the reason in the error's data; only
// -32601 (the method is not served) writes the disk.
func TestACPClientFailsWrite(t *testing.T) {
	tests := []struct {
		name   string
		err    *jsonrpc2.Error
		want   string
		onDisk bool
	}{
		{"internal error with details", &jsonrpc2.Error{Code: jsonrpc2.InternalError, Message: "Internal error", Data: jsonrpc2.RawMessage(`{"details":"the project is read-only"}`)}, "the project is read-only", false},
		{"method not found", &jsonrpc2.Error{Code: jsonrpc2.MethodNotFound, Message: "Method not found"}, "File created successfully", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newACP(t, nil,
				fake.Turn{fake.ToolUse("toolu_1", "Write", `{"file_path":"new.txt","content":"hello\n"}`)},
				fake.Turn{fake.Text("done")},
			)
			c.writeErr = tt.err
			c.initialize(true)
			sid := c.newSession().SessionID
			c.prompt(sid, "write it")
			if m := lastMessage(t, c.model, 1); !strings.Contains(m, tt.want) {
				t.Errorf("the model got %s, want %q in it", m, tt.want)
			}
			_, err := os.Stat(filepath.Join(c.root, "new.txt"))
			if got := err == nil; got != tt.onDisk {
				t.Errorf("written to disk = %v, want %v", got, tt.onDisk)
			}
		})
	}
}
