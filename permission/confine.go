package permission

import "strings"

// unconfinedReason is why a read-only command asks when no sandbox can
// confine it.
const unconfinedReason = "bubblewrap is not available, so no sandbox can hold a command that runs without a question; only a short list of simple read-only commands runs without asking"

// SetUnconfined tells the policy whether commands allowed without a
// question can be confined (bubblewrap works here). When they cannot, only
// commands on a short allowlist (ls, pwd, cat/head/tail/wc, git status,
// diff and log with plain options) run without a question; every other
// command the classifier judges read-only asks, so a classifier mistake
// is never run unconfined.
func (p *Policy) SetUnconfined(unconfined bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.unconfined = unconfined
}

// DenyReadGlobs returns the absolute glob patterns (doublestar syntax,
// "/" separated) of the deny rules that hide files from reading: Read
// rules and the bare-tool forms that cover every file. A confining
// sandbox masks what they match.
func (p *Policy) DenyReadGlobs() []string {
	return p.denyGlobs(func(tool string) bool { return tool == "Read" })
}

// DenyEditGlobs returns the absolute glob patterns (doublestar syntax,
// "/" separated) of the deny rules on the editing tools (Edit, Write,
// MultiEdit, NotebookEdit). The writable sandboxes keep what they match
// read-only, so a script or build step a command runs cannot write
// there either.
func (p *Policy) DenyEditGlobs() []string {
	globs := p.denyGlobs(func(tool string) bool { return family(tool) == "Edit" })
	for i, g := range globs {
		globs[i] = strings.TrimSuffix(g, "/")
	}
	return globs
}

// denyGlobs returns the globs of the path deny rules whose tool name
// covers says yes to.
func (p *Policy) denyGlobs(covers func(tool string) bool) []string {
	p.mu.RLock()
	defer p.mu.RUnlock()
	var out []string
	for _, r := range p.rules.deny {
		if r.kind == kindPath && covers(r.Tool) && r.glob != "" {
			out = append(out, r.glob)
		}
	}
	return out
}
