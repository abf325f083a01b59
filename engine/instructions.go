package engine

import (
	"github.com/agent-lsp/agent-lsp/pathres"
)

// projectFileOK reports whether a project's instruction file found at
// path, in dir, may go into the system prompt. It may when it is what it
// seems: a file in the directory it was found in (or below it), not a
// link to a secret elsewhere (~/.ssh/id_rsa, /proc/self/environ, a file
// outside the workspace), and not one a Read rule keeps from the model.
// The repository chooses these links, and nothing asks about them.
func (s *Session) projectFileOK(dir, path string) bool {
	real, err := pathres.Resolve("/", path)
	if err != nil {
		return false
	}
	realDir, err := pathres.Resolve("/", dir)
	if err != nil {
		return false
	}
	if !pathres.Within(realDir, real) {
		s.svc.cfg.Logf("session %s: %s leads to %s, outside %s: not read as instructions", s.ID, path, real, dir)
		return false
	}
	return !s.gate.policy.Hides("Read", real)
}
