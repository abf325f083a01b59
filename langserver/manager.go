package langserver

import (
	"context"
	"errors"
	"fmt"
	"log"
	"path/filepath"
	"sort"
	"sync"
	"time"
)

// Diagnostic is one problem a language server reported.
type Diagnostic struct {
	// Path is the file's absolute path.
	Path string
	// Line and Column are 1-based (Column counts UTF-16 units, as LSP
	// does).
	Line, Column int
	// Severity is SeverityError, SeverityWarning, SeverityInfo or
	// SeverityHint.
	Severity string
	Message  string
	// Source names the tool that found it ("compiler", "Pyright").
	Source string
	Code   string
}

// Severities of diagnostics.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
	SeverityInfo    = "info"
	SeverityHint    = "hint"
)

// ErrNoServer is returned for a file that no configured server handles.
var ErrNoServer = errors.New("no language server handles this file")

// Config configures a Manager.
type Config struct {
	// Servers are the servers that may be started, first match wins.
	Servers []ServerConfig
	// Logf logs (to stderr, never the protocol stream); nil is log.Printf.
	Logf func(format string, args ...any)
	// MaxRestarts bounds how often a crashed server of one root is
	// started again (default 3).
	MaxRestarts int
}

// Manager starts and holds language servers. Its methods are safe for
// concurrent use.
type Manager struct {
	cfg Config
	// ctx ends when the manager closes; servers start under it.
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup // server starts in flight

	mu       sync.Mutex
	servers  map[serverKey]*server // guarded by mu
	restarts map[serverKey]int     // guarded by mu
	closed   bool                  // guarded by mu
}

type serverKey struct{ name, root string }

// New returns a manager for cfg. It starts nothing.
func New(cfg Config) *Manager {
	if cfg.Logf == nil {
		cfg.Logf = log.Printf
	}
	if cfg.MaxRestarts == 0 {
		cfg.MaxRestarts = 3
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Manager{cfg: cfg, ctx: ctx, cancel: cancel, servers: make(map[serverKey]*server), restarts: make(map[serverKey]int)}
}

// Handles reports whether a configured server serves path.
func (m *Manager) Handles(path string) bool {
	_, ok := m.configFor(path)
	return ok
}

func (m *Manager) configFor(path string) (ServerConfig, bool) {
	for _, c := range m.cfg.Servers {
		if c.Serves(path) {
			return c, true
		}
	}
	return ServerConfig{}, false
}

// Running returns the number of servers started and still running.
func (m *Manager) Running() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, s := range m.servers {
		if !s.isDead() {
			n++
		}
	}
	return n
}

// server returns the server for path under root, starting it in the
// background when it is not running.
func (m *Manager) server(root, path string) (*server, error) {
	cfg, ok := m.configFor(path)
	if !ok {
		return nil, ErrNoServer
	}
	root = filepath.Clean(root)
	key := serverKey{cfg.Name, root}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, errors.New("language servers are shut down")
	}
	if s, ok := m.servers[key]; ok {
		select {
		case <-s.ready:
			if s.err != nil {
				return nil, s.err
			}
		default:
			return s, nil
		}
		if !s.isDead() {
			return s, nil
		}
		if m.restarts[key] >= m.cfg.MaxRestarts {
			return nil, fmt.Errorf("language server %s crashed %d times; not restarting it", cfg.Name, m.restarts[key]+1)
		}
		m.restarts[key]++
		m.cfg.Logf("restarting language server %s", cfg.Name)
		m.wg.Go(s.stop) // reap the dead one
	}
	s := newServer(cfg, root, m.cfg.Logf)
	m.servers[key] = s
	m.wg.Go(func() { s.start(m.ctx) })
	return s, nil
}

// ready waits for s to be initialized.
func ready(ctx context.Context, s *server) error {
	select {
	case <-s.ready:
		return s.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Touch opens path with text in its server in the background, starting
// the server if need be, so that later questions about it are answered
// quickly. It does nothing for a file no server handles.
func (m *Manager) Touch(root, path string, text []byte) {
	s, err := m.server(root, path)
	if err != nil {
		return
	}
	t := string(text)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return
	}
	m.wg.Go(func() {
		ctx, cancel := context.WithTimeout(m.ctx, startTimeout)
		defer cancel()
		if ready(ctx, s) == nil {
			_, _, _ = s.sync(ctx, path, []byte(t))
		}
	})
}

// Diagnostics sends text as the content of path to its server and
// returns the diagnostics the server publishes for it, waiting at most
// wait (the start of the server included). ok is false when no
// diagnostics came in time; err is ErrNoServer for a file no server
// handles, or says why the server could not be used.
func (m *Manager) Diagnostics(ctx context.Context, root, path string, text []byte, wait time.Duration) (diags []Diagnostic, ok bool, err error) {
	s, err := m.server(root, path)
	if err != nil {
		return nil, false, err
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	if err := ready(ctx, s); err != nil {
		if ctx.Err() != nil {
			return nil, false, nil
		}
		return nil, false, err
	}
	u, version, err := s.sync(ctx, path, text)
	if err != nil {
		return nil, false, err
	}
	diags, ok = s.diagnostics(ctx, u, version)
	return diags, ok, nil
}

// Published returns the last diagnostics of every document the servers
// of root reported on, sorted by path and position.
func (m *Manager) Published(root string) []Diagnostic {
	root = filepath.Clean(root)
	m.mu.Lock()
	var list []*server
	for k, s := range m.servers {
		if k.root == root {
			list = append(list, s)
		}
	}
	m.mu.Unlock()
	var out []Diagnostic
	for _, s := range list {
		out = append(out, s.published()...)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
	return out
}

// Close shuts every server down and waits for what the manager started.
func (m *Manager) Close() {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.closed = true
	list := make([]*server, 0, len(m.servers))
	for _, s := range m.servers {
		list = append(list, s)
	}
	m.mu.Unlock()
	m.cancel()
	m.wg.Wait()
	var wg sync.WaitGroup
	for _, s := range list {
		wg.Go(s.stop)
	}
	wg.Wait()
}
