package engine

import (
	"slices"
	"sort"
	"sync"

	"github.com/agent-lsp/agent-lsp/tools"
)

// toolset is the tools a session offers the model: the built-in ones and
// groups added while it runs (the tools of each MCP server).
type toolset struct {
	mu      sync.Mutex
	builtin []tools.Tool
	groups  map[string][]tools.Tool // by group name, guarded by mu
	byName  map[string]tools.Tool   // every tool, guarded by mu
	hidden  map[string]bool         // tools the client disallowed, guarded by mu
}

// hide takes tools away by name, for the rest of the session.
func (ts *toolset) hide(names []string) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.hidden == nil {
		ts.hidden = make(map[string]bool)
	}
	for _, n := range names {
		ts.hidden[n] = true
	}
	ts.index()
}

func newToolset(builtin []tools.Tool) *toolset {
	ts := &toolset{builtin: builtin, groups: make(map[string][]tools.Tool)}
	ts.index()
	return ts
}

// index rebuilds byName; callers hold mu (or own ts exclusively).
func (ts *toolset) index() {
	ts.byName = make(map[string]tools.Tool)
	for _, t := range ts.builtin {
		if !ts.hidden[t.Spec().Name] {
			ts.byName[t.Spec().Name] = t
		}
	}
	for _, g := range ts.groups {
		for _, t := range g {
			if _, taken := ts.byName[t.Spec().Name]; !taken && !ts.hidden[t.Spec().Name] {
				ts.byName[t.Spec().Name] = t
			}
		}
	}
}

// all returns the tools in a stable order: built-ins, then groups by name.
func (ts *toolset) all() []tools.Tool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	out := slices.Clone(ts.builtin)
	names := make([]string, 0, len(ts.groups))
	for n := range ts.groups {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		out = append(out, ts.groups[n]...)
	}
	return slices.DeleteFunc(out, func(t tools.Tool) bool { return ts.hidden[t.Spec().Name] })
}

func (ts *toolset) lookup(name string) (tools.Tool, bool) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t, ok := ts.byName[name]
	if alias, isAlias := toolAliases[name]; !ok && isAlias {
		t, ok = ts.byName[alias]
	}
	return t, ok
}

// toolAliases are other names models use for a tool: Claude Code's Agent
// tool was called Task.
var toolAliases = map[string]string{taskToolName: agentToolName}

// setGroup replaces a group's tools; nil removes the group.
func (ts *toolset) setGroup(group string, list []tools.Tool) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if list == nil {
		delete(ts.groups, group)
	} else {
		ts.groups[group] = list
	}
	ts.index()
}

// SetTools adds, replaces (or, with nil, removes) a named group of tools,
// such as one MCP server's. The next model call sees the change.
func (s *Session) SetTools(group string, list []tools.Tool) {
	s.tools.setGroup(group, list)
}
