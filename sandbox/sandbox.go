package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agent-lsp/agent-lsp/netproxy"
	"github.com/agent-lsp/agent-lsp/settings"
)

// probeTimeout bounds the check that bwrap works.
const probeTimeout = 10 * time.Second

// Sandbox wraps shell commands. A nil or disabled Sandbox leaves them
// alone. It is safe for concurrent use: it does not change after New.
type Sandbox struct {
	enabled bool
	// bwrap is the absolute path of bubblewrap; "" when the sandbox
	// cannot run.
	bwrap string
	// roots are the workspace roots, symlinks resolved: writable, their
	// protected paths read-only.
	roots []string
	// refusal is why commands cannot run, when the sandbox cannot run
	// and the settings do not allow running unsandboxed.
	refusal error
	network bool
	// allHosts, hosts and fs are what the settings say
	// (network.allowedDomains holds "*" and deniedDomains is empty;
	// the hosts granted through the proxy; filesystem), enabled or not:
	// the confined sandboxes follow them.
	allHosts bool
	hosts    netproxy.Policy
	fs       settings.SandboxFilesystem
}

// New prepares the sandbox for the workspace roots (the workspace
// folders and additionalDirectories). The warning, when not empty, is for
// the user, once: the sandbox is enabled but cannot run, or a setting
// cannot be honoured.
func New(s settings.Sandbox, roots []string) (*Sandbox, string) {
	return newSandbox(s, roots, "bwrap")
}

func newSandbox(s settings.Sandbox, roots []string, bwrapName string) (*Sandbox, string) {
	hosts := netproxy.Policy{Allowed: slices.Clone(s.Network.AllowedDomains), Denied: slices.Clone(s.Network.DeniedDomains)}
	allHosts := slices.Contains(hosts.Allowed, "*") && len(hosts.Denied) == 0
	fsys := settings.SandboxFilesystem{
		AllowWrite: slices.Clone(s.Filesystem.AllowWrite), AllowRead: slices.Clone(s.Filesystem.AllowRead),
		DenyRead: slices.Clone(s.Filesystem.DenyRead), DenyWrite: slices.Clone(s.Filesystem.DenyWrite),
	}
	if !s.Enabled {
		return &Sandbox{allHosts: allHosts, hosts: hosts, fs: fsys}, ""
	}
	sb := &Sandbox{enabled: true, allHosts: allHosts, hosts: hosts, fs: fsys, network: allHosts}
	var warnings []string

	unavailable := func(why string) (*Sandbox, string) {
		if s.MayRunUnsandboxed() {
			warnings = append(warnings, "sandbox: "+why+"; commands run WITHOUT a sandbox, as the settings allow")
		} else {
			sb.refusal = fmt.Errorf("the sandbox is enabled in the settings but cannot run: %s. Install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap) on a system that allows unprivileged user namespaces, or set sandbox.failIfUnavailable to false to run commands unsandboxed", why)
			warnings = append(warnings, "sandbox: "+why+"; shell commands will be refused until bubblewrap works (or sandbox.failIfUnavailable is false)")
		}
		return sb, strings.Join(warnings, "\n")
	}
	bwrap, err := exec.LookPath(bwrapName)
	if err != nil {
		return unavailable("bubblewrap (bwrap) is not installed")
	}
	if why := kernelReady(); why != "" {
		return unavailable(why)
	}
	if why := probe(append(commonArgs(bwrap, sb.network, nil), "--ro-bind", "/", "/", "--proc", "/proc", "--")); why != "" {
		return unavailable(why)
	}
	for _, r := range roots {
		if real, err := filepath.EvalSymlinks(r); err == nil {
			sb.roots = append(sb.roots, real)
		}
	}
	sb.bwrap = bwrap
	return sb, strings.Join(warnings, "\n")
}

// probe runs true inside the sandbox and returns why that failed, or "".
func probe(prefix []string) string {
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, prefix[0], append(slices.Clone(prefix[1:]), "true")...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return "bubblewrap is installed but cannot create a sandbox here (" + msg + "); user namespaces may be disabled"
	}
	return ""
}

// Enabled reports whether the settings enable the sandbox.
func (sb *Sandbox) Enabled() bool { return sb != nil && sb.enabled }

// Active reports whether commands run inside the sandbox.
func (sb *Sandbox) Active() bool { return sb != nil && sb.bwrap != "" }

// Network reports whether sandboxed commands may use the network.
func (sb *Sandbox) Network() bool { return sb == nil || !sb.enabled || sb.network }

// AllowsAllHosts reports whether the settings' sandbox lets commands reach
// every host (network.allowedDomains holds "*" and deniedDomains is
// empty): sandboxes then get the host's network. Whether or not the
// sandbox is enabled.
func (sb *Sandbox) AllowsAllHosts() bool { return sb != nil && sb.allHosts }

// Hosts returns the settings' network.allowedDomains and deniedDomains,
// whether or not the sandbox is enabled: unless AllowsAllHosts, a
// sandbox reaches the hosts they grant through the network proxy.
func (sb *Sandbox) Hosts() netproxy.Policy {
	if sb == nil {
		return netproxy.Policy{}
	}
	return sb.hosts
}

// Filesystem returns the settings' sandbox.filesystem, whether or not the
// sandbox is enabled: the confined sandboxes follow it too.
func (sb *Sandbox) Filesystem() settings.SandboxFilesystem {
	if sb == nil {
		return settings.SandboxFilesystem{}
	}
	return sb.fs
}

// errUnavailable is wrapped by Wrap's error when the sandbox cannot run
// and the settings forbid running unsandboxed.
var errUnavailable = errors.New("sandbox unavailable")

// Wrap returns the command line that runs argv inside the sandbox, and a
// function to call once every process of the command has ended. It
// returns argv itself when the sandbox is disabled, or cannot run and the
// settings allow running unsandboxed; it returns an error when the
// sandbox cannot run and they do not.
func (sb *Sandbox) Wrap(argv []string) ([]string, func(), error) {
	return sb.WrapVia(argv, nil)
}

// WrapVia is Wrap for a command whose way out is proxy (the hosts the
// settings grant), when the settings do not allow every host; nil leaves
// it without network.
func (sb *Sandbox) WrapVia(argv []string, proxy *Proxy) ([]string, func(), error) {
	if len(argv) == 0 {
		return nil, nil, fmt.Errorf("sandbox: empty command")
	}
	switch {
	case sb == nil || !sb.enabled:
		return argv, func() {}, nil
	case sb.refusal != nil:
		return nil, nil, fmt.Errorf("%w: %w", errUnavailable, sb.refusal)
	case sb.bwrap == "":
		return argv, func() {}, nil
	}
	if sb.network {
		proxy = nil
	}
	args, release, err := sb.approved(proxy)
	if err != nil {
		return nil, nil, err
	}
	args = append(args, "--")
	return append(args, proxiedCommand(argv, proxy)...), release, nil
}
