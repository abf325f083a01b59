package shell

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// maxShellDepth bounds nested shells (bash -c "bash -c ...", eval).
const maxShellDepth = 4

// Env is what the classifier knows of where a command will run. Paths
// are absolute, symlinks resolved.
type Env struct {
	// Cwd is where the command starts.
	Cwd string
	// Roots are the workspace's directories.
	Roots []string
	// Home is the home directory, "" when unknown.
	Home string
	// ReadDenied reports whether a Read deny rule covers a path (as
	// written, or resolved); nil when no Read deny rule exists.
	ReadDenied func(path string) bool
	// Protected reports whether a path inside the workspace holds
	// settings or code that runs, so that writing it always asks. When
	// nil, every path counts as protected.
	Protected func(path string) bool
	// BashRules says some Bash deny or ask rule exists: a git alias, a
	// git -c setting or code only known at run time could then run what
	// it forbids.
	BashRules bool
}

// script is what a shell command line would do, as far as parsing can
// tell.
type Script struct {
	// cmds are the simple commands, in source order, including those in
	// substitutions, subshells, function bodies and loops.
	cmds []*Command
	// hazards are reasons the line must be asked about whatever the rules
	// say: writing to a file outside the workspace, cd out of it, code
	// only known at run time, arithmetic on variables.
	hazards []string
	// writes are files inside the workspace that redirections write to;
	// acceptEdits mode allows them.
	writes []string
	// denied are reads that a Read deny rule covers: the line is refused
	// in every mode.
	denied []string
	// written are the files the line writes, as far as parsing can
	// tell (redirections, and commands known to write their operands);
	// unknownWrites say why some cannot be told.
	written       []Write
	unknownWrites []string
	// denyRisk are reasons the line may do what a deny rule forbids in a
	// way that cannot be checked (a git alias, git printing a denied
	// file): it asks in every mode, and is refused where nothing asks.
	denyRisk []string
}

// command is one simple command.
type Command struct {
	words []Word
	// open says the command gets more arguments at run time (xargs).
	open bool
	// wrap says how the command relates to inner.
	wrap wrapKind
	// inner is the code a wrapper runs: the rest of its words, or the
	// script of bash -c or eval.
	inner *Script
	// readOnly says the command changes nothing, by itself; notRO says
	// why not.
	readOnly bool
	notRO    string
	// norm is the command as deny and ask rules also see it: git
	// without its global options.
	norm []Word
	// names are what a command name that is a glob pattern expands to.
	names []string
	// bare says the command is on the short list of commands that run
	// without a question when no sandbox can confine them.
	bare bool
}

// wrapKind says how a command runs the code in its inner script.
type wrapKind int

const (
	// notWrapper commands run no other command.
	notWrapper wrapKind = iota
	// transparent wrappers (env, nice, timeout, bash -c, ...) with a
	// literal command do what their inner script does: allowed when all
	// of it is.
	transparent
	// opaque wrappers (sudo, xargs, eval, find -exec, watch) are checked
	// against deny and ask rules through their inner script, but are
	// never allowed because of it.
	opaque
)

// text is the command's canonical text, as rules see it.
func (c *Command) text() string { return joinCanon(c.words) }

// analyzeShell parses a command line and classifies each of its parts.
func analyzeShell(src string, env *Env) (*Script, error) {
	return analyzeDepth(src, env, []string{env.Cwd}, 0)
}

func analyzeDepth(src string, env *Env, cwds []string, depth int) (*Script, error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		return nil, err
	}
	a := &analysis{env: env, depth: depth, s: &Script{}}
	a.cwds = a.cdClosure(f, cwds)
	syntax.Walk(f, a.visit)
	return a.s, nil
}

// analysis classifies one parsed script.
type analysis struct {
	env   *Env
	depth int
	// cwds are every directory a command may run in: the start, and
	// wherever a cd in the script may lead.
	cwds []string
	s    *Script
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
	var targets [][]Word
	syntax.Walk(f, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		words := make([]Word, len(call.Args))
		for i, w := range call.Args {
			words[i] = resolveWord(w)
		}
		// builtin cd and command cd are cd too.
		for len(words) > 1 && words[0].literal && (words[0].value == "builtin" || words[0].value == "command") {
			words = words[1:]
			for len(words) > 1 && words[0].literal && (words[0].value == "-p" || words[0].value == "--") {
				words = words[1:]
			}
		}
		if name := words[0]; name.literal && (name.value == "cd" || name.value == "pushd") {
			targets = append(targets, words[1:])
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
				if !withinAny(a.env.Roots, d) {
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
func (a *analysis) cdArg(args []Word) (string, bool) {
	var dirs []Word
	for _, w := range args {
		if w.literal && (w.value == "-L" || w.value == "-P" || w.value == "-e" || w.value == "--") {
			continue
		}
		dirs = append(dirs, w)
	}
	switch {
	case len(dirs) == 0:
		return a.env.Home, true
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
		return filepath.Join(a.env.Home, w.src[1:]), true
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
		if n.Param != nil && secretVar(n.Param.Value) {
			a.hazard("expands %s, which may hold a secret", n.Param.Value)
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
	case *syntax.ArrayElem:
		if n.Index != nil {
			a.hazard("array element index (arithmetic)")
		}
	case *syntax.FuncDecl:
		// A function can shadow any command, and its calls look like
		// plain commands.
		a.hazard("defines a function")
	case *syntax.CoprocClause:
		a.hazard("coproc")
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

// secretVar reports whether a variable's name says it holds a secret
// (ANTHROPIC_API_KEY, GITHUB_TOKEN, ...): printing it asks.
func secretVar(name string) bool {
	u := strings.ToUpper(name)
	for _, w := range []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH", "COOKIE", "SESSION"} {
		if strings.Contains(u, w) {
			return true
		}
	}
	return false
}

// safeVars are the variables that may be set (as NAME=value words, with
// export, env, declare or a for loop) without asking: they change no
// program's choice of what to run or read. Other upper-case names may
// be ones programs read (GIT_*, LD_*, PATH, BASH_ENV, PAGER, ...) and
// ask.
var safeVars = map[string]bool{
	"CI": true, "NODE_ENV": true, "RAILS_ENV": true, "RACK_ENV": true, "APP_ENV": true, "DEBUG": true,
	"VERBOSE": true, "LANG": true, "LANGUAGE": true, "TZ": true, "TERM": true, "NO_COLOR": true,
	"FORCE_COLOR": true, "CLICOLOR": true, "COLUMNS": true, "LINES": true, "GOOS": true, "GOARCH": true,
	"CGO_ENABLED": true, "RUST_LOG": true, "RUST_BACKTRACE": true, "PYTHONUNBUFFERED": true,
	"PYTHONDONTWRITEBYTECODE": true, "PYTHONHASHSEED": true, "TEST": true, "PORT": true, "LOG_LEVEL": true,
}

// safeVar reports whether setting name cannot change what other commands
// run or read: a listed name, LC_*, or a lower-case shell variable
// (bash's own variables are upper case) that is not a proxy or npm
// setting programs read from the environment.
func safeVar(name string) bool {
	if safeVars[name] || strings.HasPrefix(name, "LC_") {
		return true
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return name != "" && name != "histchars" && !strings.Contains(name, "proxy") && !strings.HasPrefix(name, "npm_") &&
		!strings.HasPrefix(name, "yarn_") && !strings.HasPrefix(name, "pip_")
}

func (a *analysis) assign(name string) {
	if !safeVar(name) {
		a.hazard("sets %s, which is not on the list of variables that change nothing else", name)
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

var fdRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9]+-?$`) })

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
			if w.literal && (w.value == "-" || fdRE().MatchString(w.value)) {
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

func (a *analysis) writeTo(w Word) {
	a.redirectTarget(w)
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
		case !withinAny(a.env.Roots, p):
			a.hazard("writes to %s, outside the workspace", w.value)
			return
		case a.env.Protected == nil || a.env.Protected(p):
			a.hazard("writes to %s, which holds settings or code that runs", w.value)
			return
		}
		if !contains(a.s.writes, p) {
			a.s.writes = append(a.s.writes, p)
		}
	}
}

func (a *analysis) readFrom(w Word) {
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
	a.checkDenied(p)
	for _, cwd := range a.cwds {
		if !withinAny(a.env.Roots, realPath(cwd, p)) {
			return fmt.Sprintf("reads %s, outside the workspace", p)
		}
	}
	return ""
}

// call classifies a simple command.
func (a *analysis) call(call *syntax.CallExpr) {
	if len(call.Args) == 0 {
		return // assignments only; checked by visit
	}
	words := make([]Word, len(call.Args))
	for i, w := range call.Args {
		words[i] = resolveWord(w)
	}
	a.s.cmds = append(a.s.cmds, a.command(words, false))
}

// command classifies the simple command made of words. open says more
// arguments come at run time.
func (a *analysis) command(words []Word, open bool) *Command {
	c := &Command{words: words, open: open}
	name := words[0]
	if !name.literal {
		a.hazard("the command name %s is only known at run time", name.src)
		a.unseen("the command name %s is only known at run time", name.src)
		c.notRO = "command name only known at run time"
		if !name.expands {
			// A glob: deny rules see what it expands to now.
			c.names, _ = a.expandAll(name)
		}
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
		// eval runs code: it asks, and deny rules see the code.
		c.notRO = "eval runs code"
		if src, ok := literalJoin(args); ok {
			a.nested(c, opaque, src)
		} else {
			a.hazard("eval of code only known at run time")
			a.unseen("eval of code only known at run time")
		}
		return c
	case "exec", "command", "builtin", "nice", "nohup", "timeout", "stdbuf", "env", "xargs", "time":
		if name.value == filepath.Base(name.value) {
			a.wrapper(c, args)
			return c
		}
	case "sudo", "doas":
		c.notRO = "runs as another user"
		if rest := skipOptions(args, "-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U"); len(rest) > 0 {
			c.wrap = opaque
			c.inner = &Script{cmds: []*Command{a.command(rest, open)}}
		}
		return c
	case "watch":
		c.notRO = "runs a command repeatedly"
		if src, ok := literalJoin(skipOptions(args, "-n", "-d", "-g", "-q")); ok && src != "" {
			a.nested(c, opaque, src)
		}
		return c
	case "find":
		a.findExec(c, args)
	case "git":
		a.gitRules(c)
	}
	c.readOnly, c.notRO = a.readOnly(name.value, args, open)
	c.bare = c.readOnly && a.bareListed(name.value, args)
	a.writeTargets(filepath.Base(name.value), args, open)
	if !c.readOnly && a.env.denyRules() {
		a.deniedOperands(args)
	}
	return c
}

// deniedOperands records a deny risk when a command that is not judged
// read-only names a file a Read deny rule covers (awk 1 .env): what it
// does with the file is not known.
func (a *analysis) deniedOperands(args []Word) {
	for _, w := range args {
		vals, why := a.expandAll(w)
		if why != "" {
			continue
		}
		for _, v := range vals {
			if _, val, ok := strings.Cut(v, "="); ok && strings.HasPrefix(v, "-") {
				v = val
			}
			if v == "" || strings.HasPrefix(v, "-") {
				continue
			}
			for _, cwd := range a.cwds {
				p := realPath(cwd, v)
				if _, err := os.Lstat(p); err != nil {
					continue
				}
				if a.env.readDenied(p) || a.env.readDenied(lexAbs(cwd, v)) {
					a.denyRisk("the command names %s, which a Read deny rule covers", v)
				}
			}
		}
	}
}

// gitRules prepares a git command for Bash rules: its normal form
// without global options, and a deny risk when it may be an alias while
// rules name git.
func (a *analysis) gitRules(c *Command) {
	norm, ok := gitStrip(c.words)
	if ok {
		c.norm = norm
	}
	if !a.env.BashRules {
		return
	}
	for _, w := range c.words[1:] {
		if w.literal && !strings.HasPrefix(w.value, "-") {
			break
		}
		if n, _, _ := strings.Cut(w.value, "="); contains([]string{"-c", "--config-env", "--exec-path", "--git-dir", "--work-tree"}, n) {
			a.denyRisk("git %s can make git run programs that Bash rules do not see", n)
		}
	}
	switch {
	case !ok:
		a.denyRisk("git options only known at run time, and Bash rules exist")
	case len(norm) < 2:
	case !norm[1].literal:
		a.denyRisk("git subcommand %s only known at run time, and Bash rules exist", norm[1].src)
	case !gitKnown()[norm[1].value]:
		a.denyRisk("git %s may be an alias, which can run what Bash rules forbid", norm[1].value)
	}
}

// wrapperSpecs are the options of the wrappers that run their first
// operand as a command. Options not listed (env -S, env -C, ...) ask.
// Built on first use.
var wrapperSpecs = sync.OnceValue(func() map[string]*cmdSpec {
	return map[string]*cmdSpec{
		"exec":    spec([]opt{{"-c", optFlag}, {"-l", optFlag}, {"-a", optValue}}),
		"builtin": spec([]opt{}),
		"nohup":   spec([]opt{}),
		"command": spec([]opt{{"-p", optFlag}, {"-v", optFlag}, {"-V", optFlag}}),
		"nice":    spec([]opt{{"-n", optValue}, {"--adjustment", optValue}}),
		"time":    spec([]opt{{"-p", optFlag}, {"-v", optFlag}}),
		"timeout": spec([]opt{
			{"-s", optValue}, {"-k", optValue}, {"-v", optFlag}, {"--signal", optValue},
			{"--kill-after", optValue}, {"--preserve-status", optFlag}, {"--foreground", optFlag},
			{"--verbose", optFlag},
		}),
		"stdbuf": spec([]opt{
			{"-i", optValue}, {"-o", optValue}, {"-e", optValue}, {"--input", optValue},
			{"--output", optValue}, {"--error", optValue},
		}),
		"env": spec([]opt{
			{"-i", optFlag}, {"-0", optFlag}, {"-v", optFlag}, {"-u", optValue},
			{"--ignore-environment", optFlag}, {"--null", optFlag}, {"--unset", optValue},
			{"--debug", optFlag},
		}),
	}
})

// wrapper handles commands that run the rest of their words as another
// command. With a literal command they are transparent; a command that
// only arrives at run time (xargs, or a wrapper fed by xargs) asks.
func (a *analysis) wrapper(c *Command, args []Word) {
	name := c.words[0].value
	if name == "xargs" {
		// Its command gets arguments only known at run time: it asks,
		// and deny rules see the command.
		c.notRO = "xargs runs a command with arguments only known at run time"
		if rest := skipOptions(args, "-I", "-d", "-E", "-e", "-L", "-n", "-P", "-s", "-a"); len(rest) > 0 {
			c.wrap = opaque
			c.inner = &Script{cmds: []*Command{a.command(rest, true)}}
		} else if !c.open {
			c.notRO = "xargs runs echo with arguments only known at run time"
		}
		return
	}
	rest, why := a.wrapperOptions(name, args)
	if why != "" {
		c.notRO = why
		if rest := skipOptions(args, "-n", "-s", "-k", "-i", "-o", "-e", "-u", "-a", "-S", "-C"); len(rest) > 0 {
			c.wrap = opaque
			c.inner = &Script{cmds: []*Command{a.command(rest, true)}}
		}
		return
	}
	if name == "command" && len(c.words) > 1 && c.words[1].literal && (c.words[1].value == "-v" || c.words[1].value == "-V") {
		c.readOnly = !c.open // only says what a name is
		c.notRO = "command -v with names only known at run time"
		return
	}
	if name == "env" {
		for len(rest) > 0 && rest[0].literal && strings.Contains(rest[0].value, "=") {
			a.assign(rest[0].value[:strings.IndexByte(rest[0].value, '=')])
			rest = rest[1:]
		}
		if len(rest) > 0 && !rest[0].literal && !rest[0].expands && strings.Contains(rest[0].src, "=") {
			a.hazard("env assignment %s", rest[0].src)
			return
		}
	}
	if name == "timeout" {
		if len(rest) == 0 {
			c.notRO = "timeout without a duration"
			return
		}
		rest = rest[1:]
	}
	if c.open {
		// Fed by xargs: the command or its arguments arrive at run time.
		c.notRO = name + " gets its command at run time"
		if len(rest) > 0 {
			c.wrap = opaque
			c.inner = &Script{cmds: []*Command{a.command(rest, true)}}
		}
		return
	}
	if len(rest) == 0 {
		switch name {
		case "env":
			c.notRO = "env prints the whole environment, which may hold secrets"
		case "nice", "exec", "command", "builtin", "time":
			c.readOnly = true // prints the niceness, or does nothing
		default:
			c.notRO = name + " without a command"
		}
		return
	}
	c.wrap = transparent
	c.inner = &Script{cmds: []*Command{a.command(rest, false)}}
}

// wrapperOptions parses a wrapper's leading options against its spec
// and returns the words from its command on.
func (a *analysis) wrapperOptions(name string, args []Word) ([]Word, string) {
	s := wrapperSpecs()[name]
	for len(args) > 0 {
		w := args[0]
		if !w.literal {
			if w.expands && !strings.Contains(w.src, "=") || name != "env" {
				return args, ""
			}
			return nil, name + " arguments only known at run time"
		}
		v := w.value
		if v == "--" {
			return args[1:], ""
		}
		if !strings.HasPrefix(v, "-") || v == "-" {
			return args, ""
		}
		// Parse this option (and its value) alone.
		n := 1
		if k, ok := optionTakesNext(s, v); !ok {
			return nil, fmt.Sprintf("%s %s is not on the list of options", name, v)
		} else if k {
			n = 2
		}
		if n > len(args) {
			return nil, name + " " + v + " needs a value"
		}
		if _, why := a.parseArgs(name, s, args[:n]); why != "" {
			return nil, why
		}
		args = args[n:]
	}
	return args, ""
}

// optionTakesNext reports whether option word v (known to s) takes the
// next word as its value; ok is false when v is not on s.
func optionTakesNext(s *cmdSpec, v string) (next, ok bool) {
	if strings.HasPrefix(v, "--") {
		n, _, joined := strings.Cut(v[2:], "=")
		k, ok := s.long[n]
		return ok && !joined && (k == optValue || k == optFile), ok
	}
	for j := 1; j < len(v); j++ {
		k, ok := s.short[v[j]]
		if !ok {
			return false, false
		}
		if k != optFlag {
			return j == len(v)-1 && k != optMaybe, true
		}
	}
	return false, true
}

// nested analyzes script as the inner code of wrapper c.
func (a *analysis) nested(c *Command, kind wrapKind, src string) {
	c.wrap = kind
	if a.depth >= maxShellDepth {
		a.hazard("shells nested too deeply")
		c.inner = &Script{}
		return
	}
	inner, err := analyzeDepth(src, a.env, a.cwds, a.depth+1)
	if err != nil {
		a.hazard("inner script does not parse: %v", err)
		c.inner = &Script{}
		return
	}
	c.inner = inner
}

// literalJoin joins literal words with spaces, as eval and watch do.
func literalJoin(ws []Word) (string, bool) {
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
var shellOptsRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[-+][ceuxlvf]+$`) })

// shell handles bash/sh -c SCRIPT: transparent when the script is known.
// Without -c the shell runs a script file or its input, which nothing
// here can see.
func (a *analysis) shell(c *Command, args []Word) {
	hasC := false
	for i := 0; i < len(args); i++ {
		w := args[i]
		if !w.literal {
			c.notRO = "shell options only known at run time"
			a.unseen("a shell runs %s, only known at run time", w.src)
			return
		}
		v := w.value
		switch {
		case v == "-o" || v == "+o":
			i++
			if i >= len(args) || !args[i].literal || !contains([]string{"pipefail", "errexit", "nounset", "xtrace"}, args[i].value) {
				c.notRO = "shell option"
				a.unseen("a shell with an option that changes how it reads code")
				return
			}
		case v == "--norc" || v == "--noprofile" || v == "--posix":
		case shellOptsRE().MatchString(v):
			if strings.HasPrefix(v, "-") && strings.Contains(v, "c") {
				hasC = true
			}
		case strings.HasPrefix(v, "-") || strings.HasPrefix(v, "+"):
			c.notRO = "shell option " + v
			a.unseen("a shell with option %s may run code from its input", v)
			return
		default:
			if !hasC {
				c.notRO = "runs a script file"
				if c.open {
					a.unseen("a shell runs a script named at run time")
				}
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
	a.unseen("a shell runs commands from its input")
}

// unseen records that code only known at run time writes files nobody
// can tell, and, when Bash deny or ask rules exist, that it could do what
// they forbid: it asks, and is refused where nothing asks
// (bypassPermissions).
func (a *analysis) unseen(format string, args ...any) {
	// What it writes cannot be known either.
	a.unknownWrite(format, args...)
	if a.env.BashRules {
		a.denyRisk(format, args...)
	}
}

// skipOptions drops leading options; valued lists the short options that
// take the next word as their value ("-u" for sudo -u USER).
func skipOptions(args []Word, valued ...string) []Word {
	for len(args) > 0 {
		w := args[0]
		if !w.literal || !strings.HasPrefix(w.value, "-") || w.value == "-" {
			return args
		}
		args = args[1:]
		if w.value == "--" {
			return args
		}
		if contains(valued, w.value) && len(args) > 0 {
			args = args[1:]
		}
	}
	return args
}

// findExec records the commands find -exec would run, for deny and ask
// rules.
func (a *analysis) findExec(c *Command, args []Word) {
	var inner []*Command
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
		c.inner = &Script{cmds: inner}
	}
}
