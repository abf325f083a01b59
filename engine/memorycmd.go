package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/schema"
)

// DocumentShower is a Client that can open a file in the editor (the LSP
// door's window/showDocument). It reports false when the editor could
// not show it.
type DocumentShower interface {
	ShowDocument(ctx context.Context, path string) (bool, error)
}

// memoryCommand runs /memory: without an argument it lists the memory
// files the session reads (scope, size, what imported them, what was
// refused and why); with a number from that list, a path, or a scope
// (user, project, local, auto) it opens that file in the editor, or says
// where it is when the editor cannot open files.
func (s *Session) memoryCommand(ctx context.Context, arg string) (string, bool, error) {
	s.systemPrompt() // the memory files are those of the prompt the model gets
	files := s.memoryListing()
	arg = strings.TrimSpace(arg)
	if arg == "" {
		s.say(ctx, s.describeMemory(files))
		return schema.StopEndTurn, true, nil
	}
	path := s.memoryTarget(files, arg)
	if path == "" {
		s.say(ctx, fmt.Sprintf("No memory file %q: give a number from /memory's list, a path, or user, project, local or auto.", arg))
		return schema.StopEndTurn, true, nil
	}
	if _, err := os.Stat(path); err != nil {
		s.say(ctx, fmt.Sprintf("%s does not exist yet: create it to give these instructions (or ask me to).", path))
		return schema.StopEndTurn, true, nil
	}
	if sh, ok := s.client.Client.(DocumentShower); ok {
		shown, err := sh.ShowDocument(ctx, path)
		if err != nil {
			s.svc.cfg.Logf("session %s: /memory: showing %s: %v", s.ID, path, err)
		}
		if shown {
			s.say(ctx, "Opened "+path+" in the editor. Changes apply at the next message.")
			return schema.StopEndTurn, true, nil
		}
	}
	s.say(ctx, "The memory file is "+path+": open it in the editor to change it. Changes apply at the next message.")
	return schema.StopEndTurn, true, nil
}

// memoryListing is every memory file of the session: those of the
// system prompt, then those attached during the conversation, then the
// rules with paths not attached yet.
func (s *Session) memoryListing() []memoryFile {
	s.memory.mu.Lock()
	defer s.memory.mu.Unlock()
	out := slices.Clone(s.memory.files)
	var attached, pending []string
	for p := range s.memory.attached {
		attached = append(attached, p)
	}
	for p := range s.memory.conditional {
		if _, ok := s.memory.attached[p]; !ok {
			pending = append(pending, p)
		}
	}
	slices.Sort(attached)
	slices.Sort(pending)
	for _, p := range attached {
		if !slices.ContainsFunc(out, func(f memoryFile) bool { return f.Path == p }) {
			out = append(out, s.memory.attached[p])
		}
	}
	for _, p := range pending {
		out = append(out, s.memory.conditional[p][0])
	}
	return out
}

// describeMemory is /memory's list.
func (s *Session) describeMemory(files []memoryFile) string {
	var b strings.Builder
	n := 0
	s.memory.mu.Lock()
	attached := func(p string) bool { _, ok := s.memory.attached[p]; return ok }
	topLevel := map[string]bool{}
	for _, f := range s.memory.files {
		topLevel[f.Path] = true
	}
	for _, f := range files {
		if f.Refused != "" {
			continue
		}
		n++
		fmt.Fprintf(&b, "%d. [%s] %s (%s", n, f.Scope, s.shortPath(f.Path), sizeOf(f.Path))
		if f.ImportedBy != "" {
			fmt.Fprintf(&b, ", imported by %s", s.shortPath(f.ImportedBy))
		}
		switch {
		case f.Paths != nil && attached(f.Path):
			fmt.Fprintf(&b, ", for %s: loaded", strings.Join(f.Paths, ", "))
		case f.Paths != nil:
			fmt.Fprintf(&b, ", for %s: loaded when a matching file is used", strings.Join(f.Paths, ", "))
		case !topLevel[f.Path]:
			b.WriteString(", loaded with a file of its folder")
		}
		b.WriteString(")\n")
	}
	s.memory.mu.Unlock()
	head := "Memory files:\n"
	if n == 0 {
		head = "No memory file is loaded: create CLAUDE.md in the project (/init writes one) or ~/.claude/CLAUDE.md for every project.\n"
	}
	var refused strings.Builder
	for _, f := range files {
		if f.Refused != "" {
			fmt.Fprintf(&refused, "- %s", s.shortPath(f.Path))
			if f.ImportedBy != "" {
				fmt.Fprintf(&refused, " (imported by %s)", s.shortPath(f.ImportedBy))
			}
			fmt.Fprintf(&refused, ": %s\n", f.Refused)
		}
	}
	out := head + b.String()
	if refused.Len() > 0 {
		out += "\nNot read:\n" + refused.String()
	}
	if dir := s.autoMemoryDir(); dir != "" {
		out += fmt.Sprintf("\nAuto memory is on: %s (autoMemoryEnabled in the settings, or CLAUDE_CODE_DISABLE_AUTO_MEMORY=1, turns it off).\n", s.shortPath(dir))
	} else {
		out += "\nAuto memory is off.\n"
	}
	return out + "\n/memory N, /memory <path> or /memory user|project|local|auto opens one in the editor."
}

// memoryTarget resolves /memory's argument to a file path, or "".
func (s *Session) memoryTarget(files []memoryFile, arg string) string {
	var listed []memoryFile
	for _, f := range files {
		if f.Refused == "" {
			listed = append(listed, f)
		}
	}
	if n, err := strconv.Atoi(arg); err == nil {
		if n >= 1 && n <= len(listed) {
			return listed[n-1].Path
		}
		return ""
	}
	home := s.svc.cfg.Home
	switch arg {
	case "user":
		if home == "" || home == os.DevNull {
			return ""
		}
		return filepath.Join(home, ".claude", "CLAUDE.md")
	case "project":
		return filepath.Join(s.cwd, "CLAUDE.md")
	case "local":
		return filepath.Join(s.cwd, "CLAUDE.local.md")
	case "auto":
		if dir := s.autoMemoryDir(); dir != "" {
			return filepath.Join(dir, autoMemoryIndex)
		}
		return ""
	}
	p := arg
	if strings.HasPrefix(p, "~/") && home != "" && home != os.DevNull {
		p = filepath.Join(home, p[2:])
	} else if !filepath.IsAbs(p) {
		p = filepath.Join(s.cwd, p)
	}
	p = filepath.Clean(p)
	// Only a memory file: /memory opens nothing else.
	if slices.ContainsFunc(listed, func(f memoryFile) bool { return f.Path == p }) {
		return p
	}
	return ""
}

// shortPath writes a path relative to the working directory or the home.
func (s *Session) shortPath(p string) string {
	if rel, err := filepath.Rel(s.cwd, p); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	if home := s.svc.cfg.Home; home != "" && home != os.DevNull {
		if rel, err := filepath.Rel(home, p); err == nil && !strings.HasPrefix(rel, "..") {
			return "~/" + filepath.ToSlash(rel)
		}
	}
	return p
}

// sizeOf is a file's size for people.
func sizeOf(p string) string {
	fi, err := os.Stat(p)
	if err != nil {
		return "unreadable"
	}
	n := fi.Size()
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f KB", float64(n)/1024)
}

// initPrompt is what /init asks of the model: Claude Code's own.
const initPrompt = `Please analyze this codebase and create a CLAUDE.md file, which will be given to future instances of Claude Code to operate in this repository.

What to add:
1. Commands that will be commonly used, such as how to build, lint, and run tests. Include the necessary commands to develop in this codebase, such as how to run a single test.
2. High-level code architecture and structure so that future instances can be productive more quickly. Focus on the "big picture" architecture that requires reading multiple files to understand.

Usage notes:
- If there's already a CLAUDE.md, suggest improvements to it.
- When you make the initial CLAUDE.md, do not repeat yourself and do not include obvious instructions like "Provide helpful error messages to users", "Write unit tests for all new utilities", "Never include sensitive information (API keys, tokens) in code or commits".
- Avoid listing every component or file structure that can be easily discovered.
- Don't include generic development practices.
- If there are Cursor rules (in .cursor/rules/ or .cursorrules) or Copilot rules (in .github/copilot-instructions.md), make sure to include the important parts.
- If there is a README.md, make sure to include the important parts.
- Do not make up information such as "Common Development Tasks", "Tips for Development", "Support and Documentation" unless this is expressly included in other files that you read.
- Be sure to prefix the file with the following text:

` + "```" + `
# CLAUDE.md

This file provides guidance to Claude Code (claude.ai/code) when working with code in this repository.
` + "```"

// initCommand runs /init: Claude Code's prompt to write or improve the
// project's CLAUDE.md, sent as the user's turn.
func (s *Session) initCommand(ctx context.Context, prompt []schema.ContentBlock) (string, bool, error) {
	msg := providers.Message{Role: providers.RoleUser, Content: []providers.Block{providers.TextBlock("<command-name>/init</command-name>\n\n" + initPrompt)}}
	stop, err := s.start(ctx, prompt, msg)
	return stop, true, err
}
