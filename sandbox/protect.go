package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
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
	// (placeholderJSON when nil; empty for files git reads as config).
	placeholder []byte
}

// noContent is the placeholder of files git reads as config: empty.
var noContent = []byte{}

// protectedInRoot are the paths under a workspace root that stay
// read-only in every sandbox, and cannot be created where missing.
var protectedInRoot = []protectedPath{
	{rel: ".git/hooks", dir: true, inGit: true},
	{rel: ".git/config", inGit: true},
	// With extensions.worktreeConfig (sparse checkouts set it), git
	// reads this as config too.
	{rel: ".git/config.worktree", inGit: true, placeholder: noContent},
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

// protectMounts keeps the protected paths of roots read-only in a
// sandbox where the roots are writable: the paths of protectedInRoot and
// of the git folders (planProtection), every entry runsLater names
// (runsLaterIn), and the places the repository config names (gitNamed).
// bwrap can only mount over a path that exists, and the mount point it
// would create for a missing one lands in the writable workspace, where
// the command could then replace it. So a missing protected path of
// planProtection or gitNamed gets a placeholder on the host first (an
// empty directory, or a file holding "{}"), which the sandbox mounts
// read-only over itself; release removes the placeholders that no other
// running sandbox uses and that nobody changed. Call release once every
// process of the command has ended. It fails, and the command must not
// run, when a protected path is a symlink (only its target could be
// mounted over; the link could be replaced) or cannot get its
// placeholder.
func protectMounts(m *mountPlan, roots []string) (release func(), err error) {
	var made, watch []string
	fail := func(err error) (func(), error) {
		releasePlaceholders(made)
		return nil, err
	}
	held := map[string]bool{}
	// protect keeps p read-only, with a placeholder where it is missing.
	protect := func(p string, pp protectedPath) error {
		held[p] = true
		fi, err := os.Lstat(p)
		switch {
		case err == nil && fi.Mode()&fs.ModeSymlink != 0:
			// bwrap mounts over what a symlink points to, not over the
			// link, which stays in a writable folder: a command could
			// replace it ("rm .claude; mkdir .claude") with what it
			// likes. Refuse rather than run unprotected.
			return linkError(p)
		case err == nil:
			m.add(kindReadOnly, p, "--ro-bind", p, p)
			return nil
		case !errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("cannot keep %s read-only: %w", p, err)
		}
		if !placeholder(p, pp.dir, pp.placeholder) {
			return fmt.Errorf("cannot keep %s read-only: no placeholder could be made there", p)
		}
		made = append(made, p)
		m.add(kindReadOnly, p, "--ro-bind", p, p)
		return nil
	}
	plan := planProtection(roots)
	var later []string
	for _, root := range roots {
		found, nested, err := runsLaterIn(root)
		if err != nil {
			return nil, err
		}
		later = append(later, found...)
		// Nested repositories' git directories, as the roots': only
		// what is in them (no placeholders in their work trees).
		for _, wt := range nested {
			np := planProtection([]string{wt})
			gd := gitDirIn(wt)
			np.paths = slices.DeleteFunc(np.paths, func(t protectedTarget) bool { return gd == "" || !within(gd, t.path) })
			plan.links = append(plan.links, np.links...)
			plan.gitFiles = append(plan.gitFiles, np.gitFiles...)
			plan.pins = append(plan.pins, np.pins...)
			plan.paths = append(plan.paths, np.paths...)
			plan.watched = append(plan.watched, np.watched...)
		}
	}
	if len(plan.links) > 0 {
		return nil, linkError(plan.links[0])
	}
	for _, f := range plan.gitFiles {
		// A .git file (a worktree or submodule checkout) names the
		// repository: its gitdir: line must not change.
		held[f] = true
		m.add(kindReadOnly, f, "--ro-bind", f, f)
	}
	// A folder mounted over itself (still writable) is a mount point,
	// which cannot be renamed or removed, so the read-only mounts below
	// it stay where git looks ("mv .git g && mkdir .git" would otherwise
	// leave them behind in g and make a new .git/config). Pins come
	// before the mounts inside them (mountPlan orders by depth).
	for _, dir := range plan.pins {
		m.add(kindPin, dir, "--bind", dir, dir)
	}
	for _, t := range plan.paths {
		if err := protect(t.path, t.pp); err != nil {
			return fail(err)
		}
	}
	for _, root := range roots {
		for _, place := range gitNamed(root) {
			if held[place.path] {
				continue
			}
			// A missing place is held at its first missing folder, so
			// that nothing can be made below it either.
			p, dir := place.path, place.dir
			for q := filepath.Dir(p); within(root, q) && q != root && !lexists(q); q = filepath.Dir(q) {
				p, dir = q, true
			}
			if err := protect(p, protectedPath{dir: dir, placeholder: noContent}); err != nil {
				return fail(err)
			}
		}
	}
	for _, p := range later {
		if held[p] {
			continue
		}
		held[p] = true
		if !isLink(p) {
			m.add(kindReadOnly, p, "--ro-bind", p, p)
			continue
		}
		// A link among them keeps what it points to in the workspace
		// read-only; the link itself stays replaceable.
		real, err := resolve(p)
		if err == nil && slices.ContainsFunc(roots, func(r string) bool { return within(r, real) }) && exists(real) && !held[real] {
			held[real] = true
			m.add(kindReadOnly, real, "--ro-bind", real, real)
		}
	}
	// What a command creates at the paths of gitCreatedOnly in these
	// folders is removed when it ends.
	for _, dir := range plan.watched {
		for _, rel := range gitCreatedOnly {
			if p := filepath.Join(dir, rel); !lexists(p) {
				watch = append(watch, p)
			}
		}
	}
	return func() {
		releasePlaceholders(made)
		removeCreated(watch)
	}, nil
}

// protection is what keeps the protected paths of some roots read-only
// (planProtection).
type protection struct {
	links    []string // .git links: the sandbox cannot protect them
	gitFiles []string // .git files, kept read-only
	pins     []string // git folders mounted over themselves, parents first
	paths    []protectedTarget
	watched  []string // submodules' repositories (gitCreatedOnly)
}

// protectedTarget is a protected path and what it is.
type protectedTarget struct {
	path string
	pp   protectedPath
}

// planProtection lists, for each root, its .git file or link, the paths
// of protectedInRoot (those in the git directory looked up through a .git
// file or link), and the git folders of its submodules and linked
// worktrees with their protected paths.
func planProtection(roots []string) protection {
	var pl protection
	for _, root := range roots {
		dotGit := filepath.Join(root, ".git")
		if fi, err := os.Lstat(dotGit); err == nil {
			switch {
			case fi.Mode()&fs.ModeSymlink != 0:
				pl.links = append(pl.links, dotGit)
			case fi.Mode().IsRegular():
				pl.gitFiles = append(pl.gitFiles, dotGit)
			}
		}
		gitDir := gitDirIn(root)
		if gitDir != "" {
			pl.pins = append(pl.pins, gitDir)
		}
		for _, pp := range protectedInRoot {
			p := filepath.Join(root, pp.rel)
			if pp.inGit {
				if gitDir == "" {
					continue
				}
				p = filepath.Join(gitDir, strings.TrimPrefix(pp.rel, ".git/"))
			}
			pl.paths = append(pl.paths, protectedTarget{p, pp})
		}
		if gitDir == "" {
			continue
		}
		// Submodules' repositories (.git/modules/NAME, nested) and linked
		// worktrees' folders (.git/worktrees/NAME): git runs in them,
		// from the superproject's git status too, with their config.
		nested := nestedGitDirs(gitDir)
		var pins []string
		for _, g := range nested {
			for d := g.dir; d != gitDir; d = filepath.Dir(d) {
				if !slices.Contains(pins, d) {
					pins = append(pins, d)
				}
			}
		}
		slices.Sort(pins) // parents before their children
		pl.pins = append(pl.pins, pins...)
		for _, g := range nested {
			for _, pp := range g.protect {
				pl.paths = append(pl.paths, protectedTarget{filepath.Join(g.dir, pp.rel), pp})
			}
			if !g.worktree {
				pl.watched = append(pl.watched, g.dir)
			}
		}
	}
	return pl
}

// linkError is why the writable sandboxes refuse to run where the
// protected path p is a symbolic link.
func linkError(p string) error {
	return fmt.Errorf("cannot keep %s read-only: it is a symbolic link, which a command could replace; run the command yourself or replace the link with what it points to", p)
}

// LinkedProtectedPath returns a protected path of roots that is a
// symbolic link, or "" when there is none: the writable sandboxes refuse
// to run there (protectArgs), so a command that would run in one without
// a question must be asked about instead.
func LinkedProtectedPath(roots []string) string {
	plan := planProtection(roots)
	if len(plan.links) > 0 {
		return plan.links[0]
	}
	for _, t := range plan.paths {
		if isLink(t.path) {
			return t.path
		}
	}
	return ""
}

// nestedGitDir is a git folder inside a root's .git: a submodule's
// repository or a linked worktree's folder, with the paths in it that
// stay read-only.
type nestedGitDir struct {
	dir      string
	worktree bool
	protect  []protectedPath
}

// Protected paths in a submodule's repository and in a linked worktree's
// folder (whose commondir and gitdir say where its repository and its
// files are).
var (
	protectedInModule = []protectedPath{
		{rel: "config"}, {rel: "config.worktree", placeholder: noContent}, {rel: "hooks", dir: true}, {rel: "info", dir: true},
	}
	protectedInWorktree = []protectedPath{
		{rel: "config.worktree", placeholder: noContent}, {rel: "commondir"}, {rel: "gitdir"},
	}
)

// nestedGitDirs lists the submodule repositories under dotGit/modules
// (submodules of submodules included, a few levels down) and the linked
// worktrees' folders under dotGit/worktrees, parents before children.
func nestedGitDirs(dotGit string) []nestedGitDir {
	var out []nestedGitDir
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		entries, err := os.ReadDir(dir)
		if err != nil || depth > 4 {
			return
		}
		for _, e := range entries {
			if !e.IsDir() || e.Type()&fs.ModeSymlink != 0 {
				continue
			}
			d := filepath.Join(dir, e.Name())
			if lexists(filepath.Join(d, "HEAD")) {
				out = append(out, nestedGitDir{dir: d, protect: protectedInModule})
				walk(filepath.Join(d, "modules"), depth+1)
				continue
			}
			walk(d, depth+1) // a submodule named with a slash
		}
	}
	walk(filepath.Join(dotGit, "modules"), 0)
	if entries, err := os.ReadDir(filepath.Join(dotGit, "worktrees")); err == nil {
		for _, e := range entries {
			if e.IsDir() {
				out = append(out, nestedGitDir{dir: filepath.Join(dotGit, "worktrees", e.Name()), worktree: true, protect: protectedInWorktree})
			}
		}
	}
	return out
}

// gitCreatedOnly are the paths in a .git folder that make git read its
// configuration from elsewhere (commondir: the folder whose config,
// hooks and objects count) and that git itself never creates there. They
// cannot get a placeholder; one a sandboxed command creates is removed
// once it ends.
var gitCreatedOnly = []string{"commondir"}

// removeCreated removes what a command created at paths that did not
// exist when it started.
func removeCreated(paths []string) {
	for _, p := range paths {
		if lexists(p) {
			_ = os.RemoveAll(p)
		}
	}
}

// lexists reports whether something (a symlink included) is at p.
func lexists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
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

// isLink reports whether p is a symbolic link.
func isLink(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode()&fs.ModeSymlink != 0
}
