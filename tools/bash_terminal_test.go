package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/agent-lsp/agent-lsp/schema"
)

// processTerminal is an editor terminal that runs real processes, as an
// ACP client does, and records what the tool asked of it.
type processTerminal struct {
	startErr error // Start fails with it when set
	waitErr  error // Wait fails with it when set (the editor broke)

	mu       sync.Mutex
	started  []TerminalCommand // guarded by mu
	killed   []string          // guarded by mu
	released []string          // guarded by mu
}

func (pt *processTerminal) Start(ctx context.Context, cmd TerminalCommand) (TerminalProcess, error) {
	if pt.startErr != nil {
		return nil, pt.startErr
	}
	pt.mu.Lock()
	pt.started = append(pt.started, cmd)
	id := fmt.Sprintf("term-%d", len(pt.started))
	pt.mu.Unlock()
	var env []string
	for k, v := range cmd.Env {
		env = append(env, k+"="+v)
	}
	s, err := startShell(cmd.Argv, cmd.Dir, nil)
	if err != nil {
		return nil, err
	}
	return &terminalProc{pt: pt, id: id, s: s, env: env}, nil
}

func (pt *processTerminal) record(list *[]string, id string) {
	pt.mu.Lock()
	defer pt.mu.Unlock()
	*list = append(*list, id)
}

type terminalProc struct {
	pt  *processTerminal
	id  string
	s   *shell
	env []string
}

func (p *terminalProc) ID() string { return p.id }

func (p *terminalProc) Wait(ctx context.Context) (TerminalExit, error) {
	if p.pt.waitErr != nil {
		return TerminalExit{}, p.pt.waitErr
	}
	select {
	case <-p.s.done:
	case <-ctx.Done():
		return TerminalExit{}, ctx.Err()
	}
	ws := p.s.cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		return TerminalExit{Signal: unix.SignalName(ws.Signal())}, nil
	}
	code := ws.ExitStatus()
	return TerminalExit{Code: &code}, nil
}

func (p *terminalProc) Output(context.Context) (string, bool, error) {
	return p.s.out.String(), false, nil
}

func (p *terminalProc) Kill(context.Context) error {
	p.pt.record(&p.pt.killed, p.id)
	p.s.kill()
	return nil
}

func (p *terminalProc) Release(context.Context) error {
	p.pt.record(&p.pt.released, p.id)
	p.s.kill()
	return nil
}

func newTerminalEnv(t *testing.T) (*testEnv, *processTerminal) {
	te := newTestEnv(t)
	pt := &processTerminal{}
	te.Terminal = pt
	return te, pt
}

// runWithProgress runs Bash and returns its result and the progress it
// reported.
func runWithProgress(t *testing.T, ctx context.Context, te *testEnv, input any) (*Result, [][]schema.ToolCallContent) {
	t.Helper()
	var mu sync.Mutex
	var progress [][]schema.ToolCallContent
	ctx = WithProgress(ctx, func(d []schema.ToolCallContent) {
		mu.Lock()
		progress = append(progress, d)
		mu.Unlock()
	})
	res := Find(te.tools, "Bash").Run(ctx, rawInput(t, input))
	mu.Lock()
	defer mu.Unlock()
	return res, progress
}

func TestBashInTerminal(t *testing.T) {
	te, pt := newTerminalEnv(t)
	te.write(t, map[string]string{"here.txt": "x"})
	tests := []struct {
		name  string
		input any
		err   bool
		exact string
	}{
		{name: "stdout in cwd", input: obj{"command": "ls; echo $GIT_PAGER"}, exact: "here.txt\ncat\n"},
		{name: "exit code", input: obj{"command": "echo bad; exit 3"}, err: true, exact: "bad\n[exit code 3]\n"},
		{name: "no output", input: obj{"command": "true"}, exact: "(no output)\n"},
		{name: "signal", input: obj{"command": "kill -9 $$"}, err: true, exact: "[terminated by signal SIGKILL]\n"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, progress := runWithProgress(t, context.Background(), te, tt.input)
			wantResult(t, res, tt.err)
			if tt.exact != "" && res.Content != tt.exact {
				t.Errorf("content %q, want %q", res.Content, tt.exact)
			}
			id := fmt.Sprintf("term-%d", i+1)
			want := []schema.ToolCallContent{schema.TerminalContent(id)}
			if len(progress) != 1 || fmt.Sprint(progress[0]) != fmt.Sprint(want) {
				t.Errorf("progress %+v, want the terminal %s embedded once", progress, id)
			}
			// The output follows as text, for clients that show only
			// the terminal's id.
			if fmt.Sprint(res.Display[:1]) != fmt.Sprint(want) || len(res.Display) > 2 || (len(res.Display) == 2 && !strings.HasPrefix(res.Display[1].Content.Text, "```console\n")) {
				t.Errorf("display %+v, want the terminal %s and its output (if any) as text", res.Display, id)
			}
			pt.mu.Lock()
			defer pt.mu.Unlock()
			if len(pt.released) != i+1 || pt.released[i] != id {
				t.Errorf("released %q, want %s released", pt.released, id)
			}
			if cmd := pt.started[i]; cmd.Dir != te.root || cmd.OutputLimit != BashOutputLimit || cmd.Env["GIT_TERMINAL_PROMPT"] != "0" {
				t.Errorf("started %+v", cmd)
			}
		})
	}
}

func TestBashInTerminalTimeoutKills(t *testing.T) {
	te, pt := newTerminalEnv(t)
	res, _ := runWithProgress(t, context.Background(), te, obj{"command": "sleep 30 & echo $! > child.pid; echo started; wait", "timeout": 500})
	wantResult(t, res, true, "started\n", "timed out after 500ms")
	waitDead(t, readPid(t, te.path("child.pid")))
	if len(pt.killed) != 1 || len(pt.released) != 1 {
		t.Errorf("killed %q, released %q: want the terminal killed and released", pt.killed, pt.released)
	}
	if len(res.Display) != 3 || !strings.Contains(res.Display[1].Content.Text, "started") || !strings.Contains(res.Display[2].Content.Text, "timed out") {
		t.Errorf("display %+v: want the terminal, its output and why it stopped", res.Display)
	}
}

// showingTerminal is a terminal whose client renders the output itself.
type showingTerminal struct{ *processTerminal }

func (showingTerminal) ShowsOutput() bool { return true }

func TestBashInTerminalOutputTextOnlyWhereNotShown(t *testing.T) {
	for _, shows := range []bool{false, true} {
		te, pt := newTerminalEnv(t)
		if shows {
			te.Terminal = showingTerminal{pt}
		}
		res, _ := runWithProgress(t, context.Background(), te, obj{"command": "echo hello"})
		var texts []string
		for _, d := range res.Display {
			if d.Content != nil {
				texts = append(texts, d.Content.Text)
			}
		}
		switch {
		case shows && len(texts) != 0:
			t.Errorf("a client that renders terminals got the output twice: %q", texts)
		case !shows && (len(texts) != 1 || texts[0] != "```console\n$ echo hello\nhello\n```"):
			t.Errorf("display text %q, want the output in a console block", texts)
		}
	}
}

func TestBashInTerminalCancelKills(t *testing.T) {
	te, pt := newTerminalEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		readPid(t, te.path("child.pid"))
		cancel()
	}()
	res, _ := runWithProgress(t, ctx, te, obj{"command": "sleep 30 & echo $! > child.pid; wait"})
	wantResult(t, res, true, "cancelled")
	waitDead(t, readPid(t, te.path("child.pid")))
	if len(pt.killed) != 1 || len(pt.released) != 1 {
		t.Errorf("killed %q, released %q: want the terminal killed and released", pt.killed, pt.released)
	}
}

func TestBashInTerminalFailures(t *testing.T) {
	te, pt := newTerminalEnv(t)
	pt.startErr = errors.New("terminal/create: no shell")
	wantResult(t, te.run(t, "Bash", obj{"command": "true"}), true, "starting the command in the editor's terminal: terminal/create: no shell")

	pt.startErr, pt.waitErr = nil, errors.New("connection closed")
	wantResult(t, te.run(t, "Bash", obj{"command": "sleep 30"}), true, "the editor's terminal failed", "connection closed")
	if len(pt.killed) != 1 || len(pt.released) != 1 {
		t.Errorf("killed %q, released %q: a broken terminal is still stopped and released", pt.killed, pt.released)
	}
}

func TestBashBackgroundStaysLocal(t *testing.T) {
	te, pt := newTerminalEnv(t)
	res := te.run(t, "Bash", obj{"command": "sleep 0.1", "run_in_background": true})
	wantResult(t, res, false, "running in background")
	if len(pt.started) != 0 {
		t.Errorf("a background shell went to the editor's terminal: %+v", pt.started)
	}
}

func TestBashInTerminalTruncated(t *testing.T) {
	te := newTestEnv(t)
	te.Terminal = truncatingTerminal{}
	res := te.run(t, "Bash", obj{"command": "seq 100000"})
	wantResult(t, res, false, "[output truncated: only its last 13 bytes were kept]\n99999\n100000\n")
}

// truncatingTerminal's command has already ended, its output cut.
type truncatingTerminal struct{}

func (truncatingTerminal) Start(context.Context, TerminalCommand) (TerminalProcess, error) {
	return truncatingTerminal{}, nil
}
func (truncatingTerminal) ID() string { return "t" }
func (truncatingTerminal) Wait(context.Context) (TerminalExit, error) {
	code := 0
	return TerminalExit{Code: &code}, nil
}
func (truncatingTerminal) Output(context.Context) (string, bool, error) {
	return "99999\n100000\n", true, nil
}
func (truncatingTerminal) Kill(context.Context) error    { return nil }
func (truncatingTerminal) Release(context.Context) error { return nil }
