// The corpus in testdata is the classifier's conformance suite: every
// command line in it, under its section's rules and mode, must get the
// verdict written beside it from the policy that consults the
// classifier (permission.Policy.Decide), with zero false allows.
package shell_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/internal/shelltest"
	"github.com/agent-lsp/agent-lsp/permission"
	"github.com/agent-lsp/agent-lsp/settings"
)

type corpusCase struct {
	line    int
	want    permission.Verdict
	command string
}

type corpusSection struct {
	name  string
	mode  permission.Mode
	s     settings.Settings
	cases []corpusCase
}

func readCorpus(t *testing.T, path string) []*corpusSection {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var (
		sections []*corpusSection
		cur      *corpusSection
	)
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if name, ok := strings.CutPrefix(line, "== "); ok {
			cur = &corpusSection{name: name, mode: permission.Default}
			sections = append(sections, cur)
			continue
		}
		if cur == nil {
			t.Fatalf("%s:%d: case before any section", path, n)
		}
		key, rest, _ := strings.Cut(line, " ")
		rule := settings.Rule{Text: rest, Pos: settings.Position{File: path, Line: n}}
		switch key {
		case "mode":
			cur.mode = permission.Mode(rest)
			continue
		case "allow-rule":
			cur.s.Permissions.Allow = append(cur.s.Permissions.Allow, rule)
			continue
		case "deny-rule":
			cur.s.Permissions.Deny = append(cur.s.Permissions.Deny, rule)
			continue
		case "ask-rule":
			cur.s.Permissions.Ask = append(cur.s.Permissions.Ask, rule)
			continue
		}
		c := corpusCase{line: n, command: rest}
		switch key {
		case "allow":
			c.want = permission.Allow
		case "ask":
			c.want = permission.Ask
		case "deny":
			c.want = permission.Deny
		default:
			t.Fatalf("%s:%d: unknown line %q", path, n, line)
		}
		if strings.HasPrefix(rest, `"`) {
			c.command, err = strconv.Unquote(rest)
			if err != nil {
				t.Fatalf("%s:%d: %v", path, n, err)
			}
		}
		cur.cases = append(cur.cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return sections
}

// TestBashCorpus checks every command of the corpora in testdata. A
// command expected to ask or be denied that is allowed fails loudly: the
// corpora must have zero false allows.
func TestBashCorpus(t *testing.T) {
	for _, c := range []struct {
		file string
		min  int
	}{
		{"bash_corpus.txt", 100},
		{"classifier_corpus.txt", 250},
	} {
		t.Run(c.file, func(t *testing.T) {
			project, home := shelltest.Workspace(t)
			sections := readCorpus(t, filepath.Join("testdata", c.file))
			total := 0
			for _, sec := range sections {
				sec.s.Home = home
				p := permission.NewPolicy(project, &sec.s, sec.mode)
				if p.Mode() != sec.mode {
					t.Fatalf("section %q: mode %q, want %q", sec.name, p.Mode(), sec.mode)
				}
				for _, cc := range sec.cases {
					total++
					d := p.Decide(permission.Call{Tool: "Bash", Command: cc.command, Kind: "execute", Cwd: project})
					if d.Verdict == cc.want {
						continue
					}
					if d.Verdict == permission.Allow {
						t.Errorf("FALSE ALLOW %s:%d [%s] %q: want %v (%s)", c.file, cc.line, sec.name, cc.command, cc.want, d.Reason)
					} else {
						t.Errorf("%s:%d [%s] %q: got %v, want %v (%s)", c.file, cc.line, sec.name, cc.command, d.Verdict, cc.want, d.Reason)
					}
				}
			}
			if total < c.min {
				t.Errorf("%s has %d cases, want at least %d", c.file, total, c.min)
			}
			t.Logf("%d commands checked", total)
		})
	}
}
