// Package proctest checks that tests leave no process behind: every
// process a test caused to be started (the sidecar, a shell command, a
// grandchild it forked, an MCP server, a hook) must have ended when the
// test ends. It depends on nothing of the project, so any package's tests
// can use it.
package proctest

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// Grace is how long Reaped and RunReaped give processes to end after
// a test before they count as leaked: long enough for a process group
// that ignores SIGTERM to get its SIGKILL (the Bash tool waits a second)
// and for a sidecar to exit after its stdin closed.
var Grace = 5 * time.Second

// Reaped fails the test if a process started during it is still alive
// once the test and its cleanups (registered before or after this call)
// have run: the sidecar, a Bash child, a grandchild it forked, an MCP
// server. Call it first in a test. Leaked processes are listed with
// their command lines and then killed, so they do not disturb the tests
// that follow.
//
// A process counts as started by the test when it descends from the test
// binary and was not there when Reaped was called. So that orphans count
// too (a grandchild whose parent died is re-parented), the first call
// makes the test binary a child subreaper (Linux): orphaned descendants
// are re-parented to it instead of to init. Where /proc is missing the
// check is skipped.
//
// Tests that run in parallel with other tests that start processes see
// those processes as their own: in such packages use RunReaped instead.
func Reaped(t testing.TB) {
	t.Helper()
	if !procSupported() {
		return
	}
	becomeSubreaper()
	before := descendants()
	t.Cleanup(func() {
		if leaked := waitLeaks(before, Grace); len(leaked) > 0 {
			t.Errorf("%d process(es) started by the test outlived it by %s:\n%s", len(leaked), Grace, describe(leaked))
			sweep(before, leaked)
		}
	})
}

// RunReaped runs m and returns its exit code, or 1 when a process started
// by the package's tests outlives them all; the leaked processes are
// listed on stderr and killed. Use it in TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(proctest.RunReaped(m)) }
//
// It catches what Reaped catches, without naming the test, and works in
// packages whose tests run in parallel.
func RunReaped(m *testing.M) int {
	if !procSupported() {
		return m.Run()
	}
	becomeSubreaper()
	before := descendants()
	code := m.Run()
	if leaked := waitLeaks(before, Grace); len(leaked) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: %d process(es) started by the tests outlived them by %s:\n%s", len(leaked), Grace, describe(leaked))
		sweep(before, leaked)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// Descendants returns the live processes descending from the test binary
// (zombies excluded), for tests that check a particular process is gone.
func Descendants() []Proc {
	var out []Proc
	for _, p := range descendants() {
		if p.alive() {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b Proc) int { return a.PID - b.PID })
	return out
}

// Proc is a process seen in /proc.
type Proc struct {
	PID     int
	PPID    int
	PGID    int
	State   byte   // R, S, D, Z, T, ...
	Start   uint64 // start time in clock ticks since boot, tells a reused pid apart
	Cmdline string // arguments joined by spaces
}

func (p Proc) alive() bool { return p.State != 'Z' && p.State != 'X' }

// procKey identifies a process across pid reuse.
type procKey struct {
	pid   int
	start uint64
}

func (p Proc) key() procKey { return procKey{p.PID, p.Start} }

// waitLeaks waits up to grace for the live descendants that are not in
// before to end, and returns those that did not.
func waitLeaks(before map[procKey]Proc, grace time.Duration) []Proc {
	deadline := time.Now().Add(grace)
	for {
		var leaked []Proc
		for k, p := range descendants() {
			if _, old := before[k]; !old && p.alive() {
				leaked = append(leaked, p)
			}
		}
		if len(leaked) == 0 || time.Now().After(deadline) {
			slices.SortFunc(leaked, func(a, b Proc) int { return a.PID - b.PID })
			return leaked
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// sweep kills the leaked processes and whatever they start or leave
// behind meanwhile, until no process new since before is alive (for at
// most two seconds).
func sweep(before map[procKey]Proc, leaked []Proc) {
	for range 40 {
		killAll(leaked)
		time.Sleep(50 * time.Millisecond)
		if leaked = waitLeaks(before, 0); len(leaked) == 0 {
			return
		}
	}
}

func describe(ps []Proc) string {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "\tpid %d (parent %d, group %d, state %c): %s\n", p.PID, p.PPID, p.PGID, p.State, p.Cmdline)
	}
	return b.String()
}
