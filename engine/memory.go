package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/agent-lsp/agent-lsp/pathres"
)

// Memory files are Claude Code's hierarchy of instructions, read in its
// order: the managed CLAUDE.md, the user's ~/.claude/CLAUDE.md and
// ~/.claude/rules, then from the outermost folder down to the working
// directory each folder's CLAUDE.md, .claude/CLAUDE.md, AGENTS.md,
// .claude/rules/**/*.md and CLAUDE.local.md, then auto memory's
// MEMORY.md. A file's @path imports follow it. Rules whose frontmatter
// has paths, and the files of folders below the working directory, are
// attached to a tool result when the model first works on a file they
// concern (memoryattach.go).

// memoryScope says where a memory file comes from, as /memory shows it.
type memoryScope string

const (
	scopeManaged memoryScope = "managed"
	scopeUser    memoryScope = "user"
	scopeProject memoryScope = "project"
	scopeLocal   memoryScope = "local"
	scopeAuto    memoryScope = "auto memory"
)

// describe is what the model reads beside a file's path.
func (sc memoryScope) describe() string {
	switch sc {
	case scopeManaged:
		return "managed policy instructions, set by the organization"
	case scopeUser:
		return "user's private global instructions for all projects"
	case scopeLocal:
		return "user's private project instructions, not checked in"
	case scopeAuto:
		return "user's auto memory, persists across conversations"
	}
	return "project instructions, checked into the codebase"
}

// origin says whose a memory file is, which bounds what it may import.
type origin int

const (
	// originUser: the user's own file (managed, ~/.claude, the folders
	// above the workspace's repository); it may import any regular file
	// but one under /proc, /sys or /dev.
	originUser origin = iota
	// originProject: a file of the workspace; it may import files of
	// the workspace only.
	originProject
	// originRepo: a file of the repository above the workspace; it may
	// import files of the workspace or of that repository.
	originRepo
	// originAuto: written by the model (auto memory); it imports nothing.
	originAuto
)

// maxImportDepth is how many hops of @path imports are followed.
const maxImportDepth = 5

// memoryFile is one memory file read, or refused.
type memoryFile struct {
	Path       string
	Scope      memoryScope
	Text       string // the content, frontmatter removed
	ImportedBy string // the file that imported it, "" for none
	// Paths are a rule's globs (its frontmatter's paths), relative to
	// Base; nil for a file that always applies.
	Paths []string
	Base  string
	// Refused says why the file was not read (an import out of bounds,
	// a cycle); Text is then empty.
	Refused string
}

// managedMemoryPath is where Claude Code's managed CLAUDE.md lives on
// this system.
func managedMemoryPath() string {
	switch runtime.GOOS {
	case "darwin":
		return "/Library/Application Support/ClaudeCode/CLAUDE.md"
	case "windows":
		return `C:\Program Files\ClaudeCode\CLAUDE.md`
	}
	return "/etc/claude-code/CLAUDE.md"
}

// memoryState is what a session knows of its memory files.
type memoryState struct {
	// autoDir is the auto memory folder, "" when off; set before the
	// session is shared.
	autoDir string

	mu sync.Mutex // guards the fields below
	// files are those of the last system prompt, in its order.
	files []memoryFile
	// attached are the files attached to tool results since the
	// conversation started (nested ones, rules with paths), by path.
	attached map[string]memoryFile
	// visited are the folders below the working directory whose memory
	// files were read, attached or not.
	visited map[string]bool
	// conditional are the rules with paths met so far, each with its
	// imports, by the rule's path.
	conditional map[string][]memoryFile
	// warned are the refusals already shown to the user.
	warned map[string]bool
}

// memoryLoader reads memory files for one session, following imports.
type memoryLoader struct {
	s     *Session
	roots []string
	repo  string
	home  string
	seen  map[string]bool // real paths read
	out   []memoryFile
}

func (s *Session) newMemoryLoader() *memoryLoader {
	home := s.svc.cfg.Home
	if home == os.DevNull {
		home = ""
	}
	return &memoryLoader{s: s, roots: s.tools.env.Roots, repo: repoTop(s.cwd, s.svc.cfg.Home), home: home, seen: map[string]bool{}}
}

// instructions gathers the memory files into the system prompt's text.
func (s *Session) instructions() string {
	files, conditional := s.loadMemory()
	s.memory.mu.Lock()
	s.memory.files = files
	if s.memory.conditional == nil {
		s.memory.conditional = map[string][]memoryFile{}
	}
	for k, v := range conditional {
		s.memory.conditional[k] = v
	}
	s.memory.mu.Unlock()
	s.warnRefused(files)
	for _, g := range conditional {
		s.warnRefused(g)
	}
	text := renderMemory(files)
	if auto := s.autoMemoryPrompt(); auto != "" {
		if text != "" {
			text += "\n\n"
		}
		text += auto
	}
	return text
}

// memoryIntro heads the memory files in the prompt.
const memoryIntro = "The user and the project give these instructions; follow them. They override your default behavior."

// renderMemory writes the files read (not the refused ones) for the model.
func renderMemory(files []memoryFile) string {
	var parts []string
	for _, f := range files {
		if f.Refused != "" || f.Text == "" {
			continue
		}
		parts = append(parts, f.render())
	}
	if len(parts) == 0 {
		return ""
	}
	return memoryIntro + "\n\n" + strings.Join(parts, "\n\n---\n\n")
}

// render is a file as the model reads it.
func (f memoryFile) render() string {
	return fmt.Sprintf("Instructions from %s (%s):\n\n%s", f.Path, f.Scope.describe(), f.Text)
}

// loadMemory reads the hierarchy: the files that always apply, in order,
// and the rules with paths, each with its imports.
func (s *Session) loadMemory() ([]memoryFile, map[string][]memoryFile) {
	l := s.newMemoryLoader()
	conditional := map[string][]memoryFile{}
	addRules := func(dir, base string, scope memoryScope, org origin, check func(string) bool) {
		for _, p := range ruleFiles(dir) {
			if check != nil && !check(p) {
				continue
			}
			group := l.file(p, scope, org, base)
			if len(group) > 0 && group[0].Paths != nil {
				conditional[p] = group
				continue
			}
			l.out = append(l.out, group...)
		}
	}
	if mp := s.svc.cfg.ManagedMemory; mp != "-" {
		if mp == "" {
			mp = managedMemoryPath()
		}
		l.add(mp, scopeManaged, originUser)
		addRules(filepath.Join(filepath.Dir(mp), ".claude", "rules"), s.cwd, scopeManaged, originUser, nil)
	}
	if l.home != "" {
		l.add(filepath.Join(l.home, ".claude", "CLAUDE.md"), scopeUser, originUser)
		addRules(filepath.Join(l.home, ".claude", "rules"), s.cwd, scopeUser, originUser, nil)
	}
	var dirs []string
	for dir := s.cwd; ; dir = filepath.Dir(dir) {
		dirs = append(dirs, dir)
		if filepath.Dir(dir) == dir || dir == s.svc.cfg.Home {
			break
		}
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		dir := dirs[i]
		org := l.dirOrigin(dir)
		ok := func(p string) bool { return l.dirFileOK(dir, p, org) }
		for _, name := range []string{"CLAUDE.md", filepath.Join(".claude", "CLAUDE.md"), "AGENTS.md"} {
			if p := filepath.Join(dir, name); ok(p) {
				l.add(p, scopeProject, org)
			}
		}
		addRules(filepath.Join(dir, ".claude", "rules"), dir, scopeProject, org, ok)
		if p := filepath.Join(dir, "CLAUDE.local.md"); ok(p) {
			l.add(p, scopeLocal, org)
		}
	}
	if dir := s.autoMemoryDir(); dir != "" {
		l.add(filepath.Join(dir, autoMemoryIndex), scopeAuto, originAuto)
	}
	return l.out, conditional
}

// dirOrigin says whose the files of a folder on the walk up are.
func (l *memoryLoader) dirOrigin(dir string) origin {
	switch {
	case slices.ContainsFunc(l.roots, func(r string) bool { return pathres.Within(r, dir) }):
		return originProject
	case l.repo != "" && pathres.Within(l.repo, dir):
		return originRepo
	}
	return originUser
}

// dirFileOK reports whether a memory file found in dir may be read: a
// project's file must be what it seems (projectFileOK), a repository's
// above the workspace must not be a link (repoFileOK).
func (l *memoryLoader) dirFileOK(dir, p string, org origin) bool {
	if _, err := os.Lstat(p); err != nil {
		return false
	}
	if !l.s.projectFileOK(dir, p) {
		return false
	}
	if org == originRepo && !repoFileOK(l.repo, dir, p) {
		l.s.svc.cfg.Logf("session %s: %s is a link in the repository above the workspace: not read as instructions", l.s.ID, p)
		return false
	}
	return true
}

// ruleFiles lists the .md files under a rules folder, sorted, following
// no link to a folder (a link to a file is checked as the file).
func ruleFiles(dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if !d.IsDir() && strings.HasSuffix(strings.ToLower(d.Name()), ".md") {
			out = append(out, p)
		}
		return nil
	})
	slices.Sort(out)
	return out
}

// add reads a top-level memory file and its imports into the output.
func (l *memoryLoader) add(path string, scope memoryScope, org origin) {
	l.out = append(l.out, l.file(path, scope, org, "")...)
}

// file reads a memory file (a rule when base is set) and its imports.
// A missing file gives nothing.
func (l *memoryLoader) file(path string, scope memoryScope, org origin, base string) []memoryFile {
	return l.read(path, scope, org, base, "", nil)
}

// read reads a memory file and its imports; chain holds the real paths
// of the files that imported it, outermost first.
func (l *memoryLoader) read(path string, scope memoryScope, org origin, base, importer string, chain []string) []memoryFile {
	refuse := func(why string) []memoryFile {
		l.s.svc.cfg.Logf("session %s: memory: %s: %s", l.s.ID, path, why)
		return []memoryFile{{Path: path, Scope: scope, ImportedBy: importer, Refused: why}}
	}
	real, err := pathres.Resolve("/", path)
	if err != nil && !errors.Is(err, pathres.ErrPseudo) {
		if importer != "" {
			return refuse(fmt.Sprintf("not read: %v", err))
		}
		return nil
	}
	if err == nil && slices.Contains(chain, real) {
		return refuse("an import cycle (" + importer + " imports it again): refused")
	}
	if err == nil && l.seen[real] {
		return nil // read already: once is enough
	}
	b, err := readInstructionFile(path, l.roots)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && importer == "" {
			return nil
		}
		return refuse(err.Error())
	}
	if l.s.pipe.gate.policy.Hides("Read", real) {
		return refuse("a Read permission rule keeps it from the model")
	}
	if !utf8.Valid(b) || slices.Contains(b, 0) {
		return refuse("not a text file")
	}
	l.seen[real] = true
	text := string(b)
	f := memoryFile{Path: path, Scope: scope, ImportedBy: importer, Base: base}
	if base != "" {
		meta, body := splitMeta(text)
		if globs := globList(meta["paths"]); len(globs) > 0 {
			f.Paths = globs
		}
		text = body
	}
	if scope == scopeAuto {
		text = autoMemoryHead(text)
	}
	f.Text = strings.TrimSpace(text)
	out := []memoryFile{f}
	if org == originAuto {
		return out
	}
	for _, imp := range importPaths(text) {
		target := l.importTarget(path, imp)
		if fi, err := os.Stat(target); err != nil || fi.IsDir() {
			// Not a file: an @-mention in prose ("@someone",
			// "@Override"), a folder, or a file not written yet.
			continue
		}
		if len(chain)+1 > maxImportDepth {
			out = append(out, refuseImport(l, target, scope, path, fmt.Sprintf("more than %d hops of imports: not read", maxImportDepth)))
			continue
		}
		if why := l.importRefusal(org, target); why != "" {
			out = append(out, refuseImport(l, target, scope, path, why))
			continue
		}
		out = append(out, l.read(target, scope, org, "", path, append(slices.Clip(chain), real))...)
	}
	return out
}

func refuseImport(l *memoryLoader, target string, scope memoryScope, importer, why string) memoryFile {
	l.s.svc.cfg.Logf("session %s: memory: %s imports %s: %s", l.s.ID, importer, target, why)
	return memoryFile{Path: target, Scope: scope, ImportedBy: importer, Refused: why}
}

// importTarget is where an import written in the file at from leads:
// "~/" is the home, a relative path is relative to the importing file.
func (l *memoryLoader) importTarget(from, imp string) string {
	switch {
	case imp == "~" || strings.HasPrefix(imp, "~/"):
		if l.home == "" {
			return filepath.Clean(imp) // refused below: not absolute
		}
		return filepath.Join(l.home, strings.TrimPrefix(imp, "~"))
	case filepath.IsAbs(imp):
		return filepath.Clean(imp)
	}
	return filepath.Join(filepath.Dir(from), imp)
}

// importRefusal says why a file of the given origin may not import
// target, or "" when it may. A project's file reads what the file tools
// would read without a question: files of the workspace, as named and
// as resolved. The user's own files may import their own files.
func (l *memoryLoader) importRefusal(org origin, target string) string {
	if !filepath.IsAbs(target) {
		return "not an absolute path once expanded: not read"
	}
	if org == originUser {
		return ""
	}
	real, err := pathres.Resolve("/", target)
	if err != nil {
		return fmt.Sprintf("not read: %v", err)
	}
	within := func(p string) bool {
		if slices.ContainsFunc(l.roots, func(r string) bool { return pathres.Within(r, p) }) {
			return true
		}
		return org == originRepo && l.repo != "" && pathres.Within(l.repo, p)
	}
	if !within(target) || !within(real) {
		return fmt.Sprintf("outside the workspace (it leads to %s); a project's instructions import only the workspace's files", real)
	}
	return ""
}

// importPaths returns the @path imports of a markdown text, in order:
// an @ at the start of a line or after white space, outside code spans
// and fenced code blocks, followed by a path (a backslash escapes a
// space). A "#fragment" is dropped.
func importPaths(text string) []string {
	var out []string
	fence := ""
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimLeft(line, " \t")
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			continue
		}
		if strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "\t") {
			continue // an indented code block
		}
		out = append(out, lineImports(line)...)
	}
	return out
}

// lineImports returns the imports of one line outside code spans.
func lineImports(line string) []string {
	var out []string
	inCode := 0 // the length of the backtick run that opened a span
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c == '`' {
			n := 1
			for i+n < len(line) && line[i+n] == '`' {
				n++
			}
			switch {
			case inCode == 0:
				if strings.Contains(line[i+n:], strings.Repeat("`", n)) {
					inCode = n
				}
			case inCode == n:
				inCode = 0
			}
			i += n - 1
			continue
		}
		if inCode != 0 || c != '@' || (i > 0 && line[i-1] != ' ' && line[i-1] != '\t') {
			continue
		}
		var b strings.Builder
		j := i + 1
		for ; j < len(line); j++ {
			if line[j] == '\\' && j+1 < len(line) && line[j+1] == ' ' {
				b.WriteByte(' ')
				j++
				continue
			}
			if line[j] == ' ' || line[j] == '\t' {
				break
			}
			b.WriteByte(line[j])
		}
		i = j - 1
		p, _, _ := strings.Cut(b.String(), "#")
		if validImport(p) {
			out = append(out, p)
		}
	}
	return out
}

// validImport reports whether what follows an @ names a file: it starts
// like a path (./, ~/, /, or a letter, digit, '.', '_' or '-'), and is
// not a bare "/" or an e-mail-like or @-mention word.
func validImport(p string) bool {
	if p == "" || p == "/" || strings.HasPrefix(p, "@") {
		return false
	}
	if strings.HasPrefix(p, "./") || strings.HasPrefix(p, "~/") || strings.HasPrefix(p, "/") {
		return true
	}
	c := p[0]
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
}

// warnRefused tells the user once about each import refused.
func (s *Session) warnRefused(files []memoryFile) {
	for _, f := range files {
		if f.Refused == "" || f.ImportedBy == "" {
			continue
		}
		key := f.ImportedBy + "\x00" + f.Path
		s.memory.mu.Lock()
		if s.memory.warned == nil {
			s.memory.warned = map[string]bool{}
		}
		done := s.memory.warned[key]
		s.memory.warned[key] = true
		s.memory.mu.Unlock()
		if !done {
			s.notice(Status{Kind: StatusWarning, Message: fmt.Sprintf("%s imports %s: %s", f.ImportedBy, f.Path, f.Refused)})
		}
	}
}

// isMemoryPath reports whether a change to path changes the memory
// files: one of the names read in every folder, a rules file, or a file
// read as memory (an import). Auto memory is not: the model writes it
// during the session and reads it in the next one, as in Claude Code,
// and the prompt's cache is not lost at each note.
func (s *Session) isMemoryPath(path string) bool {
	if s.memory.autoDir != "" && pathres.Within(s.memory.autoDir, path) {
		return false
	}
	if slices.Contains(instructionFiles, filepath.Base(path)) {
		return true
	}
	if strings.Contains(filepath.ToSlash(path), "/.claude/rules/") {
		return true
	}
	s.memory.mu.Lock()
	defer s.memory.mu.Unlock()
	return slices.ContainsFunc(s.memory.files, func(f memoryFile) bool { return f.Path == path })
}

// globList reads a rule's paths: "- item" lines, an inline [a, b] list
// or a comma-separated string, splitting on the commas outside braces
// and quotes ("src/**/*.{ts,tsx}" is one glob).
func globList(values []string) []string {
	var out []string
	for _, v := range values {
		v = strings.TrimSpace(v)
		if strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]") {
			v = v[1 : len(v)-1]
		}
		depth, start := 0, 0
		var quote rune
		flush := func(end int) {
			if g := unquote(strings.TrimSpace(v[start:end])); g != "" {
				out = append(out, g)
			}
		}
		for i, c := range v {
			switch {
			case quote != 0:
				if c == quote {
					quote = 0
				}
			case c == '"' || c == '\'':
				quote = c
			case c == '{':
				depth++
			case c == '}':
				depth--
			case c == ',' && depth == 0:
				flush(i)
				start = i + 1
			}
		}
		flush(len(v))
	}
	return out
}
