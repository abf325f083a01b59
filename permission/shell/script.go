package shell

import (
	"fmt"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Parse parses a command line and classifies each of its parts as env
// describes where it runs. An error says the line does not parse.
func Parse(src string, env *Env) (*Script, error) {
	return analyzeShell(src, env)
}

// Find returns the first command of s, in source order and looking into
// what each wrapper runs right after the wrapper, for which match is
// true, or nil.
func (s *Script) Find(match func(c *Command) bool) *Command {
	for _, c := range s.cmds {
		if match(c) {
			return c
		}
		if c.inner != nil {
			if ic := c.inner.Find(match); ic != nil {
				return ic
			}
		}
	}
	return nil
}

// Denied returns the reads of s and every script nested in it that a
// Read deny rule covers: the line is refused in every mode.
func (s *Script) Denied() []string { return collect(s, func(s *Script) []string { return s.denied }) }

// DenyRisks returns why s, or a script nested in it, may do what a deny
// rule forbids in a way that cannot be checked: it asks in every mode,
// and is refused where nothing asks.
func (s *Script) DenyRisks() []string {
	return collect(s, func(s *Script) []string { return s.denyRisk })
}

// NotReadOnly returns why s is not read-only, or "".
func (s *Script) NotReadOnly() string { return notReadOnly(s) }

// Judge decides whether s runs without a question. ruled reports whether
// one of the user's allow rules allows a command; a command no rule
// allows must be read-only, or a transparent wrapper (env, timeout,
// bash -c, ...) of commands that are. writes says redirections to files
// inside the workspace are allowed (acceptEdits). It returns the hazards
// that make s ask whatever the rules say, and the commands that need
// approval; s runs without a question when both are empty.
func (s *Script) Judge(writes bool, ruled func(c *Command) bool) (hazards []string, needs []*Command) {
	j := &judgment{writes: writes, ruled: ruled}
	j.script(s)
	return j.hazards, j.needs
}

type judgment struct {
	writes  bool
	ruled   func(c *Command) bool
	hazards []string
	needs   []*Command
}

func (j *judgment) script(s *Script) bool {
	ok := true
	if len(s.hazards) > 0 {
		j.hazards = append(j.hazards, s.hazards...)
		ok = false
	}
	if len(s.writes) > 0 && !j.writes {
		for _, w := range s.writes {
			j.hazards = append(j.hazards, "writes to "+w)
		}
		ok = false
	}
	for _, c := range s.cmds {
		if !j.command(c) {
			ok = false
		}
	}
	return ok
}

func (j *judgment) command(c *Command) bool {
	if j.ruled(c) || c.readOnly {
		return true
	}
	if c.wrap == transparent && c.inner != nil {
		return j.script(c.inner)
	}
	j.needs = append(j.needs, c)
	return false
}

// String returns the command's canonical text, as rules see it.
func (c *Command) String() string { return c.text() }

// Words returns the command's words, name first.
func (c *Command) Words() []Word { return c.words }

// Open says the command gets more arguments at run time (xargs), so only
// rules that allow any further arguments can match it.
func (c *Command) Open() bool { return c.open }

// Spellings returns the forms of c that deny and ask rules are matched
// against: as written, by the base name of a command given by path, by
// what a glob command name expands to, git without its global options,
// and what a wrapper may run.
func (c *Command) Spellings() [][]Word { return spellings(c) }

// Value returns the word's value and true when it has one known value,
// else its source and false.
func (w Word) Value() (string, bool) {
	if w.literal {
		return w.value, true
	}
	return w.src, false
}

// Canon is the word's token for rule matching: a literal word in a
// canonical quoting, anything else as written.
func (w Word) Canon() string { return w.canon() }

// JoinCanon joins the canonical tokens of words with single spaces.
func JoinCanon(words []Word) string { return joinCanon(words) }

// Canon returns the rule-matching token of a parsed word (Word.Canon).
func Canon(w *syntax.Word) string { return resolveWord(w).canon() }

// collect gathers a list from s and every script nested in it.
func collect(s *Script, get func(*Script) []string) []string {
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
func spellings(c *Command) [][]Word {
	out := [][]Word{c.words}
	base := func(ws []Word) []Word {
		if n := ws[0]; n.literal && strings.Contains(n.value, "/") {
			b := filepath.Base(n.value)
			return append([]Word{{value: b, literal: true, src: b}}, ws[1:]...)
		}
		return nil
	}
	if b := base(c.words); b != nil {
		out = append(out, b)
	}
	for _, n := range c.names {
		ws := append([]Word{{value: n, literal: true, src: n}}, c.words[1:]...)
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
				alt := append([]Word{{value: "git", literal: true, src: "git"}, {value: porcelain, literal: true, src: porcelain}}, ws[2:]...)
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

// notReadOnly returns why s is not read-only, or "".
func notReadOnly(s *Script) string {
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

// ShortListed reports whether every command of s is on the short list
// of commands that run without a question when no sandbox can confine
// them: plain literal words, no wrappers, nothing at run time.
func (s *Script) ShortListed() bool {
	if len(s.hazards) > 0 || len(s.cmds) == 0 {
		return false
	}
	for _, c := range s.cmds {
		if c.inner != nil || c.open || c.wrap != notWrapper || !c.bare {
			return false
		}
	}
	return true
}
