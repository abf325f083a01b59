package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agent-lsp/agent-lsp/pathres"
	"github.com/agent-lsp/agent-lsp/settings"
	"github.com/bmatcuk/doublestar/v4"
)

// envAllow are the variables a confined command gets from the sidecar's
// environment; LC_* are kept too. Everything else (API keys, tokens,
// GIT_* overrides, LD_PRELOAD) is left behind.
var envAllow = []string{"PATH", "LANG", "LANGUAGE", "TERM", "COLORTERM", "USER", "LOGNAME", "TZ", "NO_COLOR"}

// envProgram runs a program with a given environment.
const envProgram = "/usr/bin/env"

// Confiner runs commands that the permission policy allowed without a
// question (the classifier judged them harmless, or one of the user's
// allow rules allowed them) in a sandbox that does not depend on the
// settings' enabled flag: the read-only, workspace and rule profiles
// (profiles.go). They see the workspace, the system's folders, the
// granted toolchain folders and an empty home; no other file of the
// host, no file a Read deny rule covers, and an environment without the
// sidecar's secrets. It is safe for concurrent use.
type Confiner struct {
	bwrap string   // absolute path; "" when bubblewrap cannot run here
	why   string   // why bubblewrap cannot run
	roots []string // symlink-resolved workspace roots

	mu   sync.Mutex
	gen  uint64      // bumped by Invalidate; guarded by mu
	last *scanResult // the last scan; guarded by mu
}

// Options say how to confine one command.
type Options struct {
	// Writable makes the workspace roots writable (acceptEdits mode),
	// the protected paths staying read-only.
	Writable bool
	// Deny are absolute doublestar patterns of files to hide (Read deny
	// rules).
	Deny []string
	// ReadOnly are absolute doublestar patterns of files the writable
	// profiles keep read-only (Edit deny rules): what they match in the
	// workspace when the command starts is mounted read-only over
	// itself, so no command, script or build step writes, replaces or
	// removes it.
	ReadOnly []string
	// Rule is for a command that one of the user's allow rules allowed:
	// the workspace roots are writable (Writable is implied), their
	// protected paths read-only, the settings' allowWrite folders
	// writable; the environment is the sidecar's without its secrets
	// (ruleEnv).
	Rule bool
	// Network, with Rule, leaves the network on (the settings' sandbox
	// allows every host).
	Network bool
	// Proxy, with Rule and without Network, is the command's way out to
	// the hosts the settings grant; nil leaves it without network.
	Proxy *Proxy
	// Filesystem is the settings' sandbox.filesystem: allowRead folders
	// are shown read-only, denyRead ones hidden, denyWrite ones kept
	// read-only, allowWrite ones writable with Rule (read-only
	// otherwise).
	Filesystem settings.SandboxFilesystem
}

var probed = struct {
	once       sync.Once
	bwrap, why string
}{}

// Probe reports whether bubblewrap can make sandboxes here, once per
// process: the absolute path of bwrap, or why not.
func Probe() (bwrap, why string) {
	probed.once.Do(func() { probed.bwrap, probed.why = probeBwrap("bwrap") })
	return probed.bwrap, probed.why
}

func probeBwrap(name string) (string, string) {
	path, err := exec.LookPath(name)
	if err != nil {
		return "", "bubblewrap (bwrap) is not installed"
	}
	if _, err := os.Stat(envProgram); err != nil {
		return "", envProgram + " is missing"
	}
	if why := kernelReady(); why != "" {
		return "", why
	}
	if why := probe(append(kernelArgs(path), "--unshare-pid", "--unshare-net", "--die-with-parent", "--ro-bind", "/", "/", "--proc", "/proc", "--")); why != "" {
		return "", why
	}
	return path, ""
}

// NewConfiner returns the confiner for the workspace roots (absolute,
// symlink-resolved). The warning, when not empty, is for the user, once:
// commands cannot be confined here.
func NewConfiner(roots []string) (*Confiner, string) {
	bwrap, why := Probe()
	return newConfiner(roots, bwrap, why)
}

func newConfiner(roots []string, bwrap, why string) (*Confiner, string) {
	c := &Confiner{bwrap: bwrap, why: why, roots: slices.Clone(roots)}
	if bwrap == "" {
		return c, "no sandbox can confine the commands that run without a question (" + why + "), so only a short list of simple commands (ls, cat, git status, ...) runs without asking. Install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap) to let more read-only commands run"
	}
	return c, ""
}

// Available reports whether commands can be confined.
func (c *Confiner) Available() bool { return c != nil && c.bwrap != "" }

// Wrap returns the command line that runs argv confined, and a function
// to call once every process of the command has ended. Without
// bubblewrap it still clears the environment (env -i). It fails when
// what must be hidden cannot be found; the command must then not run.
func (c *Confiner) Wrap(argv []string, o Options) ([]string, func(), error) {
	if len(argv) == 0 {
		return nil, nil, fmt.Errorf("sandbox: empty command")
	}
	if !c.Available() {
		// Nothing can replace the repositories' configs: turn off the
		// drivers they name through the environment.
		var extra [][2]string
		for _, r := range c.roots {
			if cfg := filepath.Join(r, ".git", "config"); exists(cfg) {
				extra = append(extra, driverOverrides(cfg)...)
			}
		}
		out := append([]string{envProgram, "-i"}, confinedEnv(extra...)...)
		return append(out, argv...), func() {}, nil
	}
	found := c.scan(o.Deny, o.ReadOnly)
	if found.err != nil {
		return nil, nil, found.err
	}
	var args []string
	release := func() {}
	var err error
	switch {
	case o.Rule:
		args, release, err = c.rule(o, found)
		if o.Proxy != nil && !o.Network {
			argv = proxiedCommand(argv, o.Proxy)
		}
	case o.Writable:
		args, release, err = c.workspace(o, found)
	default:
		args, err = c.readOnly(o, found)
	}
	if err != nil {
		return nil, nil, err
	}
	args = append(args, "--")
	return append(args, argv...), release, nil
}

// Contain returns the command line that runs argv with the host's
// filesystem, network and environment as they are, but in its own PID
// namespace that dies with the sidecar: when the command's first process
// is killed, everything it started goes too, whatever it did to its
// process group or session (setsid, set -m, timeout). Without bubblewrap
// it returns argv.
func (c *Confiner) Contain(argv []string) []string {
	if !c.Available() {
		return argv
	}
	args := []string{c.bwrap, "--die-with-parent", "--unshare-pid", "--dev-bind", "/", "/", "--proc", "/proc"}
	if os.Getuid() == 0 {
		// bwrap drops root's capabilities by default; an approved command
		// run by root keeps them as it would outside.
		args = append(args, "--cap-add", "ALL")
	}
	args = append(args, "--")
	return append(args, argv...)
}

// confinedEnv is the environment of a confined command, with gitConfig
// and extra git config.
func confinedEnv(extra ...[2]string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if slices.Contains(envAllow, k) || slices.Contains(toolchainVars, k) || strings.HasPrefix(k, "LC_") {
			env = append(env, kv)
		}
	}
	if os.Getenv("PATH") == "" {
		env = append(env, "PATH=/usr/local/bin:/usr/bin:/bin")
	}
	home := userHome()
	if home == "" {
		home = "/tmp"
	}
	env = append(env, "HOME="+home, "TMPDIR=/tmp", "PAGER=cat")
	return append(env, gitEnv(extra...)...)
}

// scanResult is what a walk of the workspace found for one set of deny
// patterns.
type scanResult struct {
	deny    string // the patterns, joined, that hidden answers
	gen     uint64 // Confiner.gen when the walk ran
	at      time.Time
	configs []string // repository config files (see scan)
	// complete is false when the walk stopped at maxWalk entries: some
	// repository config may be missing from configs.
	complete bool
	hidden   []string // what the deny patterns match, and their other names
	readOnly []string // what the read-only patterns match
	// hiddenGit are the git directories whose objects hold a file the
	// deny patterns match: their object stores are hidden.
	hiddenGit []string
	err       error // the patterns could not all be resolved
}

// scanTTL is how long a scan stands when nothing the sidecar ran could
// have changed the workspace (see Invalidate): files that change behind
// its back are seen after this.
const scanTTL = 5 * time.Second

// scan walks the roots once, finding the config files of the git
// repositories in them (the roots' own, nested ones, submodules under
// .git/modules, bare repositories: every file named config beside a HEAD
// file) and the files and folders the deny patterns match. The result is
// reused until Invalidate or scanTTL.
func (c *Confiner) scan(patterns, readOnly []string) scanResult {
	key := strings.Join(patterns, "\x00") + "\x01" + strings.Join(readOnly, "\x00")
	c.mu.Lock()
	cached, gen := c.last, c.gen
	c.mu.Unlock()
	if cached != nil && cached.deny == key && cached.gen == gen && time.Since(cached.at) < scanTTL {
		return *cached
	}
	res := scanResult{deny: key, gen: gen, at: time.Now(), complete: true}
	var inside []string // patterns that can match inside the roots
	for _, pat := range patterns {
		base, literal := globBase(pat)
		switch {
		case !c.visible(base):
			// outside the roots: not in the sandbox at all
		case literal:
			res.hidden = append(res.hidden, base)
		default:
			inside = append(inside, pat)
		}
	}
	var insideRO []string // read-only patterns that can match inside the roots
	for _, pat := range readOnly {
		base, literal := globBase(pat)
		switch {
		case !c.visible(base):
			// outside the roots: not writable in the sandbox
		case literal:
			if exists(base) {
				res.readOnly = append(res.readOnly, base)
			}
		default:
			insideRO = append(insideRO, pat)
		}
	}
	links := linkScan{files: map[fileID]*linkedFile{}}
	seen := 0
	for _, root := range c.roots {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if seen++; seen > maxWalk {
				return errTooMany
			}
			slash := filepath.ToSlash(p)
			for _, pat := range insideRO {
				if ok, _ := doublestar.Match(pat, slash); ok {
					res.readOnly = append(res.readOnly, p)
					break
				}
			}
			for _, pat := range inside {
				if ok, _ := doublestar.Match(pat, slash); ok {
					res.hidden = append(res.hidden, p)
					if d.IsDir() {
						return filepath.SkipDir
					}
					return nil
				}
			}
			if d.IsDir() {
				if gitDirSkip[d.Name()] && exists(filepath.Join(filepath.Dir(p), "HEAD")) {
					return filepath.SkipDir
				}
				return nil
			}
			links.see(p, d)
			if d.Name() == "config" && d.Type().IsRegular() && exists(filepath.Join(filepath.Dir(p), "HEAD")) {
				res.configs = append(res.configs, p)
			}
			return nil
		})
		if errors.Is(err, errTooMany) {
			res.complete = false
			if len(inside) > 0 {
				res.err = fmt.Errorf("sandbox: the workspace is too large (more than %d entries) to find every file the Read deny rules %q cover; the command needs approval to run", maxWalk, inside)
			} else if len(insideRO) > 0 {
				res.err = fmt.Errorf("sandbox: the workspace is too large (more than %d entries) to find every file the Edit deny rules %q cover; the command needs approval to run", maxWalk, insideRO)
			}
			break
		}
	}
	res.hidden = append(res.hidden, links.hide(res.hidden, patterns)...)
	if len(patterns) > 0 {
		for _, cfg := range res.configs {
			if gitDir := filepath.Dir(cfg); holdsDenied(gitDir, patterns) {
				res.hiddenGit = append(res.hiddenGit, gitDir)
			}
		}
	}
	c.mu.Lock()
	c.last = &res
	c.mu.Unlock()
	return res
}

// Invalidate drops what the last scan found: the sidecar ran something
// that may have changed the workspace (an approved command, a confined
// one that could write).
func (c *Confiner) Invalidate() {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.gen++
	c.mu.Unlock()
}

// HidesGit reports whether, with the Read deny patterns deny, some
// repository in the workspace holds a denied file in its HEAD commit or
// its index: a confined command then does not see that repository's
// objects (git fails there), and a git command should ask instead.
func (c *Confiner) HidesGit(deny []string) bool {
	if !c.Available() || len(deny) == 0 {
		return false
	}
	return len(c.scan(deny, nil).hiddenGit) > 0
}

// holdsDenied reports whether the repository at gitDir tracks, in its HEAD
// commit or its index, a file that the deny patterns match. A repository
// whose work tree is not the folder above gitDir (bare, a submodule's
// directory) counts as holding one when it holds anything: its paths
// cannot be placed. Older commits are not looked at.
func holdsDenied(gitDir string, patterns []string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	git := func(args ...string) []byte {
		cmd := exec.CommandContext(ctx, "git", append([]string{"--git-dir=" + gitDir}, args...)...)
		cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=/nonexistent", "GIT_CONFIG_NOSYSTEM=1"}, gitEnv(driverOverrides(filepath.Join(gitDir, "config"))...)...)
		out, _ := cmd.Output()
		return out
	}
	tracked := append(git("ls-tree", "-r", "-z", "--name-only", "HEAD"), 0)
	workTree := ""
	if filepath.Base(gitDir) == ".git" {
		workTree = filepath.Dir(gitDir)
	} else if wt := gitWorkTree(gitDir); wt != "" { // a submodule's directory
		workTree = wt
	}
	if workTree != "" {
		tracked = append(tracked, git("--work-tree="+workTree, "ls-files", "-z")...)
	}
	for _, rel := range bytes.Split(tracked, []byte{0}) {
		if len(rel) == 0 {
			continue
		}
		if workTree == "" {
			return true
		}
		abs := filepath.ToSlash(filepath.Join(workTree, string(rel)))
		for _, pat := range patterns {
			if ok, _ := doublestar.Match(pat, abs); ok {
				return true
			}
			if ok, _ := doublestar.Match(strings.TrimSuffix(pat, "/")+"/**", abs); ok {
				return true
			}
		}
	}
	return false
}

// gitWorkTree returns the work tree that the config of the git directory
// gitDir names (core.worktree, as submodules' directories under
// .git/modules have), or "".
func gitWorkTree(gitDir string) string {
	out, err := gitList(filepath.Join(gitDir, "config"), false)
	if err != nil {
		return ""
	}
	for _, entry := range bytes.Split(out, []byte{0}) {
		if k, v, ok := strings.Cut(string(entry), "\n"); ok && k == "core.worktree" && v != "" {
			if !filepath.IsAbs(v) {
				v = filepath.Join(gitDir, v)
			}
			return filepath.Clean(v)
		}
	}
	return ""
}

// maxWalk bounds the directory entries looked at, per scan, to find the
// repositories and the denied files in the workspace.
const maxWalk = 200_000

// gitDirSkip are folders of a git directory that hold no repository
// config and many files.
var gitDirSkip = map[string]bool{"objects": true, "refs": true, "logs": true, "lfs": true}

var errTooMany = errors.New("too many entries")

// visible reports whether p is in or above a root: something the
// sandbox binds.
func (c *Confiner) visible(p string) bool {
	for _, r := range c.roots {
		if within(r, p) || within(p, r) {
			return true
		}
	}
	return false
}

func within(root, p string) bool { return pathres.Within(root, p) }

// globBase returns the longest leading directory of a doublestar
// pattern that holds no pattern characters, unescaped, and whether the
// whole pattern is such a literal path.
func globBase(pat string) (string, bool) {
	parts := strings.Split(pat, "/")
	var lit []string
	for _, part := range parts {
		u, ok := unescapeGlob(part)
		if !ok {
			return "/" + filepath.Join(lit...), false
		}
		lit = append(lit, u)
	}
	return "/" + filepath.Join(lit...), true
}

// unescapeGlob removes the escapes of a pattern segment, reporting false
// when it holds an unescaped pattern character.
func unescapeGlob(s string) (string, bool) {
	var b bytes.Buffer
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case ch == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
		case strings.IndexByte("*?[{", ch) >= 0:
			return "", false
		default:
			b.WriteByte(ch)
		}
	}
	return b.String(), true
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// Git runs git with args in dir the way a command allowed without a
// question runs: confined read-only (when bubblewrap works), with
// gitConfig and an allowlisted environment. The sidecar uses it for its
// own look at the repository (the system prompt's git status), so a
// repository cannot make it run a program. A nil Confiner confines as
// well as it can without bubblewrap.
func (c *Confiner) Git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	if c == nil {
		c = &Confiner{roots: []string{dir}}
	}
	argv, release, err := c.Wrap(append([]string{"git", "-C", dir, "--no-pager"}, args...), Options{})
	if err != nil {
		return nil, err
	}
	defer release()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = []string{} // the wrapper sets the command's own
	return cmd.Output()
}

// fileID identifies a file on the machine: its device and inode.
type fileID struct{ dev, ino uint64 }

// linkScan collects, during a scan's walk, the names of the workspace's
// regular files that have more than one name (hard links).
type linkScan struct {
	files map[fileID]*linkedFile
}

// linkedFile is a file with several names: how many, and those the walk
// found.
type linkedFile struct {
	links uint64
	names []string
}

// see records p when it is a regular file with several names.
func (l *linkScan) see(p string, d fs.DirEntry) {
	if !d.Type().IsRegular() {
		return
	}
	fi, err := d.Info()
	if err != nil {
		return
	}
	id, n, ok := linkIdentity(fi)
	if !ok || n < 2 {
		return
	}
	f := l.files[id]
	if f == nil {
		f = &linkedFile{links: n}
		l.files[id] = f
	}
	f.names = append(f.names, p)
}

// hide returns the names to hide beyond the denied ones, deciding by the
// file, not the name: every name of a file that a Read deny pattern
// covers under another name (hidden, or a literal pattern outside the
// workspace), and every name of a file that also has names outside the
// workspace (more links than the walk found), which is a file outside
// the workspace. Package managers' stores link their files into
// node_modules (pnpm, yarn): those are left alone (a link to an outside
// file can only be made outside the sandboxes, where link(2) across
// their mounts fails).
func (l *linkScan) hide(denied, patterns []string) []string {
	if len(l.files) == 0 {
		return nil
	}
	deniedIDs := map[fileID]bool{}
	addID := func(p string) {
		if fi, err := os.Stat(p); err == nil {
			if id, _, ok := linkIdentity(fi); ok {
				deniedIDs[id] = true
			}
		}
	}
	for _, p := range denied {
		addID(p)
	}
	for _, pat := range patterns {
		if base, literal := globBase(pat); literal {
			addID(base)
		}
	}
	var out []string
	for id, f := range l.files {
		outside := f.links > uint64(len(f.names))
		for _, p := range f.names {
			switch {
			case deniedIDs[id]:
			case outside && !inNodeModules(p):
			default:
				continue
			}
			if !slices.Contains(denied, p) {
				out = append(out, p)
			}
		}
	}
	slices.Sort(out)
	return out
}

// inNodeModules reports whether p is inside a node_modules folder.
func inNodeModules(p string) bool {
	return slices.Contains(strings.Split(filepath.ToSlash(p), "/"), "node_modules")
}
