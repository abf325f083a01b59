package shell

import (
	"errors"

	"github.com/agent-lsp/agent-lsp/pathres"
)

// withinAny reports whether p (clean, absolute) is one of roots or lies
// under one.
func withinAny(roots []string, p string) bool {
	for _, r := range roots {
		if pathres.Within(r, p) {
			return true
		}
	}
	return false
}

// realPath makes p absolute (from cwd) and resolves it the way the
// kernel does (pathres.Resolve): component by component, following each
// symlink as it is met, so "link/.." is the parent of the link's target;
// dangling links are followed to where a write would create the file;
// what does not exist yet is kept as written. A path that passes through
// /proc, /sys or /dev is where it got to there; one that cannot be
// resolved (a loop, an unreadable link or folder) is a place outside
// every workspace, so that the command asks. It is the resolution
// package permission applies to the paths of other tools.
func realPath(cwd, p string) string {
	real, err := pathres.Resolve(cwd, p)
	if err == nil || errors.Is(err, pathres.ErrPseudo) {
		return real
	}
	return unresolvedPath
}

// unresolvedPath is where a path that cannot be resolved leads: outside
// every workspace.
const unresolvedPath = "/proc/self/unresolved"

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
