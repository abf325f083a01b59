package shell

import (
	"fmt"
	"regexp"
	"sync"
	"testing"

	"github.com/agent-lsp/agent-lsp/internal/shelltest"
)

// TestOptionTables checks every command's option table: each option is
// listed once, with a well-formed name and a known kind, and every entry
// has a table or a parser of its own (an entry with neither would judge
// nothing).
func TestOptionTables(t *testing.T) {
	tables := map[string]map[string]*cmdSpec{"": readOnlyCommands(), "git ": gitSpecs(), "wrapper ": wrapperSpecs(),
		"writer ": {"sed": sedSpecWrites()}}
	for name, w := range writers() {
		tables["writer "][name] = w.spec
	}
	n := 0
	for prefix, table := range tables {
		for name, s := range table {
			n++
			for _, err := range tableErrors(s) {
				t.Errorf("%s%s: %s", prefix, name, err)
			}
		}
	}
	if n < 100 {
		t.Errorf("checked %d commands, want the whole registry", n)
	}

	// The check itself catches what it is for.
	for _, c := range []struct {
		name string
		s    *cmdSpec
	}{
		{"a duplicate", spec([]opt{{"-w", optFlag}, {"--all", optFlag}, {"-w", optValue}})},
		{"an unknown kind", spec([]opt{{"-w", optKind(9)}})},
		{"a malformed name", spec([]opt{{"--Bad=", optValue}})},
		{"neither table nor parser", &cmdSpec{}},
		{"a short-listed option it does not have", spec([]opt{{"-l", optFlag}}, unconfined("-a"))},
		{"an unknown operand kind", spec(nil, func(s *cmdSpec) { s.operands = operandKind(7) })},
	} {
		if errs := tableErrors(c.s); len(errs) == 0 {
			t.Errorf("a table with %s passes", c.name)
		}
	}
}

// tableErrors returns what is wrong with a command's table.
func tableErrors(s *cmdSpec) []string {
	var errs []string
	if s == nil || s.parse == nil && (s.short == nil || s.long == nil) {
		return []string{"no option table and no parser of its own"}
	}
	if s.operands > operandNone {
		errs = append(errs, fmt.Sprintf("unknown operand kind %d", s.operands))
	}
	seen := map[string]bool{}
	for _, o := range s.opts {
		if !optNameRE().MatchString(o.name) {
			errs = append(errs, fmt.Sprintf("malformed option name %q", o.name))
		}
		if o.kind > optMaybe {
			errs = append(errs, fmt.Sprintf("%s has an unknown kind %d", o.name, o.kind))
		}
		if seen[o.name] {
			errs = append(errs, o.name+" is listed twice")
		}
		seen[o.name] = true
	}
	for _, name := range s.bareOpts {
		if !seen[name] {
			errs = append(errs, "the short list names "+name+", which is not an option")
		}
	}
	return errs
}

var optNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(-[A-Za-z0-9]|--[a-z0-9][a-z0-9-]*)$`) })

// TestParseArgs checks getopt-style splitting against a spec.
func TestParseArgs(t *testing.T) {
	s := spec([]opt{{"-n", optFlag}, {"-c", optValue}, {"-f", optFile}, {"--lines", optValue}, {"--file", optFile}, {"--color", optMaybe}, {"--quiet", optFlag}})
	a := &analysis{env: &Env{}, s: &Script{}}
	for _, c := range []struct {
		args     []string
		operands []string
		values   map[string]string
		bad      bool
	}{
		{args: []string{"-n", "x"}, operands: []string{"x"}},
		{args: []string{"-nc5", "x"}, operands: []string{"x"}, values: map[string]string{"-c": "5"}},
		{args: []string{"-c", "5", "x"}, operands: []string{"x"}, values: map[string]string{"-c": "5"}},
		{args: []string{"-fpath"}, values: map[string]string{"-f": "path"}},
		{args: []string{"--lines=3", "--file", "p"}, values: map[string]string{"--lines": "3", "--file": "p"}},
		{args: []string{"x", "--quiet", "y"}, operands: []string{"x", "y"}},
		{args: []string{"--", "-n", "--lines=3"}, operands: []string{"-n", "--lines=3"}},
		{args: []string{"--color"}},
		{args: []string{"--color=always"}, values: map[string]string{"--color": "always"}},
		{args: []string{"--line=3"}, bad: true},  // an abbreviation
		{args: []string{"--qui"}, bad: true},     // an abbreviation
		{args: []string{"--quiet=x"}, bad: true}, // a flag with a value
		{args: []string{"-x"}, bad: true},
		{args: []string{"-nx"}, bad: true},
		{args: []string{"-c"}, bad: true}, // a missing value
	} {
		words := make([]Word, len(c.args))
		for i, v := range c.args {
			words[i] = Word{value: v, literal: true, src: v}
		}
		p, why := a.parseArgs("cmd", s, words)
		if c.bad {
			if why == "" {
				t.Errorf("%q: parsed, want refused", c.args)
			}
			continue
		}
		if why != "" {
			t.Errorf("%q: %s", c.args, why)
			continue
		}
		if len(p.operands) != len(c.operands) {
			t.Errorf("%q: operands %q, want %q", c.args, p.operands, c.operands)
			continue
		}
		for i := range c.operands {
			if p.operands[i] != c.operands[i] {
				t.Errorf("%q: operands %q, want %q", c.args, p.operands, c.operands)
			}
		}
		for name, v := range c.values {
			if got := p.values(name); len(got) != 1 || got[0] != v {
				t.Errorf("%q: %s = %q, want %q", c.args, name, got, v)
			}
		}
	}
}

// TestRealPath checks that paths are resolved physically.
func TestRealPath(t *testing.T) {
	project, _ := shelltest.Workspace(t)
	project = realPath("/", project)
	outside := realPath("/", project+"/../outside")
	for _, c := range []struct{ in, want string }{
		{"escape/..", realPath("/", project+"/..")},
		{"escape/passwd", outside + "/passwd"},
		{"inner/readme", project + "/README.md"},
		{"src/../README.md", project + "/README.md"},
		{"chain", outside + "/new.txt"},
		{"dangling/x", outside + "/new.txt/x"},
		{"missing/../x", project + "/x"},
	} {
		if got := realPath(project, c.in); got != c.want {
			t.Errorf("realPath(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
