package seccomp

import (
	"os"
	"sync"
)

// LauncherArg, as the first argument of a program that links this
// package (agent-lsp, or a test binary), makes it the sandbox's launcher
// (see init in launch_linux.go): it hands the seccomp filter to bwrap on
// a pipe and becomes bwrap.
const LauncherArg = "__agent-lsp-seccomp-bwrap"

// NetArg, right after LauncherArg, is followed by the network proxy's
// socket and a ticket's token, then bwrap's command line: the launcher
// connects to the proxy before it starts bwrap (see BwrapNetArgs).
const NetArg = "--net"

// NetFDArg stands in bwrap's command line for the descriptor of the
// connection to the proxy; the launcher replaces its first occurrence
// with the descriptor's number (-1 when the proxy cannot be reached).
const NetFDArg = "__agent-lsp-net-fd"

// NetHello starts what the launcher writes on the connection to the
// proxy, followed by the token and a newline (netproxy reads it).
const NetHello = "agent-lsp-net 1 "

// launcherPath is this program's path (on Linux, where /proc/self/exe
// points, symlinks resolved).
var launcherPath = sync.OnceValues(os.Executable)

// BwrapArgs returns the start of the command line of every sandbox
// (in place of bwrap's own path): bwrap through the launcher, so that
// the command runs under the seccomp filter (no unix sockets, no
// keyrings, no io_uring), and in a user namespace of its own even when
// the sidecar is root (bwrap started by root makes none unless asked:
// the host's keyrings and other state scoped by user namespace would be
// shared). Root stays root (uid 0 maps to 0), so the files it writes in
// the workspace are root's, as they would be outside; other users get
// their own namespace from bwrap already, mapped to their own uid.
//
// When the launcher cannot be found, the command line names no program
// (""): it fails to start, and the probe that runs before any sandbox is
// used says why.
func BwrapArgs(bwrap string) []string {
	exe, _ := launcherPath()
	args := []string{exe, LauncherArg, bwrap}
	if os.Geteuid() == 0 {
		args = append(args, "--unshare-user")
	}
	return args
}

// BwrapNetArgs is BwrapArgs for a sandbox whose way out is the network
// proxy at addr: the launcher connects to it with token before starting
// bwrap, outside the filter, and hands the connection to the bridge
// that bwrap's command line names with NetFDArg.
func BwrapNetArgs(bwrap, addr, token string) []string {
	args := BwrapArgs(bwrap)
	return append([]string{args[0], args[1], NetArg, addr, token}, args[2:]...)
}

// Ready returns why BwrapArgs cannot work here, or "": the
// launcher (this program) cannot be found, or the filter is not built
// for this architecture. A sandbox then does not run at all: a command
// without the filter would reach the host's sockets and keyrings.
func Ready() string {
	if _, err := launcherPath(); err != nil {
		return "the sandbox's launcher (this program) cannot be found: " + err.Error()
	}
	if _, err := Filter(); err != nil {
		return err.Error() + ", so commands cannot be kept from unix sockets and the kernel keyrings"
	}
	return ""
}
