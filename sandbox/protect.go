package sandbox

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/agent-lsp/agent-lsp/pathres"
)

// protectedPath is a path under a workspace root that a sandboxed command
// may not change or create, because its content runs code or grants
// permissions outside the sandbox later.
type protectedPath struct {
	rel string
	dir bool
	// inGit paths are only protected when the root has a git directory
	// in it (.git, or the folder a .git file's "gitdir:" names): making
	// .git/hooks in a folder that is no repository would turn it into a
	// broken one. rel then starts with ".git/", which stands for that
	// directory.
	inGit bool
	// placeholder is what a missing file's placeholder holds
	// (placeholderJSON when nil).
	placeholder []byte
}

// protectedInRoot are the paths under a workspace root that stay
// read-only in every sandbox, and cannot be created where missing.
var protectedInRoot = []protectedPath{
	{rel: ".git/hooks", dir: true, inGit: true},
	{rel: ".git/config", inGit: true},
	{rel: ".git/info", dir: true, inGit: true},
	// commondir moves where git reads its config (and hooks) from; a
	// placeholder "." keeps git working.
	{rel: ".git/commondir", inGit: true, placeholder: []byte(".\n")},
	{rel: ".claude", dir: true},
	{rel: ".mcp.json"},
	{rel: ".vscode", dir: true},
	{rel: ".husky", dir: true},
}

// placeholderJSON is the content of a placeholder file: valid, empty
// JSON, so that a settings loader that sees it meanwhile finds nothing.
var placeholderJSON = []byte("{}\n")

// placeholders counts, per host path, the running sandboxes that hold a
// placeholder made there, so the last one to end removes it.
var placeholders = struct {
	mu      sync.Mutex
	refs    map[string]int    // guarded by mu
	content map[string][]byte // of the placeholder files made, guarded by mu
}{refs: map[string]int{}, content: map[string][]byte{}}

// protectArgs returns the bwrap arguments that keep the protected paths of
// roots read-only in a sandbox where the roots are writable. bwrap can
// only mount over a path that exists, and the mount point it would create
// for a missing one lands in the writable workspace, where the command
// could then replace it. So a missing protected path gets a placeholder
// on the host first (an empty directory, or a file holding "{}"), which
// the sandbox mounts read-only over itself; release removes the
// placeholders that no other running sandbox uses and that nobody
// changed. Call release once every process of the command has ended.
func protectArgs(roots []string) (args []string, release func()) {
	var made []string
	for _, root := range roots {
		gitDir := gitDirIn(root)
		if dotGit := filepath.Join(root, ".git"); isRegular(dotGit) {
			// The .git file that names the git directory: pointed
			// elsewhere, it would bring another config and hooks.
			args = append(args, "--ro-bind", dotGit, dotGit)
		}
		for _, pp := range protectedInRoot {
			p := filepath.Join(root, pp.rel)
			if pp.inGit {
				if gitDir == "" {
					continue
				}
				p = filepath.Join(gitDir, strings.TrimPrefix(pp.rel, ".git/"))
			}
			fi, err := os.Lstat(p)
			switch {
			case err == nil && fi.Mode()&fs.ModeSymlink != 0:
				// bwrap mounts over what a symlink points to, not over the
				// link: protect the target (a target outside the roots is
				// read-only anyway), with a placeholder when it does not
				// exist yet but would be created in a root. The link
				// itself stays in a writable directory (a known limit, see
				// doc.go).
				target, err := pathres.Resolve("/", p)
				switch {
				case err != nil:
				case exists(target):
					args = append(args, "--ro-bind", target, target)
				case inAny(roots, target) && placeholder(target, pp.dir, pp.placeholder):
					made = append(made, target)
					args = append(args, "--ro-bind", target, target)
				}
				continue
			case err == nil:
				args = append(args, "--ro-bind", p, p)
				continue
			case !errors.Is(err, fs.ErrNotExist):
				continue
			}
			if placeholder(p, pp.dir, pp.placeholder) {
				made = append(made, p)
				args = append(args, "--ro-bind", p, p)
			}
		}
	}
	return args, func() { releasePlaceholders(made) }
}

// gitDirIn returns root's git directory when it lies in root: root/.git,
// where a .git link leads, or the folder that a .git file's "gitdir:"
// line names (a repository whose git directory is "realgit" keeps its
// config and hooks there). It returns "" when there is none in root.
func gitDirIn(root string) string {
	dotGit := filepath.Join(root, ".git")
	fi, err := os.Lstat(dotGit)
	target := dotGit
	switch {
	case err != nil:
		return ""
	case fi.IsDir():
		return dotGit
	case fi.Mode()&fs.ModeSymlink != 0:
	case !fi.Mode().IsRegular() || fi.Size() > 4096:
		return ""
	default:
		data, err := os.ReadFile(dotGit)
		if err != nil {
			return ""
		}
		line, _, _ := strings.Cut(string(data), "\n")
		t, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
		if !ok || strings.TrimSpace(t) == "" {
			return ""
		}
		target = strings.TrimSpace(t)
	}
	dir, err := pathres.Resolve(root, target)
	if err != nil || !pathres.Within(root, dir) {
		return "" // outside the root: read-only in every sandbox
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return ""
	}
	return dir
}

// isRegular reports whether p is a regular file (not through a link).
func isRegular(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode().IsRegular()
}

// placeholder makes (or takes a reference on) a placeholder at p: an
// empty directory, or a file holding content (placeholderJSON when nil).
// It reports false when p cannot be made.
func placeholder(p string, dir bool, content []byte) bool {
	placeholders.mu.Lock()
	defer placeholders.mu.Unlock()
	if placeholders.refs[p] > 0 {
		placeholders.refs[p]++
		return true
	}
	var err error
	if dir {
		err = os.Mkdir(p, 0o555)
	} else {
		var f *os.File
		if content == nil {
			content = placeholderJSON
		}
		f, err = os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o444)
		if err == nil {
			_, err = f.Write(content)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
	}
	if err != nil {
		return false
	}
	placeholders.refs[p] = 1
	if !dir {
		placeholders.content[p] = content
	}
	return true
}

// releasePlaceholders drops one reference on each path, removing the
// placeholders no sandbox uses any more, when they are unchanged.
func releasePlaceholders(paths []string) {
	placeholders.mu.Lock()
	defer placeholders.mu.Unlock()
	for _, p := range paths {
		placeholders.refs[p]--
		if placeholders.refs[p] > 0 {
			continue
		}
		delete(placeholders.refs, p)
		content := placeholders.content[p]
		delete(placeholders.content, p)
		fi, err := os.Lstat(p)
		switch {
		case err != nil:
		case fi.IsDir():
			_ = os.Chmod(p, 0o755)
			if err := os.Remove(p); err != nil { // not empty: someone else's now
				_ = os.Chmod(p, fi.Mode().Perm())
			}
		case fi.Mode().IsRegular():
			if data, err := os.ReadFile(p); err == nil && bytes.Equal(data, content) {
				_ = os.Remove(p)
			}
		}
	}
}

// inAny reports whether p lies in one of roots.
func inAny(roots []string, p string) bool {
	for _, r := range roots {
		if pathres.Within(r, p) {
			return true
		}
	}
	return false
}
