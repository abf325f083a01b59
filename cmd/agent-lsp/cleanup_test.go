package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/internal/editortest"
	"github.com/agent-lsp/agent-lsp/settings"
)

// TestCleanupAtStart: the binary deletes its sessions untouched for more
// than the trusted settings' cleanupPeriodDays when it starts, and keeps
// the recent ones.
func TestCleanupAtStart(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	state := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".claude"), 0o755)
	os.WriteFile(filepath.Join(root, ".claude", "settings.json"), []byte(`{"cleanupPeriodDays": 5}`), 0o644)
	if err := settings.NewTrustStore(filepath.Join(state, "trust.json")).Trust(settings.ResolveFolder(root)); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(state, "projects", "-some-project")
	os.MkdirAll(dir, 0o700)
	ages := map[string]time.Duration{"old.jsonl": 10 * 24 * time.Hour, "recent.jsonl": 2 * 24 * time.Hour}
	for name, age := range ages {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(`{"type":"user"}`+"\n"), 0o600)
		when := time.Now().Add(-age)
		os.Chtimes(p, when, when)
	}
	ed, _ := editortest.NewProcess(t, binary, nil, "ANTHROPIC_API_KEY=test", "AGENT_LSP_HOME="+state, "AGENT_LSP_NO_USER_SETTINGS=1")
	ed.Initialize(root, nil)
	ed.WaitFor("the old session deleted", func() bool {
		_, err := os.Stat(filepath.Join(dir, "old.jsonl"))
		return os.IsNotExist(err)
	})
	if _, err := os.Stat(filepath.Join(dir, "recent.jsonl")); err != nil {
		t.Errorf("the recent session was deleted: %v", err)
	}
}
