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
	"github.com/bmatcuk/doublestar/v4"
)

// systemDirs are the host folders a confined command sees, read-only:
// programs, libraries and the system's configuration. A symlink among
// them (merged /usr) is recreated as a symlink.
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc"}

// etcSecrets are files and folders under /etc that a confined command
// does not see: password hashes, host keys, private keys.
var etcSecrets = []string{
	"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers", "/etc/sudoers.d",
	"/etc/ssh", "/etc/ssl/private", "/etc/security/opasswd", "/etc/wireguard", "/etc/NetworkManager/system-connections",
	"/etc/letsencrypt", "/etc/docker", "/etc/machine-id", "/etc/krb5.keytab", "/etc/git-credentials",
}

// systemSockets are folders outside /run and /tmp (which the rule
// sandbox hides whole) that hold daemons' sockets granting root: a
// read-only mount does not stop connect().
var systemSockets = []string{"/var/snap/lxd/common/lxd", "/var/lib/lxd", "/var/snap/docker/common", "/var/snap/microk8s/common/run"}

// envAllow are the variables a confined command gets from the sidecar's
// environment; LC_* are kept too. Everything else (API keys, tokens,
// GIT_* overrides, LD_PRELOAD) is left behind.
var envAllow = []string{"PATH", "LANG", "LANGUAGE", "TERM", "COLORTERM", "USER", "LOGNAME", "TZ", "NO_COLOR"}

// envProgram runs a program with a given environment.
const envProgram = "/usr/bin/env"

// confinedHome is HOME inside a confined sandbox: its private /tmp.
const confinedHome = "/tmp"

// Confiner runs commands that the permission policy allowed without a
// question (the classifier judged them harmless) in a sandbox that does
// not depend on the settings: they see the workspace read-only (or
// writable, for ConfineWorkspace, with the protected paths read-only),
// the system's program and library folders, a private /tmp and /dev,
// their own /proc; no network, no home directory, no other project, no
// file a Read deny rule covers, and an environment built from an
// allowlist. It is safe for concurrent use.
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
	// Rule is for a command that one of the user's allow rules allowed:
	// instead of only the system's folders, it sees the host's whole
	// filesystem read-only, the user's home included, but with the
	// secrets of homeSecrets and every file a Read deny rule covers
	// hidden; /tmp is private and /run hidden; the workspace roots are
	// writable (Writable is implied), their protected paths read-only;
	// the environment is the sidecar's without its secrets (ruleEnv).
	Rule bool
	// Network, with Rule, leaves the network on (the settings' sandbox
	// allows every host).
	Network bool
	// AllowWrite, with Rule, are more writable folders (the settings'
	// sandbox.filesystem.allowWrite: build caches and the like).
	AllowWrite []string
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
	found := c.scan(o.Deny)
	if found.err != nil {
		return nil, nil, found.err
	}
	var extra [][2]string
	if !found.complete {
		// A repository config may hide where the walk did not reach:
		// what it could name through drivers cannot be known, but an
		// external diff is refused (diffs fail rather than run it).
		extra = append(extra, [2]string{"diff.external", ""})
	}
	env := confinedEnv(extra...)
	// bwrap's own process is PID 1 of the sandbox, where /proc/1/environ
	// shows its environment: it starts with none.
	args := append([]string{envProgram, "-i"}, kernelArgs(c.bwrap)...)
	args = append(args, "--new-session", "--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try", "--clearenv")
	args = append(args, dropCaps()...)
	var masks []string
	if o.Rule {
		o.Writable = true
		home := ruleHome()
		outside, err := c.outsideDeny(o.Deny, home)
		if err != nil {
			return nil, nil, err
		}
		for _, m := range secretPaths(home) {
			if c.insideRoots(m) || !c.visible(m) {
				masks = append(masks, m) // never a folder that holds a root
			}
		}
		// Last, over the writable folders too: /etc's secrets again
		// (an allowWrite folder may hold /etc).
		masks = append(append(append(masks, outside...), etcSecrets...), systemSockets...)
		env = ruleEnv(extra...)
		args = append([]string{envProgram, "-i"}, c.ruleArgs(o, home)...)
	}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		args = append(args, "--setenv", k, v)
	}
	for _, d := range systemDirs {
		if o.Rule {
			break // the whole filesystem is there already
		}
		fi, err := os.Lstat(d)
		switch {
		case err != nil:
		case fi.Mode()&fs.ModeSymlink != 0:
			if target, err := os.Readlink(d); err == nil {
				args = append(args, "--symlink", target, d)
			}
		case fi.IsDir():
			args = append(args, "--ro-bind", d, d)
		}
	}
	if !o.Rule {
		args = append(args, "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp")
	}
	args = append(args, maskArgs(etcSecrets)...)
	bind := "--ro-bind"
	if o.Writable {
		bind = "--bind"
	}
	for _, r := range c.roots {
		if fi, err := os.Stat(r); err == nil && fi.IsDir() {
			args = append(args, bind, r, r)
		}
	}
	for _, w := range o.AllowWrite {
		if real, err := pathres.Resolve("/", w); err == nil && o.Rule {
			if fi, err := os.Stat(real); err == nil && fi.IsDir() {
				args = append(args, "--bind", real, real)
			}
		}
	}
	release := func() {}
	if o.Writable {
		pargs, rel, err := protectArgs(c.roots)
		if err != nil {
			return nil, nil, fmt.Errorf("sandbox: %w", err)
		}
		release = rel
		args = append(args, pargs...)
	}
	for _, cfg := range found.configs {
		clean, err := sanitizedGitConfig(cfg)
		if err != nil {
			release()
			return nil, nil, fmt.Errorf("sandbox: cannot hide the repository config %s: %w", cfg, err)
		}
		args = append(args, "--ro-bind", clean, cfg)
		if wt := cfg + ".worktree"; exists(wt) {
			args = append(args, "--ro-bind", "/dev/null", wt)
		}
	}
	args = append(args, maskArgs(found.hidden)...)
	args = append(args, maskArgs(masks)...)
	for _, g := range found.hiddenGit {
		args = append(args, maskArgs([]string{filepath.Join(g, "objects")})...)
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

// dropCaps returns the bwrap arguments that take every capability from
// the sandboxed command. bwrap started by root (without a user namespace
// of its own) keeps root's capabilities in the sandbox unless told
// otherwise: the command could then remount the read-only workspace or
// protected files writable (mount -o remount,rw,bind), set the host's
// clock (date -s), load kernel modules or make device nodes. For other
// users bwrap gives the command no capabilities already.
func dropCaps() []string {
	if os.Geteuid() != 0 {
		return nil
	}
	return []string{"--cap-drop", "ALL"}
}

// confinedEnv is the environment of a confined command, with GitConfig
// and extra git config.
func confinedEnv(extra ...[2]string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if slices.Contains(envAllow, k) || strings.HasPrefix(k, "LC_") {
			env = append(env, kv)
		}
	}
	if os.Getenv("PATH") == "" {
		env = append(env, "PATH=/usr/local/bin:/usr/bin:/bin")
	}
	env = append(env, "HOME="+confinedHome, "TMPDIR=/tmp", "PAGER=cat")
	return append(env, GitEnv(extra...)...)
}

// maskArgs hides each existing path: an empty read-only directory over a
// directory, /dev/null over anything else.
func maskArgs(paths []string) []string {
	var args []string
	for _, p := range paths {
		fi, err := os.Lstat(p)
		switch {
		case err != nil || fi.Mode()&fs.ModeSymlink != 0:
			// A symlink's target is hidden, or not mounted, on its own.
		case fi.IsDir():
			args = append(args, "--tmpfs", p, "--remount-ro", p)
		default:
			args = append(args, "--ro-bind", "/dev/null", p)
		}
	}
	return args
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
	hidden   []string // what the deny patterns match
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
func (c *Confiner) scan(patterns []string) scanResult {
	key := strings.Join(patterns, "\x00")
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
			if d.Name() == "config" && d.Type().IsRegular() && exists(filepath.Join(filepath.Dir(p), "HEAD")) {
				res.configs = append(res.configs, p)
			}
			return nil
		})
		if errors.Is(err, errTooMany) {
			res.complete = false
			if len(inside) > 0 {
				res.err = fmt.Errorf("sandbox: the workspace is too large (more than %d entries) to find every file the Read deny rules %q cover; the command needs approval to run", maxWalk, inside)
			}
			break
		}
	}
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
	return len(c.scan(deny).hiddenGit) > 0
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
		cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=/nonexistent", "GIT_CONFIG_NOSYSTEM=1"}, GitEnv(driverOverrides(filepath.Join(gitDir, "config"))...)...)
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
// GitConfig and an allowlisted environment. The sidecar uses it for its
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
