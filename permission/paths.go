package permission

import (
	"errors"
	"os"

	"github.com/agent-lsp/agent-lsp/pathres"
	"github.com/agent-lsp/agent-lsp/sandbox"
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

// protected reports whether changing p should always ask: what it
// holds could run later without a question (sandbox.Protected: dot-files
// and dot-folders anywhere in the workspace, editor workspace files, git
// directories, the places the repository's git config names).
func protected(roots []string, p string) bool { return sandbox.Protected(roots, p) }

// homeDir returns the home directory, or "" when unknown.
func homeDir() string {
	h, _ := os.UserHomeDir()
	return h
}
