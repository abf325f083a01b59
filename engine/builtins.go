package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/agent-lsp/agent-lsp/permission"
	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/settings"
	"github.com/agent-lsp/agent-lsp/tools"
)

// Built-in commands that show or change the session's setup, as Claude
// Code's do: /context, /export, /permissions and /hooks. Each answers in
// the chat and goes to no model.

// contextPart is one line of /context: what a part of the next request
// holds and its estimated tokens.
type contextPart struct {
	name   string
	tokens int64
}

// contextParts estimates, part by part, the next request the session
// would send: the system prompt, the memory files, skills, the tools
// (built-in and MCP) and the messages.
func (s *Session) contextParts() []contextPart {
	req := s.request()
	memory := int64(len(s.instructions()) / charsPerToken)
	skills := int64(len(s.skillsPrompt()) / charsPerToken)
	var system int64
	for _, b := range req.System {
		system += int64(len(b.Text) / charsPerToken)
	}
	system = max(system-memory-skills, 0)
	var builtin, mcpTools int64
	var nBuiltin, nMCP int
	for _, t := range req.Tools {
		n := int64((len(t.Name) + len(t.Description) + len(t.InputSchema)) / charsPerToken)
		if strings.HasPrefix(t.Name, "mcp__") {
			mcpTools += n
			nMCP++
		} else {
			builtin += n
			nBuiltin++
		}
	}
	return []contextPart{
		{"System prompt", system},
		{"Memory files (CLAUDE.md, AGENTS.md)", memory},
		{"Skills", skills},
		{fmt.Sprintf("Built-in tools (%d)", nBuiltin), builtin},
		{fmt.Sprintf("MCP tools (%d)", nMCP), mcpTools},
		{fmt.Sprintf("Messages (%d)", len(req.Messages)), estimateTokens(req.Messages)},
	}
}

// contextCommand runs /context: what fills the context window, by part,
// what is free and what auto-compaction keeps in reserve.
func (s *Session) contextCommand(ctx context.Context) (string, bool, error) {
	window := s.svc.cfg.Window
	parts := s.contextParts()
	var used int64
	for _, p := range parts {
		used += p.tokens
	}
	reserve := max(window-s.threshold(), 0)
	free := max(window-used-reserve, 0)
	share := func(n int64) string {
		if window <= 0 {
			return "—"
		}
		return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(window))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Context of %s: about %s of %s tokens used (%s).\n\n", s.Model(), tokenCount(used), tokenCount(window), share(used))
	b.WriteString("| Part | Tokens | Share |\n|---|---:|---:|\n")
	for _, p := range parts {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", p.name, tokenCount(p.tokens), share(p.tokens))
	}
	fmt.Fprintf(&b, "| Free space | %s | %s |\n", tokenCount(free), share(free))
	fmt.Fprintf(&b, "| Auto-compact buffer | %s | %s |\n", tokenCount(reserve), share(reserve))
	if counted := s.conv.tokens(); counted > 0 {
		fmt.Fprintf(&b, "\nThe parts are estimated from their text; the next request is about %s tokens by the model's last count.", tokenCount(counted))
	}
	s.say(ctx, b.String())
	return schema.StopEndTurn, true, nil
}

// tokenCount writes n tokens as Claude Code does: 950, 12.3k, 1.2M.
func tokenCount(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 1_000_000:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1000), ".0") + "k"
	}
	return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1_000_000), ".0") + "M"
}

// exportCommand runs /export [file]: it writes the conversation as text
// to file (relative to the session's folder), or to a new file named by
// the date and the first prompt. An existing file is never overwritten.
func (s *Session) exportCommand(ctx context.Context, arg string) (string, bool, error) {
	hist := s.History()
	if len(hist) == 0 {
		s.say(ctx, "Nothing to export yet.")
		return schema.StopEndTurn, true, nil
	}
	name := strings.TrimSpace(arg)
	if name == "" {
		name = exportName(time.Now(), hist)
	}
	if !filepath.IsAbs(name) {
		name = filepath.Join(s.cwd, name)
	}
	if err := writeNew(name, []byte(exportText(hist))); err != nil {
		s.say(ctx, fmt.Sprintf("Not exported: %v.", err))
		return schema.StopEndTurn, true, nil
	}
	s.say(ctx, fmt.Sprintf("Conversation exported to %s.", name))
	return schema.StopEndTurn, true, nil
}

// exportName is the file /export writes when given none, as Claude
// Code names it: the date and time, then the first prompt's first words.
func exportName(now time.Time, hist []providers.Message) string {
	var first string
	for _, m := range hist {
		if m.Role == providers.RoleUser {
			if first = strings.TrimSpace(m.Text()); first != "" {
				break
			}
		}
	}
	var slug []rune
	dash := false
	for _, r := range strings.ToLower(first) {
		if len(slug) >= 40 {
			break
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			slug = append(slug, r)
			dash = false
		} else if !dash && len(slug) > 0 {
			slug = append(slug, '-')
			dash = true
		}
	}
	name := now.Format("2006-01-02-150405")
	if s := strings.Trim(string(slug), "-"); s != "" {
		name += "-" + s
	}
	return name + ".txt"
}

// exportText renders the conversation as Claude Code's /export does: the
// user's prompts after "> ", the agent's text and tool calls after "⏺",
// tool results indented under "⎿".
func exportText(hist []providers.Message) string {
	var b strings.Builder
	for _, m := range hist {
		for _, blk := range m.Content {
			switch blk.Type {
			case providers.BlockText:
				text := strings.TrimSpace(blk.Text)
				if text == "" {
					continue
				}
				if m.Role == providers.RoleUser {
					b.WriteString("> " + strings.ReplaceAll(text, "\n", "\n  ") + "\n\n")
				} else {
					b.WriteString("⏺ " + strings.ReplaceAll(text, "\n", "\n  ") + "\n\n")
				}
			case providers.BlockToolUse:
				fmt.Fprintf(&b, "⏺ %s(%s)\n", blk.Name, compactJSON(blk.Input))
			case providers.BlockToolResult:
				out := strings.TrimSpace(tools.Truncate(resultText(blk), 4000))
				if blk.IsError {
					out = "Error: " + out
				}
				b.WriteString("  ⎿  " + strings.ReplaceAll(out, "\n", "\n     ") + "\n\n")
			}
		}
	}
	return b.String()
}

// writeNew creates path with data; it refuses a path that exists (a
// link included), so an export never overwrites anything.
func writeNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%s already exists; name another file: /export <file>", path)
		}
		return fmt.Errorf("writing %s: %w", path, err)
	}
	_, werr := f.Write(data)
	if err := errors.Join(werr, f.Close()); err != nil {
		os.Remove(path)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// permissionsUsage says how /permissions edits the rules.
const permissionsUsage = "Add a rule with /permissions allow|ask|deny <rule> (saved to .claude/settings.local.json), remove one from that file with /permissions remove <rule>."

// permissionsCommand runs /permissions: without arguments it lists the
// mode, the rules by list with where each is written, the rules granted
// in this session and the extra directories; "allow", "ask" or "deny"
// with a rule adds it to the project's local settings, "remove" takes it
// out of them. The settings reload applies a change to open sessions.
func (s *Session) permissionsCommand(ctx context.Context, arg string) (string, bool, error) {
	verb, rule, _ := strings.Cut(strings.TrimSpace(arg), " ")
	rule = strings.TrimSpace(rule)
	say := func(format string, a ...any) (string, bool, error) {
		s.say(ctx, fmt.Sprintf(format, a...))
		return schema.StopEndTurn, true, nil
	}
	switch verb {
	case "":
		s.say(ctx, s.permissionsList())
		return schema.StopEndTurn, true, nil
	case "allow", "ask", "deny", "remove":
	default:
		return say("Unknown /permissions action %q. %s", verb, permissionsUsage)
	}
	if rule == "" {
		return say("Name the rule: /permissions %s <rule>, e.g. /permissions %s Bash(npm test:*).", verb, verb)
	}
	if err := permission.CheckRule(rule); err != nil {
		return say("Not saved: %v.", err)
	}
	path := settings.LocalPath(s.cwd)
	if err := settings.CheckLocalNotLinked(s.cwd); err != nil {
		return say("Not saved: %v; edit the settings by hand.", err)
	}
	if verb == "remove" {
		removed, err := settings.RemoveLocalRule(s.cwd, rule)
		switch {
		case err != nil:
			return say("Not removed: %v.", err)
		case !removed:
			where := s.ruleFiles(rule)
			if len(where) == 0 {
				return say("%s is not a rule of any settings file.", rule)
			}
			return say("%s is not in %s; it is written in %s, where it must be removed.", rule, path, strings.Join(where, ", "))
		}
		return say("Removed %s from %s.", rule, path)
	}
	if err := settings.AddLocalRule(s.cwd, verb, rule); err != nil {
		return say("Not saved: %v.", err)
	}
	return say("Added %s to the %s rules in %s.", rule, verb, path)
}

// permissionsList renders the permission setup for /permissions.
func (s *Session) permissionsList() string {
	st, _ := s.svc.settings()
	var b strings.Builder
	fmt.Fprintf(&b, "Mode: %s.\n", s.Mode())
	if st != nil {
		for _, l := range []struct {
			name  string
			rules []settings.Rule
		}{{"Deny", st.Permissions.Deny}, {"Ask", st.Permissions.Ask}, {"Allow", st.Permissions.Allow}} {
			fmt.Fprintf(&b, "\n%s rules:\n", l.name)
			if len(l.rules) == 0 {
				b.WriteString("- none\n")
			}
			for _, r := range l.rules {
				fmt.Fprintf(&b, "- `%s`%s\n", r.Text, ruleWhere(r.Pos))
			}
		}
	}
	if granted := s.pipe.gate.policy.SessionRules(); len(granted) > 0 {
		b.WriteString("\nAllowed for this session:\n")
		for _, r := range granted {
			fmt.Fprintf(&b, "- `%s`\n", r)
		}
	}
	if st != nil && len(st.Permissions.AdditionalDirectories) > 0 {
		b.WriteString("\nDirectories beside the workspace:\n")
		for _, d := range st.Permissions.AdditionalDirectories {
			fmt.Fprintf(&b, "- %s\n", d)
		}
	}
	b.WriteString("\n" + permissionsUsage)
	return b.String()
}

// ruleWhere says where a rule is written: " (file:line)", or "".
func ruleWhere(p settings.Position) string {
	switch {
	case p.File == "":
		return ""
	case p.Line > 0:
		return fmt.Sprintf(" (%s:%d)", p.File, p.Line)
	}
	return " (" + p.File + ")"
}

// ruleFiles returns the settings files that hold rule, in any list.
func (s *Session) ruleFiles(rule string) []string {
	st, _ := s.svc.settings()
	if st == nil {
		return nil
	}
	var out []string
	for _, list := range [][]settings.Rule{st.Permissions.Allow, st.Permissions.Ask, st.Permissions.Deny} {
		for _, r := range list {
			if r.Text == rule && r.Pos.File != "" && !slices.Contains(out, r.Pos.File) {
				out = append(out, r.Pos.File)
			}
		}
	}
	return out
}

// hooksCommand runs /hooks: the configured hooks by event, each with its
// matcher, its filter and what it runs.
func (s *Session) hooksCommand(ctx context.Context) (string, bool, error) {
	st, _ := s.svc.settings()
	var b strings.Builder
	switch {
	case st == nil || len(st.Hooks) == 0:
		b.WriteString("No hooks are configured. Hooks are set in the settings' \"hooks\" block, as in Claude Code.")
	case st.DisableAllHooks:
		b.WriteString("Hooks are configured but none runs: the settings set disableAllHooks.\n")
	}
	if st != nil {
		for _, event := range slices.Sorted(maps.Keys(st.Hooks)) {
			fmt.Fprintf(&b, "\n%s:\n", event)
			for _, m := range st.Hooks[event] {
				matcher := m.Matcher
				if matcher == "" || matcher == "*" {
					matcher = "every call"
				}
				for _, h := range m.Hooks {
					fmt.Fprintf(&b, "- %s: %s\n", matcher, hookSummary(h))
				}
			}
		}
	}
	s.say(ctx, strings.TrimSpace(b.String()))
	return schema.StopEndTurn, true, nil
}

// hookSummary says what a hook runs and when.
func hookSummary(h settings.Hook) string {
	var what string
	switch h.Type {
	case "http":
		what = "POST " + h.URL
	case "prompt", "agent":
		what = fmt.Sprintf("%s %q", h.Type, tools.Truncate(h.Prompt, 80))
	default:
		what = "`" + strings.Join(append([]string{h.Command}, h.Args...), " ") + "`"
	}
	if h.If != "" {
		what += " if " + h.If
	}
	if h.Timeout > 0 {
		what += fmt.Sprintf(" (timeout %gs)", h.Timeout)
	}
	return what
}
