package permission

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-lsp/agent-lsp/pathres"
)

// within reports whether p is root or lies under it; both clean and
// absolute.
func within(root, p string) bool { return pathres.Within(root, p) }

// withinAny reports whether p lies under one of roots.
func withinAny(roots []string, p string) bool {
	for _, r := range roots {
		if within(r, p) {
			return true
		}
	}
	return false
}

// realPath makes p absolute (from cwd) and resolves it the way the
// kernel does (pathres.Resolve): component by component, following each
// symlink as it is met, so "link/.." is the parent of the link's target,
// not "." as a lexical clean would say; dangling links are followed hop by
// hop to where a write would create the file; what does not exist yet is
// kept as written. A link inside the workspace that points out of it is
// seen for what it is. A path that passes through /proc, /sys or /dev is
// where it got to there; one that cannot be resolved (a loop, an
// unreadable link or folder) is a place outside every workspace, so that
// the call asks.
func realPath(cwd, p string) string {
	real, err := pathres.Resolve(cwd, p)
	switch {
	case err == nil:
		return real
	case errors.Is(err, pathres.ErrPseudo):
		return real
	}
	return unresolvedPath
}

// unresolvedPath is where a path that cannot be resolved leads: outside
// every workspace.
const unresolvedPath = "/proc/self/unresolved"

// protectedDirs are directories inside a workspace whose files can run
// code or change permissions (git hooks and config, these very settings,
// editor tasks), so changing them always asks.
var protectedDirs = map[string]bool{".git": true, ".claude": true, ".vscode": true, ".idea": true, ".husky": true}

// protectedFiles are single files with the same power (the hook
// managers' configurations name the commands their git hooks run).
var protectedFiles = map[string]bool{".mcp.json": true, ".envrc": true, ".gitconfig": true, ".bashrc": true, ".zshrc": true, ".profile": true,
	".pre-commit-config.yaml": true, "lefthook.yml": true, ".lefthook.yml": true, "lefthook-local.yml": true}

// protected reports whether changing p should always ask.
func protected(roots []string, p string) bool {
	if protectedFiles[filepath.Base(p)] {
		return true
	}
	for _, r := range roots {
		if !within(r, p) {
			continue
		}
		rel, err := filepath.Rel(r, p)
		if err != nil {
			return true
		}
		for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
			if protectedDirs[part] {
				return true
			}
		}
		// A git directory under another name: a .git file saying
		// "gitdir: realgit", a bare repository, a folder .git/commondir
		// names. Its config and hooks run programs just the same.
		for d := p; within(r, d); d = filepath.Dir(d) {
			if isGitDir(d) {
				return true
			}
			if d == r {
				break
			}
		}
	}
	return false
}

// isGitDir reports whether dir looks like a git directory, as git itself
// tells (setup.c is_git_directory): a HEAD file and objects and refs
// folders.
func isGitDir(dir string) bool {
	if fi, err := os.Lstat(filepath.Join(dir, "HEAD")); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	for _, sub := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(dir, sub)); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// homeDir returns the home directory, or "" when unknown.
func homeDir() string {
	h, _ := os.UserHomeDir()
	return h
}
