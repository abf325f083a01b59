package mcp

import (
	"context"
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
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// Status is the state of one server.
type Status struct {
	Server string
	Scope  Scope
	State  State
	// Tools is how many tools the server offers, when ready.
	Tools int
	// Err is why the server failed.
	Err error
}

// String is a one-line message for the user.
func (s Status) String() string {
	switch s.State {
	case StateReady:
		return fmt.Sprintf("MCP server %q ready: %d tools", s.Server, s.Tools)
	case StateFailed:
		return fmt.Sprintf("MCP server %q failed: %v", s.Server, s.Err)
	case StateNeedsApproval:
		return fmt.Sprintf("MCP server %q from %s needs approval: add it to enabledMcpjsonServers (or set enableAllProjectMcpServers) in .claude/settings.local.json", s.Server, ProjectFile)
	case StateDisabled:
		return fmt.Sprintf("MCP server %q from %s is disabled by disabledMcpjsonServers", s.Server, ProjectFile)
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
	status map[string]Status // by server name, guarded by mu
}

// Start starts every server in the background and returns at once; a slow
// or broken server delays nothing. Callbacks report each server's state and
// tools as they become known, from the server's own goroutine: callbacks
// for one server come one at a time and in order, those of different
// servers may run concurrently. They must not call Close.
//
// Servers with NeedsApproval or Disabled set are reported and not started;
// of two servers with the same name, the first is used.
// When ctx ends the servers stop, as with Close.
func Start(ctx context.Context, servers []Server, opts Options) *Manager {
	opts.setDefaults()
	ctx, cancel := context.WithCancel(ctx)
	m := &Manager{opts: opts, ctx: ctx, cancel: cancel, status: make(map[string]Status)}
	seen := make(map[string]bool)
	for _, srv := range servers {
		if seen[srv.Name] {
			m.opts.Logf("MCP server %q is configured twice; the second is ignored", srv.Name)
			continue
		}
		seen[srv.Name] = true
		m.wg.Go(func() { m.run(srv) })
	}
	return m
}

// Close stops every server and waits for them: stdio servers' process
// groups end (stdin closed, then SIGTERM, then SIGKILL, each after
// Options.Grace), http connections close, and calls in progress return an
// error result. No callback runs after Close returns and no goroutine of
// the Manager outlives it. Close may be called more than once.
func (m *Manager) Close() {
	m.cancel()
	m.wg.Wait()
}

// Statuses returns the state of every server, sorted by name.
func (m *Manager) Statuses() []Status {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.SortedFunc(maps.Values(m.status), func(a, b Status) int { return strings.Compare(a.Server, b.Server) })
}

// report records and announces a state, unless the Manager is closing.
func (m *Manager) report(s Status) {
	m.mu.Lock()
	m.status[s.Server] = s
	m.mu.Unlock()
	if m.ctx.Err() != nil {
		return
	}
	if s.State != StateStarting {
		m.opts.Logf("%s", s)
	}
	m.opts.OnStatus(s)
}

// setTools announces a server's tools, unless the Manager is closing.
func (m *Manager) setTools(server string, list []tools.Tool) {
	if m.ctx.Err() != nil {
		return
	}
	m.opts.OnTools(server, list)
}

// run is one server's life: start, list its tools, follow changes to them
// until it stops or the Manager closes.
func (m *Manager) run(srv Server) {
	st := Status{Server: srv.Name, Scope: srv.Scope}
	switch {
	case srv.Disabled:
		st.State = StateDisabled
		m.report(st)
		return
	case srv.NeedsApproval:
		st.State = StateNeedsApproval
		m.report(st)
		return
	}
	st.State = StateStarting
	m.report(st)
	fail := func(err error) {
		st.State, st.Err, st.Tools = StateFailed, err, 0
		m.report(st)
	}

	c, err := m.connect(srv)
	if err != nil {
		if m.ctx.Err() == nil {
			fail(err)
		}
		return
	}
	defer c.close()

	ready := false
	for {
		list, err := c.tools(m.opts.StartTimeout)
		switch {
		case m.ctx.Err() != nil:
			return
		case err != nil && !ready:
			fail(fmt.Errorf("listing tools: %w", err))
			return
		case err != nil:
			// The old list stays; a crash shows below.
			m.opts.Logf("MCP server %q: listing tools after a change: %v", srv.Name, err)
		default:
			m.setTools(srv.Name, list)
			if !ready || st.Tools != len(list) {
				ready = true
				st.State, st.Tools = StateReady, len(list)
				m.report(st)
			}
		}
		select {
		case <-m.ctx.Done():
			return
		case <-c.changed:
		case <-c.ended:
			m.setTools(srv.Name, nil)
			fail(c.endErr())
			return
		}
	}
}
