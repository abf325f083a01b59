package permission

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/agent-lsp/agent-lsp/settings"
)

// TestGitDirUnderAnotherNameIsProtected: a repository whose .git is a
// file ("gitdir: realgit") keeps its config and hooks in realgit/, and a
// bare repository may sit anywhere in the workspace. acceptEdits let the
// Write tool and shell redirects change them without a question, so a
// hook planted there ran on the user's next approved git commit.
func TestGitDirUnderAnotherNameIsProtected(t *testing.T) {
	project, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"realgit/objects", "realgit/refs", "realgit/hooks", "fixtures/b.git/objects", "fixtures/b.git/refs", "src", "notgit/objects"} {
		if err := os.MkdirAll(filepath.Join(project, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, text := range map[string]string{
		".git":                "gitdir: realgit\n",
		"realgit/HEAD":        "ref: refs/heads/main\n",
		"realgit/config":      "[core]\n",
		"fixtures/b.git/HEAD": "ref: refs/heads/main\n",
		"notgit/HEAD":         "not a repository: no refs\n",
	} {
		if err := os.WriteFile(filepath.Join(project, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	in := func(rel string) string { return filepath.Join(project, rel) }
	p := NewPolicy(project, &settings.Settings{Home: t.TempDir()}, AcceptEdits)
	for _, tc := range []struct {
		call Call
		want Verdict
	}{
		{Call{Tool: "Write", Kind: "edit", Paths: []string{in("realgit/hooks/pre-commit")}}, Ask},
		{Call{Tool: "Edit", Kind: "edit", Paths: []string{in("realgit/config")}}, Ask},
		{Call{Tool: "Write", Kind: "edit", Paths: []string{in("realgit/commondir")}}, Ask},
		{Call{Tool: "Write", Kind: "edit", Paths: []string{in("fixtures/b.git/config")}}, Ask},
		{Call{Tool: "Bash", Kind: "execute", Cwd: project, Command: "echo '[core] pager = x' >> realgit/config"}, Ask},
		{Call{Tool: "Bash", Kind: "execute", Cwd: project, Command: "printf x > realgit/hooks/post-checkout"}, Ask},
		// Hook managers' configurations: their commands run on the
		// user's next git commit.
		{Call{Tool: "Write", Kind: "edit", Paths: []string{in(".pre-commit-config.yaml")}}, Ask},
		{Call{Tool: "Edit", Kind: "edit", Paths: []string{in("lefthook.yml")}}, Ask},
		// Controls: ordinary files, and a folder that only has a HEAD.
		{Call{Tool: "Write", Kind: "edit", Paths: []string{in("src/x.go")}}, Allow},
		{Call{Tool: "Write", Kind: "edit", Paths: []string{in("notgit/HEAD")}}, Allow},
	} {
		d := p.Decide(tc.call)
		if d.Verdict != tc.want {
			t.Errorf("%s %v%s: got %v (%s), want %v", tc.call.Tool, tc.call.Paths, tc.call.Command, d.Verdict, d.Reason, tc.want)
		}
	}
}

// TestGitCommondirFIFO: the classifier reads a repository's
// .git/commondir to find its config. One that is a FIFO (or a link to
// /dev/zero) made that read wait forever (or fill memory) at the model's
// first git command; now the command is judged as if there were none.
func TestGitCommondirFIFO(t *testing.T) {
	project, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{".git/objects", ".git/refs"} {
		if err := os.MkdirAll(filepath.Join(project, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(project, ".git/HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(project, ".git/commondir"), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	p := NewPolicy(project, &settings.Settings{Home: t.TempDir()}, Default)
	d := p.Decide(Call{Tool: "Bash", Kind: "execute", Cwd: project, Command: "git status"})
	if d.Verdict == Deny {
		t.Errorf("git status: %v (%s)", d.Verdict, d.Reason)
	}
	// A config that is a FIFO: the command asks.
	if err := os.Remove(filepath.Join(project, ".git/commondir")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(project, ".git/config"), 0o644); err != nil {
		t.Fatal(err)
	}
	if d := p.Decide(Call{Tool: "Bash", Kind: "execute", Cwd: project, Command: "git status"}); d.Verdict != Ask {
		t.Errorf("git status with a FIFO config: %v (%s), want ask", d.Verdict, d.Reason)
	}
}
