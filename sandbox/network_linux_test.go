package sandbox

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agent-lsp/agent-lsp/internal/testenv"
	"github.com/agent-lsp/agent-lsp/netproxy"
	"github.com/agent-lsp/agent-lsp/settings"
)

// localProxy starts a proxy whose names all lead to a test HTTP server
// on 127.0.0.1 (never the internet), which answers with the Host it was
// asked for; it returns the proxy and the hosts that reached the server.
func localProxy(t testing.TB) (*netproxy.Server, *httptest.Server, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var reached []string
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		reached = append(reached, r.Host)
		mu.Unlock()
		fmt.Fprintf(w, "hello from %s\n", r.Host)
	}))
	t.Cleanup(web.Close)
	srv, err := netproxy.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	srv.SetDial(func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, web.Listener.Addr().String())
	})
	return srv, web, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(reached)
	}
}

// TestNetworkByHost runs curl in the rule sandbox and the configured
// one with a proxy that grants registry.test and *.cdn.test but denies
// evil.cdn.test: the granted hosts answer (plain HTTP and CONNECT), the
// others are refused with a 403 naming the host and the setting (and
// through SOCKS5, ALL_PROXY, the same), and
// going around the proxy (a direct connection, the test server's own
// address, a name resolved inside) finds no network.
func TestNetworkByHost(t *testing.T) {
	requireBwrap(t)
	curl := testenv.NeedFile(t, "/usr/bin/curl", "curl", "apt-get install curl")
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	srv, web, reached := localProxy(t)
	policy := netproxy.Policy{Allowed: []string{"registry.test", "*.cdn.test"}, Denied: []string{"evil.cdn.test"}}
	script := strings.Join([]string{
		curl + " -sS http://registry.test/pkg",
		curl + " -sS --proxytunnel http://files.cdn.test/tarball",
		curl + " -sS http://other.test/x; echo",
		curl + " -sS --proxytunnel http://evil.cdn.test/x 2>&1; echo",
		curl + " -sS http://cdn.test/x; echo",
		curl + " -sS --proxy \"$ALL_PROXY\" http://registry.test/socks",
		curl + " -sS --proxy \"$ALL_PROXY\" http://socks-other.test/x 2>&1 | sed 's/^/socks: /'",
		curl + " -sS --max-time 5 --noproxy '*' http://" + web.Listener.Addr().String() + "/direct 2>&1 | sed 's/^/direct: /'",
		curl + " -sS --max-time 5 --noproxy '*' http://registry.test/resolved 2>&1 | sed 's/^/resolved: /'",
		"echo done",
	}, "; ")
	c := confiner(t, ws)
	sb := usable(t, settings.Sandbox{Enabled: true, Network: settings.SandboxNetwork{AllowedDomains: policy.Allowed, DeniedDomains: policy.Denied}}, ws)
	profiles := []struct {
		name string
		wrap func(p *Proxy) ([]string, func(), error)
	}{
		{"rule", func(p *Proxy) ([]string, func(), error) {
			return c.Wrap([]string{"bash", "-c", script}, Options{Rule: true, Proxy: p})
		}},
		{"configured", func(p *Proxy) ([]string, func(), error) { return sb.WrapVia([]string{"bash", "-c", script}, p) }},
	}
	for _, p := range profiles {
		t.Run(p.name, func(t *testing.T) {
			before := len(reached())
			ticket := srv.Register(policy, nil)
			defer ticket.Close()
			argv, release, err := p.wrap(&Proxy{Addr: ticket.Addr(), Token: ticket.Token()})
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
			for _, want := range []string{
				"hello from registry.test",
				"hello from files.cdn.test",
				"the sandbox refused other.test: the host is not in the settings' sandbox.network.allowedDomains",
				"CONNECT tunnel failed, response 403",
				"the sandbox refused cdn.test",
				"hello from registry.test\nsocks: curl:",
				"direct: curl:",
				"resolved: curl:",
				"done",
			} {
				if !strings.Contains(got, want) {
					t.Errorf("missing %q in the output:\n%s", want, got)
				}
			}
			if hosts := reached()[before:]; !slices.Equal(hosts, []string{"registry.test", "files.cdn.test", "registry.test"}) {
				t.Errorf("the server was reached for %q, want only the granted hosts", hosts)
			}
			if got := ticket.Refused(); !slices.Equal(got, []string{"other.test", "evil.cdn.test", "cdn.test", "socks-other.test"}) {
				t.Errorf("the ticket refused %q", got)
			}
		})
	}
}

// TestNetworkFailsClosed gives the sandbox a proxy that does not listen,
// and a ticket the proxy does not know: the command still runs, with
// its own exit status, and has no network at all.
func TestNetworkFailsClosed(t *testing.T) {
	requireBwrap(t)
	curl := testenv.NeedFile(t, "/usr/bin/curl", "curl", "apt-get install curl")
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	srv, web, reached := localProxy(t)
	c := confiner(t, ws)
	script := curl + " -sS --max-time 5 http://registry.test/ 2>&1; " + curl + " -sS --max-time 5 --noproxy '*' http://" + web.Listener.Addr().String() + "/ 2>&1; exit 7"
	for _, p := range []*Proxy{
		{Addr: "@agent-lsp-test-nobody-listens-" + filepath.Base(ws), Token: "x"},
		{Addr: srv.Addr(), Token: "unknown"},
	} {
		argv, release, err := c.Wrap([]string{"bash", "-c", script}, Options{Rule: true, Proxy: p})
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = ws
		out, err := cmd.CombinedOutput()
		release()
		if cmd.ProcessState.ExitCode() != 7 {
			t.Errorf("the command exited with %v, want its own status 7\n%s", err, out)
		}
		if strings.Contains(string(out), "hello from") {
			t.Errorf("the command reached the server:\n%s", out)
		}
	}
	if len(reached()) != 0 {
		t.Errorf("the server was reached for %q", reached())
	}
}

// BenchmarkProxy is what the network proxy costs a command in the rule
// sandbox: `true` when the settings grant no host (no proxy, no bridge:
// the sandbox as before), `true` when they grant one (the launcher
// connects to the proxy, the bridge starts and listens), and one curl
// through the proxy to a granted host (a local server), beside the same
// curl unconfined.
func BenchmarkProxy(b *testing.B) {
	if bwrap, _ := Probe(); bwrap == "" {
		b.Skip("bubblewrap cannot run here")
	}
	curl, err := exec.LookPath("curl")
	if err != nil {
		b.Skip("curl is not installed")
	}
	ws := b.TempDir()
	srv, web, _ := localProxy(b)
	c, _ := NewConfiner([]string{ws})
	ticket := srv.Register(netproxy.Policy{Allowed: []string{"registry.test"}}, nil)
	defer ticket.Close()
	proxy := &Proxy{Addr: ticket.Addr(), Token: ticket.Token()}
	fetch := []string{curl, "-sSf", "-o", "/dev/null", "http://registry.test/pkg"}
	run := func(b *testing.B, argv []string) {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v\n%s", err, out)
		}
	}
	for _, bc := range []struct {
		name  string
		argv  []string
		proxy *Proxy
	}{
		{"no-hosts-true", []string{"true"}, nil},
		{"hosts-true", []string{"true"}, proxy},
		{"hosts-curl", fetch, proxy},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				argv, release, err := c.Wrap(bc.argv, Options{Rule: true, Proxy: bc.proxy})
				if err != nil {
					b.Fatal(err)
				}
				run(b, argv)
				release()
			}
		})
	}
	b.Run("unconfined-curl", func(b *testing.B) {
		for b.Loop() {
			run(b, []string{curl, "-sSf", "-o", "/dev/null", web.URL + "/pkg"})
		}
	})
}
