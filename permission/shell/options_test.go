package shell

import (
	"testing"

	"github.com/agent-lsp/agent-lsp/internal/shelltest"
)

// TestReadOnlySpecs checks that every read-only command is judged by an
// option allowlist or by a parser of its own: an entry with neither
// would let any option through.
func TestReadOnlySpecs(t *testing.T) {
	for name, s := range readOnlyCommands() {
		if _, ok := special[name]; ok {
			continue
		}
		if s == nil || s.short == nil || s.long == nil {
			t.Errorf("%s has no option allowlist and no parser of its own", name)
		}
	}
}

// TestParseArgs checks getopt-style splitting against a spec.
func TestParseArgs(t *testing.T) {
	s := spec("nc:f@", "lines= file=@ color? quiet")
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
