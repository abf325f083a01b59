package engine

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadInstructionFile checks that a repository cannot pull files it
// may not read into the system prompt through its instruction files.
func TestReadInstructionFile(t *testing.T) {
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{ws, outside, filepath.Join(ws, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, text string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, p string) {
		t.Helper()
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(ws, "CLAUDE.md"), "project rules")
	write(filepath.Join(ws, "sub", "notes.md"), "shared notes")
	write(filepath.Join(outside, "secret.md"), "SECRET")
	write(filepath.Join(base, "CLAUDE.md"), "the user's parent-folder rules")
	link(filepath.Join(outside, "secret.md"), filepath.Join(ws, "AGENTS.md"))
	link("/proc/self/environ", filepath.Join(ws, "CLAUDE.local.md"))
	link("sub/notes.md", filepath.Join(ws, "INSIDE.md"))
	link("../../outside/secret.md", filepath.Join(ws, "sub", "CLAUDE.md"))
	link(filepath.Join(outside, "secret.md"), filepath.Join(base, "AGENTS.md"))
	link("/proc/self/environ", filepath.Join(base, "CLAUDE.local.md"))
	if err := syscall.Mkfifo(filepath.Join(ws, "FIFO.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The workspace reached through a link to it is still the workspace.
	link(ws, filepath.Join(base, "ws-link"))
	// A folder of the workspace that is a link out of it (.claude/agents,
	// .claude/skills, .claude/commands, or .claude itself): what lies
	// there is not the workspace's, however its files look.
	if err := os.MkdirAll(filepath.Join(outside, "agents", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(outside, "agents", "notes.md"), "SECRET notes")
	write(filepath.Join(outside, "agents", "x", "SKILL.md"), "SECRET skill")
	if err := os.MkdirAll(filepath.Join(ws, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	link(filepath.Join(outside, "agents"), filepath.Join(ws, ".claude", "agents"))
	link(outside, filepath.Join(ws, "dotclaude"))

	tests := []struct {
		path    string
		want    string // the content, or "" when the file must be refused
		refusal string // a word the error must contain
	}{
		{filepath.Join(ws, "CLAUDE.md"), "project rules", ""},
		{filepath.Join(ws, "INSIDE.md"), "shared notes", ""},
		{filepath.Join(ws, "AGENTS.md"), "", "leads outside"},
		{filepath.Join(ws, "CLAUDE.local.md"), "", "/proc"},
		{filepath.Join(ws, "sub", "CLAUDE.md"), "", "leads outside"},
		{filepath.Join(ws, "FIFO.md"), "", "not a regular file"},
		{filepath.Join(base, "ws-link", "AGENTS.md"), "", "leads outside"},
		{filepath.Join(ws, ".claude", "agents", "notes.md"), "", "leads outside"},
		{filepath.Join(ws, ".claude", "agents", "x", "SKILL.md"), "", "leads outside"},
		{filepath.Join(ws, "dotclaude", "agents", "notes.md"), "", "leads outside"},
		{filepath.Join(base, "CLAUDE.md"), "the user's parent-folder rules", ""},
		{filepath.Join(base, "AGENTS.md"), "SECRET", ""}, // the user's own folder, above the workspace
		{filepath.Join(base, "CLAUDE.local.md"), "", "/proc"},
	}
	for _, tt := range tests {
		got, err := readInstructionFile(tt.path, []string{ws})
		switch {
		case tt.want != "" && (err != nil || string(got) != tt.want):
			t.Errorf("readInstructionFile(%s) = %q, %v; want %q", tt.path, got, err, tt.want)
		case tt.want == "" && err == nil:
			t.Errorf("readInstructionFile(%s) = %q, want a refusal", tt.path, got)
		case tt.want == "" && !strings.Contains(err.Error(), tt.refusal):
			t.Errorf("readInstructionFile(%s) error %q does not say %q", tt.path, err, tt.refusal)
		}
	}
}

// TestRepositoryFilesAboveTheWorkspace: instruction files in the folders
// above the workspace that belong to its repository are the
// repository's: a link there is not followed, whatever it leads to;
// above the repository they are the user's own.
func TestRepositoryFilesAboveTheWorkspace(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	repo := filepath.Join(base, "repo")
	ws := filepath.Join(repo, "pkg", "ws")
	for _, d := range []string{filepath.Join(repo, ".git"), ws, filepath.Join(base, "outside")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(base, "outside", "secret"), []byte("SECRET"), 0o600)
	os.WriteFile(filepath.Join(repo, "AGENTS.md"), []byte("repo rules"), 0o644)
	os.WriteFile(filepath.Join(repo, ".env"), []byte("TOKEN"), 0o600)
	os.Symlink(".env", filepath.Join(repo, "CLAUDE.md"))
	os.Symlink("../../outside/secret", filepath.Join(repo, "pkg", "CLAUDE.md"))
	os.Symlink("outside/secret", filepath.Join(base, "CLAUDE.md"))
	if got := repoTop(ws, ""); got != repo {
		t.Fatalf("repoTop(%s) = %q, want %q", ws, got, repo)
	}
	if got := repoTop(repo, ""); got != "" {
		t.Errorf("repoTop at the top of the repository = %q, want \"\"", got)
	}
	for _, c := range []struct {
		dir, name string
		want      bool
	}{
		{repo, "AGENTS.md", true},  // a file of the repository, as itself
		{repo, "CLAUDE.md", false}, // a link to the repository's .env, outside the workspace
		{repo + "/pkg", "CLAUDE.md", false},
		{base, "CLAUDE.md", true}, // above the repository: the user's own folder
	} {
		if got := repoFileOK(repoTop(ws, ""), c.dir, filepath.Join(c.dir, c.name)); got != c.want {
			t.Errorf("repoFileOK(%s/%s) = %v, want %v", c.dir, c.name, got, c.want)
		}
	}
}
