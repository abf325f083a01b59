package permission

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxShellDepth bounds nested shells (bash -c "bash -c ...", eval).
const maxShellDepth = 4

// shellEnv is what the classifier knows of where a command will run.
type shellEnv struct {
	cwd   string
	roots []string
	home  string
}

// script is what a shell command line would do, as far as parsing can
// tell.
type script struct {
	// cmds are the simple commands, in source order, including those in
	// substitutions, subshells, function bodies and loops.
	cmds []*command
	// hazards are reasons the line must be asked about whatever the rules
	// say: writing to a file outside the workspace, cd out of it, code
	// only known at run time, arithmetic on variables.
	hazards []string
	// writes are files inside the workspace that redirections write to;
	// acceptEdits mode allows them.
	writes []string
}

// command is one simple command.
type command struct {
	words []word
	// open says the command gets more arguments at run time (xargs).
	open bool
	// wrap says how the command relates to inner.
	wrap wrapKind
	// inner is the code a wrapper runs: the rest of its words, or the
	// script of bash -c or eval.
	inner *script
	// readOnly says the command changes nothing, by itself; notRO says
	// why not.
	readOnly bool
	notRO    string
}

// wrapKind says how a command runs the code in its inner script.
type wrapKind int

const (
	// notWrapper commands run no other command.
	notWrapper wrapKind = iota
	// transparent wrappers (env, nice, timeout, xargs, bash -c, eval, ...)
	// do what their inner script does: allowed when all of it is.
	transparent
	// opaque wrappers (sudo, find -exec, watch) are checked against deny
	// and ask rules through their inner script, but are never allowed
	// because of it.
	opaque
)

// text is the command's canonical text, as rules see it.
func (c *command) text() string { return joinCanon(c.words) }

// analyzeShell parses a command line and classifies each of its parts.
func analyzeShell(src string, env *shellEnv) (*script, error) {
	return analyzeDepth(src, env, []string{env.cwd}, 0)
}

func analyzeDepth(src string, env *shellEnv, cwds []string, depth int) (*script, error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		return nil, err
	}
	a := &analysis{env: env, depth: depth, s: &script{}}
	a.cwds = a.cdClosure(f, cwds)
	syntax.Walk(f, a.visit)
	return a.s, nil
}

// analysis classifies one parsed script.
type analysis struct {
	env   *shellEnv
	depth int
	// cwds are every directory a command may run in: the start, and
	// wherever a cd in the script may lead.
	cwds []string
	s    *script
}

func (a *analysis) hazard(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	for _, h := range a.s.hazards {
		if h == msg {
			return
		}
	}
	a.s.hazards = append(a.s.hazards, msg)
}

// cdClosure returns the directories commands of f may run in. A cd to a
// place only known at run time, or out of the workspace, is a hazard.
// Because loops can run a cd before a command that comes earlier in the
// text, every command is checked against every possible directory.
func (a *analysis) cdClosure(f *syntax.File, start []string) []string {
	var targets [][]word
	syntax.Walk(f, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		if name := resolveWord(call.Args[0]); name.literal && (name.value == "cd" || name.value == "pushd") {
			var args []word
			for _, w := range call.Args[1:] {
				args = append(args, resolveWord(w))
			}
			targets = append(targets, args)
		}
		return true
	})
	cwds := append([]string(nil), start...)
	seen := map[string]bool{}
	for _, c := range cwds {
		seen[c] = true
	}
	for round := 0; round < 4 && len(targets) > 0; round++ {
		added := false
		for _, args := range targets {
			dest, ok := a.cdArg(args)
			if !ok {
				continue
			}
			for _, c := range cwds {
				d := dest
				if !filepath.IsAbs(d) {
					d = realPath(c, d)
				} else {
					d = realPath("/", d)
				}
				if !withinAny(a.env.roots, d) {
					a.hazard("cd %s leaves the workspace", dest)
					continue
				}
				if !seen[d] {
					seen[d] = true
					cwds = append(cwds, d)
					added = true
				}
			}
		}
		if !added {
			break
		}
	}
	return cwds
}

// cdArg returns where a cd with args goes (relative or absolute), or
// reports a hazard.
func (a *analysis) cdArg(args []word) (string, bool) {
	var dirs []word
	for _, w := range args {
		if w.literal && (w.value == "-L" || w.value == "-P" || w.value == "-e" || w.value == "--") {
			continue
		}
		dirs = append(dirs, w)
	}
	switch {
	case len(dirs) == 0:
		return a.env.home, true
	case len(dirs) > 1:
		a.hazard("cd with several arguments")
		return "", false
	}
	w := dirs[0]
	if w.literal {
		if w.value == "-" {
			a.hazard("cd - goes to a directory only known at run time")
			return "", false
		}
		return w.value, true
	}
	if w.src == "~" || strings.HasPrefix(w.src, "~/") && !strings.ContainsAny(w.src[1:], "$`*?[{~\\'\"") {
		return filepath.Join(a.env.home, w.src[1:]), true
	}
	a.hazard("cd %s goes to a directory only known at run time", w.src)
	return "", false
}

func (a *analysis) visit(n syntax.Node) bool {
	switch n := n.(type) {
	case *syntax.Stmt:
		a.redirects(n.Redirs)
	case *syntax.CallExpr:
		a.call(n)
	case *syntax.Assign:
		if n.Name != nil {
			a.assign(n.Name.Value)
		}
		if n.Index != nil {
			a.hazard("assignment to an array element (arithmetic on variables)")
		}
	case *syntax.DeclClause:
		a.decl(n)
	case *syntax.WordIter:
		if n.Name != nil {
			a.assign(n.Name.Value)
		}
	case *syntax.ArithmExp, *syntax.ArithmCmd, *syntax.LetClause, *syntax.CStyleLoop:
		// Bash evaluates variables' values as arithmetic, and a value
		// like a[$(cmd)] runs cmd.
		a.hazard("arithmetic evaluation")
	case *syntax.ParamExp:
		if !safeParam(n) {
			a.hazard("parameter expansion %s", nodeSource(n))
		}
	case *syntax.BinaryTest:
		switch n.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			a.hazard("arithmetic comparison in [[ ]]")
		}
	case *syntax.UnaryTest:
		if n.Op == syntax.TsVarSet || n.Op == syntax.TsRefVar {
			a.hazard("variable test in [[ ]]")
		}
	case *syntax.TestDecl:
		a.hazard("unsupported syntax")
	}
	return true
}

// safeParam reports whether a parameter expansion only reads a variable:
// no indirection, no subscripts or slices (arithmetic), no assignment, no
// @P-style transformations that can run code.
func safeParam(p *syntax.ParamExp) bool {
	if p.Excl || p.Index != nil || p.Slice != nil || p.NestedParam != nil || p.Flags != nil || len(p.Modifiers) > 0 {
		return false
	}
	if p.Exp != nil {
		switch p.Exp.Op {
		case syntax.AssignUnset, syntax.AssignUnsetOrNull, syntax.OtherParamOps:
			return false
		}
	}
	return true
}

// dangerousVar reports whether setting a variable can change what other
// commands run: the search path, preloaded libraries, startup files,
// pagers and editors, git's and interpreters' configuration.
func dangerousVar(name string) bool {
	switch name {
	case "PATH", "HOME", "IFS", "ENV", "BASH_ENV", "SHELLOPTS", "BASHOPTS", "PS4", "PROMPT_COMMAND",
		"CDPATH", "PAGER", "MANPAGER", "EDITOR", "VISUAL", "BROWSER", "LESSOPEN", "LESSCLOSE",
		"SHELL", "TMPDIR", "GOFLAGS", "GOTOOLCHAIN", "RUSTC_WRAPPER", "RUSTC", "CC", "CXX", "LD", "MAKEFLAGS":
		return true
	}
	switch name {
	case "PYTHONHOME", "PYTHONSTARTUP", "PYTHONINSPECT", "PERL5OPT", "PERL5LIB", "PERLLIB", "RUBYOPT", "RUBYLIB":
		return true
	}
	for _, p := range []string{"LD_", "DYLD_", "GIT_", "BASH_", "XDG_", "NPM_CONFIG_", "npm_config_", "CARGO_", "DOCKER_", "SSH_"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return strings.HasSuffix(name, "PATH") || strings.HasSuffix(name, "OPTIONS") || strings.HasSuffix(name, "OPTS")
}

func (a *analysis) assign(name string) {
	if dangerousVar(name) {
		a.hazard("sets %s, which changes what other commands run", name)
	}
}

// decl handles export, declare, local, readonly and typeset.
func (a *analysis) decl(d *syntax.DeclClause) {
	switch d.Variant.Value {
	case "export", "local", "declare", "typeset", "readonly":
	default:
		a.hazard("%s", d.Variant.Value)
		return
	}
	for _, as := range d.Args {
		if as.Name != nil {
			continue // checked by visit
		}
		if as.Value == nil {
			continue
		}
		w := resolveWord(as.Value)
		switch {
		case !w.literal:
			a.hazard("%s with arguments only known at run time", d.Variant.Value)
		case strings.HasPrefix(w.value, "-") || strings.HasPrefix(w.value, "+"):
			a.hazard("%s %s", d.Variant.Value, w.value)
		default:
			a.assign(w.value)
		}
	}
}

var fdRE = regexp.MustCompile(`^[0-9]+-?$`)

// redirects checks a statement's redirections.
func (a *analysis) redirects(rs []*syntax.Redirect) {
	for _, r := range rs {
		if r.N != nil && strings.HasPrefix(r.N.Value, "{") {
			a.hazard("redirection to a named file descriptor")
			continue
		}
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			continue
		case syntax.DplIn, syntax.DplOut:
			w := resolveWord(r.Word)
			if w.literal && (w.value == "-" || fdRE.MatchString(w.value)) {
				continue
			}
			if r.Op == syntax.DplIn {
				a.hazard("redirection %s", nodeSource(r))
				continue
			}
			a.writeTo(w)
		case syntax.RdrIn:
			a.readFrom(resolveWord(r.Word))
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll, syntax.RdrInOut:
			a.writeTo(resolveWord(r.Word))
		default:
			a.hazard("redirection %s", nodeSource(r))
		}
	}
}

// harmlessDevices can be read and written freely.
var harmlessDevices = map[string]bool{"/dev/null": true, "/dev/stdout": true, "/dev/stderr": true, "/dev/stdin": true, "/dev/tty": true, "/dev/zero": true}

func (a *analysis) writeTo(w word) {
	if !w.literal {
		a.hazard("writes to a file only known at run time (%s)", w.src)
		return
	}
	if harmlessDevices[w.value] {
		return
	}
	for _, cwd := range a.cwds {
		p := realPath(cwd, w.value)
		switch {
		case !withinAny(a.env.roots, p):
			a.hazard("writes to %s, outside the workspace", w.value)
			return
		case protected(a.env.roots, p):
			a.hazard("writes to %s, which holds settings or code that runs", w.value)
			return
		}
		if !contains(a.s.writes, p) {
			a.s.writes = append(a.s.writes, p)
		}
	}
}

func (a *analysis) readFrom(w word) {
	if !w.literal {
		a.hazard("reads a file only known at run time (%s)", w.src)
		return
	}
	if why := a.outside(w.value); why != "" {
		a.hazard("%s", why)
	}
}

// outside returns why reading path p would leave the workspace, or "".
func (a *analysis) outside(p string) string {
	if harmlessDevices[p] || p == "-" {
		return ""
	}
	for _, cwd := range a.cwds {
		if !withinAny(a.env.roots, realPath(cwd, p)) {
			return fmt.Sprintf("reads %s, outside the workspace", p)
		}
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// call classifies a simple command.
func (a *analysis) call(call *syntax.CallExpr) {
	if len(call.Args) == 0 {
		return // assignments only; checked by visit
	}
	words := make([]word, len(call.Args))
	for i, w := range call.Args {
		words[i] = resolveWord(w)
	}
	a.s.cmds = append(a.s.cmds, a.command(words, false))
}

// command classifies the simple command made of words. open says more
// arguments come at run time.
func (a *analysis) command(words []word, open bool) *command {
	c := &command{words: words, open: open}
	name := words[0]
	if !name.literal {
		a.hazard("the command name %s is only known at run time", name.src)
		c.notRO = "command name only known at run time"
		return c
	}
	args := words[1:]
	switch filepath.Base(name.value) {
	case "bash", "sh", "dash", "zsh", "ksh":
		if name.value == filepath.Base(name.value) {
			a.shell(c, args)
			return c
		}
	case "eval":
		script, ok := literalJoin(args)
		if !ok {
			a.hazard("eval of code only known at run time")
			return c
		}
		a.nested(c, transparent, script)
		return c
	case "exec", "command", "builtin", "nice", "nohup", "timeout", "stdbuf", "env", "xargs", "time":
		if name.value == filepath.Base(name.value) {
			a.wrapper(c, args)
			return c
		}
	case "sudo", "doas":
		c.notRO = "runs as another user"
		if rest := skipOptions(args, "ugCDhprtU"); len(rest) > 0 {
			c.wrap = opaque
			c.inner = &script{cmds: []*command{a.command(rest, open)}}
		}
		return c
	case "watch":
		c.notRO = "runs a command repeatedly"
		if script, ok := literalJoin(skipOptions(args, "ndgq")); ok && script != "" {
			a.nested(c, opaque, script)
		}
		return c
	case "find":
		a.findExec(c, args)
	}
	c.readOnly, c.notRO = a.readOnly(name.value, args, open)
	return c
}

// nested analyzes script as the inner code of wrapper c.
func (a *analysis) nested(c *command, kind wrapKind, src string) {
	c.wrap = kind
	if a.depth >= maxShellDepth {
		a.hazard("shells nested too deeply")
		c.inner = &script{}
		return
	}
	inner, err := analyzeDepth(src, a.env, a.cwds, a.depth+1)
	if err != nil {
		a.hazard("inner script does not parse: %v", err)
		c.inner = &script{}
		return
	}
	c.inner = inner
}

// literalJoin joins literal words with spaces, as eval and watch do.
func literalJoin(ws []word) (string, bool) {
	parts := make([]string, len(ws))
	for i, w := range ws {
		if !w.literal {
			return "", false
		}
		parts[i] = w.value
	}
	return strings.Join(parts, " "), true
}

// shellOptsRE are the shell options that change nothing about what a -c
// script does.
var shellOptsRE = regexp.MustCompile(`^[-+][ceuxlvf]+$`)

// shell handles bash/sh -c SCRIPT: transparent when the script is known.
// Without -c the shell runs a script file or its input, which nothing
// here can see.
func (a *analysis) shell(c *command, args []word) {
	hasC := false
	for i := 0; i < len(args); i++ {
		w := args[i]
		if !w.literal {
			c.notRO = "shell options only known at run time"
			return
		}
		v := w.value
		switch {
		case v == "-o" || v == "+o":
			i++
			if i >= len(args) || !args[i].literal || !contains([]string{"pipefail", "errexit", "nounset", "xtrace"}, args[i].value) {
				c.notRO = "shell option"
				return
			}
		case v == "--norc" || v == "--noprofile" || v == "--posix":
		case shellOptsRE.MatchString(v):
			if strings.HasPrefix(v, "-") && strings.Contains(v, "c") {
				hasC = true
			}
		case strings.HasPrefix(v, "-") || strings.HasPrefix(v, "+"):
			c.notRO = "shell option " + v
			return
		default:
			if !hasC {
				c.notRO = "runs a script file"
				return
			}
			a.nested(c, transparent, v)
			return
		}
	}
	if hasC {
		a.hazard("shell -c without a script")
		return
	}
	c.notRO = "runs commands from its input"
}

// wrapper handles commands that run the rest of their words as another
// command.
func (a *analysis) wrapper(c *command, args []word) {
	name := c.words[0].value
	var (
		rest []word
		open = c.open
	)
	bad := func(why string) {
		c.notRO = why
	}
	switch name {
	case "exec", "builtin", "nohup":
		rest = skipOptions(args, "a")
	case "command":
		if len(args) > 0 && (args[0].value == "-v" || args[0].value == "-V") {
			c.readOnly = true // only says what a name is
			return
		}
		var why string
		if rest, why = onlyFlags(args, "-p", "--"); why != "" {
			bad("command option " + why)
			return
		}
	case "nice":
		rest = skipOptions(args, "n")
	case "time":
		var why string
		if rest, why = onlyFlags(args, "-p", "-v"); why != "" {
			bad("time option " + why)
			return
		}
	case "timeout":
		rest = skipOptions(args, "sk")
		if len(rest) == 0 {
			bad("timeout without a command")
			return
		}
		rest = rest[1:] // the duration
	case "stdbuf":
		rest = skipOptions(args, "ioe")
	case "env":
		for len(args) > 0 {
			w := args[0]
			if !w.literal {
				a.hazard("env with arguments only known at run time")
				return
			}
			switch v := w.value; {
			case v == "-i" || v == "--ignore-environment" || v == "-0" || v == "--null" || v == "-v" || v == "--":
			case v == "-u" || v == "--unset":
				if len(args) < 2 {
					bad("env -u without a name")
					return
				}
				args = args[1:]
			case strings.HasPrefix(v, "--unset=") || strings.HasPrefix(v, "-u") && len(v) > 2:
			case strings.HasPrefix(v, "-"):
				a.hazard("env option %s", v)
				return
			case strings.Contains(v, "="):
				a.assign(v[:strings.IndexByte(v, '=')])
			default:
				rest = args
				args = nil
				continue
			}
			args = args[1:]
		}
		if len(rest) == 0 {
			c.readOnly = true // prints the environment
			return
		}
	case "xargs":
		var replace string
		for len(args) > 0 && args[0].literal && strings.HasPrefix(args[0].value, "-") && args[0].value != "-" {
			v := args[0].value
			args = args[1:]
			switch {
			case v == "--":
				goto done
			case v == "-I" || v == "-i" || strings.HasPrefix(v, "--replace"):
				replace = "{}"
				if v == "-I" {
					if len(args) == 0 || !args[0].literal {
						bad("xargs -I without a literal replacement")
						return
					}
					replace, args = args[0].value, args[1:]
				}
			case strings.HasPrefix(v, "-I"):
				replace = v[2:]
			case v == "-a" || strings.HasPrefix(v, "--arg-file"):
				bad("xargs reads arguments from a file")
				return
			case v == "-n" || v == "-L" || v == "-P" || v == "-s" || v == "-d" || v == "-E" || v == "-e":
				if len(args) == 0 {
					bad("xargs option without a value")
					return
				}
				args = args[1:]
			}
		}
	done:
		if len(args) == 0 {
			c.readOnly = true // xargs echo
			return
		}
		if replace != "" {
			// The input is substituted into the words: any word holding
			// the replacement is only known at run time.
			marked := make([]word, len(args))
			for i, w := range args {
				marked[i] = w
				if w.literal && strings.Contains(w.value, replace) {
					marked[i] = word{src: w.src}
				}
			}
			args = marked
			if n := filepath.Base(args[0].value); args[0].literal && contains([]string{"bash", "sh", "dash", "zsh", "ksh", "eval"}, n) {
				a.hazard("xargs -I substitutes its input into a shell script")
				return
			}
		}
		rest, open = args, true
	}
	if len(rest) == 0 {
		c.readOnly = true
		return
	}
	c.wrap = transparent
	c.inner = &script{cmds: []*command{a.command(rest, open)}}
}

// onlyFlags drops the leading options of args, which must be among
// allowed; otherwise it returns the first other option.
func onlyFlags(args []word, allowed ...string) (rest []word, bad string) {
	for len(args) > 0 && args[0].literal && strings.HasPrefix(args[0].value, "-") {
		if !contains(allowed, args[0].value) {
			return nil, args[0].value
		}
		args = args[1:]
	}
	return args, ""
}

// skipOptions drops leading options; valued lists the short options that
// take the next word as their value.
func skipOptions(args []word, valued string) []word {
	for len(args) > 0 {
		w := args[0]
		if !w.literal || !strings.HasPrefix(w.value, "-") || w.value == "-" {
			return args
		}
		args = args[1:]
		if w.value == "--" {
			return args
		}
		if len(w.value) == 2 && strings.ContainsRune(valued, rune(w.value[1])) && len(args) > 0 {
			args = args[1:]
		}
	}
	return args
}

// findExec records the commands find -exec would run, for deny and ask
// rules.
func (a *analysis) findExec(c *command, args []word) {
	var inner []*command
	for i := 0; i < len(args); i++ {
		w := args[i]
		if !w.literal {
			continue
		}
		switch w.value {
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(args) && !(args[j].literal && (args[j].value == ";" || args[j].value == "+")) {
				j++
			}
			if j > i+1 {
				inner = append(inner, a.command(args[i+1:j], true))
			}
			i = j
		}
	}
	if len(inner) > 0 {
		c.wrap = opaque
		c.inner = &script{cmds: inner}
	}
}
