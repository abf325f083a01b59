package permission

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/agent-lsp/agent-lsp/settings"
)

// TestProtectedByPrinciple: in acceptEdits, a write asks wherever what
// it changes could run later without a question: any dot-file or
// dot-folder in the workspace (not only a list of known names), editor
// workspace files, and the places the repository's git config names
// (core.hooksPath, a filter's program, an included file). Build outputs
// in dot-folders (.venv) and ordinary files do not ask.
func TestProtectedByPrinciple(t *testing.T) {
	project := t.TempDir()
	home := t.TempDir()
	git := exec.Command("git", "init", "-q", project)
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	f, err := os.OpenFile(filepath.Join(project, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("[core]\n\thooksPath = tools/hooks\n[filter \"x\"]\n\tclean = ./scripts/clean.sh %f\n[include]\n\tpath = ../conf/git.inc\n")
	f.Close()
	in := func(rel string) string { return filepath.Join(project, rel) }
	p := NewPolicy(project, &settings.Settings{Home: home}, AcceptEdits)
	for rel, want := range map[string]Verdict{
		".nvim.lua":                 Ask,
		".exrc":                     Ask,
		".dir-locals.el":            Ask,
		"sub/.envrc":                Ask,
		"deep/a/.vscode/tasks.json": Ask,
		"proj.code-workspace":       Ask,
		".github/workflows/ci.yml":  Ask,
		".gitignore":                Ask,
		"lefthook.yml":              Ask,
		"tools/hooks/pre-commit":    Ask,
		"scripts/clean.sh":          Ask,
		"conf/git.inc":              Ask,
		"src/main.go":               Allow,
		"scripts/build.sh":          Allow,
		".venv/lib/site.py":         Allow,
	} {
		d := p.Decide(Call{Tool: "Write", Kind: "edit", Paths: []string{in(rel)}})
		if d.Verdict != want {
			t.Errorf("acceptEdits Write %s: %v (%s), want %v", rel, d.Verdict, d.Reason, want)
		}
	}
}
