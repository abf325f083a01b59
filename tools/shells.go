package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agent-lsp/agent-lsp/procgroup"
)

// killGrace is how long a process group has to end after SIGTERM before
// it gets SIGKILL.
const killGrace = time.Second

// Background shell limits, unless the Env sets its own.
const (
	DefaultMaxShells   = 8
	DefaultShellMaxAge = 2 * time.Hour
)

func (e *Env) maxShells() int {
	if e.MaxShells > 0 {
		return e.MaxShells
	}
	return DefaultMaxShells
}

func (e *Env) shellMaxAge() time.Duration {
	if e.ShellMaxAge > 0 {
		return e.ShellMaxAge
	}
	return DefaultShellMaxAge
}

// shellManager owns a session's background shells.
type shellManager struct {
	mu     sync.Mutex
	shells map[string]*shell // guarded by mu
	nextID int               // guarded by mu
	closed bool              // guarded by mu
}

func newShellManager() *shellManager {
	return &shellManager{shells: map[string]*shell{}}
}

// Close kills every background shell the session's tools started (Bash
// with run_in_background) and every process they started, and waits for
// them to end. Call it once the session is over; Bash refuses new
// background runs afterwards. It is safe to call more than once, and on
// an Env New never saw. The Bash tool's Close does the same, for callers
// that close tools rather than the Env.
func (e *Env) Close() {
	if e.shells != nil {
		e.shells.closeAll()
	}
}

// KillShells kills every running background shell of the session and
// everything they started (SIGKILL to each process group, which takes a
// sandbox's whole PID namespace with it). It does not wait; new shells
// may start afterwards. The engine calls it when the user cancels a
// turn: a cancel stops all the work the model started.
func (e *Env) KillShells() {
	if e.shells == nil {
		return
	}
	e.shells.mu.Lock()
	defer e.shells.mu.Unlock()
	for _, s := range e.shells.shells {
		if _, _, running := s.status(); running {
			s.mu.Lock()
			s.killed = true
			s.mu.Unlock()
			_ = procgroup.Kill(s.cmd.Process.Pid)
		}
	}
}

// canAdd says why no background shell may start now: the session is
// closing, or max shells are running.
func (m *shellManager) canAdd(max int) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.canAddLocked(max)
}

func (m *shellManager) canAddLocked(max int) error {
	if m.closed {
		return errors.New("the session is closing; no new background shells can start")
	}
	var running []string
	for id, s := range m.shells {
		if _, _, r := s.status(); r {
			running = append(running, id)
		}
	}
	if len(running) >= max {
		slices.Sort(running)
		return fmt.Errorf("too many background shells: %d are running (%s), and at most %d may run at once. Stop one with KillBash, or wait for one to end", len(running), strings.Join(running, ", "), max)
	}
	return nil
}

// add registers s under a new id, and kills it once it has run for
// maxAge. It fails once the manager is closed, or when max shells are
// running.
func (m *shellManager) add(s *shell, max int, maxAge time.Duration) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.canAddLocked(max); err != nil {
		return "", err
	}
	m.nextID++
	s.id = "bash_" + strconv.Itoa(m.nextID)
	m.shells[s.id] = s
	// The timer owns the kill; the shell's end stops it.
	timer := time.AfterFunc(maxAge, func() {
		s.mu.Lock()
		s.expired = maxAge
		s.mu.Unlock()
		s.kill()
	})
	go func() {
		<-s.done
		timer.Stop()
	}()
	return s.id, nil
}

func (m *shellManager) get(id string) (*shell, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.shells[id]
	return s, ok
}

// ids lists the known shell ids, for error messages.
func (m *shellManager) ids() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var ids []string
	for id := range m.shells {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// closeAll kills all shells and waits for them.
func (m *shellManager) closeAll() {
	m.mu.Lock()
	m.closed = true
	all := make([]*shell, 0, len(m.shells))
	for _, s := range m.shells {
		all = append(all, s)
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.kill()
		}()
	}
	wg.Wait()
}

// shell is a running or finished command in its own process group.
type shell struct {
	id      string
	command string
	cmd     *exec.Cmd
	out     *cappedBuffer
	done    chan struct{} // closed once the command has ended
	started time.Time

	mu      sync.Mutex
	err     error         // Wait's error; guarded by mu, set before done closes
	killed  bool          // guarded by mu
	expired time.Duration // the age limit that killed it, or 0; guarded by mu
	read    int64         // output offset BashOutput has read to; guarded by mu
}

// shellEnv are the variables every command runs with, locally or in the
// editor's terminal: no pager waits for a key and git asks for no
// password. Read-only.
var shellEnv = map[string]string{"PAGER": "cat", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0"}

// startShell starts argv in dir, in a new process group, with stdout and
// stderr going to one capped buffer and no standard input. release, when
// not nil, is called once the command and its process group have ended
// (and when it fails to start).
func startShell(argv []string, dir string, release func()) (*shell, error) {
	if release == nil {
		release = func() {}
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	procgroup.Set(cmd)
	cmd.Env = os.Environ()
	for k, v := range shellEnv {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out := newCappedBuffer(BashOutputLimit)
	cmd.Stdout = out
	cmd.Stderr = out
	// A process that keeps the output pipe open after the command ends
	// (a daemon) does not hold Wait for longer than this.
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Start(); err != nil {
		release()
		return nil, fmt.Errorf("starting %s: %w", argv[0], err)
	}
	s := &shell{cmd: cmd, out: out, done: make(chan struct{}), started: time.Now()}
	go func() {
		err := cmd.Wait()
		// Whatever the command left running in its group goes too.
		_ = procgroup.Kill(cmd.Process.Pid)
		release()
		s.mu.Lock()
		s.err = err
		s.mu.Unlock()
		close(s.done)
	}()
	return s, nil
}

// kill stops the shell's whole process group: SIGTERM, then SIGKILL after
// killGrace. It returns once the command has ended.
func (s *shell) kill() {
	select {
	case <-s.done:
		return
	default:
	}
	s.mu.Lock()
	s.killed = true
	s.mu.Unlock()
	pgid := s.cmd.Process.Pid
	procgroup.Terminate(pgid)
	select {
	case <-s.done:
		return
	case <-time.After(killGrace):
	}
	_ = procgroup.Kill(pgid)
	<-s.done
}

// wait waits for the shell to end, for ctx to be done or for the timeout;
// in the last two cases it kills the shell. It reports why it returned.
func (s *shell) wait(ctx context.Context, timeout time.Duration) (timedOut bool, err error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-s.done:
		return false, nil
	case <-ctx.Done():
		s.kill()
		return false, ctx.Err()
	case <-timer.C:
		s.kill()
		return true, nil
	}
}

// status describes a shell: running, or how it ended.
func (s *shell) status() (state string, exitCode int, running bool) {
	select {
	case <-s.done:
	default:
		return "running", 0, true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	code := s.cmd.ProcessState.ExitCode()
	switch {
	case s.expired > 0:
		return fmt.Sprintf("killed after running for %v, the limit for background shells", s.expired), code, false
	case s.killed:
		return "killed", code, false
	case code < 0:
		return "terminated by " + s.cmd.ProcessState.String(), code, false
	}
	return "completed", code, false
}
