package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/agent-lsp/agent-lsp/pathres"
	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/sandbox"
	"github.com/agent-lsp/agent-lsp/tools"
)

// identity is the stable head of every system prompt.
const identity = `You are agent-lsp, a coding agent working inside the user's editor on the workspace they have open.

Work like a careful senior engineer:
- Read a file before you edit it; the file tools see the editor's unsaved text, which is what the user sees.
- Make the smallest change that does the job, in the file's own style. Use Edit or MultiEdit for changes to existing files and Write only for new files or full rewrites.
- Edits are applied in the user's editor buffers and can be undone there; the user may reject a change in the permission prompt. When a tool call is rejected, do not retry it unchanged: ask what the user wants.
- Use Grep and Glob to find things instead of guessing paths. Run independent read-only lookups together in one message; they run in parallel.
- Use Bash for builds, tests and git. Prefer commands that print little.
- Keep the user informed in short sentences; use TodoWrite to plan multi-step work so the user sees the plan.
- Paths outside the workspace folders are refused.
When you are done, say briefly what you changed and how you checked it.`

// systemPrompt returns the system prompt blocks: the stable identity
// (marked for prompt caching), then the project's instructions and the
// environment, which change more often.
func (s *Session) systemPrompt() []providers.SystemBlock {
	if cached := s.conv.systemPrompt(); cached != nil {
		return cached
	}
	blocks := []providers.SystemBlock{{Text: identity}}
	if memo := s.instructions(); memo != "" {
		blocks = append(blocks, providers.SystemBlock{Text: memo})
	}
	if sk := s.skillsPrompt(); sk != "" {
		blocks = append(blocks, providers.SystemBlock{Text: sk})
	}
	if sp := s.settingsPrompt(); sp != "" {
		blocks = append(blocks, providers.SystemBlock{Text: sp})
	}
	blocks[len(blocks)-1].Cache = true
	blocks = append(blocks, providers.SystemBlock{Text: s.environment()})
	blocks = s.overrideSystem(blocks)
	s.conv.setSystemPrompt(blocks)
	return blocks
}

// ReloadInstructions makes the next model call re-read CLAUDE.md and
// AGENTS.md files.
func (s *Session) ReloadInstructions() {
	s.conv.setSystemPrompt(nil)
}

// instructionFiles are the names of the memory files read in each folder
// from the outermost down to the working directory (memory.go), and in
// the folders below it when the model first works there.
var instructionFiles = []string{"CLAUDE.md", "AGENTS.md", "CLAUDE.local.md"}

// maxInstructionBytes bounds one instruction file.
const maxInstructionBytes = 256 << 10

// readInstructionFile reads an instruction file (CLAUDE.md, ...) the way
// the file tools would read a path: symlinks are resolved first, and a
// file that lies in a workspace folder must lead to a regular file in a
// workspace folder. A repository cannot make its CLAUDE.md a link to the
// user's files, to another project or to /proc/self/environ, and a FIFO
// or device cannot stall the prompt. Files outside the workspace folders
// (the user's ~/.claude/CLAUDE.md, those in the folders above the
// workspace) are the user's own and may link anywhere but /proc, /sys
// and /dev.
func readInstructionFile(path string, roots []string) ([]byte, error) {
	real, err := pathres.Resolve("/", path)
	if errors.Is(err, pathres.ErrPseudo) {
		return nil, fmt.Errorf("%s leads to %s, which is not a file to read instructions from", path, real)
	}
	if err != nil {
		return nil, err
	}
	// Where the file sits: as named (.claude/skills/x/SKILL.md under the
	// workspace, even when .claude or skills is a link out of it), and
	// with its folders' links resolved (a workspace reached through a
	// link). Either way in the workspace, it must lead into it.
	locs := []string{filepath.Clean(path)}
	if dir, err := pathres.Resolve("/", filepath.Dir(path)); err == nil {
		locs = append(locs, filepath.Join(dir, filepath.Base(path)))
	}
	inRoots := func(p string) bool {
		return slices.ContainsFunc(roots, func(r string) bool { return tools.Within(r, p) })
	}
	if slices.ContainsFunc(locs, inRoots) && !inRoots(real) {
		return nil, fmt.Errorf("%s is in the workspace but leads outside it, to %s: not read", path, real)
	}
	// Stat before opening: opening a FIFO would block.
	if fi, err := os.Stat(real); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file: not read", path)
	}
	f, err := os.Open(real)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxInstructionBytes))
}

// environment describes where the session runs.
func (s *Session) environment() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Environment:\n- Working directory: %s\n", s.cwd)
	if len(s.tools.env.Roots) > 1 {
		fmt.Fprintf(&b, "- Workspace folders: %s\n", strings.Join(s.tools.env.Roots, ", "))
	}
	fmt.Fprintf(&b, "- Platform: %s/%s\n- Today's date: %s\n", runtime.GOOS, runtime.GOARCH, time.Now().Format("2006-01-02"))
	if branch, status, ok := gitState(s.pipe.confiner, s.cwd); ok {
		fmt.Fprintf(&b, "- Git branch: %s\n- Git status (short):\n%s\n", branch, status)
	} else {
		b.WriteString("- Not a git repository\n")
	}
	return b.String()
}

// gitState returns the branch and a short status of the repository at
// dir, giving up quickly. git runs as the model's commands that need no
// question do (confined, with the repository's programs turned off): a
// repository must not run code through the system prompt.
func gitState(c *sandbox.Confiner, dir string) (branch, status string, ok bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	out, err := c.Git(ctx, dir, "status", "--short", "--branch")
	if err != nil {
		return "", "", false
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	branch = strings.TrimPrefix(lines[0], "## ")
	rest := lines[1:]
	const maxLines = 40
	if len(rest) > maxLines {
		rest = append(rest[:maxLines], fmt.Sprintf("... and %d more", len(rest)-maxLines))
	}
	if len(rest) == 0 {
		return branch, "  (clean)", true
	}
	return branch, "  " + strings.Join(rest, "\n  "), true
}
