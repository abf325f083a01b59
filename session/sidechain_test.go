package session

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/providers"
)

// TestSidechain writes a subagent's transcript where Claude Code keeps
// it, marked as a sidechain, and reads it back; loading the main session
// does not see it.
func TestSidechain(t *testing.T) {
	st, _ := newTestStore(t)
	main, err := st.Create(fixtureCwd, "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer main.Close()
	text := func(role providers.Role, s string) providers.Message {
		return providers.Message{Role: role, Content: []providers.Block{providers.TextBlock(s)}}
	}
	main.Append(text(providers.RoleUser, "delegate it"))
	side, err := main.Sidechain("a1b2", AgentMeta{AgentType: "general-purpose", IsBuiltIn: true})
	if err != nil {
		t.Fatal(err)
	}
	side.Append(text(providers.RoleUser, "look at x"))
	side.Append(text(providers.RoleAssistant, "x is fine"))
	if err := side.Close(); err != nil {
		t.Fatal(err)
	}
	main.Append(text(providers.RoleAssistant, "done"))

	want := filepath.Join(filepath.Dir(main.Path()), "s1", "subagents", "agent-a1b2.jsonl")
	if side.Path() != want {
		t.Errorf("sidechain path = %s, want %s", side.Path(), want)
	}
	if meta, err := os.ReadFile(strings.TrimSuffix(want, ".jsonl") + ".meta.json"); err != nil || string(meta) != `{"agentType":"general-purpose","isBuiltIn":true}` {
		t.Errorf("agent metadata = %s, %v", meta, err)
	}
	data, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var l map[string]any
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatal(err)
		}
		if l["isSidechain"] != true || l["agentId"] != "a1b2" || l["sessionId"] != "s1" {
			t.Errorf("sidechain line lacks Claude Code's marks: %s", line)
		}
	}
	h, err := st.LoadSidechain(fixtureCwd, "s1", "a1b2")
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Messages) != 2 || h.Messages[1].Content[0].Text != "x is fine" {
		t.Errorf("sidechain loaded as %+v", h.Messages)
	}
	full, err := st.Load(fixtureCwd, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if len(full.Messages) != 2 || full.Messages[1].Content[0].Text != "done" {
		t.Errorf("main session loaded as %+v", full.Messages)
	}
}
