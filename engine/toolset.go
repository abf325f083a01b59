package engine

import (
	"slices"
	"sort"
	"sync"

	"github.com/agent-lsp/agent-lsp/settings"
	"github.com/agent-lsp/agent-lsp/tools"
)

// toolset is what a session can do: the tools it offers the model, the
// environment its built-in tools run in, and what brings it tools while
// it runs (its MCP servers, its code intelligence, the workspace
// watcher). The built-ins are fixed when the session starts; groups of
// tools (each MCP server's, the Diagnostics and LSP tools) come and go,
// and the folders of the skills loaded grow. Those live in toolGroups,
// which a subagent's toolset shares with its parent's by pointer, so a
// server that connects while a subagent runs reaches both.
type toolset struct {
	// env is the built-in tools' environment; set before the session
	// is shared.
	env *tools.Env
	// builtin are the built-in tools, fixed when the toolset is made;
	// byName indexes them.
	builtin []tools.Tool
	byName  map[string]tools.Tool
	// agent narrows a subagent's toolset; nil in a session's own.
	agent *agentTools
	// shared are the groups of tools, shared with subagents.
	shared *toolGroups

	// code is the session's code intelligence, which checks its edits
	// at its stop; nil in a subagent's toolset.
	code *codeIntel
	// mcp are the session's MCP servers; zero in a subagent's toolset.
	mcp mcpServers
	// watch follows the workspace; zero in a subagent's toolset.
	watch watcher

	mu sync.Mutex // guards settings
	// settings are the settings the session started with; they
	// become the trusted folder's settings once those apply.
	settings *settings.Settings
}

// agentTools is how a subagent's toolset differs from its parent's: it
// offers only the tools its definition names (never Agent itself), and
// its own built-ins, bound to its environment, stand in for the
// parent's of the same name.
type agentTools struct {
	allowed []string // nil: every tool
	own     []tools.Tool
}

// offers reports whether a subagent may have the tool named name.
func (a *agentTools) offers(name string) bool {
	return name != agentToolName && name != taskToolName && (a.allowed == nil || slices.Contains(a.allowed, name))
}

// bound returns the subagent's own tool standing in for t, or t.
func (a *agentTools) bound(t tools.Tool) tools.Tool {
	if own := tools.Find(a.own, t.Spec().Name); own != nil {
		return own
	}
	return t
}

// toolGroups are the tools a session gains and loses while it runs, by
// group, the tools the client disallowed, and the folders of the skills
// loaded. A session and its subagents share them.
type toolGroups struct {
	mu        sync.Mutex              // guards the fields below
	groups    map[string][]tools.Tool // by group name
	byName    map[string]tools.Tool   // the groups' tools, first group by name first
	hidden    map[string]bool         // tools the client disallowed
	skillDirs []string                // folders of the skills loaded
	// code is the parent session's code intelligence, whose Diagnostics
	// and LSP tools are the code group while it answers; set before the
	// toolset is shared.
	code *codeIntel
}

func newToolset(env *tools.Env) *toolset {
	return &toolset{env: env, shared: &toolGroups{groups: make(map[string][]tools.Tool)}}
}

// setBuiltin sets the built-in tools, before the toolset is shared.
func (ts *toolset) setBuiltin(builtin []tools.Tool) {
	ts.builtin = builtin
	ts.byName = make(map[string]tools.Tool, len(builtin))
	for _, t := range builtin {
		if _, taken := ts.byName[t.Spec().Name]; !taken {
			ts.byName[t.Spec().Name] = t
		}
	}
}

// forAgent returns a subagent's toolset: the tools of the parent's that
// its definition names (allowed; nil: all), its own built-ins (own,
// bound to env) in place of the parent's, and the parent's groups, which
// it follows as they change.
func (ts *toolset) forAgent(env *tools.Env, allowed []string, own []tools.Tool) *toolset {
	a := &agentTools{allowed: allowed, own: own}
	c := &toolset{env: env, agent: a, shared: ts.shared}
	var builtin []tools.Tool
	for _, t := range ts.builtin {
		if a.offers(t.Spec().Name) {
			builtin = append(builtin, a.bound(t))
		}
	}
	c.setBuiltin(builtin)
	return c
}

// hide takes tools away by name, for the rest of the session.
func (ts *toolset) hide(names []string) {
	g := ts.shared
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.hidden == nil {
		g.hidden = make(map[string]bool)
	}
	for _, n := range names {
		g.hidden[n] = true
	}
}

// index rebuilds byName; callers hold mu.
func (g *toolGroups) index() {
	names := make([]string, 0, len(g.groups))
	for n := range g.groups {
		names = append(names, n)
	}
	sort.Strings(names)
	g.byName = make(map[string]tools.Tool)
	for _, n := range names {
		for _, t := range g.groups[n] {
			if _, taken := g.byName[t.Spec().Name]; !taken {
				g.byName[t.Spec().Name] = t
			}
		}
	}
}

// all returns the tools in a stable order: built-ins, then groups by name.
func (ts *toolset) all() []tools.Tool {
	g := ts.shared
	g.mu.Lock()
	defer g.mu.Unlock()
	out := slices.Clone(ts.builtin)
	names := make([]string, 0, len(g.groups))
	for n := range g.groups {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		for _, t := range g.groups[n] {
			if ts.agent == nil {
				out = append(out, t)
			} else if ts.agent.offers(t.Spec().Name) {
				out = append(out, ts.agent.bound(t))
			}
		}
	}
	return slices.DeleteFunc(out, func(t tools.Tool) bool { return g.hidden[t.Spec().Name] })
}

func (ts *toolset) lookup(name string) (tools.Tool, bool) {
	t, ok := ts.find(name)
	if alias, isAlias := toolAliases[name]; !ok && isAlias {
		t, ok = ts.find(alias)
	}
	return t, ok
}

// find returns the tool named name: a built-in, else a group's.
func (ts *toolset) find(name string) (tools.Tool, bool) {
	g := ts.shared
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.hidden[name] {
		return nil, false
	}
	if t, ok := ts.byName[name]; ok {
		return t, true
	}
	t, ok := g.byName[name]
	if !ok || ts.agent == nil {
		return t, ok
	}
	if !ts.agent.offers(name) {
		return nil, false
	}
	return ts.agent.bound(t), true
}

// toolAliases are other names models use for a tool: Claude Code's Agent
// tool was called Task.
var toolAliases = map[string]string{taskToolName: agentToolName}

// setGroup replaces a group's tools; nil removes the group.
func (ts *toolset) setGroup(group string, list []tools.Tool) {
	g := ts.shared
	g.mu.Lock()
	defer g.mu.Unlock()
	if list == nil {
		delete(g.groups, group)
	} else {
		g.groups[group] = list
	}
	g.index()
}

// addSkillDir makes dir, a loaded skill's folder, readable.
func (ts *toolset) addSkillDir(dir string) {
	g := ts.shared
	g.mu.Lock()
	defer g.mu.Unlock()
	if !slices.Contains(g.skillDirs, dir) {
		g.skillDirs = append(g.skillDirs, dir)
	}
}

// readableSkillDirs returns the folders of the skills loaded.
func (ts *toolset) readableSkillDirs() []string {
	g := ts.shared
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.skillDirs)
}

// trust replaces restricted start settings by the trusted folder's st;
// it reports the settings replaced, nil when the session has the full
// settings already.
func (ts *toolset) trust(st *settings.Settings) (was *settings.Settings) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.settings == nil || !ts.settings.ProjectRestricted {
		return nil
	}
	was, ts.settings = ts.settings, st
	return was
}

// close stops what the session's toolset started: the built-in tools'
// background shells, the MCP servers and the workspace watcher. A
// subagent's toolset is not closed: its tools share its parent's shells.
func (ts *toolset) close() {
	for _, t := range ts.all() {
		if c, ok := t.(interface{ Close() }); ok {
			c.Close()
		}
	}
	ts.mcp.close()
	ts.watch.close()
}

// SetTools adds, replaces (or, with nil, removes) a named group of tools,
// such as one MCP server's. The next model call sees the change, in the
// session and in the subagents it runs.
func (s *Session) SetTools(group string, list []tools.Tool) {
	s.tools.setGroup(group, list)
}
