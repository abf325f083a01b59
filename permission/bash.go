package permission

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// decideBash checks a shell command: every simple command in it must be
// allowed (by a rule, or as read-only) for the whole to be allowed.
func (p *Policy) decideBash(st snapshot, c Call) Decision {
	cwd := c.Cwd
	if cwd == "" {
		cwd = p.project
	}
	env := &shellEnv{cwd: realPath("/", cwd), roots: st.roots, home: p.home}
	if strings.TrimSpace(c.Command) == "" {
		return Decision{Verdict: Deny, Reason: "The Bash command is empty."}
	}
	s, err := analyzeShell(c.Command, env)
	if err != nil {
		// Unparseable: deny rules still apply to the text as written.
		if r := firstMatch(st.rules.deny, func(r *compiledRule) bool { return rawMatch(r, c.Command) }); r != nil && !r.fallback {
			return Decision{Verdict: Deny, Reason: fmt.Sprintf("Permission to run %q was denied by the rule %s in the user's settings.", c.Command, r.describe())}
		}
		switch st.mode {
		case BypassPermissions:
			return Decision{Verdict: Allow, Reason: "bypassPermissions mode"}
		case Plan:
			return Decision{Verdict: Deny, Reason: "The command does not parse, and in plan mode only read-only commands run: " + err.Error()}
		}
		return p.askOr(st, c, Decision{Verdict: Ask, Reason: "the command does not parse: " + err.Error()})
	}

	if r, cmd := findRule(st.rules.deny, s); r != nil {
		if !r.fallback {
			return Decision{Verdict: Deny, Reason: fmt.Sprintf("Permission to run %q was denied by the rule %s in the user's settings.", cmd.text(), r.describe())}
		}
		if st.mode == BypassPermissions {
			return Decision{Verdict: Allow, Reason: "bypassPermissions mode"}
		}
		return p.askOr(st, c, Decision{Verdict: Ask, Reason: fmt.Sprintf("%q matches %s", cmd.text(), r.describe())})
	}
	if st.mode == BypassPermissions {
		return Decision{Verdict: Allow, Reason: "bypassPermissions mode"}
	}
	if st.mode == Plan {
		if why := notReadOnly(s); why != "" {
			return Decision{Verdict: Deny, Reason: fmt.Sprintf("In plan mode only read-only commands run, and this one is not (%s). Finish the plan and present it; the user will switch modes to carry it out.", why)}
		}
	}
	if r, cmd := findRule(st.rules.ask, s); r != nil {
		return p.askOr(st, c, Decision{Verdict: Ask, Reason: fmt.Sprintf("%q matches the ask rule %s", cmd.text(), r.describe())})
	}
	// A bare Bash allow rule allows every command, hazards included.
	for _, rules := range [][]compiledRule{st.session, st.rules.allow} {
		for i := range rules {
			if r := &rules[i]; r.Tool == "Bash" && r.kind == kindTool {
				return Decision{Verdict: Allow, Reason: "allowed by the rule " + r.describe()}
			}
		}
	}
	e := &bashEval{st: st, acceptEdits: st.mode == AcceptEdits}
	if e.allowedScript(s) {
		if len(e.used) > 0 {
			return Decision{Verdict: Allow, Reason: "allowed by " + strings.Join(e.used, ", ")}
		}
		if st.unconfined && !shortListed(s) {
			return p.askOr(st, c, Decision{Verdict: Ask, Reason: unconfinedReason})
		}
		d := Decision{Verdict: Allow, Reason: "read-only command", Confine: ConfineReadOnly}
		if notReadOnly(s) != "" {
			d.Confine = ConfineWorkspace
		}
		return d
	}
	var why []string
	why = append(why, e.hazards...)
	for _, n := range e.needs {
		why = append(why, fmt.Sprintf("%q needs approval", n.text()))
	}
	d := Decision{Verdict: Ask, Reason: strings.Join(why, "; ")}
	if len(e.hazards) == 0 {
		// Only offer "always" when the rules would then allow the whole
		// command: a hazard would ask again.
		for _, n := range e.needs {
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

// findRule returns the first rule of rules that matches a command of s,
// looking into what wrappers run, and that command. A command given by
// path (/bin/rm) is also matched by its name (rm).
func findRule(rules []compiledRule, s *script) (*compiledRule, *command) {
	for _, c := range s.cmds {
		for i := range rules {
			r := &rules[i]
			if r.Tool != "Bash" {
				continue
			}
			if r.matchCommand(c.words, c.open) {
				return r, c
			}
			if name := c.words[0]; name.literal && strings.Contains(name.value, "/") {
				alias := append([]word{{value: filepath.Base(name.value), literal: true, src: filepath.Base(name.value)}}, c.words[1:]...)
				if r.matchCommand(alias, c.open) {
					return r, c
				}
			}
		}
		if c.inner != nil {
			if r, ic := findRule(rules, c.inner); r != nil {
				return r, ic
			}
		}
	}
	return nil, nil
}

// notReadOnly returns why s is not read-only, or "".
func notReadOnly(s *script) string {
	if len(s.hazards) > 0 {
		return s.hazards[0]
	}
	if len(s.writes) > 0 {
		return "writes to " + s.writes[0]
	}
	for _, c := range s.cmds {
		switch {
		case c.readOnly:
		case c.wrap == transparent && c.inner != nil:
			if why := notReadOnly(c.inner); why != "" {
				return why
			}
		default:
			return fmt.Sprintf("%q: %s", c.text(), c.notRO)
		}
	}
	return ""
}

// bashEval decides whether a script is allowed, collecting what is
// missing.
type bashEval struct {
	st          snapshot
	acceptEdits bool
	used        []string   // rules that allowed commands
	hazards     []string   // why the script must ask
	needs       []*command // commands no rule allows
}

func (e *bashEval) allowedScript(s *script) bool {
	ok := true
	if len(s.hazards) > 0 {
		e.hazards = append(e.hazards, s.hazards...)
		ok = false
	}
	if len(s.writes) > 0 && !e.acceptEdits {
		for _, w := range s.writes {
			e.hazards = append(e.hazards, "writes to "+w)
		}
		ok = false
	}
	for _, c := range s.cmds {
		if !e.allowedCmd(c) {
			ok = false
		}
	}
	return ok
}

func (e *bashEval) allowedCmd(c *command) bool {
	for _, rules := range [][]compiledRule{e.st.session, e.st.rules.allow} {
		for i := range rules {
			r := &rules[i]
			if r.Tool == "Bash" && !r.fallback && r.matchCommand(c.words, c.open) {
				if !contains(e.used, r.describe()) {
					e.used = append(e.used, r.describe())
				}
				return true
			}
		}
	}
	if c.readOnly {
		return true
	}
	if c.wrap == transparent && c.inner != nil {
		return e.allowedScript(c.inner)
	}
	e.needs = append(e.needs, c)
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

var subcommandRE = regexp.MustCompile(`^[a-z][a-z0-9:_-]*$`)

// suggestBash returns the rule "allow always" offers for c: the command
// and its subcommand as a prefix ("Bash(npm test:*)"), never wider than
// the command asked, or the exact command for commands where any prefix
// would be too wide. It returns "" when no rule fits.
func suggestBash(c *command) string {
	words := c.words
	if len(words) == 0 || !words[0].literal {
		return ""
	}
	name := words[0].value
	isSub := func(i int) bool {
		return i < len(words) && words[i].literal && subcommandRE.MatchString(words[i].value)
	}
	exact := func() string {
		if c.open {
			return ""
		}
		for _, w := range words {
			if !w.literal || strings.Contains(w.canon(), "*") {
				return ""
			}
		}
		return "Bash(" + joinCanon(words) + ")"
	}
	prefix := func(n int) string {
		for _, w := range words[:n] {
			if !w.literal || strings.Contains(w.canon(), "*") {
				return ""
			}
		}
		return "Bash(" + joinCanon(words[:n]) + ":*)"
	}
	switch {
	case exactOnly[name] || strings.Contains(name, "="):
		return exact()
	case interpreters[name]:
		if len(words) > 1 && words[1].literal && !strings.HasPrefix(words[1].value, "-") {
			return prefix(2)
		}
		return exact()
	case runners[name] && isSub(1) && contains([]string{"run", "run-script", "exec", "x", "dlx"}, words[1].value):
		if isSub(2) || len(words) > 2 && words[2].literal && !strings.HasPrefix(words[2].value, "-") {
			return prefix(3)
		}
		return exact()
	case name == "npx" || name == "bunx" || name == "uvx":
		if len(words) > 1 && words[1].literal && !strings.HasPrefix(words[1].value, "-") {
			return prefix(2)
		}
		return exact()
	case isSub(1):
		return prefix(2)
	case len(words) > 1 && words[1].literal && strings.HasPrefix(words[1].value, "-"):
		// Options before any subcommand (git -C x ..., cargo +nightly):
		// the prefix would be the bare command.
		if name == "git" || name == "docker" || name == "kubectl" || name == "go" || name == "cargo" || name == "gh" {
			return exact()
		}
	}
	return prefix(1)
}
