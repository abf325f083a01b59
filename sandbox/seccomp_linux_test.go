package sandbox

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/agent-lsp/agent-lsp/internal/testenv"
	"github.com/agent-lsp/agent-lsp/netproxy"
	"github.com/agent-lsp/agent-lsp/settings"
)

// kernelProbe is run by python3 inside each sandbox: it tries to reach a
// unix socket in the workspace and an abstract one, the session keyring
// and io_uring, and makes a socketpair; it prints each outcome, then the
// user namespace's uid map.
const kernelProbe = `
import ctypes, errno, os, socket, sys
def trial(name, f):
    try:
        f()
        print(name + ": ok")
    except OSError as e:
        print(name + ": " + errno.errorcode.get(e.errno, str(e.errno)))
def connect(addr):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(addr)
    s.sendall(b"hello")
libc = ctypes.CDLL(None, use_errno=True)
def call(nr, *args):
    if libc.syscall(nr, *args) == -1:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
keyctl, io_uring_setup = {"x86_64": (250, 425), "aarch64": (219, 425)}[os.uname().machine]
trial("unix-file", lambda: connect(sys.argv[1]))
trial("unix-abstract", lambda: connect("\0" + sys.argv[2]))
# keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0)
trial("keyctl", lambda: call(keyctl, ctypes.c_long(0), ctypes.c_long(-3), ctypes.c_long(0)))
trial("io_uring", lambda: call(io_uring_setup, ctypes.c_long(1), ctypes.create_string_buffer(120)))
trial("socketpair", lambda: socket.socketpair())
print("uid_map: " + " ".join(open("/proc/self/uid_map").read().split()))
`

// listenUnix listens on addr (a path, or "@name" for an abstract
// socket) and counts the connections it accepts.
func listenUnix(t *testing.T, addr string) *atomic.Int32 {
	t.Helper()
	ln, err := net.Listen("unix", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var accepted atomic.Int32
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			conn.Close()
		}
	}()
	return &accepted
}

// TestNoWayOutThroughTheKernel runs, in every sandbox, a program that
// tries to connect to a unix socket in the workspace and to an abstract
// one, to use the session keyring and io_uring: each fails with EPERM,
// while a socketpair, ls and git status still work, and the command has a
// user namespace of its own even when the test runs as root.
func TestNoWayOutThroughTheKernel(t *testing.T) {
	requireBwrap(t)
	python := testenv.NeedFile(t, "/usr/bin/python3", "python3", "apt-get install python3")
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, ws, map[string]string{"probe.py": kernelProbe, "README.md": "hello\n"})
	mustOutput(t, ws, "git init -q && git add README.md")
	sock := filepath.Join(ws, "agent.sock")
	abstract := "agent-lsp-test-" + filepath.Base(ws)
	fileConns, abstractConns := listenUnix(t, sock), listenUnix(t, "@"+abstract)

	c := confiner(t, ws)
	sb := usable(t, settings.Sandbox{Network: settings.SandboxNetwork{AllowedDomains: []string{"*"}}}, ws)
	script := python + " probe.py " + sock + " " + abstract + " && ls README.md && git status --short && echo done"
	srv, _, _ := localProxy(t)
	ticket := srv.Register(netproxy.Policy{Allowed: []string{"registry.test"}}, nil)
	defer ticket.Close()
	proxy := &Proxy{Addr: ticket.Addr(), Token: ticket.Token()}
	byHost := usable(t, settings.Sandbox{Network: settings.SandboxNetwork{AllowedDomains: []string{"registry.test"}}}, ws)
	profiles := []struct {
		name string
		wrap func() ([]string, func(), error)
	}{
		{"confined read-only", func() ([]string, func(), error) { return c.Wrap([]string{"bash", "-c", script}, Options{}) }},
		{"confined writable", func() ([]string, func(), error) {
			return c.Wrap([]string{"bash", "-c", script}, Options{Writable: true})
		}},
		{"rule", func() ([]string, func(), error) { return c.Wrap([]string{"bash", "-c", script}, Options{Rule: true}) }},
		{"rule with network", func() ([]string, func(), error) {
			return c.Wrap([]string{"bash", "-c", script}, Options{Rule: true, Network: true})
		}},
		{"configured with network", func() ([]string, func(), error) { return sb.Wrap([]string{"bash", "-c", script}) }},
		// The bridge to the proxy reaches it over a unix socket its
		// launcher connected outside: the command still cannot make one.
		{"rule through the proxy", func() ([]string, func(), error) {
			return c.Wrap([]string{"bash", "-c", script}, Options{Rule: true, Proxy: proxy})
		}},
		{"configured through the proxy", func() ([]string, func(), error) { return byHost.WrapVia([]string{"bash", "-c", script}, proxy) }},
	}
	for _, p := range profiles {
		t.Run(p.name, func(t *testing.T) {
			argv, release, err := p.wrap()
			if err != nil {
				t.Fatal(err)
			}
			defer release()
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Dir = ws
			out, err := cmd.CombinedOutput()
			got := string(out)
			if err != nil {
				t.Fatalf("the command failed: %v\n%s", err, got)
			}
			var missing []string
			for _, want := range []string{"unix-file: EPERM", "unix-abstract: EPERM", "keyctl: EPERM", "io_uring: EPERM", "socketpair: ok", "README.md", "done"} {
				if !strings.Contains(got, want) {
					missing = append(missing, want)
				}
			}
			if len(missing) > 0 {
				t.Errorf("missing %q in the output:\n%s", missing, got)
			}
			if strings.Contains(got, "uid_map: 0 0 4294967295") {
				t.Errorf("the command runs in the host's user namespace:\n%s", got)
			}
		})
	}
	if n := fileConns.Load() + abstractConns.Load(); n != 0 {
		t.Errorf("%d connections reached the listening sockets", n)
	}
}

// TestWorkspaceFilesOwnedByTheUser checks that a file a writable sandbox
// writes in the workspace belongs to the sidecar's user on the host: root
// stays root in its user namespace. When the test runs as root, it runs
// itself again as nobody to check that another user's files are theirs.
func TestWorkspaceFilesOwnedByTheUser(t *testing.T) {
	requireBwrap(t)
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c := confiner(t, ws)
	for _, o := range []Options{{Writable: true}, {Rule: true}} {
		out, err := runConfined(t, c, o, ws, "echo hi > written && id -u")
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		var st syscall.Stat_t
		if err := syscall.Stat(filepath.Join(ws, "written"), &st); err != nil {
			t.Fatal(err)
		}
		if int(st.Uid) != os.Geteuid() || int(st.Gid) != os.Getegid() {
			t.Errorf("the file written with %+v belongs to %d:%d, want %d:%d", o, st.Uid, st.Gid, os.Geteuid(), os.Getegid())
		}
		os.Remove(filepath.Join(ws, "written"))
	}
	if os.Geteuid() != 0 || os.Getenv("AGENT_LSP_TEST_AS_NOBODY") != "" {
		return
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Log("setpriv is missing: the check as another user is skipped")
		return
	}
	// The test binary, where nobody can run it.
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("/var/tmp", "agent-lsp-seccomp-test-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "sandbox.test")
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", bin, "-test.run=^TestWorkspaceFilesOwnedByTheUser$", "-test.v")
	cmd.Dir = "/"
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "TMPDIR=/tmp", "HOME=/nonexistent", "AGENT_LSP_TEST_AS_NOBODY=1"}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS") {
		t.Errorf("as nobody: %v\n%s", err, out)
	}
}

// TestFailsClosedWithoutSeccomp gives the sandboxes a bwrap that cannot
// apply a seccomp filter (as an old bwrap or a kernel without seccomp
// would fail): confinement is then unavailable (the policy asks instead)
// and the configured sandbox refuses commands, rather than run them with
// the host's sockets and keyrings in reach.
func TestFailsClosedWithoutSeccomp(t *testing.T) {
	requireBwrap(t)
	real, _ := Probe()
	fake := filepath.Join(t.TempDir(), "bwrap")
	script := "#!/bin/sh\nfor a; do\n  if [ \"$a\" = --seccomp ]; then echo 'bwrap: prctl(PR_SET_SECCOMP): Invalid argument' >&2; exit 1; fi\ndone\nexec " + real + " \"$@\"\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if bwrap, why := probeBwrap(fake); bwrap != "" || !strings.Contains(why, "PR_SET_SECCOMP") {
		t.Errorf("the confiner's probe passed a bwrap without seccomp: %q, %q", bwrap, why)
	}
	sb, warning := newSandbox(settings.Sandbox{Enabled: true}, []string{t.TempDir()}, fake)
	if sb.Active() || !strings.Contains(warning, "PR_SET_SECCOMP") {
		t.Errorf("the configured sandbox runs without seccomp (active %v): %q", sb.Active(), warning)
	}
	if _, _, err := sb.Wrap([]string{"true"}); err == nil {
		t.Error("the configured sandbox runs commands without seccomp")
	}
}
