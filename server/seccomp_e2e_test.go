package server_test

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/internal/testenv"
	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/settings"
)

// TestNoWayOutThroughTheKernel (issue 29 item 2) checks the engine's
// wiring of the seccomp filter: a command that runs without a question
// (AGENT_LSP_CLASSIFIER=off) and one a Bash rule allows (the rule
// sandbox) both try to connect to a unix socket listening in the
// workspace and to use the session keyring; both fail with EPERM, and no
// connection arrives.
func TestNoWayOutThroughTheKernel(t *testing.T) {
	requireBwrap(t)
	python := testenv.NeedFile(t, "/usr/bin/python3", "python3", "apt-get install python3")
	home := t.TempDir()
	t.Setenv("HOME", home)
	os.MkdirAll(filepath.Join(home, ".claude"), 0o755)
	os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte(`{"permissions": {"allow": ["Bash(sh:*)"]}}`), 0o644)
	t.Setenv("AGENT_LSP_CLASSIFIER", "off")
	probe := `import ctypes, socket
try:
    socket.socket(socket.AF_UNIX).connect("agent.sock")
    print("unix: connected")
except OSError as e:
    print("unix:", e.strerror)
libc = ctypes.CDLL(None, use_errno=True)
nr = {"x86_64": 250, "aarch64": 219}[__import__("os").uname().machine]
r = libc.syscall(nr, ctypes.c_long(0), ctypes.c_long(-3), ctypes.c_long(0))
print("keyctl:", "ok" if r != -1 else __import__("os").strerror(ctypes.get_errno()))
`
	e := newEnv(t, map[string]string{"probe.py": probe},
		fake.Turn{fake.ToolUse("toolu_1", "Bash", `{"command":"`+python+` probe.py"}`)},
		fake.Turn{fake.ToolUse("toolu_2", "Bash", `{"command":"sh -c '`+python+` probe.py'"}`)},
		fake.Turn{fake.Text("done")},
	)
	ln, err := net.Listen("unix", e.path("agent.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
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
	st, problems := settings.Load(settings.Options{Project: e.root, Home: home})
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	e.configure(func(c *engine.Config) { c.Settings = st })
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	if _, err := e.editor.Prompt(sid, "look around"); err != nil {
		t.Fatal(err)
	}
	if n := len(e.editor.Permissions()); n != 0 {
		t.Errorf("%d permission requests, want none", n)
	}
	for i, name := range []string{"confined sandbox", "rule sandbox"} {
		out := resultText(e.toolResults(i + 1)[0])
		if !strings.Contains(out, "unix: Operation not permitted") || !strings.Contains(out, "keyctl: Operation not permitted") {
			t.Errorf("in the %s, the command reached a unix socket or the keyring:\n%s", name, out)
		}
	}
	if n := accepted.Load(); n != 0 {
		t.Errorf("%d connections reached the workspace's unix socket", n)
	}
}
