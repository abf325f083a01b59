package permission

import (
	"github.com/agent-lsp/agent-lsp/permission/shell"
)

// Matches reports whether rule, a permission rule in settings syntax,
// covers call c the way a deny rule would: a Bash rule when any command
// of the script matches it (in any spelling the shell would run), a path
// rule when any of the call's paths matches, a WebFetch domain rule when
// the fetched host matches. Hooks' "if" conditions use it. An invalid
// rule is an error and covers nothing.
func (p *Policy) Matches(rule string, c Call) (bool, error) {
	r, err := ParseRule(rule)
	if err != nil {
		return false, err
	}
	cr := compiledRule{Rule: r}
	if r.kind == kindPath {
		cr.glob = pathGlob(r.Content, p.project, p.home)
	}
	if c.Tool != "Bash" {
		return matchTool(&cr, &c, true), nil
	}
	if r.Tool != "Bash" {
		return false, nil
	}
	cwd := c.Cwd
	if cwd == "" {
		cwd = p.project
	}
	s, err := shell.Parse(c.Command, p.shellEnv(p.snapshot(), cwd))
	if err != nil {
		// Unparseable: the text as written, as deny rules see it.
		return rawMatch(&cr, c.Command), nil
	}
	found, _ := findRule([]compiledRule{cr}, s)
	return found != nil, nil
}
