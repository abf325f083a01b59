package server

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/schema"
)

// TestClaudeSessionOneHistory: continuing a session Claude Code wrote
// appends to Claude Code's own file (one history per id, which either tool
// can resume), and agent-lsp makes no copy of it; session/resume with
// _meta {"agent-lsp": {"fork": true}} continues a copy under a new id and
// leaves the original alone.
func TestClaudeSessionOneHistory(t *testing.T) {
	d := startDoor(t, true, fake.Turn{fake.Text("continued here")}, fake.Turn{fake.Text("forked here")})
	call := func(method string, params, result any) {
		t.Helper()
		if err := d.ed.call(method, params, result); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
	}
	call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}}, nil)
	before, err := os.ReadFile(d.claudeFile)
	if err != nil {
		t.Fatal(err)
	}
	prompt := func(id, text string) {
		t.Helper()
		call("session/prompt", schema.PromptParams{SessionID: id, Prompt: []schema.ContentBlock{schema.TextBlock(text)}}, nil)
		call("session/close", schema.SessionIDParams{SessionID: id}, nil)
	}

	var res schema.NewSessionResult
	call("session/resume", schema.LoadSessionParams{SessionID: d.claude, Cwd: d.root, MCPServers: []schema.MCPServer{}}, &res)
	if res.SessionID != d.claude {
		t.Fatalf("session/resume answered session %q, want %q", res.SessionID, d.claude)
	}
	prompt(d.claude, "go on")
	after, err := os.ReadFile(d.claudeFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(after, before) || !bytes.Contains(after[len(before):], []byte("continued here")) {
		t.Fatalf("Claude Code's file was not continued in place:\n%s", after[len(before):])
	}
	var copies []string
	filepath.WalkDir(d.storeDir, func(path string, e fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".jsonl") {
			copies = append(copies, path)
		}
		return nil
	})
	if len(copies) != 0 {
		t.Errorf("agent-lsp wrote a second history of the session: %v", copies)
	}

	fork := schema.LoadSessionParams{SessionID: d.claude, Cwd: d.root, MCPServers: []schema.MCPServer{}, Meta: &schema.LoadMeta{}}
	fork.Meta.AgentLSP.Fork = true
	res = schema.NewSessionResult{}
	call("session/resume", fork, &res)
	if res.SessionID == "" || res.SessionID == d.claude {
		t.Fatalf("a fork answered session %q, want a new id", res.SessionID)
	}
	prompt(res.SessionID, "try another way")
	if again, _ := os.ReadFile(d.claudeFile); !bytes.Equal(again, after) {
		t.Errorf("the fork wrote to the original:\n%s", again[len(after):])
	}
	var forked []byte
	filepath.WalkDir(d.storeDir, func(path string, e fs.DirEntry, err error) error {
		if err == nil && filepath.Base(path) == res.SessionID+".jsonl" {
			forked, _ = os.ReadFile(path)
		}
		return nil
	})
	if !bytes.HasPrefix(forked, after) || !bytes.Contains(forked, []byte("forked here")) {
		t.Errorf("the fork is not the original plus its own turn:\n%s", forked)
	}
}

// TestCompactThenResume: /compact records trigger "manual", as Claude
// Code does, and a resumed session sends the summary with the same
// lead-in the live session sent.
func TestCompactThenResume(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	d := serveDoor(t, true, root, t.TempDir(), fake.Turn{fake.Text("hello")}, fake.Turn{fake.Text("A summary.")}, fake.Turn{fake.Text("after resume")})
	call := func(method string, params, result any) {
		t.Helper()
		if err := d.ed.call(method, params, result); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
	}
	prompt := func(id, text string) {
		t.Helper()
		call("session/prompt", schema.PromptParams{SessionID: id, Prompt: []schema.ContentBlock{schema.TextBlock(text)}}, nil)
	}
	call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}}, nil)
	var res schema.NewSessionResult
	call("session/new", schema.NewSessionParams{Cwd: root, MCPServers: []schema.MCPServer{}}, &res)
	prompt(res.SessionID, "hi")
	prompt(res.SessionID, "/compact")
	call("session/close", schema.SessionIDParams{SessionID: res.SessionID}, nil)
	call("session/resume", schema.LoadSessionParams{SessionID: res.SessionID, Cwd: root, MCPServers: []schema.MCPServer{}}, nil)
	prompt(res.SessionID, "go on")
	reqs := d.model.Requests()
	last := string(reqs[len(reqs)-1].Body)
	if !strings.Contains(last, "This session continues from an earlier conversation") || !strings.Contains(last, "A summary.") {
		t.Errorf("the resumed session sent the summary without its lead-in: %.600s", last)
	}
	var file []byte
	filepath.WalkDir(d.storeDir, func(path string, e fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".jsonl") {
			file, _ = os.ReadFile(path)
		}
		return nil
	})
	if !bytes.Contains(file, []byte(`"compactMetadata":{"trigger":"manual"`)) {
		t.Errorf("/compact did not record trigger manual:\n%s", file)
	}
}
