package engine

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-lsp/agent-lsp/pathres"
	"github.com/agent-lsp/agent-lsp/session"
	"github.com/agent-lsp/agent-lsp/settings"
)

// Auto memory is Claude Code's memory written by the model: a folder per
// project, ~/.claude/projects/<project>/memory, whose MEMORY.md index is
// loaded (its first 200 lines) into every conversation, and where the
// model keeps notes with its file tools. The project is the repository's
// main working tree (every worktree and subfolder of a clone shares
// one), else the working directory, named as Claude Code names its
// session folders.

// autoMemoryIndex is the file of the memory folder loaded every time.
const autoMemoryIndex = "MEMORY.md"

// autoMemoryLines and autoMemoryBytes bound what of MEMORY.md is loaded.
const (
	autoMemoryLines = 200
	autoMemoryBytes = 25_000
)

// disableAutoMemoryEnv is Claude Code's switch: 1 or true turns auto
// memory off, 0 or false on, whatever the settings say.
const disableAutoMemoryEnv = "CLAUDE_CODE_DISABLE_AUTO_MEMORY"

// autoMemoryDirFor returns the auto memory folder of a session in cwd,
// or "" when auto memory is off: Config.AutoMemory unset, no home, the
// environment's (or the settings' env's) CLAUDE_CODE_DISABLE_AUTO_MEMORY,
// or the settings' autoMemoryEnabled false. The settings'
// autoMemoryDirectory names another folder.
func autoMemoryDirFor(cfg *Config, st *settings.Settings, cwd string) string {
	if !cfg.AutoMemory || cfg.Home == "" || cfg.Home == os.DevNull {
		return ""
	}
	env := cfg.DisableAutoMemory
	if st != nil {
		if v, ok := st.Env[disableAutoMemoryEnv]; ok {
			env = v
		}
	}
	switch strings.ToLower(strings.TrimSpace(env)) {
	case "1", "true", "yes", "on":
		return ""
	case "0", "false", "no", "off":
	default:
		if st != nil && st.AutoMemoryEnabled != nil && !*st.AutoMemoryEnabled {
			return ""
		}
	}
	if st != nil && st.AutoMemoryDirectory != "" {
		return st.AutoMemoryDirectory
	}
	if r, err := filepath.EvalSymlinks(cwd); err == nil {
		cwd = r
	}
	return filepath.Join(cfg.Home, ".claude", "projects", session.ProjectSlug(canonicalGitRoot(cwd)), "memory")
}

// canonicalGitRoot returns the main working tree of the repository
// holding dir (a linked worktree's gives its main one), or dir when it is
// in none.
func canonicalGitRoot(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		git := filepath.Join(d, ".git")
		fi, err := os.Lstat(git)
		if err == nil {
			if fi.IsDir() {
				return d
			}
			if main := worktreeMain(git); main != "" {
				return main
			}
			return d
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}

// worktreeMain reads a linked worktree's .git file ("gitdir: <main>/.git/
// worktrees/<name>") and returns the main working tree, or "".
func worktreeMain(gitFile string) string {
	// A repository chooses its .git: it may be a link to /dev/zero or a
	// FIFO, so it is read as a small regular file or not at all.
	b, err := pathres.ReadRegular(gitFile, 4<<10)
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(b), "\n")
	gitdir, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if !ok {
		return ""
	}
	gitdir = strings.TrimSpace(gitdir)
	if !filepath.IsAbs(gitdir) {
		gitdir = filepath.Join(filepath.Dir(gitFile), gitdir)
	}
	common := filepath.Dir(filepath.Dir(gitdir)) // <main>/.git
	if c, err := pathres.ReadRegular(filepath.Join(gitdir, "commondir"), 4<<10); err == nil {
		cd := strings.TrimSpace(string(c))
		if !filepath.IsAbs(cd) {
			cd = filepath.Join(gitdir, cd)
		}
		common = filepath.Clean(cd)
	}
	if filepath.Base(common) != ".git" {
		return ""
	}
	return filepath.Dir(common)
}

// autoMemoryDir is the session's auto memory folder, "" when off.
func (s *Session) autoMemoryDir() string { return s.memory.autoDir }

// autoMemoryHead is the part of MEMORY.md that is loaded: its first 200
// lines and 25 KB, with a note when more was left out.
func autoMemoryHead(text string) string {
	var b strings.Builder
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 0, 64<<10), maxInstructionBytes)
	n := 0
	cut := false
	for sc.Scan() {
		line := sc.Text()
		if n == autoMemoryLines || b.Len()+len(line)+1 > autoMemoryBytes {
			cut = true
			break
		}
		b.WriteString(line)
		b.WriteByte('\n')
		n++
	}
	if cut {
		fmt.Fprintf(&b, "\n(%s is longer than this: only its first %d lines are loaded. Keep it a short index and move details into topic files.)\n", autoMemoryIndex, n)
	}
	return b.String()
}

// autoMemoryPrompt tells the model how to keep its memory, or "" when
// auto memory is off.
func (s *Session) autoMemoryPrompt() string {
	dir := s.autoMemoryDir()
	if dir == "" {
		return ""
	}
	index := filepath.Join(dir, autoMemoryIndex)
	empty := ""
	if fi, err := os.Stat(index); err != nil || fi.Size() == 0 {
		empty = fmt.Sprintf("\n\n%s is empty or missing: nothing is remembered yet.", index)
	}
	return fmt.Sprintf(`# Auto memory

You have a persistent memory folder, %s. What you write there is still there in later conversations about this project, so keep what will help you then. The file tools (Read, Write, Edit) may use this folder.

How to remember something:
- Write one note per topic as its own markdown file in that folder (user_preferences.md, testing.md, ...), starting with frontmatter:
  ---
  name: a short name
  description: one line saying what the note holds, to judge later whether it is relevant
  type: user | feedback | project | reference
  ---
- Keep %s as the index: one line per note, "- [Title](file.md): what it is about". Its first %d lines are loaded into every conversation (shown with the instructions above); the notes themselves are read when needed. Keep it short.
- Before writing, look for a note on the same topic and update it instead of adding another. Remove notes that turn out wrong or outdated.

Worth remembering: who the user is and how they like to work; their corrections and the approaches they confirmed, with why; facts about the project that the code does not tell (decisions, constraints, who owns what); where to find things outside the repository.
Not worth remembering: what the code, the git history or the CLAUDE.md files already say; the details of the task at hand; secrets of any kind.

When the user asks you to remember something, save it right away; when they ask you to forget something, remove it.%s`, dir, autoMemoryIndex, autoMemoryLines, empty)
}
