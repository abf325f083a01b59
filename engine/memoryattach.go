package engine

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/agent-lsp/agent-lsp/pathres"
	"github.com/agent-lsp/agent-lsp/providers"
)

// fileTools are the tools whose calls make the memory of the file they
// touch apply, with the input field naming the file.
var fileTools = map[string]string{
	"Read":         "file_path",
	"Edit":         "file_path",
	"MultiEdit":    "file_path",
	"Write":        "file_path",
	"NotebookEdit": "notebook_path",
}

// memoryAttachment returns, for the results of one model message, the
// memory that the files read or edited bring in and that the model has
// not seen yet: the CLAUDE.md (and .claude/CLAUDE.md, AGENTS.md,
// CLAUDE.local.md, .claude/rules) of the folders between the working
// directory and each file, and the rules whose paths match it. As in
// Claude Code they go after the tool results, in a system reminder; nil
// when there is nothing new.
func (s *Session) memoryAttachment(uses, results []providers.Block) []providers.Block {
	var files []string
	for i, u := range uses {
		field, ok := fileTools[u.Name]
		if !ok || i >= len(results) || results[i].IsError {
			continue
		}
		var in map[string]any
		if json.Unmarshal(u.Input, &in) != nil {
			continue
		}
		p, _ := in[field].(string)
		if p == "" {
			continue
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(s.cwd, p)
		}
		files = append(files, filepath.Clean(p))
	}
	if len(files) == 0 {
		return nil
	}
	var add []memoryFile
	for _, f := range files {
		add = append(add, s.nestedMemory(f)...)
		add = append(add, s.matchingRules(f)...)
	}
	s.warnRefused(add)
	var parts []string
	for _, f := range add {
		if f.Refused == "" && f.Text != "" {
			parts = append(parts, f.render())
		}
	}
	if len(parts) == 0 {
		return nil
	}
	text := "<system-reminder>\nThe files just used bring in these instructions; follow them.\n\n" + strings.Join(parts, "\n\n---\n\n") + "\n</system-reminder>"
	return []providers.Block{providers.TextBlock(text)}
}

// nestedMemory reads the memory files of the folders between the working
// directory (or the workspace folder holding file, when it is not under
// the working directory) and file's folder that were not read yet.
func (s *Session) nestedMemory(file string) []memoryFile {
	top := ""
	switch {
	case pathres.Within(s.cwd, file):
		top = s.cwd
	default:
		for _, r := range s.tools.env.Roots {
			if pathres.Within(r, file) && r != s.memory.autoDir {
				top = filepath.Dir(r) // the folder itself is read too
				break
			}
		}
	}
	if top == "" {
		return nil
	}
	var dirs []string
	s.memory.mu.Lock()
	for d := filepath.Dir(file); d != top && pathres.Within(top, d); d = filepath.Dir(d) {
		if !s.memory.visited[d] {
			dirs = append(dirs, d)
		}
	}
	if s.memory.visited == nil {
		s.memory.visited = map[string]bool{}
	}
	for _, d := range dirs {
		s.memory.visited[d] = true
	}
	s.memory.mu.Unlock()
	if len(dirs) == 0 {
		return nil
	}
	l := s.newMemoryLoader()
	s.memory.mu.Lock()
	for _, f := range s.memory.files {
		l.markSeen(f.Path)
	}
	for p := range s.memory.attached {
		l.markSeen(p)
	}
	s.memory.mu.Unlock()
	var conditional [][]memoryFile
	for i := len(dirs) - 1; i >= 0; i-- {
		dir := dirs[i]
		ok := func(p string) bool { return l.dirFileOK(dir, p, originProject) }
		for _, name := range []string{"CLAUDE.md", filepath.Join(".claude", "CLAUDE.md"), "AGENTS.md"} {
			if p := filepath.Join(dir, name); ok(p) {
				l.add(p, scopeProject, originProject)
			}
		}
		for _, p := range ruleFiles(filepath.Join(dir, ".claude", "rules")) {
			if !ok(p) {
				continue
			}
			group := l.file(p, scopeProject, originProject, dir)
			if len(group) > 0 && group[0].Paths != nil {
				conditional = append(conditional, group)
				continue
			}
			l.out = append(l.out, group...)
		}
		if p := filepath.Join(dir, "CLAUDE.local.md"); ok(p) {
			l.add(p, scopeLocal, originProject)
		}
	}
	s.memory.mu.Lock()
	defer s.memory.mu.Unlock()
	if s.memory.conditional == nil {
		s.memory.conditional = map[string][]memoryFile{}
	}
	for _, g := range conditional {
		if _, ok := s.memory.conditional[g[0].Path]; !ok {
			s.memory.conditional[g[0].Path] = g
		}
	}
	return s.memory.attach(l.out)
}

// markSeen counts a file as read, so that it is not read again.
func (l *memoryLoader) markSeen(p string) {
	if real, err := pathres.Resolve("/", p); err == nil {
		l.seen[real] = true
	}
}

// matchingRules returns the rules with paths that match file and were
// not attached yet, each with its imports.
func (s *Session) matchingRules(file string) []memoryFile {
	s.memory.mu.Lock()
	defer s.memory.mu.Unlock()
	var keys []string
	for k := range s.memory.conditional {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var out []memoryFile
	for _, k := range keys {
		g := s.memory.conditional[k]
		if _, done := s.memory.attached[k]; done || !g[0].matches(file) {
			continue
		}
		out = append(out, s.memory.attach(g)...)
	}
	return out
}

// attach records files as attached and returns those not attached
// before. The caller holds mu.
func (m *memoryState) attach(files []memoryFile) []memoryFile {
	if m.attached == nil {
		m.attached = map[string]memoryFile{}
	}
	var out []memoryFile
	for _, f := range files {
		if _, done := m.attached[f.Path]; done {
			continue
		}
		m.attached[f.Path] = f
		out = append(out, f)
	}
	return out
}

// forgetAttached forgets what was attached: after /clear or a
// compaction the model has not seen it any more.
func (s *Session) forgetAttached() {
	s.memory.mu.Lock()
	s.memory.attached = nil
	s.memory.visited = nil
	s.memory.mu.Unlock()
}

// matches reports whether a rule's paths match file, relative to the
// rule's base folder (doublestar globs, as Claude Code's).
func (f memoryFile) matches(file string) bool {
	rel, err := filepath.Rel(f.Base, file)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return false
	}
	rel = filepath.ToSlash(rel)
	for _, g := range f.Paths {
		g = strings.TrimPrefix(strings.TrimSpace(g), "./")
		if g == "" {
			continue
		}
		if ok, err := doublestar.Match(g, rel); err == nil && ok {
			return true
		}
		// A pattern without a folder part matches at any depth, as a
		// gitignore pattern does ("*.ts").
		if !strings.Contains(g, "/") {
			if ok, err := doublestar.Match("**/"+g, rel); err == nil && ok {
				return true
			}
		}
	}
	return false
}
