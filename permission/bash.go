package permission

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/agent-lsp/agent-lsp/permission/shell"
)

// decideBash checks a shell command: every simple command in it must be
// allowed (by a rule, or as read-only) for the whole to be allowed.
func (p *Policy) decideBash(st snapshot, c Call) Decision {
	cwd := c.Cwd
	if cwd == "" {
		cwd = p.project
	}
	env := p.shellEnv(st, cwd)
	if strings.TrimSpace(c.Command) == "" {
		return Decision{Verdict: Deny, Reason: "The Bash command is empty."}
	}
	s, err := shell.Parse(c.Command, env)
	if err != nil {
		// Unparseable: deny rules still apply to the text as written.
		if r := firstMatch(st.rules.deny, func(r *compiledRule) bool { return rawMatch(r, c.Command) }); r != nil && !r.fallback {
			return Decision{Verdict: Deny, Reason: fmt.Sprintf("Permission to run %q was denied by the rule %s in the user's settings.", c.Command, r.describe())}
		}
		switch st.mode {
		case BypassPermissions:
			// What bash would run, or write, cannot be matched against
			// the deny rules.
			if env.BashRules {
				return Decision{Verdict: Deny, Reason: "The command does not parse, so the Bash deny rules cannot be checked: " + err.Error()}
			}
			if len(editDenyRules(st)) > 0 {
				return Decision{Verdict: Deny, Reason: "The command does not parse, so what it writes cannot be checked against the Edit deny rules: " + err.Error()}
			}
			return Decision{Verdict: Allow, Reason: "bypassPermissions mode"}
		case Plan:
			return Decision{Verdict: Deny, Reason: "The command does not parse, and in plan mode only read-only commands run: " + err.Error()}
		}
		return p.askOr(st, c, Decision{Verdict: Ask, Reason: "the command does not parse: " + err.Error()})
	}

	if r, cmd := findRule(st.rules.deny, s); r != nil {
		if !r.fallback {
			return Decision{Verdict: Deny, Reason: fmt.Sprintf("Permission to run %q was denied by the rule %s in the user's settings.", cmd.String(), r.describe())}
		}
		if st.mode == BypassPermissions {
			return Decision{Verdict: Allow, Reason: "bypassPermissions mode"}
		}
		return p.askOr(st, c, Decision{Verdict: Ask, Reason: fmt.Sprintf("%q matches %s", cmd.String(), r.describe())})
	}
	if denied := s.Denied(); len(denied) > 0 {
		return Decision{Verdict: Deny, Reason: "Permission to run this command was denied: it " + strings.Join(denied, "; ") + "."}
	}
	denied, unsure := editDenied(st, s)
	if len(denied) > 0 {
		return Decision{Verdict: Deny, Reason: "Permission to run this command was denied: it " + strings.Join(denied, "; ") + "."}
	}
	if risk := append(s.DenyRisks(), unsure...); len(risk) > 0 {
		why := strings.Join(risk, "; ")
		if st.mode == BypassPermissions || st.mode == Plan {
			return Decision{Verdict: Deny, Reason: "The command may do what a deny rule forbids, which cannot be checked: " + why + "."}
		}
		return p.askOr(st, c, Decision{Verdict: Ask, Reason: why})
	}
	if st.mode == BypassPermissions {
		return Decision{Verdict: Allow, Reason: "bypassPermissions mode"}
	}
	if st.mode == Plan {
		if why := s.NotReadOnly(); why != "" {
			return Decision{Verdict: Deny, Reason: fmt.Sprintf("In plan mode only read-only commands run, and this one is not (%s). Finish the plan and present it; the user will switch modes to carry it out.", why)}
		}
	}
	if r, cmd := findRule(st.rules.ask, s); r != nil {
		return p.askOr(st, c, Decision{Verdict: Ask, Reason: fmt.Sprintf("%q matches the ask rule %s", cmd.String(), r.describe())})
	}
	// A bare Bash allow rule allows every command, hazards included.
	for _, rules := range [][]compiledRule{st.session, st.rules.allow} {
		for i := range rules {
			if r := &rules[i]; r.Tool == "Bash" && r.kind == kindTool {
				return Decision{Verdict: Allow, Reason: "allowed by the rule " + r.describe(), Confine: ConfineRule}
			}
		}
	}
	var used []string // the rules that allowed commands
	hazards, needs := s.Judge(st.mode == AcceptEdits, func(cmd *shell.Command) bool {
		if r := allowRule(st, cmd); r != nil {
			if !contains(used, r.describe()) {
				used = append(used, r.describe())
			}
			return true
		}
		return false
	})
	if len(hazards) == 0 && len(needs) == 0 {
		if len(used) > 0 {
			// The user's rule allows the command, not a look at what it
			// does: a prefix rule (Bash(git log:*)) also allows options
			// that write anywhere, and Bash(npm test:*) runs whatever the
			// repository's scripts say. It runs in the rule sandbox.
			return Decision{Verdict: Allow, Reason: "allowed by " + strings.Join(used, ", "), Confine: ConfineRule}
		}
		if st.unconfined && !s.ShortListed() {
			return p.askOr(st, c, Decision{Verdict: Ask, Reason: unconfinedReason})
		}
		d := Decision{Verdict: Allow, Reason: "read-only command", Confine: ConfineReadOnly}
		if s.NotReadOnly() != "" {
			d.Confine = ConfineWorkspace
		}
		return d
	}
	var why []string
	why = append(why, hazards...)
	for _, n := range needs {
		why = append(why, fmt.Sprintf("%q needs approval", n.String()))
	}
	d := Decision{Verdict: Ask, Reason: strings.Join(why, "; ")}
	if len(hazards) == 0 {
		// Only offer "always" when the rules would then allow the whole
		// command: a hazard would ask again.
		for _, n := range needs {
			rule := suggestBash(n)
			if rule == "" {
				d.AlwaysRules = nil
				break
			}
			if !contains(d.AlwaysRules, rule) {
				d.AlwaysRules = append(d.AlwaysRules, rule)
			}
		}
		d.AlwaysRule = strings.Join(d.AlwaysRules, ", ")
	}
	return p.askOr(st, c, d)
}

// shellEnv returns what the classifier needs to know of the session:
// where the command runs, the workspace, and the deny rules that reach
// into commands.
func (p *Policy) shellEnv(st snapshot, cwd string) *shell.Env {
	env := &shell.Env{
		Cwd:       realPath("/", cwd),
		Roots:     st.roots,
		Home:      p.home,
		Protected: func(path string) bool { return protected(st.roots, path) },
	}
	for _, rules := range [][]compiledRule{st.rules.deny, st.rules.ask} {
		for i := range rules {
			r := &rules[i]
			// A git alias or a -c setting can run any command, so any
			// Bash deny or ask rule could be dodged through git.
			if r.Tool == "Bash" {
				env.BashRules = true
			}
		}
	}
	var (
		readDeny     []string // the absolute patterns of Read deny rules
		denyAllReads bool     // a bare Read deny, or an invalid one that now covers the whole tool
	)
	for i := range st.rules.deny {
		r := &st.rules.deny[i]
		if family(r.Tool) != "Read" {
			continue
		}
		switch {
		case r.kind == kindTool || r.fallback:
			denyAllReads = true
		case r.kind == kindPath:
			readDeny = append(readDeny, r.glob)
		}
	}
	if denyAllReads || len(readDeny) > 0 {
		env.ReadDenied = func(path string) bool {
			if denyAllReads {
				return true
			}
			for _, g := range readDeny {
				if matchPath(g, path) {
					return true
				}
			}
			return false
		}
	}
	return env
}

// rawMatch matches a Bash rule against command text that does not parse:
// a prefix of the text, word for word.
func rawMatch(r *compiledRule, text string) bool {
	if r.Tool != "Bash" {
		return false
	}
	if r.kind == kindTool {
		return true
	}
	fields := strings.Fields(text)
	if r.kind == kindPrefix || r.kind == kindExact {
		if len(fields) < len(r.tokens) {
			return false
		}
		for i, t := range r.tokens {
			if strings.Trim(fields[i], `"'\`) != strings.Trim(t, `'`) {
				return false
			}
		}
		return true
	}
	return r.pattern != nil && r.pattern.MatchString(strings.Join(fields, " "))
}

// editDenyRules returns the Edit deny rules (Edit, Write, MultiEdit,
// NotebookEdit): they hold against shell writes too.
func editDenyRules(st snapshot) []*compiledRule {
	var out []*compiledRule
	for i := range st.rules.deny {
		if r := &st.rules.deny[i]; family(r.Tool) == "Edit" && (r.kind == kindTool || r.kind == kindPath) {
			out = append(out, r)
		}
	}
	return out
}

// editDenied holds the files s writes against the Edit deny rules, in
// every mode: denied says which writes a rule covers (the line is
// refused), unsure why a write cannot be checked while such rules exist
// (a target only known at run time, an invalid rule that covers every
// edit): the line asks, and is refused where nothing asks.
func editDenied(st snapshot, s *shell.Script) (denied, unsure []string) {
	rules := editDenyRules(st)
	if len(rules) == 0 {
		return nil, nil
	}
	writes, unknown := s.Writes()
	for _, w := range writes {
	rules:
		for _, r := range rules {
			for _, path := range w.Paths {
				if r.kind == kindTool || matchPath(r.glob, path) {
					if r.fallback {
						unsure = append(unsure, fmt.Sprintf("it writes %s, and %s", w.Name, r.describe()))
					} else {
						denied = append(denied, fmt.Sprintf("writes %s, which the rule %s covers", w.Name, r.describe()))
					}
					break rules
				}
			}
		}
	}
	for _, u := range unknown {
		unsure = append(unsure, u+", and Edit deny rules exist")
	}
	return denied, unsure
}

// findRule returns the first rule of rules that matches a command of s,
// looking into what wrappers run, and that command. A command given by
// path (/bin/rm) is also matched by its name (rm).
func findRule(rules []compiledRule, s *shell.Script) (*compiledRule, *shell.Command) {
	var found *compiledRule
	cmd := s.Find(func(c *shell.Command) bool {
		for i := range rules {
			r := &rules[i]
			if r.Tool != "Bash" {
				continue
			}
			for _, ws := range c.Spellings() {
				if r.matchCommand(ws, c.Open()) {
					found = r
					return true
				}
			}
		}
		return false
	})
	return found, cmd
}

// allowRule returns the session grant or settings rule that allows c as
// written, or nil.
func allowRule(st snapshot, c *shell.Command) *compiledRule {
	for _, rules := range [][]compiledRule{st.session, st.rules.allow} {
		for i := range rules {
			r := &rules[i]
			if r.Tool == "Bash" && !r.fallback && r.matchCommand(c.Words(), c.Open()) {
				return r
			}
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// exactOnly are commands for which "allow always" offers the exact
// command only: a prefix rule would allow far more than was asked
// (rm -rf anything, curl anywhere, find -delete).
var exactOnly = map[string]bool{
	"rm": true, "rmdir": true, "mv": true, "cp": true, "dd": true, "chmod": true, "chown": true, "chgrp": true,
	"kill": true, "pkill": true, "killall": true, "curl": true, "wget": true, "ssh": true, "scp": true,
	"rsync": true, "shred": true, "truncate": true, "mkfs": true, "mount": true, "umount": true,
	"reboot": true, "shutdown": true, "find": true, "sed": true, "awk": true, "perl": true, "tee": true,
	"ln": true, "install": true, "sudo": true, "doas": true, "su": true, "eval": true, "exec": true,
	"bash": true, "sh": true, "zsh": true, "dash": true, "ksh": true, "nc": true, "ncat": true, "socat": true,
	"xargs": true, "env": true, "source": true, ".": true, "git": false,
}

// interpreters run the script named by their first argument, so a rule
// names the script.
var interpreters = map[string]bool{
	"python": true, "python3": true, "node": true, "ruby": true, "php": true, "deno": true, "bun": true, "Rscript": true,
}

// runners take a script name after a run-like subcommand: "npm run build".
var runners = map[string]bool{"npm": true, "pnpm": true, "yarn": true, "bun": true}

var subcommandRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9:_-]*$`) })

// suggestBash returns the rule "allow always" offers for c: the command
// and its subcommand as a prefix ("Bash(npm test:*)"), never wider than
// the command asked, or the exact command for commands where any prefix
// would be too wide. It returns "" when no rule fits.
func suggestBash(c *shell.Command) string {
	words := c.Words()
	// literal reports whether word i has one known value; value is that
	// value, "" for other words.
	literal := func(i int) bool { _, ok := words[i].Value(); return ok }
	value := func(i int) string {
		if v, ok := words[i].Value(); ok {
			return v
		}
		return ""
	}
	if len(words) == 0 || !literal(0) {
		return ""
	}
	name := value(0)
	isSub := func(i int) bool {
		return i < len(words) && literal(i) && subcommandRE().MatchString(value(i))
	}
	exact := func() string {
		if c.Open() {
			return ""
		}
		for i, w := range words {
			if !literal(i) || strings.Contains(w.Canon(), "*") {
				return ""
			}
		}
		return "Bash(" + shell.JoinCanon(words) + ")"
	}
	prefix := func(n int) string {
		for i, w := range words[:n] {
			if !literal(i) || strings.Contains(w.Canon(), "*") {
				return ""
			}
		}
		return "Bash(" + shell.JoinCanon(words[:n]) + ":*)"
	}
	switch {
	case name == "xargs" || name == "eval":
		// Their commands or arguments arrive at run time: no rule
		// written now can say what "always" would run.
		return ""
	case exactOnly[name] || strings.Contains(name, "="):
		return exact()
	case interpreters[name]:
		if len(words) > 1 && literal(1) && !strings.HasPrefix(value(1), "-") {
			return prefix(2)
		}
		return exact()
	case runners[name] && isSub(1) && contains([]string{"run", "run-script", "exec", "x", "dlx"}, value(1)):
		if isSub(2) || len(words) > 2 && literal(2) && !strings.HasPrefix(value(2), "-") {
			return prefix(3)
		}
		return exact()
	case name == "npx" || name == "bunx" || name == "uvx":
		if len(words) > 1 && literal(1) && !strings.HasPrefix(value(1), "-") {
			return prefix(2)
		}
		return exact()
	case isSub(1):
		return prefix(2)
	case len(words) > 1 && literal(1) && strings.HasPrefix(value(1), "-"):
		// Options before any subcommand (git -C x ..., cargo +nightly):
		// the prefix would be the bare command.
		if name == "git" || name == "docker" || name == "kubectl" || name == "go" || name == "cargo" || name == "gh" {
			return exact()
		}
	}
	return prefix(1)
}
