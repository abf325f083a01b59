package engine

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v4"
)

// AgentDef is a subagent definition: Claude Code's .claude/agents/*.md
// format, YAML frontmatter (name, description, tools, model) then the
// system prompt.
type AgentDef struct {
	Name        string
	Description string
	// Tools are the tools the agent may use; nil means all the parent's.
	// They never widen the parent's set.
	Tools []string
	// Model is a model id, an alias (sonnet, opus, haiku) or "inherit";
	// "" inherits the parent's.
	Model  string
	Prompt string
	// Source is where the definition comes from: built-in, or its file.
	Source string
}

// generalPurpose is the built-in agent.
var generalPurpose = AgentDef{
	Name:        "general-purpose",
	Description: "General-purpose agent for researching complex questions, searching for code, and executing multi-step tasks. When you are searching for a keyword or file and are not confident that you will find the right match in the first few tries, use this agent to perform the search for you.",
	Prompt: `You are an agent for agent-lsp, a coding agent working in the user's editor. Given the user's message, use the tools available to complete the task. Do what has been asked; nothing more, nothing less. When you complete the task, respond with a concise report covering what was done and any key findings: the caller relays it to the user and sees nothing else of your work.

- Search broadly when you do not know where something lives; read files you already know the path of.
- Start broad and narrow down; try several search strategies if the first does not work.
- Be thorough: check multiple locations, consider different naming conventions, look for related files.
- Never create files unless they are needed to achieve the goal. In your final response, share the relevant file paths (absolute) and code snippets.`,
	Source: "built-in",
}

// maxAgentFileBytes bounds one agent definition file.
const maxAgentFileBytes = 256 << 10

// agentDefs returns the subagents this session may start: the project's
// (.claude/agents/*.md in the working directory), then the user's
// (~/.claude/agents/*.md), then the built-in general-purpose agent; on a
// name used twice the first wins. Project agents are read like the
// project's CLAUDE.md, whether or not the folder is trusted: they are
// prompts, not code, and their tools list cannot widen what the session
// allows. A file that is a link out of its folder, or that a Read deny
// rule hides, is skipped.
func (s *Session) agentDefs() []AgentDef {
	var defs []AgentDef
	seen := map[string]bool{}
	add := func(d AgentDef) {
		if !seen[d.Name] {
			seen[d.Name] = true
			defs = append(defs, d)
		}
	}
	dirs := []string{filepath.Join(s.cwd, ".claude", "agents")}
	if home := s.svc.cfg.Home; home != "" {
		dirs = append(dirs, filepath.Join(home, ".claude", "agents"))
	}
	for i, dir := range dirs {
		paths, _ := filepath.Glob(filepath.Join(dir, "*.md"))
		sort.Strings(paths)
		for _, p := range paths {
			if i == 0 && !s.projectFileOK(dir, p) {
				continue
			}
			b, err := readInstructionFile(p, s.tools.env.Roots)
			if err == nil && len(b) >= maxAgentFileBytes {
				err = fmt.Errorf("larger than %d bytes", maxAgentFileBytes)
			}
			var d AgentDef
			if err == nil {
				d, err = parseAgentDef(b)
			}
			if err != nil {
				s.svc.cfg.Logf("session %s: agent definition %s: %v", s.ID, p, err)
				continue
			}
			d.Source = p
			add(d)
		}
	}
	add(generalPurpose)
	return defs
}

// parseAgentDef parses an agent definition file.
func parseAgentDef(b []byte) (AgentDef, error) {
	front, body, ok := frontmatter(b)
	if !ok {
		return AgentDef{}, fmt.Errorf("no YAML frontmatter (--- name, description ---)")
	}
	var fm struct {
		Name        string `yaml:"name"`
		Description string `yaml:"description"`
		Tools       any    `yaml:"tools"`
		Model       string `yaml:"model"`
	}
	if err := yaml.Unmarshal(front, &fm); err != nil {
		return AgentDef{}, fmt.Errorf("frontmatter: %w", err)
	}
	if fm.Name == "" {
		return AgentDef{}, fmt.Errorf("frontmatter has no name")
	}
	if strings.ContainsAny(fm.Name, " \t\n/") {
		return AgentDef{}, fmt.Errorf("agent name %q has spaces or slashes", fm.Name)
	}
	d := AgentDef{Name: fm.Name, Description: strings.TrimSpace(fm.Description), Model: strings.TrimSpace(fm.Model), Prompt: strings.TrimSpace(string(body))}
	switch t := fm.Tools.(type) {
	case nil:
	case string: // "Read, Grep, Glob"
		d.Tools = []string{}
		for _, n := range strings.Split(t, ",") {
			if n = strings.TrimSpace(n); n != "" {
				d.Tools = append(d.Tools, n)
			}
		}
	case []any:
		d.Tools = []string{}
		for _, n := range t {
			if s, ok := n.(string); ok && strings.TrimSpace(s) != "" {
				d.Tools = append(d.Tools, strings.TrimSpace(s))
			}
		}
	default:
		return AgentDef{}, fmt.Errorf("tools must be a comma-separated string or a list, not %T", t)
	}
	if slices.Contains(d.Tools, "*") {
		d.Tools = nil
	}
	return d, nil
}

// frontmatter splits a markdown file into its YAML frontmatter and body.
func frontmatter(b []byte) (front, body []byte, ok bool) {
	b = bytes.TrimPrefix(b, []byte("\ufeff"))
	b = bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
	if !bytes.HasPrefix(b, []byte("---\n")) {
		return nil, b, false
	}
	rest := b[4:]
	end := bytes.Index(rest, []byte("\n---"))
	if end < 0 {
		return nil, b, false
	}
	front = rest[:end+1]
	body = rest[end+4:]
	if i := bytes.IndexByte(body, '\n'); i >= 0 {
		body = body[i+1:]
	} else {
		body = nil
	}
	return front, body, true
}
