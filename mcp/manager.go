package mcp

import (
	"context"
	"errors"
	"fmt"
	"log"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agent-lsp/agent-lsp/tools"
)

// State is where a server is in its life.
type State int

const (
	// StateStarting: the server is being started and asked for its tools.
	StateStarting State = iota
	// StateReady: the server runs and its tools are offered.
	StateReady
	// StateFailed: the server did not start, or stopped; Status.Err says
	// why. Its tools are not offered.
	StateFailed
	// StateNeedsApproval: a project (.mcp.json) server the user has not
	// approved; it was not started.
	StateNeedsApproval
	// StateDisabled: a project server the user refused
	// (disabledMcpjsonServers); it was not started.
	StateDisabled
	// StateBlocked: MCP policy (managed-mcp.json, deniedMcpServers,
	// allowedMcpServers) keeps the server from starting; Status.Err says
	// which rule.
	StateBlocked
	// StateNeedsAuth: an http or sse server asked for OAuth authorization
	// (it answered 401 with WWW-Authenticate).
	StateNeedsAuth
)

func (s State) String() string {
	switch s {
	case StateStarting:
		return "starting"
	case StateReady:
		return "ready"
	case StateFailed:
		return "failed"
	case StateNeedsApproval:
		return "needs approval"
	case StateDisabled:
		return "disabled"
	case StateBlocked:
		return "blocked"
	case StateNeedsAuth:
		return "needs authorization"
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// Status is the state of one server.
type Status struct {
	Server string
	Scope  Scope
	State  State
	// Tools is how many tools the server offers, and Resources how many
	// resources, when ready.
	Tools     int
	Resources int
	// HasResources says the server offers resources (its capabilities).
	HasResources bool
	// Prompts are the server's prompts, when ready.
	Prompts []Prompt
	// Err is why the server failed, or is blocked.
	Err error
}

// String is a one-line message for the user.
func (s Status) String() string {
	switch s.State {
	case StateReady:
		msg := fmt.Sprintf("MCP server %q ready: %d tools", s.Server, s.Tools)
		if s.Resources > 0 {
			msg += fmt.Sprintf(", %d resources", s.Resources)
		}
		if len(s.Prompts) > 0 {
			msg += fmt.Sprintf(", %d prompts", len(s.Prompts))
		}
		return msg
	case StateFailed:
		return fmt.Sprintf("MCP server %q failed: %v", s.Server, s.Err)
	case StateNeedsApproval:
		return fmt.Sprintf("MCP server %q from %s needs approval: add it to enabledMcpjsonServers (or set enableAllProjectMcpServers) in .claude/settings.local.json", s.Server, ProjectFile)
	case StateDisabled:
		return fmt.Sprintf("MCP server %q from %s is disabled by disabledMcpjsonServers", s.Server, ProjectFile)
	case StateBlocked:
		return fmt.Sprintf("MCP server %q is blocked: %v", s.Server, s.Err)
	case StateNeedsAuth:
		return fmt.Sprintf("MCP server %q needs OAuth authorization: %v", s.Server, s.Err)
	}
	return fmt.Sprintf("MCP server %q %s", s.Server, s.State)
}

// Options configure a Manager. Every field is optional.
type Options struct {
	// Dir is the working directory of stdio servers (the workspace).
	Dir string
	// Env is added to the environment of stdio servers, before each
	// server's own env ("KEY=value").
	Env []string
	// Roots are directories offered to the servers as MCP roots.
	Roots []string
	// Version is agent-lsp's version, sent in initialize.
	Version string

	// StartTimeout bounds starting a server, initialize and the first
	// tools/list (default 30 s).
	StartTimeout time.Duration
	// CallTimeout bounds each tool call; 0 means only the caller's
	// context does.
	CallTimeout time.Duration
	// Grace is how long a stdio server has to exit after its stdin is
	// closed, and then after SIGTERM, before SIGKILL (default 2 s).
	Grace time.Duration
	// ResultBudget is the most characters of text in one tool result;
	// more is cut with a note (default 100,000).
	ResultBudget int

	// Logf logs to the sidecar's log (default log.Printf): every state a
	// server reaches but starting, and its stderr, line by line.
	Logf func(format string, args ...any)
	// OnTools is called with a server's tools whenever they change: once
	// it is ready, after each notifications/tools/list_changed, and with
	// nil when it fails or stops.
	OnTools func(server string, list []tools.Tool)
	// OnStatus is called when a server changes state.
	OnStatus func(Status)
}

func (o *Options) setDefaults() {
	if o.StartTimeout <= 0 {
		o.StartTimeout = 30 * time.Second
	}
	if o.Grace <= 0 {
		o.Grace = 2 * time.Second
	}
	if o.ResultBudget <= 0 {
		o.ResultBudget = 100_000
	}
	if o.Logf == nil {
		o.Logf = log.Printf
	}
	if o.OnTools == nil {
		o.OnTools = func(string, []tools.Tool) {}
	}
	if o.OnStatus == nil {
		o.OnStatus = func(Status) {}
	}
	if o.Version == "" {
		o.Version = "dev"
	}
}

// Manager runs a session's MCP servers.
type Manager struct {
	opts   Options
	ctx    context.Context // done once Close starts
	cancel context.CancelFunc
	wg     sync.WaitGroup // one goroutine per server

	mu     sync.Mutex
	status map[string]Status     // by server name, guarded by mu
	runs   map[string]*serverRun // by server name, guarded by mu
	closed bool                  // Close started; guarded by mu
}

// serverRun is one server's life in the Manager: its goroutine, and its
// connection while it has one.
type serverRun struct {
	srv    Server
	cancel context.CancelFunc // ends this run (Reconnect, Close)
	done   chan struct{}      // closed when its goroutine returns
	conn   *conn              // the live connection; guarded by Manager.mu
}

// Start starts every server in the background and returns at once; a slow
// or broken server delays nothing. Callbacks report each server's state and
// tools as they become known, from the server's own goroutine: callbacks
// for one server come one at a time and in order, those of different
// servers may run concurrently. They must not call Close.
//
// Servers with NeedsApproval, Disabled or Blocked set are reported and not
// started; of two servers with the same name, the first is used.
// When ctx ends the servers stop, as with Close.
func Start(ctx context.Context, servers []Server, opts Options) *Manager {
	opts.setDefaults()
	ctx, cancel := context.WithCancel(ctx)
	m := &Manager{opts: opts, ctx: ctx, cancel: cancel, status: make(map[string]Status), runs: make(map[string]*serverRun)}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, srv := range servers {
		if m.runs[srv.Name] != nil {
			m.opts.Logf("MCP server %q is configured twice; the second is ignored", srv.Name)
			continue
		}
		m.startLocked(srv)
	}
	return m
}

// startLocked starts a goroutine running srv; m.mu is held.
func (m *Manager) startLocked(srv Server) {
	ctx, cancel := context.WithCancel(m.ctx)
	r := &serverRun{srv: srv, cancel: cancel, done: make(chan struct{})}
	m.runs[srv.Name] = r
	m.wg.Go(func() {
		defer close(r.done)
		defer cancel()
		m.run(ctx, r)
	})
}

// Has reports whether the Manager runs (or reported) a server of that
// name.
func (m *Manager) Has(server string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.runs[server] != nil
}

// Reconnect stops a server's connection, if it has one, and starts the
// server again; its tools leave the session until it is ready again. A
// server that is blocked, disabled or not approved cannot be reconnected.
func (m *Manager) Reconnect(server string) error {
	m.mu.Lock()
	r := m.runs[server]
	closed := m.closed
	m.mu.Unlock()
	switch {
	case r == nil:
		return fmt.Errorf("no MCP server named %q", server)
	case closed:
		return fmt.Errorf("MCP server %q: the session is closing", server)
	case r.srv.Blocked != "", r.srv.Disabled, r.srv.NeedsApproval:
		st, _ := m.Status(server)
		return fmt.Errorf("%s", st)
	}
	r.cancel()
	<-r.done
	m.setTools(m.ctx, server, nil)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed || m.runs[server] != r {
		return fmt.Errorf("MCP server %q: the session is closing", server)
	}
	// Status says starting from now on, not the old run's last state.
	m.status[server] = Status{Server: server, Scope: r.srv.Scope, State: StateStarting}
	m.startLocked(r.srv)
	return nil
}

// Waiting returns the project servers that wait for the user's approval,
// sorted by name.
func (m *Manager) Waiting() []Server {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Server
	for _, r := range m.runs {
		if r.srv.NeedsApproval {
			out = append(out, r.srv)
		}
	}
	slices.SortFunc(out, func(a, b Server) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Approve answers a project server that waited for the user's approval:
// approved starts it, otherwise it is reported disabled. A server that
// was not waiting is left as it is.
func (m *Manager) Approve(server string, approved bool) error {
	m.mu.Lock()
	r := m.runs[server]
	m.mu.Unlock()
	if r == nil {
		return fmt.Errorf("no MCP server named %q", server)
	}
	if !r.srv.NeedsApproval {
		return nil
	}
	<-r.done // a waiting server's run only reports its state
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed || m.runs[server] != r {
		return fmt.Errorf("MCP server %q: the session is closing", server)
	}
	srv := r.srv
	srv.NeedsApproval, srv.Disabled = false, !approved
	m.startLocked(srv)
	return nil
}

// Status returns the state of one server.
func (m *Manager) Status(server string) (Status, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	st, ok := m.status[server]
	return st, ok
}

// live returns a server's connection, if it is ready.
func (m *Manager) live(server string) (*conn, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.runs[server]
	switch {
	case r == nil:
		return nil, fmt.Errorf("no MCP server named %q", server)
	case r.conn == nil:
		return nil, fmt.Errorf("MCP server %q is not connected (%s)", server, m.status[server].State)
	}
	return r.conn, nil
}

// Close stops every server and waits for them: stdio servers' process
// groups end (stdin closed, then SIGTERM, then SIGKILL, each after
// Options.Grace), http connections close, and calls in progress return an
// error result. No callback runs after Close returns and no goroutine of
// the Manager outlives it. Close may be called more than once.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	m.cancel()
	m.wg.Wait()
}

// Statuses returns the state of every server, sorted by name.
func (m *Manager) Statuses() []Status {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.SortedFunc(maps.Values(m.status), func(a, b Status) int { return strings.Compare(a.Server, b.Server) })
}

// report records and announces a state, unless the run has ended
// (Reconnect or Close).
func (m *Manager) report(ctx context.Context, s Status) {
	if ctx.Err() != nil {
		return
	}
	m.mu.Lock()
	m.status[s.Server] = s
	m.mu.Unlock()
	if s.State != StateStarting {
		m.opts.Logf("%s", s)
	}
	m.opts.OnStatus(s)
}

// setTools announces a server's tools, unless ctx (its run's, or the
// Manager's) has ended.
func (m *Manager) setTools(ctx context.Context, server string, list []tools.Tool) {
	if ctx.Err() != nil {
		return
	}
	m.opts.OnTools(server, list)
}

// run is one server's life: start, list its tools, prompts and
// resources, follow changes to them until it stops or ctx ends.
func (m *Manager) run(ctx context.Context, r *serverRun) {
	srv := r.srv
	st := Status{Server: srv.Name, Scope: srv.Scope}
	switch {
	case srv.Blocked != "":
		st.State, st.Err = StateBlocked, errors.New(srv.Blocked)
		m.report(ctx, st)
		return
	case srv.Disabled:
		st.State = StateDisabled
		m.report(ctx, st)
		return
	case srv.NeedsApproval:
		st.State = StateNeedsApproval
		m.report(ctx, st)
		return
	}
	st.State = StateStarting
	m.report(ctx, st)
	fail := func(err error) {
		st = Status{Server: srv.Name, Scope: srv.Scope, State: StateFailed, Err: err}
		var auth *AuthError
		if errors.As(err, &auth) {
			st.State = StateNeedsAuth
		}
		m.report(ctx, st)
	}

	c, err := m.connect(ctx, srv)
	if err != nil {
		if ctx.Err() == nil {
			fail(err)
		}
		return
	}
	defer c.close()
	m.mu.Lock()
	r.conn = c
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		r.conn = nil
		m.mu.Unlock()
	}()

	ready := false
	for {
		list, err := c.tools(m.opts.StartTimeout)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil && !ready:
			fail(fmt.Errorf("listing tools: %w", err))
			return
		case err != nil:
			// The old list stays; a crash shows below.
			m.opts.Logf("MCP server %q: listing tools after a change: %v", srv.Name, err)
		default:
			m.setTools(ctx, srv.Name, list)
			next := st
			next.State, next.Tools = StateReady, len(list)
			next.HasResources, next.Resources = c.resourceCount(m.opts.StartTimeout)
			next.Prompts = c.prompts(m.opts.StartTimeout)
			if !ready || !sameStatus(st, next) {
				ready = true
				st = next
				m.report(ctx, st)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-c.changed:
		case <-c.ended:
			m.setTools(ctx, srv.Name, nil)
			fail(c.endErr())
			return
		}
	}
}

// sameStatus reports whether two states of a ready server say the same.
func sameStatus(a, b Status) bool {
	return a.State == b.State && a.Tools == b.Tools && a.Resources == b.Resources &&
		a.HasResources == b.HasResources && slices.EqualFunc(a.Prompts, b.Prompts, func(x, y Prompt) bool {
		return x.Name == y.Name && x.Description == y.Description && slices.Equal(x.Arguments, y.Arguments)
	})
}
