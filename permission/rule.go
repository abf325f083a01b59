package permission

import (
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/agent-lsp/agent-lsp/permission/shell"
	"github.com/bmatcuk/doublestar/v4"
	"mvdan.cc/sh/v3/syntax"
)

// Rule is a parsed permission rule in Claude Code's syntax:
//
//	Read                       every use of a tool
//	Edit(src/**)               file tools: a gitignore-style path pattern
//	Bash(npm test:*)           a command prefix (word by word)
//	Bash(npm run build)        an exact command
//	Bash(git * main)           a command pattern; * matches anything
//	WebFetch(domain:x.com)     fetches from a host (and "*.x.com")
//	mcp__server                every tool of an MCP server
//	mcp__server__tool          one MCP tool ("mcp__server__get_*" too)
//
// Path patterns: "//abs" is an absolute path, "~/x" is under the home
// directory, "/x" and "./x" are relative to the project root, and a
// pattern without a slash matches a name at any depth. A pattern also
// covers everything under a directory it matches.
type Rule struct {
	// Tool is the tool name part ("Bash", "mcp__server__tool").
	Tool string
	// Content is the part in parentheses; empty for a bare rule.
	Content string

	kind ruleKind
	// Bash rules.
	tokens  []string       // canonical words of a prefix or exact rule
	pattern *regexp.Regexp // a wildcard rule
	// WebFetch rules.
	domain string
	// MCP rules.
	mcpServer, mcpTool string
}

type ruleKind int

const (
	kindTool     ruleKind = iota // bare: every use of the tool
	kindPrefix                   // Bash(prefix:*)
	kindExact                    // Bash(command)
	kindWildcard                 // Bash(pattern with *)
	kindPath                     // Read(...), Edit(...)
	kindDomain                   // WebFetch(domain:...)
	kindMCP                      // mcp__server or mcp__server__tool
)

// String returns the rule in settings syntax.
func (r Rule) String() string {
	if r.Content == "" {
		return r.Tool
	}
	return r.Tool + "(" + r.Content + ")"
}

var (
	toolNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`) })
	mcpRE      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^mcp__([A-Za-z0-9_.-]+?)(?:__([A-Za-z0-9_.*-]+))?$`) })
	hostRE     = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(\*\.)?[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*(:[0-9]+)?$`)
	})
)

// CheckRule reports whether s is a valid rule. It is meant for
// settings.Options.CheckRule.
func CheckRule(s string) error {
	_, err := ParseRule(s)
	return err
}

// ParseRule parses a rule.
func ParseRule(s string) (Rule, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Rule{}, fmt.Errorf("empty rule")
	}
	if !utf8.ValidString(s) {
		return Rule{}, fmt.Errorf("rule is not valid UTF-8")
	}
	if strings.ContainsFunc(s, unicode.IsControl) {
		return Rule{}, fmt.Errorf("rule holds control characters")
	}
	tool, content, hasContent := s, "", false
	if i := strings.IndexByte(s, '('); i >= 0 {
		if !strings.HasSuffix(s, ")") {
			return Rule{}, fmt.Errorf("missing closing parenthesis")
		}
		tool, content, hasContent = s[:i], s[i+1:len(s)-1], true
	} else if strings.ContainsRune(s, ')') {
		return Rule{}, fmt.Errorf("unbalanced parenthesis")
	}
	if hasContent && strings.TrimSpace(content) == "" {
		return Rule{}, fmt.Errorf("empty parentheses: write %s alone to match every use", tool)
	}
	r := Rule{Tool: tool, Content: content}
	if m := mcpRE().FindStringSubmatch(tool); m != nil {
		if hasContent {
			return Rule{}, fmt.Errorf("MCP rules take no parentheses")
		}
		r.kind, r.mcpServer, r.mcpTool = kindMCP, m[1], m[2]
		if r.mcpTool != "" {
			if _, err := path.Match(r.mcpTool, ""); err != nil {
				return Rule{}, fmt.Errorf("invalid MCP tool pattern %q", r.mcpTool)
			}
		}
		return r, nil
	}
	if strings.HasPrefix(tool, "mcp__") {
		return Rule{}, fmt.Errorf("invalid MCP rule: want mcp__server or mcp__server__tool")
	}
	if !toolNameRE().MatchString(tool) {
		return Rule{}, fmt.Errorf("invalid tool name %q", tool)
	}
	if !hasContent || content == "*" {
		r.Content = ""
		r.kind = kindTool
		return r, nil
	}
	switch {
	case tool == "Bash":
		return parseBashRule(r)
	case pathRuleTool(tool):
		if content == "**" {
			r.Content, r.kind = "", kindTool
			return r, nil
		}
		if !doublestar.ValidatePattern(strings.TrimPrefix(content, "/")) {
			return Rule{}, fmt.Errorf("invalid path pattern %q", content)
		}
		r.kind = kindPath
		return r, nil
	case tool == "WebFetch":
		host, ok := strings.CutPrefix(content, "domain:")
		if !ok || !hostRE().MatchString(host) {
			return Rule{}, fmt.Errorf("WebFetch rules take domain:HOST, not %q", content)
		}
		r.kind, r.domain = kindDomain, strings.ToLower(host)
		return r, nil
	}
	return Rule{}, fmt.Errorf("%s rules take no content in parentheses (only Bash, file tools and WebFetch do)", tool)
}

func parseBashRule(r Rule) (Rule, error) {
	content := strings.TrimSpace(r.Content)
	if prefix, ok := strings.CutSuffix(content, ":*"); ok {
		toks, wild, err := ruleTokens(prefix)
		if err != nil {
			return Rule{}, err
		}
		if !wild {
			r.kind, r.tokens = kindPrefix, toks
			return r, nil
		}
	}
	toks, wild, err := ruleTokens(content)
	if err != nil && !strings.Contains(content, "*") {
		return Rule{}, err
	}
	if err == nil && !wild {
		r.kind, r.tokens = kindExact, toks
		return r, nil
	}
	// A pattern: * matches any text (spaces too); a single trailing " *"
	// also matches nothing, so "ls *" matches "ls".
	pat := strings.Join(strings.Fields(content), " ")
	var re strings.Builder
	re.WriteString("^")
	optionalTail := strings.Count(pat, "*") == 1 && strings.HasSuffix(pat, " *")
	if optionalTail {
		pat = strings.TrimSuffix(pat, " *")
	}
	for i, part := range strings.Split(pat, "*") {
		if i > 0 {
			re.WriteString(".*")
		}
		re.WriteString(regexp.QuoteMeta(part))
	}
	if optionalTail {
		re.WriteString("( .*)?")
	}
	re.WriteString("$")
	pattern, err := regexp.Compile(re.String())
	if err != nil {
		return Rule{}, fmt.Errorf("invalid Bash pattern: %v", err)
	}
	r.kind, r.pattern = kindWildcard, pattern
	return r, nil
}

// ruleTokens splits a Bash rule's command into canonical tokens. wild
// reports an unquoted * in some word.
func ruleTokens(s string) (toks []string, wild bool, err error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(s), "")
	if err != nil {
		return nil, false, fmt.Errorf("invalid command in Bash rule: %v", err)
	}
	if len(f.Stmts) != 1 {
		return nil, false, fmt.Errorf("a Bash rule must name one simple command")
	}
	st := f.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(st.Redirs) > 0 || st.Negated || st.Background || len(call.Assigns) > 0 || len(call.Args) == 0 {
		return nil, false, fmt.Errorf("a Bash rule must name one simple command")
	}
	for _, a := range call.Args {
		for _, p := range a.Parts {
			if lit, ok := p.(*syntax.Lit); ok && strings.Contains(lit.Value, "*") {
				wild = true
			}
		}
		toks = append(toks, shell.Canon(a))
	}
	return toks, wild, nil
}

// matchCommand reports whether a Bash rule matches a simple command.
// open says that the command gets more arguments at run time (xargs), so
// only rules that allow any further arguments can match.
func (r *Rule) matchCommand(words []shell.Word, open bool) bool {
	switch r.kind {
	case kindTool:
		return true
	case kindPrefix:
		return len(words) >= len(r.tokens) && tokensMatch(words, r.tokens)
	case kindExact:
		return !open && len(words) == len(r.tokens) && tokensMatch(words, r.tokens)
	case kindWildcard:
		text := shell.JoinCanon(words)
		if open {
			// The run-time arguments must be coverable by the pattern:
			// it must still match with any text appended.
			text += " \x00"
		}
		return r.pattern.MatchString(text)
	}
	return false
}

// tokensMatch reports whether the first words are the tokens.
func tokensMatch(words []shell.Word, tokens []string) bool {
	for i, t := range tokens {
		if words[i].Canon() != t {
			return false
		}
	}
	return true
}

// pathGlob turns a path rule's pattern into an absolute doublestar
// pattern.
func pathGlob(pattern, project, home string) string {
	switch {
	case strings.HasPrefix(pattern, "//"):
		return path.Clean(pattern[1:])
	case pattern == "~" || strings.HasPrefix(pattern, "~/"):
		return escapeGlob(home) + strings.TrimPrefix(pattern, "~")
	case strings.HasPrefix(pattern, "/"):
		return escapeGlob(project) + pattern
	}
	p := strings.TrimPrefix(pattern, "./")
	if !strings.Contains(strings.TrimSuffix(p, "/"), "/") && !strings.HasPrefix(pattern, "./") {
		// gitignore: a bare name matches at any depth.
		return escapeGlob(project) + "/**/" + p
	}
	return escapeGlob(project) + "/" + p
}

// escapeGlob escapes doublestar's special characters in a literal path.
func escapeGlob(p string) string {
	p = filepath.ToSlash(p)
	var b strings.Builder
	for _, c := range p {
		if strings.ContainsRune(`*?[]{}\`, c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return strings.TrimSuffix(b.String(), "/")
}

// matchPath reports whether the absolute glob matches p or a directory
// holding p.
func matchPath(glob, p string) bool {
	p = filepath.ToSlash(p)
	if strings.HasSuffix(glob, "/") {
		glob += "**"
	}
	if ok, _ := doublestar.Match(glob, p); ok {
		return true
	}
	ok, _ := doublestar.Match(glob+"/**", p)
	return ok
}

// matchDomain reports whether a WebFetch domain rule matches host.
func matchDomain(rule, host string) bool {
	host = strings.ToLower(host)
	if sub, ok := strings.CutPrefix(rule, "*."); ok {
		return host == sub || strings.HasSuffix(host, "."+sub)
	}
	return host == rule
}
