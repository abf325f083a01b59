package permission

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
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
	s, err := analyzeShell(c.Command, env)
	if err != nil {
		// Unparseable: deny rules still apply to the text as written.
		if r := firstMatch(st.rules.deny, func(r *compiledRule) bool { return rawMatch(r, c.Command) }); r != nil && !r.fallback {
			return Decision{Verdict: Deny, Reason: fmt.Sprintf("Permission to run %q was denied by the rule %s in the user's settings.", c.Command, r.describe())}
		}
		switch st.mode {
		case BypassPermissions:
			if p.shellEnv(st, cwd).bashRules {
				// What bash would run cannot be matched against them.
				return Decision{Verdict: Deny, Reason: "The command does not parse, so the Bash deny rules cannot be checked: " + err.Error()}
			}
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
	if denied := collect(s, func(s *script) []string { return s.denied }); len(denied) > 0 {
		return Decision{Verdict: Deny, Reason: "Permission to run this command was denied: it " + strings.Join(denied, "; ") + "."}
	}
	if risk := collect(s, func(s *script) []string { return s.denyRisk }); len(risk) > 0 {
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
				return Decision{Verdict: Allow, Reason: "allowed by the rule " + r.describe(), Confine: ConfineRule}
			}
		}
	}
	e := &bashEval{st: st, acceptEdits: st.mode == AcceptEdits}
	if e.allowedScript(s) {
		if len(e.used) > 0 {
			// The user's rule allows the command, not a look at what it
			// does: a prefix rule (Bash(git log:*)) also allows options
			// that write anywhere, and Bash(npm test:*) runs whatever the
			// repository's scripts say. It runs in the rule sandbox.
			return Decision{Verdict: Allow, Reason: "allowed by " + strings.Join(e.used, ", "), Confine: ConfineRule}
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

// shellEnv returns what the classifier needs to know of the session:
// where the command runs, the workspace, and the deny rules that reach
// into commands.
func (p *Policy) shellEnv(st snapshot, cwd string) *shellEnv {
	env := &shellEnv{cwd: realPath("/", cwd), roots: st.roots, home: p.home}
	for _, rules := range [][]compiledRule{st.rules.deny, st.rules.ask} {
		for i := range rules {
			r := &rules[i]
			// A git alias or a -c setting can run any command, so any
			// Bash deny or ask rule could be dodged through git.
			if r.Tool == "Bash" {
				env.bashRules = true
			}
		}
	}
	for i := range st.rules.deny {
		r := &st.rules.deny[i]
		if family(r.Tool) != "Read" {
			continue
		}
		switch {
		case r.kind == kindTool || r.fallback:
			env.denyAllReads = true
		case r.kind == kindPath:
			env.readDeny = append(env.readDeny, r.glob)
		}
	}
	return env
}

// collect gathers a list from s and every script nested in it.
func collect(s *script, get func(*script) []string) []string {
	out := append([]string(nil), get(s)...)
	for _, c := range s.cmds {
		if c.inner != nil {
			for _, v := range collect(c.inner, get) {
				if !contains(out, v) {
					out = append(out, v)
				}
			}
		}
	}
	return out
}

// wrapperNames are commands that run another command given in their
// words. Deny and ask rules are also matched against every later word
// that could be that command, so no option spelling hides it.
var wrapperNames = map[string]bool{
	"env": true, "nice": true, "nohup": true, "timeout": true, "stdbuf": true, "sudo": true, "doas": true,
	"command": true, "builtin": true, "exec": true, "xargs": true, "time": true, "watch": true, "chroot": true,
	"setsid": true, "ionice": true, "chrt": true, "taskset": true, "flock": true, "unbuffer": true,
	"strace": true, "ltrace": true, "nsenter": true, "unshare": true, "firejail": true, "caffeinate": true,
	"catchsegv": true, "prlimit": true, "runuser": true, "sg": true, "numactl": true, "cgexec": true,
}

// spellings returns the forms of c that deny and ask rules are matched
// against: as written, by the base name of a command given by path, by
// what a glob command name expands to, git without its global options,
// and what a wrapper may run.
func spellings(c *command) [][]word {
	out := [][]word{c.words}
	base := func(ws []word) []word {
		if n := ws[0]; n.literal && strings.Contains(n.value, "/") {
			b := filepath.Base(n.value)
			return append([]word{{value: b, literal: true, src: b}}, ws[1:]...)
		}
		return nil
	}
	if b := base(c.words); b != nil {
		out = append(out, b)
	}
	for _, n := range c.names {
		ws := append([]word{{value: n, literal: true, src: n}}, c.words[1:]...)
		out = append(out, ws)
		if b := base(ws); b != nil {
			out = append(out, b)
		}
	}
	if c.norm != nil {
		out = append(out, c.norm)
	}
	if n := c.words[0]; n.literal && wrapperNames[filepath.Base(n.value)] {
		for i := 1; i < len(c.words); i++ {
			w := c.words[i]
			if !w.literal || strings.HasPrefix(w.value, "-") || strings.Contains(w.value, "=") {
				continue
			}
			ws := c.words[i:]
			out = append(out, ws)
			if b := base(ws); b != nil {
				out = append(out, b)
			}
			if filepath.Base(w.value) == "git" {
				if g, ok := gitStrip(ws); ok {
					out = append(out, g)
				}
			}
		}
	}
	// git's plumbing does what its porcelain does: a rule on git push
	// also holds for git send-pack.
	for _, ws := range out {
		if len(ws) > 1 && ws[0].literal && filepath.Base(ws[0].value) == "git" && ws[1].literal {
			if porcelain, ok := gitPlumbing[ws[1].value]; ok {
				alt := append([]word{{value: "git", literal: true, src: "git"}, {value: porcelain, literal: true, src: porcelain}}, ws[2:]...)
				out = append(out, alt)
			}
		}
	}
	return out
}

// gitPlumbing maps git plumbing commands to the porcelain command whose
// rules they must obey.
var gitPlumbing = map[string]string{
	"send-pack": "push", "http-push": "push", "fetch-pack": "fetch", "commit-tree": "commit",
	"update-ref": "branch", "read-tree": "checkout", "checkout-index": "checkout", "update-index": "add",
	"merge-tree": "merge", "mktag": "tag",
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
			for _, ws := range spellings(c) {
				if r.matchCommand(ws, c.open) {
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

var subcommandRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9:_-]*$`) })

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
		return i < len(words) && words[i].literal && subcommandRE().MatchString(words[i].value)
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
	case name == "xargs" || name == "eval":
		// Their commands or arguments arrive at run time: no rule
		// written now can say what "always" would run.
		return ""
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
