package permission

import (
	"strings"
)

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
	p.mu.RLock()
	defer p.mu.RUnlock()
	var out []string
	for _, r := range p.rules.deny {
		if r.kind == kindPath && r.Tool == "Read" && r.glob != "" {
			out = append(out, r.glob)
		}
	}
	return out
}

// shortOptions are the commands that run without a question when no
// sandbox can confine them, with the options each may carry. A value of
// an option (head -n 5) is a separate word only for the options listed
// in shortValued.
var shortOptions = map[string][]string{
	"ls":   {"-l", "-a", "-A", "-h", "-1", "-la", "-al", "-lh", "-lah", "-alh", "-F", "-d", "-ld"},
	"pwd":  {},
	"cat":  {"-n"},
	"head": {"-n"},
	"tail": {"-n"},
	"wc":   {"-l", "-c", "-w", "-m"},
}

var shortValued = map[string]bool{"-n": true}

// shortGit are the git subcommands that run without a question when no
// sandbox can confine them, with their allowed options.
var shortGit = map[string][]string{
	"status": {"--short", "-s", "--branch", "-b", "-sb", "--porcelain", "--no-renames", "-uno", "--untracked-files=no"},
	"diff":   {"--stat", "--cached", "--staged", "--name-only", "--name-status", "--no-color", "--no-ext-diff", "--no-textconv"},
	"log":    {"--oneline", "--stat", "--no-color", "--name-only", "--name-status", "-n", "--no-ext-diff", "--no-textconv"},
}

// shortListed reports whether every command of s is on the short
// allowlist: plain literal words, no wrappers, nothing at run time.
func shortListed(s *script) bool {
	if len(s.hazards) > 0 || len(s.cmds) == 0 {
		return false
	}
	for _, c := range s.cmds {
		if c.inner != nil || c.open || c.wrap != notWrapper || len(c.words) == 0 {
			return false
		}
		for _, w := range c.words {
			if !w.literal {
				return false
			}
		}
		name, args := c.words[0].value, c.words[1:]
		if name == "git" {
			if len(args) == 0 {
				return false
			}
			opts, ok := shortGit[args[0].value]
			if !ok || !plainArgs(args[1:], opts) {
				return false
			}
			continue
		}
		opts, ok := shortOptions[name]
		if !ok || !plainArgs(args, opts) {
			return false
		}
	}
	return true
}

// plainArgs reports whether args are operands and options from opts,
// with numeric values after the options that take one. An operand that
// looks like a number after "-n" is its value; every other operand has
// already been judged by the classifier (inside the workspace).
func plainArgs(args []word, opts []string) bool {
	for i := 0; i < len(args); i++ {
		a := args[i].value
		if a == "--" {
			return true
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			continue
		}
		if isDigits(a[1:]) { // head -5
			continue
		}
		if !contains(opts, a) {
			return false
		}
		if shortValued[a] {
			if i+1 >= len(args) || !isDigits(args[i+1].value) {
				return false
			}
			i++
		}
	}
	return true
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
