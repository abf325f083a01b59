package sandbox

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestRuleSandbox runs what a user's allow rule lets through (Bash(git
// log:*), Bash(npm test:*), a bare Bash rule) in the rule sandbox: the
// workspace is writable, nothing outside it is, the home is readable
// without its secrets, the sidecar's keys are gone, the network is off.
func TestRuleSandbox(t *testing.T) {
	requireBwrap(t)
	home := t.TempDir()
	writeFiles(t, home, map[string]string{
		".ssh/id_rsa":               "FAKE-PRIVATE-KEY\n",
		".aws/credentials":          "aws-secret\n",
		".netrc":                    "machine x password netrc-secret\n",
		".claude/.credentials.json": "claude-secret\n",
		".pgpass":                   "db:5432:*:u:pgpass-secret\n",
		".my.cnf":                   "[client]\npassword=mysql-secret\n",
		".gitconfig":                "[user]\n\tname = Rule Tester\n\temail = rule@example.com\n",
		"secrets-dir/token":         "denied-secret\n",
		"go/bin/mytool":             "#!/bin/sh\necho toolchain-ok \"$HOME\"\n",
	})
	os.Chmod(filepath.Join(home, "go/bin/mytool"), 0o755)
	// ~/.gnupg as a symlink to a folder elsewhere in the home: its
	// target is hidden too.
	writeFiles(t, home, map[string]string{"keys-store/secring": "gpg-secret\n"})
	os.Symlink(filepath.Join(home, "keys-store"), filepath.Join(home, ".gnupg"))
	t.Setenv("HOME", home)
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-leaked")
	t.Setenv("OPENAI_API_KEY", "sk-oai-leaked")
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "auth-leaked")
	t.Setenv("RULE_TEST_USER_VAR", "user-var-kept")

	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"README.md": "hello\n", ".env": "TOKEN=ws-dotenv\n", ".mcp.json": "{}\n"})
	mustOutput(t, ws, "git init -q && git -c user.name=t -c user.email=t@t commit -q --allow-empty -m init")
	outside := outsideDir(t)
	writeFiles(t, outside, map[string]string{"canary": "outside-file\n"})

	var accepted atomic.Int32
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
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
	port := ln.Addr().(*net.TCPAddr).Port

	c := confiner(t, ws)
	o := Options{Rule: true, Deny: []string{escapeForTest(ws) + "/.env", escapeForTest(home) + "/secrets-dir/**"}}
	harm := []struct {
		name, script string
		forbidden    []string
	}{
		{"git log --output writes outside", "git log --output=" + filepath.Join(outside, "gitlog") + " -1", nil},
		{"write outside", "echo x > " + filepath.Join(outside, "new") + "; echo x >> " + filepath.Join(outside, "canary"), nil},
		{"write the home", "echo x > $HOME/.bashrc; mkdir -p $HOME/.config/x", nil},
		{"write protected paths", "echo x > .mcp.json; mkdir -p .claude && echo '{}' > .claude/settings.local.json; echo 'touch /x' > .git/hooks/pre-commit; git config core.pager evil", nil},
		{"read the ssh key", "cat ~/.ssh/id_rsa; cat " + filepath.Join(home, ".ssh/id_rsa"), []string{"FAKE-PRIVATE-KEY"}},
		{"read credentials", "cat ~/.aws/credentials ~/.netrc ~/.claude/.credentials.json ~/.pgpass ~/.my.cnf; grep -r secret ~ 2>/dev/null", []string{"aws-secret", "netrc-secret", "claude-secret", "pgpass-secret", "mysql-secret"}},
		{"read through a symlinked secret folder", "cat ~/.gnupg/secring ~/keys-store/secring", []string{"gpg-secret"}},
		{"read a Read-denied file", "cat .env ~/secrets-dir/token", []string{"ws-dotenv", "denied-secret"}},
		{"read outside the workspace", "cat " + filepath.Join(outside, "canary"), []string{"outside-file"}},
		{"see the API keys", "env; cat /proc/*/environ; ps axeww", []string{"sk-ant-leaked", "sk-oai-leaked", "auth-leaked"}},
		{"connect to a loopback listener", fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo CONNECTED", port), []string{"CONNECTED"}},
	}
	for _, tc := range harm {
		t.Run(tc.name, func(t *testing.T) {
			out, _ := runConfined(t, c, o, ws, tc.script)
			for _, f := range tc.forbidden {
				if strings.Contains(out, f) {
					t.Errorf("the rule-allowed command saw %q:\n%s", f, out)
				}
			}
		})
	}
	for _, p := range []string{filepath.Join(outside, "gitlog"), filepath.Join(outside, "new"), filepath.Join(home, ".bashrc"), filepath.Join(home, ".config"), filepath.Join(ws, ".claude")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("a rule-allowed command created %s", p)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(outside, "canary")); string(data) != "outside-file\n" {
		t.Errorf("a rule-allowed command changed a file outside: %q", data)
	}
	if data, _ := os.ReadFile(filepath.Join(ws, ".mcp.json")); string(data) != "{}\n" {
		t.Errorf("a rule-allowed command changed .mcp.json: %q", data)
	}
	if out := mustOutput(t, ws, "git config --local --get core.pager || true"); strings.TrimSpace(out) != "" {
		t.Errorf("a rule-allowed command changed .git/config: core.pager=%q", out)
	}
	if n := accepted.Load(); n != 0 {
		t.Errorf("a rule-allowed command reached the loopback listener (%d connections)", n)
	}

	// What a rule-allowed build or test needs still works: a tool in a
	// granted toolchain folder under the home (GOPATH), the user's git
	// identity, the user's variables, writing the workspace and /tmp.
	out, err := runConfined(t, c, o, ws, strings.Join([]string{
		"~/go/bin/mytool",
		"git -c commit.gpgsign=false commit -q --allow-empty -m by-rule && git log -1 --format=%an",
		"echo $RULE_TEST_USER_VAR",
		"echo built > out.txt && cat out.txt",
		"echo t > /tmp/t && cat /tmp/t",
	}, " && "))
	for _, want := range []string{"toolchain-ok " + home, "Rule Tester", "user-var-kept", "built", "t\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("an honest rule-allowed command lacks %q (err %v):\n%s", want, err, out)
		}
	}

	// The settings' sandbox allowing every host turns the network on.
	on := o
	on.Network = true
	if out, _ := runConfined(t, c, on, ws, fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo CONNECTED", port)); !strings.Contains(out, "CONNECTED") {
		t.Errorf("with the network allowed, the rule-allowed command could not connect:\n%s", out)
	}
}

// TestDenyWithholdsGrants: a Read deny pattern that could match inside a
// granted toolchain folder (a glob over the home, or over /) keeps that
// folder out of every sandbox, rather than showing what it covers; a
// literal deny path inside a grant is masked alone.
func TestDenyWithholdsGrants(t *testing.T) {
	requireBwrap(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("GOPATH", "")
	writeFiles(t, home, map[string]string{"go/pkg/mod/x/.env": "TOKEN=in-grant\n", "go/pkg/mod/x/key": "literal-denied\n", "go/pkg/mod/x/ok": "visible-ok\n"})
	ws := t.TempDir()
	c := confiner(t, ws)
	for _, o := range []Options{{}, {Writable: true}, {Rule: true}} {
		for _, pat := range []string{escapeForTest(home) + "/**/.env", "/**/.env"} {
			o.Deny = []string{pat}
			out, _ := runConfined(t, c, o, ws, "cat ~/go/pkg/mod/x/.env ~/go/pkg/mod/x/ok")
			if strings.Contains(out, "in-grant") || strings.Contains(out, "visible-ok") {
				t.Errorf("rule=%v writable=%v deny %q: a grant the pattern could match inside is shown:\n%s", o.Rule, o.Writable, pat, out)
			}
		}
		o.Deny = []string{escapeForTest(home) + "/go/pkg/mod/x/key"}
		out, _ := runConfined(t, c, o, ws, "cat ~/go/pkg/mod/x/key ~/go/pkg/mod/x/ok")
		if strings.Contains(out, "literal-denied") || !strings.Contains(out, "visible-ok") {
			t.Errorf("rule=%v writable=%v: a literal deny path in a grant: want it masked and the rest shown:\n%s", o.Rule, o.Writable, out)
		}
	}
}

// TestRuleSandboxHidesHomeSockets: a container engine's socket under the
// home (Docker Desktop's ~/.docker/run/docker.sock) is root on the host;
// neither the read-only home nor the network namespace stops connect().
func TestRuleSandboxHidesHomeSockets(t *testing.T) {
	requireBwrap(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	sock := filepath.Join(home, ".docker", "run", "docker.sock")
	if err := os.MkdirAll(filepath.Dir(sock), 0o755); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Skipf("no unix socket at %s: %v", sock, err)
	}
	defer ln.Close()
	ws := t.TempDir()
	c := confiner(t, ws)
	out, _ := runConfined(t, c, Options{Rule: true}, ws, "test -S "+sock+" && echo VISIBLE; true")
	if strings.Contains(out, "VISIBLE") {
		t.Errorf("a rule-allowed command sees %s", sock)
	}
}

// TestProtectedLink: a protected path that is a symlink cannot be kept
// read-only (bwrap mounts over its target; the link stays in a writable
// folder, and "rm .claude; mkdir .claude" replaced it), so the sandboxes
// where the workspace is writable refuse to run, whether the link's
// target exists or not, and leave no placeholder behind.
func TestProtectedLink(t *testing.T) {
	requireBwrap(t)
	t.Setenv("HOME", t.TempDir())
	for _, target := range []string{"later-claude", "cfg"} {
		ws := t.TempDir()
		if err := os.Mkdir(filepath.Join(ws, "cfg"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(ws, ".claude")); err != nil {
			t.Fatal(err)
		}
		c := confiner(t, ws)
		sb := usable(t, settings0(), ws)
		for _, o := range []Options{{Rule: true}, {Writable: true}} {
			if argv, _, err := c.Wrap([]string{"bash", "-c", "rm .claude; mkdir .claude; echo '{}' > .claude/settings.local.json"}, o); err == nil {
				t.Errorf("%s: rule=%v: the sandbox runs with a symlinked .claude: %q", target, o.Rule, argv)
			}
		}
		if argv, _, err := sb.Wrap([]string{"true"}); err == nil {
			t.Errorf("%s: the configured sandbox runs with a symlinked .claude: %q", target, argv)
		}
		if _, err := runConfined(t, c, Options{}, ws, "cat cfg/x 2>/dev/null; true"); err != nil {
			t.Errorf("%s: the read-only sandbox refused: %v", target, err)
		}
		if _, err := os.Lstat(filepath.Join(ws, "later-claude")); err == nil {
			t.Errorf("%s: a placeholder was left behind", target)
		}
		// The gate asks instead of running such commands in them.
		if got, want := LinkedProtectedPath([]string{ws}), filepath.Join(ws, ".claude"); got != want {
			t.Errorf("%s: LinkedProtectedPath = %q, want %q", target, got, want)
		}
	}
	if got := LinkedProtectedPath([]string{t.TempDir()}); got != "" {
		t.Errorf("LinkedProtectedPath of a folder with no links = %q", got)
	}
}
