package mcp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agent-lsp/agent-lsp/procgroup"
)

// process is a stdio server's process, the leader of its own process
// group. The MCP connection reads its stdout and writes its stdin; its
// stderr goes to the log, and its last lines explain a failure.
type process struct {
	name   string
	cmd    *exec.Cmd
	stdin  *os.File // write end, ours
	stdout *os.File // read end, ours
	stderr *os.File // read end, ours
	tail   *tail

	exited     chan struct{} // closed once the leader has been reaped
	waitErr    error         // Wait's error, set before exited closes
	stderrDone chan struct{} // closed once stderr has been read to its end

	wg sync.WaitGroup // the waiter and the stderr reader
}

// startProcess starts srv's command in dir, in a new process group, with
// env added to the sidecar's environment and then srv.Env.
func startProcess(srv Server, dir string, env []string, logf func(string, ...any)) (*process, error) {
	cmd := exec.Command(srv.Command, srv.Args...)
	cmd.Dir = dir
	procgroup.Set(cmd)
	cmd.Env = append(os.Environ(), env...)
	for k, v := range srv.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}

	// Our own pipes, passed as files: exec starts no copying goroutines,
	// Wait closes none of our ends, and closing our ends unblocks reads.
	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	inR, inW, err := pipe()
	if err != nil {
		return nil, fmt.Errorf("creating stdin pipe: %w", err)
	}
	outR, outW, err := pipe()
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("creating stdout pipe: %w", err)
	}
	errR, errW, err := pipe()
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("creating stderr pipe: %w", err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := cmd.Start(); err != nil {
		closeAll()
		return nil, fmt.Errorf("starting %s: %w", srv.Command, err)
	}
	// The child has its copies; ours of its ends would keep the pipes open.
	inR.Close()
	outW.Close()
	errW.Close()

	p := &process{
		name:       srv.Name,
		cmd:        cmd,
		stdin:      inW,
		stdout:     outR,
		stderr:     errR,
		tail:       &tail{max: 20},
		exited:     make(chan struct{}),
		stderrDone: make(chan struct{}),
	}
	p.wg.Add(2)
	go func() {
		defer p.wg.Done()
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	go func() {
		defer p.wg.Done()
		defer close(p.stderrDone)
		sc := bufio.NewScanner(errR)
		sc.Buffer(make([]byte, 0, 4096), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			p.tail.add(line)
			logf("mcp server %s: %s", srv.Name, line)
		}
	}()
	return p, nil
}

// output is the server's stdout as the MCP connection reads it. Closing
// the connection does not close it: stop reads it to its end while the
// server shuts down, and then closes it.
type output struct{ f *os.File }

func (o output) Read(b []byte) (int, error) { return o.f.Read(b) }
func (o output) Close() error               { return nil }

// pgid returns the process group, which has the leader's pid.
func (p *process) pgid() int { return p.cmd.Process.Pid }

// failure describes why the process ended, with the end of its stderr,
// waiting up to wait for it to end; ok is false if it still runs.
func (p *process) failure(wait time.Duration) (err error, ok bool) {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-p.exited:
	case <-timer.C:
		return nil, false
	}
	// What it wrote last may still be in the pipe. A process it left
	// behind may keep stderr open, so wait only a little.
	select {
	case <-p.stderrDone:
	case <-time.After(200 * time.Millisecond):
	}
	err = p.waitErr
	if err == nil {
		err = errors.New("exited")
	} else {
		err = fmt.Errorf("exited: %w", err)
	}
	if t := p.tail.String(); t != "" {
		err = fmt.Errorf("%w; stderr: %s", err, t)
	}
	return err, true
}

// stop ends the process group as the MCP specification asks: it closes
// the server's stdin, waits up to grace for the server to exit, sends
// SIGTERM to the group, waits up to grace again for every process in the
// group to end, and sends SIGKILL to what is left. It returns once the
// leader has been reaped and nothing reads its stdout or stderr.
func (p *process) stop(grace time.Duration) {
	p.stdin.Close()
	// Whatever the server still writes is read and dropped, so that it
	// ends on its own rather than on a broken pipe.
	p.wg.Go(func() { _, _ = io.Copy(io.Discard, p.stdout) })
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-p.exited:
	case <-timer.C:
	}
	pgid := p.pgid()
	if groupAlive(pgid) {
		procgroup.Terminate(pgid)
		deadline := time.Now().Add(grace)
		for groupAlive(pgid) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		_ = procgroup.Kill(pgid)
	}
	<-p.exited
	// A process that left the group may still hold stdout or stderr
	// open.
	p.stdout.Close()
	p.stderr.Close()
	p.wg.Wait()
}

// groupAlive reports whether a process of the group still runs. Zombies
// do not count: kill(2) finds them until their parent reaps them, which an
// init that does not reap orphans never does.
func groupAlive(pgid int) bool {
	if !procgroup.Exists(pgid) {
		return false
	}
	members, err := groupMembers(pgid)
	if err != nil {
		return true // no /proc: trust kill(2)
	}
	return len(members) > 0
}

// groupMembers lists the processes of a group that are not zombies, from
// /proc.
func groupMembers(pgid int) ([]int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces and parens.
		i := bytes.LastIndexByte(data, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(data[i+1:]))
		if len(f) < 3 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		if g, err := strconv.Atoi(f[2]); err == nil && g == pgid {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

// tail keeps the last lines written to it, for error messages.
type tail struct {
	max   int
	mu    sync.Mutex
	lines []string // guarded by mu
}

func (t *tail) add(line string) {
	line = strings.TrimSpace(line)
	if line == "" {
		return
	}
	if len(line) > 500 {
		line = line[:500] + "..."
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = append(t.lines, line)
	if len(t.lines) > t.max {
		t.lines = t.lines[len(t.lines)-t.max:]
	}
}

// String returns the last few lines, joined for a one-line message.
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(t.lines)
	if n > 5 {
		n = 5
	}
	return strings.Join(t.lines[len(t.lines)-n:], " | ")
}
