package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-lsp/agent-lsp/pathres"
	"github.com/agent-lsp/agent-lsp/settings"
)

// The mount helpers below are shared by the profiles (Confiner.readOnly,
// Confiner.workspace, Confiner.rule, Sandbox.approved). Every profile
// starts from nothing: bwrap's root is an empty tmpfs, and a profile
// shows what it grants, never the host's filesystem less a list.

// commonArgs returns the bwrap arguments that every sandbox profile
// starts with: its own session, PID, IPC, UTS and cgroup namespaces,
// death with the sidecar, no capability, and no network unless network,
// with bwrap started through kernelArgs (the seccomp filter and a user
// namespace of its own), connected to the network proxy first when
// proxy is set (launcherArgs). This is the one place for arguments all
// profiles share.
func commonArgs(bwrap string, network bool, proxy *Proxy) []string {
	args := append(launcherArgs(bwrap, proxy), "--new-session", "--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try")
	args = append(args, dropCaps()...)
	if !network {
		args = append(args, "--unshare-net")
	}
	return args
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

// mountKind orders the mounts of one path, and of paths at one depth:
// what grants comes before what protects, and masks come last.
type mountKind int

const (
	kindSystem    mountKind = iota // the system's folders, /dev, /proc, /tmp
	kindHome                       // the empty home
	kindRoot                       // the workspace roots
	kindGrant                      // toolchain folders, allowRead, read-only allowWrite
	kindWritable                   // allowWrite
	kindPin                        // git folders mounted over themselves
	kindReadOnly                   // protected paths, denyWrite
	kindGitConfig                  // sanitised repository configs
	kindDenyRead                   // the settings' denyRead
	kindReopen                     // allowRead inside a denyRead folder
	kindMask                       // Read deny rules, secrets
)

// mount is one bwrap mount whose destination is dest.
type mount struct {
	dest string
	kind mountKind
	args []string
	dir  bool // a masked directory (remounted read-only at the end)
}

// mountPlan collects a sandbox's mounts in any order; args orders them.
type mountPlan struct {
	mounts []mount
}

func (m *mountPlan) add(kind mountKind, dest string, args ...string) {
	m.mounts = append(m.mounts, mount{dest: filepath.Clean(dest), kind: kind, args: args})
}

// mask hides each existing path: an empty directory over a directory
// (read-only once what it may hold is mounted), /dev/null over anything
// else. A symlink is not followed (its target is hidden, or not mounted,
// on its own).
func (m *mountPlan) mask(kind mountKind, paths ...string) {
	for _, p := range paths {
		fi, err := os.Lstat(p)
		switch {
		case err != nil || fi.Mode()&fs.ModeSymlink != 0:
		case fi.IsDir():
			m.mounts = append(m.mounts, mount{dest: filepath.Clean(p), kind: kind, args: []string{"--tmpfs", p}, dir: true})
		default:
			m.add(kind, p, "--ro-bind", "/dev/null", p)
		}
	}
}

// args returns the mounts in the order bwrap must make them: a folder
// before what is inside it (by depth), and, for one depth, by kind. A
// mount inside a masked folder is dropped (it would show what the mask
// hides), except allowRead's inside a denyRead folder. Masked folders
// are made read-only last, after what is mounted inside them.
func (m *mountPlan) args() []string {
	sorted := slices.Clone(m.mounts)
	slices.SortStableFunc(sorted, func(a, b mount) int {
		if d := depth(a.dest) - depth(b.dest); d != 0 {
			return d
		}
		return int(a.kind) - int(b.kind)
	})
	var out, remount []string
	var masks, denied []string
	for _, mt := range sorted {
		inside := func(dirs []string) bool {
			return slices.ContainsFunc(dirs, func(d string) bool { return d != mt.dest && within(d, mt.dest) })
		}
		if inside(masks) || (mt.kind < kindReopen && inside(denied)) {
			continue
		}
		out = append(out, mt.args...)
		switch mt.kind {
		case kindMask:
			masks = append(masks, mt.dest)
		case kindDenyRead:
			denied = append(denied, mt.dest)
		}
		if mt.dir {
			remount = append(remount, "--remount-ro", mt.dest)
		}
	}
	return append(out, remount...)
}

// resolve returns the absolute path p with its symlinks resolved.
func resolve(p string) (string, error) { return pathres.Resolve("/", p) }

func depth(p string) int {
	if p == "/" {
		return 0
	}
	return strings.Count(p, "/")
}

// systemMounts shows the system's folders read-only (/etc without its
// secrets), a minimal /dev, a /proc of the sandbox's own PID namespace
// and a private /tmp. With the network on, systemd-resolved's folder
// (where /etc/resolv.conf often points) is shown too.
func systemMounts(m *mountPlan, network bool) {
	for _, d := range systemDirs {
		fi, err := os.Lstat(d)
		switch {
		case err != nil:
		case fi.Mode()&fs.ModeSymlink != 0:
			if target, err := os.Readlink(d); err == nil {
				m.add(kindSystem, d, "--symlink", target, d)
			}
		case fi.IsDir():
			m.add(kindSystem, d, "--ro-bind", d, d)
		}
	}
	m.add(kindSystem, "/dev", "--dev", "/dev")
	m.add(kindSystem, "/proc", "--proc", "/proc")
	m.add(kindSystem, "/tmp", "--tmpfs", "/tmp")
	if network && exists("/run/systemd/resolve") {
		m.add(kindSystem, "/run/systemd/resolve", "--ro-bind", "/run/systemd/resolve", "/run/systemd/resolve")
	}
	m.mask(kindMask, etcSecrets...)
}

// homeMount makes the user's home an empty, writable tmpfs, which the
// command's end throws away. When a workspace root is the home itself,
// the workspace shows it (the user opened their home): its well-known
// secrets are masked then (homeSecrets).
func homeMount(m *mountPlan, home string, roots []string) {
	if home == "" {
		return
	}
	m.add(kindHome, home, "--tmpfs", home)
	if slices.Contains(roots, home) {
		m.mask(kindMask, secretPaths(home)...)
	}
}

// rootMounts shows the workspace roots, writable or read-only.
func rootMounts(m *mountPlan, roots []string, writable bool) {
	bind := "--ro-bind"
	if writable {
		bind = "--bind"
	}
	for _, r := range roots {
		if fi, err := os.Stat(r); err == nil && fi.IsDir() {
			m.add(kindRoot, r, bind, r, r)
		}
	}
}

// grantMounts shows the toolchain folders (toolchainFolders) and the
// settings' allowRead read-only, and the settings' allowWrite writable
// when writable (read-only otherwise). A folder that a Read deny pattern
// could match inside is not shown at all: deny beats grant. It returns
// what it did not show for that reason.
func grantMounts(m *mountPlan, home string, roots []string, fsys settings.SandboxFilesystem, writable bool, deny []string) (withheld []string) {
	show := func(kind mountKind, p string, args ...string) {
		real, ok := grantable(p, roots)
		if !ok {
			return
		}
		if slices.ContainsFunc(deny, func(pat string) bool {
			if _, literal := globBase(pat); literal {
				return false // masked on its own (hardenedMounts)
			}
			return mayMatchUnder(pat, real) || (p != real && mayMatchUnder(pat, p))
		}) {
			withheld = append(withheld, p)
			return
		}
		if len(args) == 0 {
			args = []string{"--ro-bind", real, real}
		} else {
			args = append(args, real, real)
		}
		m.add(kind, real, args...)
		if home != "" && p != real && within(home, p) && !within(home, real) {
			// A link in the home to a folder elsewhere: the name the
			// toolchain uses leads there.
			m.add(kindGrant, p, "--symlink", real, p)
		}
	}
	for _, g := range toolchainFolders(home) {
		show(kindGrant, g)
		for _, s := range toolchainSecrets {
			m.mask(kindMask, filepath.Join(g, s))
		}
	}
	for _, p := range fsys.AllowWrite {
		if writable {
			show(kindWritable, p, "--bind")
		} else {
			show(kindGrant, p)
		}
	}
	for _, p := range fsys.AllowRead {
		show(kindGrant, p)
	}
	return withheld
}

// grantable returns p with symlinks resolved, when it exists and may be
// shown: not "/", nor a folder in a workspace root (the root shows it,
// writable where the root is). A folder that holds a root is shown
// below it (mountPlan mounts the root over it).
func grantable(p string, roots []string) (string, bool) {
	real, err := resolve(p)
	if err != nil || real == "/" || !exists(real) {
		return "", false
	}
	for _, r := range roots {
		if within(r, real) {
			return "", false
		}
	}
	return real, true
}

// filesystemMounts applies the settings' denyRead (masked: nothing is
// readable there, unless an allowRead inside it shows a folder again)
// and denyWrite (read-only, over writable folders too). Paths that do
// not exist are left alone.
func filesystemMounts(m *mountPlan, fsys settings.SandboxFilesystem) {
	for _, p := range fsys.DenyRead {
		if real, err := resolve(p); err == nil {
			m.mask(kindDenyRead, real)
		}
	}
	for _, p := range fsys.AllowRead {
		real, err := resolve(p)
		if err != nil || !exists(real) {
			continue
		}
		for _, d := range fsys.DenyRead {
			if dr, err := resolve(d); err == nil && dr != real && within(dr, real) {
				m.add(kindReopen, real, "--ro-bind", real, real)
				break
			}
		}
	}
	for _, p := range fsys.DenyWrite {
		if real, err := resolve(p); err == nil && exists(real) {
			m.add(kindReadOnly, real, "--ro-bind", real, real)
		}
	}
}

// mayMatchUnder reports whether the doublestar pattern could match dir
// or a path inside it: every segment of dir matches the pattern's
// segment at its place, until the pattern ends or reaches "**". It may
// say true for a pattern that matches nothing there; never false for
// one that matches something.
func mayMatchUnder(pattern, dir string) bool {
	ps := strings.Split(strings.Trim(pattern, "/"), "/")
	ds := strings.Split(strings.Trim(dir, "/"), "/")
	if dir == "/" {
		ds = nil
	}
	for i, d := range ds {
		if i >= len(ps) {
			return false // the pattern names something above dir
		}
		if ps[i] == "**" {
			return true
		}
		if ok, err := filepath.Match(ps[i], d); err != nil || !ok {
			if u, lit := unescapeGlob(ps[i]); !(lit && u == d) {
				return false
			}
		}
	}
	return true
}

// gitIdentityMounts puts in the empty home sanitised copies of the
// user's global git config (~/.gitconfig, $XDG_CONFIG_HOME/git/config):
// who commits, the default branch, and nothing that names a program, a
// URL rewrite or a credential (gitKeepRE).
func gitIdentityMounts(m *mountPlan, home string) {
	if home == "" {
		return
	}
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(xdg) {
		xdg = filepath.Join(home, ".config")
	}
	for _, p := range []string{filepath.Join(home, ".gitconfig"), filepath.Join(xdg, "git", "config")} {
		if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if clean, err := sanitizedGitConfig(p); err == nil {
			m.add(kindGitConfig, p, "--ro-bind", clean, p)
		}
	}
}
