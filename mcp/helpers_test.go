package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/tools"
)

// recorder keeps what a Manager reported.
type recorder struct {
	mu       sync.Mutex
	tools    map[string][]tools.Tool // latest list by server; nil after removal
	removed  map[string]bool         // servers whose tools were removed
	statuses []Status
	logs     []string
}

func newRecorder() *recorder {
	return &recorder{tools: make(map[string][]tools.Tool), removed: make(map[string]bool)}
}

// options returns Options reporting to r, with short timeouts for tests.
func (r *recorder) options() Options {
	return Options{
		StartTimeout: 20 * time.Second,
		Grace:        500 * time.Millisecond,
		Logf: func(format string, args ...any) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.logs = append(r.logs, fmt.Sprintf(format, args...))
		},
		OnTools: func(server string, list []tools.Tool) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.tools[server] = list
			if list == nil {
				r.removed[server] = true
			}
		},
		OnStatus: func(s Status) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.statuses = append(r.statuses, s)
		},
	}
}

// waitFor polls cond until it holds, failing the test after 30 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// status returns the last status reported for server.
func (r *recorder) status(server string) (Status, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.statuses) - 1; i >= 0; i-- {
		if r.statuses[i].Server == server {
			return r.statuses[i], true
		}
	}
	return Status{}, false
}

// waitState waits for server's last status to be state and returns it.
func (r *recorder) waitState(t *testing.T, server string, state State) Status {
	t.Helper()
	var st Status
	waitFor(t, fmt.Sprintf("%s to be %s", server, state), func() bool {
		var ok bool
		st, ok = r.status(server)
		return ok && st.State == state
	})
	return st
}

// tool returns server's tool named name, if offered.
func (r *recorder) tool(server, name string) tools.Tool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, tl := range r.tools[server] {
		if tl.Spec().Name == name {
			return tl
		}
	}
	return nil
}

// names returns the names of server's tools.
func (r *recorder) names(server string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, tl := range r.tools[server] {
		out = append(out, tl.Spec().Name)
	}
	slices.Sort(out)
	return out
}

func (r *recorder) log() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.logs, "\n")
}

// mustTool waits for the tool and returns it.
func (r *recorder) mustTool(t *testing.T, server, name string) tools.Tool {
	t.Helper()
	var tl tools.Tool
	waitFor(t, "tool "+name, func() bool {
		tl = r.tool(server, name)
		return tl != nil
	})
	return tl
}

// call runs tl with input, within 30 s.
func call(t *testing.T, tl tools.Tool, input string) *tools.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return tl.Run(ctx, json.RawMessage(input))
}

// alive reports whether pid runs (zombies do not count).
func alive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(data), ')')
	f := strings.Fields(string(data[i+1:]))
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// checkGone fails if pid or anything in its process group runs.
func checkGone(t *testing.T, pids ...int) {
	t.Helper()
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("process %d still runs", pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		if members, _ := groupMembers(pid); len(members) > 0 {
			t.Errorf("process group %d still has %v", pid, members)
			_ = syscall.Kill(-pid, syscall.SIGKILL)
		}
	}
}

// leakPattern matches the frames of goroutines an MCP client leaves
// behind: ours, the SDK client's connections and idle HTTP connections.
// The SDK's server side, which the HTTP tests run in process, keeps its
// sessions after a client vanishes; it is not checked.
var leakPattern = regexp.MustCompile(`agent-lsp/mcp\.\(\*|agent-lsp/mcp\.startProcess|go-sdk/mcp\.\(\*(ioConn|streamableClientConn|sseClientConn|ClientSession|Client)\)|go-sdk/mcp\.newIOConn|go-sdk/mcp\.\(\*SSEClientTransport\)|net/http\.\(\*persistConn\)`)

// checkNoGoroutines fails if goroutines of the MCP client are still
// running, after giving them a moment to end.
func checkNoGoroutines(t *testing.T) {
	t.Helper()
	var leaked []string
	deadline := time.Now().Add(5 * time.Second)
	for {
		buf := make([]byte, 1<<22)
		buf = buf[:runtime.Stack(buf, true)]
		leaked = leaked[:0]
		for _, g := range strings.Split(string(buf), "\n\n") {
			if leakPattern.MatchString(g) && !strings.Contains(g, "mcp.checkNoGoroutines") {
				leaked = append(leaked, g)
			}
		}
		if len(leaked) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, g := range leaked {
		t.Errorf("goroutine outlived Close:\n%s", g)
	}
}

// childPid finds "child N" in the log.
func childPid(t *testing.T, r *recorder) int {
	t.Helper()
	var pid int
	waitFor(t, "the child's pid in the log", func() bool {
		m := regexp.MustCompile(`child (\d+)`).FindStringSubmatch(r.log())
		if m == nil {
			return false
		}
		pid, _ = strconv.Atoi(m[1])
		return true
	})
	return pid
}
