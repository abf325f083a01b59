package session

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/providers"
)

// The crash test re-executes the test binary as a writer that appends
// until it is killed.
const crashChildEnv = "AGENT_LSP_SESSION_CRASH_CHILD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(crashChildEnv); dir != "" {
		crashChild(dir)
		return
	}
	os.Exit(m.Run())
}

const crashCwd, crashID = "/crash", "crash"

// crashMessage is the i-th message the writer appends: some are large, so
// the kill often lands inside a write.
func crashMessage(i int) providers.Message {
	role := providers.RoleUser
	if i%2 == 1 {
		role = providers.RoleAssistant
	}
	size := 200
	if i%5 == 0 {
		size = 1 << 20
	}
	return text(role, fmt.Sprintf("message %d %s", i, strings.Repeat("x", size)))
}

// crashChild continues the session (creating it the first time) and
// appends messages from where it stands, printing "ack N" once message N
// is written, and syncing every few messages, until it is killed.
func crashChild(dir string) {
	s := NewStore(dir, "-")
	l, h, err := s.Resume(crashCwd, crashID)
	next := 0
	if err != nil {
		l, err = s.Create(crashCwd, crashID)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	} else {
		next = len(h.Messages)
	}
	out := bufio.NewWriter(os.Stdout)
	for i := next; ; i++ {
		if err := l.Append(crashMessage(i)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		if i%3 == 0 {
			if err := l.Sync(); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
		}
		fmt.Fprintf(out, "ack %d\n", i)
		out.Flush()
	}
}

// TestKillMidWrite kills a writer with SIGKILL several times, each time
// at a different point, and checks that every message it acknowledged is
// there, in order, and that the session can be continued.
func TestKillMidWrite(t *testing.T) {
	dir := t.TempDir()
	acked := -1
	for round, more := range []int{7, 23, 41, 60} {
		last := runAndKill(t, dir, acked+more)
		if last <= acked {
			t.Fatalf("round %d: last ack %d, before %d", round, last, acked)
		}
		acked = last
		h, err := NewStore(dir, "-").Load(crashCwd, crashID)
		if err != nil {
			t.Fatalf("round %d: load after kill: %v", round, err)
		}
		// Everything acknowledged is there; the message being written when
		// the kill came may be too.
		if n := len(h.Messages); n != acked+1 && n != acked+2 {
			t.Fatalf("round %d: %d messages after ack %d (warnings %q)", round, n, acked, h.Warnings)
		}
		for i, m := range h.Messages {
			want := crashMessage(i)
			if m.Role != want.Role || m.Text() != want.Text() {
				t.Fatalf("round %d: message %d is %.40q, want %.40q", round, i, m.Text(), want.Text())
			}
		}
		acked = len(h.Messages) - 1
		t.Logf("round %d: %d messages, warnings %q", round, len(h.Messages), h.Warnings)
	}
}

// runAndKill starts a writer, kills it with SIGKILL once it has
// acknowledged message n, and returns the last message it acknowledged.
func runAndKill(t *testing.T, dir string, n int) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+dir)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	acks := make(chan int)
	go func() {
		defer close(acks)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "ack "); ok {
				i, _ := strconv.Atoi(v)
				acks <- i
			}
		}
	}()
	last := -1
	deadline := time.After(60 * time.Second)
	for last < n {
		select {
		case i, ok := <-acks:
			if !ok {
				cmd.Wait()
				t.Fatalf("writer exited before acknowledging message %d (last %d)", n, last)
			}
			last = i
		case <-deadline:
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("writer acknowledged only up to %d in 60s", last)
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	// Acks already printed before the kill count too.
	for i := range acks {
		last = i
	}
	cmd.Wait()
	return last
}
