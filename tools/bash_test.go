package tools

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// alive reports whether process pid exists (and is not a zombie we own).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return err == nil && !strings.Contains(string(b), ") Z ")
}

// waitDead fails unless pid ends within a few seconds.
func waitDead(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d still running", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, err := os.ReadFile(path)
		if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && perr == nil {
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pid in %s", path)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestBash(t *testing.T) {
	te := newTestEnv(t)
	te.write(t, map[string]string{"here.txt": "x"})
	tests := []struct {
		name  string
		input any
		err   bool
		want  []string
		exact string
	}{
		{name: "stdout", input: obj{"command": "echo hello"}, exact: "hello\n"},
		{name: "cwd", input: obj{"command": "ls"}, exact: "here.txt\n"},
		{name: "stderr and stdout", input: obj{"command": "echo out; echo err >&2"}, exact: "out\nerr\n"},
		{name: "exit code", input: obj{"command": "echo bad; exit 3"}, err: true, exact: "bad\n[exit code 3]\n"},
		{name: "no output", input: obj{"command": "true", "description": "Do nothing"}, exact: "(no output)\n"},
		{name: "no stdin", input: obj{"command": "cat"}, exact: "(no output)\n"},
		{name: "signal", input: obj{"command": "kill -9 $$"}, err: true, want: []string{"signal: killed"}},
		{name: "missing command", input: obj{}, err: true, want: []string{"command: required field is missing"}},
		{name: "command wrong type", input: obj{"command": []string{"ls"}}, err: true, want: []string{"command: expected string, got array"}},
		{name: "empty command", input: obj{"command": "  "}, err: true, want: []string{"command: must not be empty"}},
		{name: "timeout too long", input: obj{"command": "true", "timeout": 600001}, err: true, want: []string{"timeout: must be at most 600000 ms"}},
		{name: "timeout negative", input: obj{"command": "true", "timeout": -1}, err: true, want: []string{"timeout: must not be negative"}},
		{name: "timeout wrong type", input: obj{"command": "true", "timeout": "5s"}, err: true, want: []string{"timeout: expected integer, got string"}},
		{name: "background wrong type", input: obj{"command": "true", "run_in_background": 1}, err: true, want: []string{"run_in_background: expected boolean, got number"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := te.run(t, "Bash", tt.input)
			wantResult(t, res, tt.err, tt.want...)
			if tt.exact != "" && res.Content != tt.exact {
				t.Errorf("content %q, want %q", res.Content, tt.exact)
			}
		})
	}
}

func TestBashTimeoutKillsGroup(t *testing.T) {
	te := newTestEnv(t)
	start := time.Now()
	res := te.run(t, "Bash", obj{"command": "sleep 30 & echo $! > child.pid; echo started; wait", "timeout": 500})
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("timeout took %v", d)
	}
	wantResult(t, res, true, "started\n", "timed out after 500ms")
	waitDead(t, readPid(t, te.path("child.pid")))
}

func TestBashCancelKillsGroup(t *testing.T) {
	te := newTestEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		readPid(t, te.path("child.pid"))
		cancel()
	}()
	start := time.Now()
	res := Find(te.tools, "Bash").Run(ctx, rawInput(t, obj{"command": "sleep 30 & echo $! > child.pid; wait"}))
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("cancel took %v", d)
	}
	wantResult(t, res, true, "cancelled")
	waitDead(t, readPid(t, te.path("child.pid")))
}

func TestBashLeftoverProcessesStopped(t *testing.T) {
	te := newTestEnv(t)
	res := te.run(t, "Bash", obj{"command": "sleep 30 >/dev/null 2>&1 & echo $! > child.pid"})
	wantResult(t, res, false)
	waitDead(t, readPid(t, te.path("child.pid")))
}

func TestBashOutputCappedWhileStreaming(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a gigabyte through a pipe")
	}
	te := newTestEnv(t)
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	res := te.run(t, "Bash", obj{"command": "head -c 1000000000 /dev/zero | tr '\\0' a; echo; echo END"})
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	wantResult(t, res, false, "characters of output omitted", "END\n")
	if len(res.Content) > BashOutputLimit+500 {
		t.Errorf("output is %d bytes", len(res.Content))
	}
	if grown := int64(after.HeapInuse) - int64(before.HeapInuse); grown > 16<<20 {
		t.Errorf("heap grew by %d bytes for 1 GB of output", grown)
	}
	if after.TotalAlloc-before.TotalAlloc > 64<<20 {
		t.Errorf("allocated %d bytes for 1 GB of output", after.TotalAlloc-before.TotalAlloc)
	}
}

func TestBashWrapCommand(t *testing.T) {
	te := newTestEnv(t)
	var released atomic.Int32
	te.WrapCommand = func(_ context.Context, argv []string) ([]string, func(), error) {
		if strings.Contains(argv[len(argv)-1], "forbidden") {
			return nil, nil, fmt.Errorf("network access is not allowed")
		}
		return append([]string{"env", "SANDBOXED=yes"}, argv...), func() { released.Add(1) }, nil
	}
	res := te.run(t, "Bash", obj{"command": "echo $SANDBOXED"})
	wantResult(t, res, false, "yes\n")
	if n := released.Load(); n != 1 {
		t.Errorf("release called %d times after the command ended, want 1", n)
	}
	res = te.run(t, "Bash", obj{"command": "forbidden"})
	wantResult(t, res, true, "the sandbox refused the command: network access is not allowed")
}

func TestBashPreview(t *testing.T) {
	te := newTestEnv(t)
	p, err := Find(te.tools, "Bash").(Previewer).Preview(context.Background(), rawInput(t, obj{"command": "go test ./...", "description": "Run tests"}))
	if err != nil || p.Command != "go test ./..." || p.Title != "Run `go test ./...`" {
		t.Fatalf("preview %+v, %v", p, err)
	}
}

// TestBashTitle: a call is named by its command, not the model's
// description of it, cut to one line of at most 80 characters, in a code
// span that holds any backticks of the command, with what it hides
// written out and the number of lines left out.
func TestBashTitle(t *testing.T) {
	long := strings.Repeat("x", 100)
	for _, tt := range []struct{ command, want string }{
		{"go test ./...", "Run `go test ./...`"},
		{"make\nmake install", "Run `make …` (+1 line)"},
		{"cat > x <<EOF\na\nb\nEOF", "Run `cat > x <<EOF …` (+3 lines)"},
		{"ls" + strings.Repeat(" ", 100) + "; rm -rf ~", "Run `ls⟨100 spaces⟩; rm -rf ~`"},
		{"echo \u202eexe.txt\x1b[1A", "Run `echo \\u202eexe.txt\\x1b[1A`"},
		{long, "Run `" + long[:79] + " …`"},
		{"echo `date`", "Run `` echo `date` ``"},
		{"ls ``x``", "Run ``` ls ``x`` ```"},
	} {
		if got := bashTitle(bashInput{Command: tt.command, Description: "does things"}); got != tt.want {
			t.Errorf("bashTitle(%q) = %q, want %q", tt.command, got, tt.want)
		}
	}
}

// TestBashDisplayFence: the console block of a command whose output
// holds backtick fences is fenced with a longer run, so the output never
// ends the block early or nests in it.
func TestBashDisplayFence(t *testing.T) {
	te := newTestEnv(t)
	res := te.run(t, "Bash", obj{"command": "printf '%s\\n' '```go' 'x' '```'"})
	if len(res.Display) != 1 || res.Display[0].Content == nil {
		t.Fatalf("display %+v, want one text", res.Display)
	}
	want := "````console\n$ printf '%s\\n' '```go' 'x' '```'\n```go\nx\n```\n````"
	if got := res.Display[0].Content.Text; got != want {
		t.Errorf("display\n%s\nwant\n%s", got, want)
	}
}

func TestBackgroundShells(t *testing.T) {
	te := newTestEnv(t)
	res := te.run(t, "Bash", obj{"command": "for i in 1 2 3; do echo line$i; done; echo skip; sleep 0.2; echo tail", "run_in_background": true})
	wantResult(t, res, false, "bash_1")
	// Wait for it to end.
	deadline := time.Now().Add(5 * time.Second)
	var out *Result
	for {
		s, _ := te.shells.get("bash_1")
		if _, _, running := s.status(); !running {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("background shell did not finish")
		}
		time.Sleep(20 * time.Millisecond)
	}
	out = te.run(t, "BashOutput", obj{"bash_id": "bash_1", "filter": "^line"})
	wantResult(t, out, false, "<status>completed</status>", "<exit_code>0</exit_code>", "line1\nline2\nline3\n")
	if strings.Contains(out.Content, "skip") {
		t.Errorf("filtered output has unmatched lines:\n%s", out.Content)
	}
	// Read output is not returned again, filtered or not.
	out = te.run(t, "BashOutput", obj{"bash_id": "bash_1"})
	wantResult(t, out, false, "<output>\n</output>")

	res = te.run(t, "Bash", obj{"command": "echo $$ > bg.pid; echo ready; exec sleep 30", "run_in_background": true})
	wantResult(t, res, false, "bash_2")
	pid := readPid(t, te.path("bg.pid"))
	out = te.run(t, "BashOutput", obj{"bash_id": "bash_2"})
	wantResult(t, out, false, "<status>running</status>")
	kill := te.run(t, "KillBash", obj{"shell_id": "bash_2"})
	wantResult(t, kill, false, "Successfully killed shell: bash_2")
	waitDead(t, pid)
	out = te.run(t, "BashOutput", obj{"bash_id": "bash_2"})
	wantResult(t, out, false, "<status>killed</status>")
	kill = te.run(t, "KillBash", obj{"shell_id": "bash_2"})
	wantResult(t, kill, false, "had already ended")

	for _, bad := range []struct {
		tool  string
		input any
		want  string
	}{
		{"BashOutput", obj{"bash_id": "bash_9"}, `bash_id: no background shell "bash_9"; the shells of this session are: bash_1, bash_2`},
		{"BashOutput", obj{}, "bash_id: required field is missing"},
		{"BashOutput", obj{"bash_id": 1}, "bash_id: expected string, got number"},
		{"BashOutput", obj{"bash_id": "bash_1", "filter": "("}, `filter: invalid regex "("`},
		{"KillBash", obj{"shell_id": "nope"}, `shell_id: no background shell "nope"`},
		{"KillBash", obj{}, "shell_id: required field is missing"},
	} {
		wantResult(t, te.run(t, bad.tool, bad.input), true, bad.want)
	}
}

func TestCloseKillsBackgroundShells(t *testing.T) {
	te := newTestEnv(t)
	res := te.run(t, "Bash", obj{"command": "sleep 30 & echo $! > child.pid; trap '' TERM; wait", "run_in_background": true})
	wantResult(t, res, false, "bash_1")
	pid := readPid(t, te.path("child.pid"))
	start := time.Now()
	Find(te.tools, "Bash").(interface{ Close() }).Close()
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("Close took %v", d)
	}
	waitDead(t, pid)
	res = te.run(t, "Bash", obj{"command": "true", "run_in_background": true})
	wantResult(t, res, true, "the session is closing")
	te.Close() // twice is fine
}

func TestCappedBuffer(t *testing.T) {
	b := newCappedBuffer(10)
	b.Write([]byte("abc"))
	if s, next := b.Since(0); s != "abc" || next != 3 {
		t.Fatalf("Since(0) = %q, %d", s, next)
	}
	b.Write([]byte("defgh"))
	b.Write([]byte("ij"))
	if s := b.String(); s != "abcdefghij" {
		t.Fatalf("at the limit: %q", s)
	}
	b.Write([]byte("klmnopqrstuvwxyz"))
	want := "abcde\n\n[... 16 characters of output omitted: only the first and last 5 are kept ...]\n\nvwxyz"
	if s := b.String(); s != want {
		t.Fatalf("past the limit:\n%q\nwant\n%q", s, want)
	}
	if s, _ := b.Since(24); s != "yz" {
		t.Fatalf("Since(24) = %q", s)
	}
	if s, _ := b.Since(3); !strings.HasPrefix(s, "de\n\n[... 16") {
		t.Fatalf("Since(3) = %q", s)
	}
	for range 1000 {
		b.Write([]byte("0123456789"))
	}
	if len(b.tail) > 10 || len(b.head) != 5 || b.Len() != 10026 {
		t.Fatalf("kept head %d tail %d of %d", len(b.head), len(b.tail), b.Len())
	}
	// Runes cut by the limit are dropped, not split.
	u := newCappedBuffer(6)
	u.Write([]byte("aaé" + strings.Repeat("x", 20) + "éb"))
	if s := u.String(); !strings.HasPrefix(s, "aa\n") || !strings.HasSuffix(s, "\n\néb") {
		t.Fatalf("utf-8 cut: %q", s)
	}
}

func TestBackgroundShellLimits(t *testing.T) {
	te := newTestEnv(t)
	te.MaxShells = 2
	for i := 1; i <= 2; i++ {
		res := te.run(t, "Bash", obj{"command": "sleep 60", "run_in_background": true})
		wantResult(t, res, false, "bash_"+strconv.Itoa(i))
	}
	res := te.run(t, "Bash", obj{"command": "touch started-anyway; sleep 60", "run_in_background": true})
	wantResult(t, res, true, "too many background shells: 2 are running (bash_1, bash_2)", "KillBash")
	if _, err := os.Stat(te.path("started-anyway")); err == nil {
		t.Error("the refused background command ran")
	}
	wantResult(t, te.run(t, "KillBash", obj{"shell_id": "bash_1"}), false, "Successfully killed")
	wantResult(t, te.run(t, "Bash", obj{"command": "sleep 60", "run_in_background": true}), false, "bash_3")

	// A shell that outlives its age limit is killed, with the reason.
	te2 := newTestEnv(t)
	te2.ShellMaxAge = 100 * time.Millisecond
	wantResult(t, te2.run(t, "Bash", obj{"command": "sleep 60", "run_in_background": true}), false, "bash_1")
	s, _ := te2.shells.get("bash_1")
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the shell outlived its age limit")
	}
	wantResult(t, te2.run(t, "BashOutput", obj{"bash_id": "bash_1"}), false, "killed after running for 100ms")
}

func TestKillShellsStopsBackgroundWork(t *testing.T) {
	te := newTestEnv(t)
	wantResult(t, te.run(t, "Bash", obj{"command": "setsid sleep 60 & echo $! > child.pid; wait", "run_in_background": true}), false, "bash_1")
	var pid int
	for deadline := time.Now().Add(5 * time.Second); pid == 0; time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile(te.path("child.pid"))
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		if time.Now().After(deadline) {
			t.Fatal("the background command did not start")
		}
	}
	te.KillShells()
	s, _ := te.shells.get("bash_1")
	<-s.done
	if state, _, _ := s.status(); state != "killed" {
		t.Errorf("state %q after KillShells", state)
	}
	// setsid left the group: without a PID namespace (no sandbox in this
	// test) only the group dies. The engine runs commands in one.
	if alive(pid) {
		_ = syscall.Kill(pid, syscall.SIGKILL) // the test's own child, by id
	}
	wantResult(t, te.run(t, "Bash", obj{"command": "true", "run_in_background": true}), false, "bash_2")
}
