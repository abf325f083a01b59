package shell

import (
	"fmt"
	"strings"
)

// optKind says what an option takes.
type optKind uint8

const (
	optFlag  optKind = iota // no value
	optValue                // a value that names no file
	optFile                 // a file the command reads: checked as operands are
	optMaybe                // an optional value, joined only (--color[=WHEN], -M50%)
)

// operandKind says what a command's operands are.
type operandKind uint8

const (
	operandFiles operandKind = iota // files (or directories) it reads
	operandText                     // text it prints or compares: any value
	operandNone                     // none allowed
)

// cmdSpec is the allowlist of one read-only command's options. An option
// not on it, or an abbreviation of a long one, makes the command ask:
// GNU getopt and git accept any unambiguous prefix, so only exact names
// are safe to judge.
type cmdSpec struct {
	// opts are the options, one entry each; short and long index them.
	opts  []opt
	short map[byte]optKind
	long  map[string]optKind
	// numeric accepts -NUM (head -20, git log -5).
	numeric  bool
	operands operandKind
	// maxOperands bounds the operands (uniq's second one is written);
	// 0 means no bound.
	maxOperands int
	// pattern: the first operand is a pattern, not a file, unless one of
	// these options gives it.
	pattern []string
	// recurse says whether the command reads directories recursively,
	// and whether it then follows symlinks.
	recurse func(p *parsedArgs) (recursive, follow bool)
	// dotDefault: a recursive read with no file operand reads ".".
	dotDefault bool
	// check, when set, returns why particular arguments are not
	// read-only.
	check func(a *analysis, p *parsedArgs) string
	// parse, when set, judges the command's arguments instead of the
	// option table: it returns why they are not read-only. Commands
	// with a grammar of their own (find, git, test) have it.
	parse func(a *analysis, args []Word) string
	// bare puts the command on the short list of commands that run
	// without a question when no sandbox can confine them
	// (Script.ShortListed), carrying only the options bareOpts names.
	bare     bool
	bareOpts []string
}

// opt is one option a command accepts: its name as written ("-n",
// "--lines") and what it takes. The tables list each option once
// (TestOptionTables).
type opt struct {
	name string
	kind optKind
}

// spec builds a cmdSpec from its options and modifiers.
func spec(opts []opt, mods ...func(*cmdSpec)) *cmdSpec {
	s := &cmdSpec{opts: opts, short: map[byte]optKind{}, long: map[string]optKind{}}
	for _, o := range opts {
		if long, ok := strings.CutPrefix(o.name, "--"); ok {
			s.long[long] = o.kind
		} else {
			s.short[o.name[1]] = o.kind
		}
	}
	for _, m := range mods {
		m(s)
	}
	return s
}

// join concatenates option lists (git diff's options and log's).
func join(lists ...[]opt) []opt {
	var out []opt
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

func text(s *cmdSpec)    { s.operands = operandText }
func none(s *cmdSpec)    { s.operands = operandNone }
func numeric(s *cmdSpec) { s.numeric = true }

func maxOps(n int) func(*cmdSpec) { return func(s *cmdSpec) { s.maxOperands = n } }

func pattern(opts ...string) func(*cmdSpec) { return func(s *cmdSpec) { s.pattern = opts } }

func check(f func(a *analysis, p *parsedArgs) string) func(*cmdSpec) {
	return func(s *cmdSpec) { s.check = f }
}

// unconfined puts a command on the short list of commands that run
// without a question when no sandbox can confine them, with the options
// it may carry there. An option that takes a value there takes a number
// or "no" (head -n 5, git status -uno).
func unconfined(opts ...string) func(*cmdSpec) {
	return func(s *cmdSpec) { s.bare, s.bareOpts = true, opts }
}

// own gives a command a parser of its own, which may judge what is left
// against the command's table (jq, ps).
func own(f func(a *analysis, args []Word) string) func(*cmdSpec) {
	return func(s *cmdSpec) { s.parse = f }
}

// recursiveWhen marks a recursive command: rec lists the options that
// make it recurse, follow those that make it follow symlinks ("*" for
// always, in both).
func recursiveWhen(rec, follow []string, dot bool) func(*cmdSpec) {
	return func(s *cmdSpec) {
		s.dotDefault = dot
		s.recurse = func(p *parsedArgs) (bool, bool) {
			f := contains(follow, "*") || p.has(follow...)
			return f || contains(rec, "*") || p.has(rec...), f
		}
	}
}

// parsedOpt is one option as given.
type parsedOpt struct {
	name  string // "-n", "--lines", "-NUM"
	value string
	kind  optKind
}

// parsedArgs are a command's arguments sorted into options and operands.
type parsedArgs struct {
	opts     []parsedOpt
	operands []string
	// dynamic counts operands only known at run time (allowed only for
	// text operands).
	dynamic int
	// dashdash is the index in operands where "--" was, or -1.
	dashdash int
}

// has reports whether any of the options names was given.
func (p *parsedArgs) has(names ...string) bool {
	for _, o := range p.opts {
		if contains(names, o.name) {
			return true
		}
	}
	return false
}

// values returns the values given to the options names.
func (p *parsedArgs) values(names ...string) []string {
	var out []string
	for _, o := range p.opts {
		if contains(names, o.name) {
			out = append(out, o.value)
		}
	}
	return out
}

// parseArgs sorts args into options and operands against s, expanding
// globs. It returns why the arguments cannot be judged read-only. Like
// GNU getopt, options may follow operands; after "--" every word is an
// operand.
func (a *analysis) parseArgs(name string, s *cmdSpec, args []Word) (*parsedArgs, string) {
	p := &parsedArgs{dashdash: -1}
	args = append([]Word(nil), args...) // unmatched patterns are replaced below
	dashdash := false
	for i := 0; i < len(args); i++ {
		w := args[i]
		if !w.literal {
			if w.expands {
				if s.operands == operandText {
					p.dynamic++
					continue
				}
				return nil, "argument " + w.src + " is only known at run time"
			}
			vals, why := a.expandAll(w)
			if why != "" {
				return nil, why
			}
			if len(vals) == 1 && vals[0] == unmatched(w) {
				// Nothing matches: bash passes the pattern as is
				// (--include=*.go), so it is judged as a literal word.
				args[i] = Word{value: vals[0], literal: true, src: w.src}
				i--
				continue
			}
			for _, v := range vals {
				if !dashdash && strings.HasPrefix(v, "-") && v != "-" {
					return nil, fmt.Sprintf("pattern %s expands to %s, which %s would read as an option", w.src, v, name)
				}
				p.operands = append(p.operands, v)
			}
			continue
		}
		v := w.value
		switch {
		case dashdash || v == "-" || !strings.HasPrefix(v, "-"):
			p.operands = append(p.operands, v)
		case v == "--":
			dashdash = true
			p.dashdash = len(p.operands)
		case strings.HasPrefix(v, "--"):
			n, val, hasVal := strings.Cut(v[2:], "=")
			k, ok := s.long[n]
			if !ok {
				return nil, fmt.Sprintf("%s --%s is not on the list of read-only options (abbreviations count as unknown)", name, n)
			}
			switch k {
			case optFlag:
				if hasVal {
					return nil, fmt.Sprintf("%s --%s takes no value", name, n)
				}
			case optValue, optFile:
				if !hasVal {
					if i+1 >= len(args) {
						return nil, fmt.Sprintf("%s --%s needs a value", name, n)
					}
					i++
					if !args[i].literal {
						return nil, fmt.Sprintf("the value of %s --%s is only known at run time", name, n)
					}
					val = args[i].value
				}
			}
			p.opts = append(p.opts, parsedOpt{name: "--" + n, value: val, kind: k})
		default:
			if s.numeric && allDigits(v[1:]) {
				p.opts = append(p.opts, parsedOpt{name: "-NUM", value: v[1:]})
				continue
			}
			for j := 1; j < len(v); j++ {
				c := v[j]
				k, ok := s.short[c]
				if !ok {
					return nil, fmt.Sprintf("%s -%c is not on the list of read-only options", name, c)
				}
				opt := parsedOpt{name: "-" + string(c), kind: k}
				if k == optFlag {
					p.opts = append(p.opts, opt)
					continue
				}
				opt.value = v[j+1:]
				if opt.value == "" && k != optMaybe {
					if i+1 >= len(args) {
						return nil, fmt.Sprintf("%s -%c needs a value", name, c)
					}
					i++
					if !args[i].literal {
						return nil, fmt.Sprintf("the value of %s -%c is only known at run time", name, c)
					}
					opt.value = args[i].value
				}
				p.opts = append(p.opts, opt)
				break
			}
		}
	}
	return p, ""
}

// unmatched is what bash passes for pattern word w when nothing matches.
func unmatched(w Word) string {
	if w.tilde {
		return ""
	}
	return UnescapeMatch(w.glob)
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// judge parses args against s and checks what they read: file option
// values and file operands must lie in the workspace and outside Read
// deny rules, recursive reads must not follow symlinks out of it.
func (a *analysis) judge(name string, s *cmdSpec, args []Word) string {
	p, why := a.parseArgs(name, s, args)
	if why != "" {
		return why
	}
	if p.dynamic > 0 && s.operands != operandText {
		return name + " gets arguments only known at run time"
	}
	for _, o := range p.opts {
		if o.kind == optFile && o.value != "-" {
			if why := a.outside(o.value); why != "" {
				return why
			}
		}
	}
	files := p.operands
	if len(s.pattern) > 0 && !p.has(s.pattern...) && len(files) > 0 {
		files = files[1:]
	}
	switch s.operands {
	case operandNone:
		if len(p.operands) > 0 {
			return fmt.Sprintf("%s takes no operands here (%s)", name, p.operands[0])
		}
	case operandFiles:
		for _, f := range files {
			if why := a.outside(f); why != "" {
				return why
			}
		}
	}
	if s.maxOperands > 0 && len(p.operands)+p.dynamic > s.maxOperands {
		return fmt.Sprintf("%s with more than %d operands (a later one may be written)", name, s.maxOperands)
	}
	if s.recurse != nil {
		if rec, follow := s.recurse(p); rec {
			dirs := files
			if len(dirs) == 0 && s.dotDefault {
				dirs = []string{"."}
			}
			for _, d := range dirs {
				if why := a.walkCheck(d, follow); why != "" {
					return why
				}
			}
		}
	}
	if s.check != nil {
		return s.check(a, p)
	}
	return ""
}
