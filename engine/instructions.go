package engine

import (
	"os"
	"path/filepath"

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
	return !s.pipe.gate.policy.Hides("Read", real)
}

// repoTop returns the top of the git repository that holds cwd when it
// lies above cwd (the workspace is a folder of a larger repository): the
// nearest folder above cwd, below home, holding a .git entry. It returns
// "" when cwd is the top of its repository, or in none.
func repoTop(cwd, home string) string {
	if _, err := os.Lstat(filepath.Join(cwd, ".git")); err == nil {
		return ""
	}
	for dir := filepath.Dir(cwd); dir != filepath.Dir(dir) && dir != home; dir = filepath.Dir(dir) {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
	}
	return ""
}

// repoFileOK reports whether an instruction file at path, found in dir,
// a folder above the workspace that belongs to its repository (repo),
// may be read. Those files are the repository's, as the workspace's are
// (whoever cloned it chose them), not the user's own: the file is read
// only as itself, never through a link, which could lead to any file the
// repository's author guessed at (another folder of the repository,
// ~/.ssh/id_rsa) without the workspace's checks.
func repoFileOK(repo, dir, path string) bool {
	if repo == "" || !pathres.Within(repo, dir) {
		return true // not the repository's: the user's own folders
	}
	real, err := pathres.Resolve("/", path)
	if err != nil {
		return false
	}
	realDir, err := pathres.Resolve("/", dir)
	return err == nil && real == filepath.Join(realDir, filepath.Base(path))
}
