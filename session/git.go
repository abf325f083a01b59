package session

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-lsp/agent-lsp/pathres"
)

// gitBranch returns the branch checked out in the repository holding dir
// ("HEAD" when detached), as Claude Code records it in each line's
// gitBranch; "" outside a repository. It reads .git/HEAD rather than
// running git.
func gitBranch(dir string) string {
	for d := dir; ; {
		git := filepath.Join(d, ".git")
		if fi, err := os.Stat(git); err == nil {
			if !fi.IsDir() {
				// A worktree or submodule: ".git" names the git directory.
				b, err := readSmall(git)
				if err != nil {
					return ""
				}
				p, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
				if !ok {
					return ""
				}
				if !filepath.IsAbs(p) {
					p = filepath.Join(d, p)
				}
				git = p
			}
			head, err := readSmall(filepath.Join(git, "HEAD"))
			if err != nil {
				return ""
			}
			head = bytes.TrimSpace(head)
			if ref, ok := bytes.CutPrefix(head, []byte("ref: refs/heads/")); ok {
				return string(ref)
			}
			return "HEAD"
		}
		up := filepath.Dir(d)
		if up == d {
			return ""
		}
		d = up
	}
}

// readSmall reads a .git file or a HEAD, which the repository chooses: a
// regular file of at most 4 KiB. A link to /dev/zero or a FIFO must not
// hang the session's start or fill the agent's memory.
func readSmall(path string) ([]byte, error) {
	return pathres.ReadRegular(path, 4<<10)
}
