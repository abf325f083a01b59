package session

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/providers"
)

// TestCleanup deletes the sessions untouched for longer than the period,
// with their subagents' files, and keeps recent ones, open ones and
// Claude Code's own.
func TestCleanup(t *testing.T) {
	tmp := t.TempDir()
	claude := filepath.Join(tmp, "claude")
	s := NewStore(filepath.Join(tmp, "state"), claude)
	now := time.Now()
	old := now.Add(-31 * 24 * time.Hour)
	cwdA, cwdB := filepath.Join(tmp, "a"), filepath.Join(tmp, "b")
	for _, d := range []string{cwdA, cwdB} {
		os.MkdirAll(d, 0o755)
	}

	tests := []struct {
		name   string
		cwd    string
		age    time.Time
		open   bool
		agent  bool
		remain bool
	}{
		{name: "old", cwd: cwdA, age: old, remain: false},
		{name: "old-with-agent", cwd: cwdA, age: old, agent: true, remain: false},
		{name: "recent", cwd: cwdA, age: now.Add(-29 * 24 * time.Hour), remain: true},
		{name: "old-open", cwd: cwdB, age: old, open: true, remain: runtime.GOOS != "windows"},
	}
	paths := map[string]string{}
	for _, tc := range tests {
		l, err := s.Create(tc.cwd, tc.name)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Append(providers.Message{Role: providers.RoleUser, Content: []providers.Block{{Type: providers.BlockText, Text: "hi"}}}); err != nil {
			t.Fatal(err)
		}
		if tc.agent {
			side, err := l.Sidechain("x1", AgentMeta{})
			if err != nil {
				t.Fatal(err)
			}
			if err := side.Append(providers.Message{Role: providers.RoleUser, Content: []providers.Block{{Type: providers.BlockText, Text: "sub"}}}); err != nil {
				t.Fatal(err)
			}
			side.Close()
		}
		if tc.open {
			defer l.Close()
		} else {
			l.Close()
		}
		paths[tc.name] = s.ourPath(tc.cwd, tc.name)
		if err := os.Chtimes(paths[tc.name], tc.age, tc.age); err != nil {
			t.Fatal(err)
		}
	}
	// Claude Code's own old session stays: Claude Code cleans its folder.
	theirs := filepath.Join(claude, "projects", projectSlug(cwdA), "theirs.jsonl")
	os.MkdirAll(filepath.Dir(theirs), 0o755)
	os.WriteFile(theirs, []byte("{}\n"), 0o600)
	os.Chtimes(theirs, old, old)

	n, err := s.Cleanup(now, 30*24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("deleted %d sessions, want 2", n)
	}
	for _, tc := range tests {
		_, err := os.Stat(paths[tc.name])
		if remains := err == nil; remains != tc.remain {
			t.Errorf("%s: remains %v, want %v (%v)", tc.name, remains, tc.remain, err)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(paths["old-with-agent"]), "old-with-agent")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the subagents' folder of a deleted session remains: %v", err)
	}
	if _, err := os.Stat(theirs); err != nil {
		t.Errorf("Claude Code's session was touched: %v", err)
	}
	if _, err := s.Cleanup(now, 0); err == nil {
		t.Error("a period of 0 deleted sessions")
	}
}
