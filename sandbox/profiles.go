package sandbox

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// The profiles: one function each, over the mount helpers of mounts.go.
// Each starts from an empty root and an empty home, and shows the
// system's folders, the granted toolchain folders and the workspace.

// readOnly is the profile of a command only the classifier allowed
// (Options{}): the workspace read-only with every repository config
// sanitised and what the Read deny rules cover masked, the toolchain
// folders and allowRead read-only, no network, an allowlisted
// environment.
func (c *Confiner) readOnly(o Options, found scanResult) ([]string, error) {
	home := userHome()
	m := &mountPlan{}
	systemMounts(m, false)
	homeMount(m, home, c.roots)
	grantMounts(m, home, c.roots, o.Filesystem, false, o.Deny)
	rootMounts(m, c.roots, false)
	if err := c.hardenedMounts(m, found, o.Deny); err != nil {
		return nil, err
	}
	filesystemMounts(m, o.Filesystem)
	return c.bwrapArgs(false, nil, confinedEnv(found.gitExtra()...), m), nil
}

// workspace is the profile of a command the classifier allowed in
// acceptEdits because it writes only the workspace (Options.Writable):
// readOnly with the workspace writable and its protected paths
// read-only.
func (c *Confiner) workspace(o Options, found scanResult) ([]string, func(), error) {
	home := userHome()
	m := &mountPlan{}
	systemMounts(m, false)
	homeMount(m, home, c.roots)
	grantMounts(m, home, c.roots, o.Filesystem, false, o.Deny)
	release, err := c.writableMounts(m, o, found)
	if err != nil {
		return nil, nil, err
	}
	return c.bwrapArgs(false, nil, confinedEnv(found.gitExtra()...), m), release, nil
}

// rule is the profile of a command one of the user's allow rules
// allowed (Options.Rule): workspace's, with the settings' allowWrite
// writable, the network when the settings allow every host (else the
// granted hosts through the proxy, with o.Proxy), and the user's
// environment without the sidecar's secrets.
func (c *Confiner) rule(o Options, found scanResult) ([]string, func(), error) {
	home := userHome()
	m := &mountPlan{}
	proxy := o.Proxy
	if o.Network {
		proxy = nil
	}
	systemMounts(m, o.Network)
	proxyMounts(m, proxy)
	homeMount(m, home, c.roots)
	gitIdentityMounts(m, home)
	grantMounts(m, home, c.roots, o.Filesystem, true, o.Deny)
	release, err := c.writableMounts(m, o, found)
	if err != nil {
		return nil, nil, err
	}
	return c.bwrapArgs(o.Network, proxy, proxyEnv(ruleEnv(found.gitExtra()...), proxy), m), release, nil
}

// writableMounts adds what the writable profiles share after their
// grants: the workspace writable with what runs later and what the Edit
// deny rules cover read-only, the hardened git files and the settings'
// filesystem rules. release undoes
// the placeholders the protection made.
func (c *Confiner) writableMounts(m *mountPlan, o Options, found scanResult) (func(), error) {
	rootMounts(m, c.roots, true)
	release, err := protectMounts(m, c.roots)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	if err := c.hardenedMounts(m, found, o.Deny); err != nil {
		release()
		return nil, err
	}
	for _, p := range found.readOnly {
		// A link is left to its target: binding it would mount what
		// it points to, maybe outside, in its place.
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink == 0 {
			m.add(kindReadOnly, p, "--ro-bind", p, p)
		}
	}
	filesystemMounts(m, o.Filesystem)
	return release, nil
}

// approved is the profile of a command the user approved (a click,
// bypassPermissions) when the settings enable the sandbox: the workspace
// roots, the additional directories and allowWrite writable, the
// toolchain folders and allowRead read-only, the protected paths
// read-only, the network when the settings allow every host (else the
// granted hosts through the proxy, when proxy is set), and the
// sidecar's environment as it is (git runs with the repository's
// config, as in the user's terminal).
func (sb *Sandbox) approved(proxy *Proxy) ([]string, func(), error) {
	home := userHome()
	m := &mountPlan{}
	if sb.network {
		proxy = nil
	}
	systemMounts(m, sb.network)
	proxyMounts(m, proxy)
	homeMount(m, home, sb.roots)
	gitIdentityMounts(m, home)
	grantMounts(m, home, sb.roots, sb.fs, true, nil)
	rootMounts(m, sb.roots, true)
	release, err := protectMounts(m, sb.roots)
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: %w", err)
	}
	filesystemMounts(m, sb.fs)
	args := commonArgs(sb.bwrap, sb.network, proxy)
	for _, kv := range proxyEnv(nil, proxy) {
		k, v, _ := strings.Cut(kv, "=")
		args = append(args, "--setenv", k, v)
	}
	return append(args, m.args()...), release, nil
}

// bwrapArgs returns the command line of a confined profile: bwrap
// started with no environment (it is PID 1 inside, where
// /proc/1/environ shows its own), the command's environment set inside,
// and the mounts.
func (c *Confiner) bwrapArgs(network bool, proxy *Proxy, env []string, m *mountPlan) []string {
	args := append([]string{envProgram, "-i"}, commonArgs(c.bwrap, network, proxy)...)
	args = append(args, "--clearenv")
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		args = append(args, "--setenv", k, v)
	}
	return append(args, m.args()...)
}

// hardenedMounts replaces the config of every repository in the
// workspace with its sanitised copy, and masks what the Read deny rules
// cover: the files found in the workspace, the object stores of the
// repositories that hold one, and literal paths outside the workspace
// (a granted folder a pattern could match inside is not shown at all;
// see grantMounts).
func (c *Confiner) hardenedMounts(m *mountPlan, found scanResult, deny []string) error {
	for _, cfg := range found.configs {
		clean, err := sanitizedGitConfig(cfg)
		if err != nil {
			return fmt.Errorf("sandbox: cannot hide the repository config %s: %w", cfg, err)
		}
		m.add(kindGitConfig, cfg, "--ro-bind", clean, cfg)
		if wt := cfg + ".worktree"; exists(wt) {
			m.add(kindGitConfig, wt, "--ro-bind", "/dev/null", wt)
		}
	}
	m.mask(kindMask, found.hidden...)
	for _, g := range found.hiddenGit {
		m.mask(kindMask, filepath.Join(g, "objects"))
	}
	for _, pat := range deny {
		if base, literal := globBase(pat); literal && !c.visible(base) {
			m.mask(kindMask, base)
			if real, err := resolve(base); err == nil && real != base {
				m.mask(kindMask, real)
			}
		}
	}
	return nil
}

// gitExtra is the git config a confined command gets beyond gitConfig:
// when the walk did not reach every folder, a repository config may hide
// where it did not look; what it could name through drivers cannot be
// known, but an external diff is refused (diffs fail rather than run
// it).
func (r scanResult) gitExtra() [][2]string {
	if r.complete {
		return nil
	}
	return [][2]string{{"diff.external", ""}}
}
