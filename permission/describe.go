package permission

import (
	"path"
	"path/filepath"
	"strings"

	"github.com/agent-lsp/agent-lsp/permission/shell"
	"github.com/agent-lsp/agent-lsp/schema"
)

// DisplayPath returns path (absolute) as the user reads it in a title or
// a button: relative to cwd ("calc.go", "../notes/x.txt", "." for cwd
// itself), never with the leading "/" that the rule syntax gives
// project paths. A path that cannot be made relative stays as it is.
func DisplayPath(cwd, p string) string {
	if cwd == "" || !filepath.IsAbs(p) {
		return p
	}
	rel, err := filepath.Rel(cwd, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(rel)
}

// RuleWords describes in words what an allow or reject rule covers, for
// the options of a permission request: "edits to calc.go", "edits in
// src/", "`go test …` commands", "fetches from example.com", or the
// tool's name for a rule that names a whole tool ("Edit", "WebFetch").
// Several rules joined by ", " (Decision.AlwaysRule) are described one
// by one. Paths are relative to cwd, where the session runs.
func (p *Policy) RuleWords(rules, cwd string) string {
	if cwd == "" {
		cwd = p.project
	} else if real := realPath("/", cwd); real != unresolvedPath {
		cwd = real
	}
	var out []string
	for _, r := range splitRules(rules) {
		out = append(out, p.ruleWords(r, cwd))
	}
	switch len(out) {
	case 0:
		return ""
	case 1:
		return out[0]
	}
	return strings.Join(out[:len(out)-1], ", ") + " and " + out[len(out)-1]
}

// splitRules splits rules joined by ", " where the comma is outside
// parentheses (a Bash rule may hold ", " itself).
func splitRules(rules string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(rules); i++ {
		switch rules[i] {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(rules[start:i]))
				start = i + 1
			}
		}
	}
	if last := strings.TrimSpace(rules[start:]); last != "" {
		out = append(out, last)
	}
	return out
}

func (p *Policy) ruleWords(rule, cwd string) string {
	tool, content, ok := strings.Cut(rule, "(")
	if !ok || !strings.HasSuffix(content, ")") {
		return mcpWords(rule)
	}
	content = strings.TrimSuffix(content, ")")
	switch {
	case tool == "Bash":
		cmd, prefix := strings.CutSuffix(content, ":*")
		if prefix {
			return schema.InlineCode(cmd+" …") + " commands"
		}
		return schema.InlineCode(cmd) + " commands"
	case tool == "WebFetch" && strings.HasPrefix(content, "domain:"):
		return "fetches from " + strings.TrimPrefix(content, "domain:")
	}
	verb := map[string]string{"Edit": "edits", "Read": "reads"}[tool]
	if verb == "" {
		verb = tool + " calls"
	}
	dir, isDir := strings.CutSuffix(content, "/**")
	where := p.ruleDisplayPath(shell.UnescapeMatch(dir), cwd)
	if isDir {
		if where == "." {
			return verb + " in this folder"
		}
		return verb + " in " + strings.TrimSuffix(where, "/") + "/"
	}
	return verb + " to " + where
}

// ruleDisplayPath turns a rule's path (rule syntax: "/x" in the project,
// "//x" absolute, "~/x" in the home folder, "x" relative) into one
// relative to cwd.
func (p *Policy) ruleDisplayPath(pattern, cwd string) string {
	var abs string
	switch {
	case strings.HasPrefix(pattern, "//"):
		abs = path.Clean(pattern[1:])
	case pattern == "~" || strings.HasPrefix(pattern, "~/"):
		abs = filepath.Join(p.home, strings.TrimPrefix(pattern, "~"))
	case strings.HasPrefix(pattern, "/"):
		abs = filepath.Join(p.project, pattern)
	default:
		abs = filepath.Join(p.project, pattern)
	}
	return DisplayPath(cwd, abs)
}

// mcpWords names a tool for an option: an MCP tool
// ("mcp__github__create_issue") as "create_issue (MCP server github)",
// any other tool by its name.
func mcpWords(tool string) string {
	rest, ok := strings.CutPrefix(tool, "mcp__")
	if !ok {
		return tool
	}
	server, name, ok := strings.Cut(rest, "__")
	if !ok || name == "" {
		return tool
	}
	return name + " (MCP server " + server + ")"
}

// MCPToolWords is mcpWords for callers outside the package: the title
// of an MCP tool call.
func MCPToolWords(tool string) string { return mcpWords(tool) }
