package shell

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/settings"
)

// workspace makes the test workspace: a project with a few files and
// symlinks, some of which lead out of it, and a home directory outside
// it. testdata/classifier_corpus.txt describes the layout.
func workspace(t testing.TB) (project, home string) {
	t.Helper()
	root := t.TempDir()
	project = filepath.Join(root, "project")
	home = filepath.Join(root, "home")
	outside := filepath.Join(root, "outside")
	for _, d := range []string{
		filepath.Join(project, "src"), filepath.Join(project, ".git"), filepath.Join(project, "deep/a/b"),
		filepath.Join(project, "dash"), filepath.Join(project, "sub"), filepath.Join(project, "inner"),
		filepath.Join(outside, "repo"), filepath.Join(project, "linkedrepo"), home,
	} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range map[string]string{
		"README.md":       "hello\n",
		"package.json":    "{}\n",
		"src/main.go":     "package main\n",
		".env":            "TOKEN=secret\n",
		"secrets/key.pem": "key\n",
		"deep/a/b/x.txt":  "x\n",
		"dash/-rf":        "",
		"inner/notes.txt": "notes\n",
		"sub/.git":        "gitdir: ../../outside/repo\n",
		"sub/file.txt":    "sub\n",
		// Repositories whose config names programs git would run.
		"repos/clean/.git/config":                       "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = x\n[alias]\n\tst = status\n",
		"repos/fsmonitor/.git/config":                   "[core]\n\tfsmonitor = touch /tmp/pwned\n",
		"repos/pager/.git/config":                       "[core]\n\tpager = sh -c id\n",
		"repos/textconv/.git/config":                    "[diff \"x\"]\n\ttextconv = id\n",
		"repos/external/.git/config":                    "[diff]\n\texternal = id\n",
		"repos/filter/.git/config":                      "[filter \"lfs\"]\n\tsmudge = id\n",
		"repos/gpg/.git/config":                         "[gpg]\n\tprogram = id\n[log]\n\tshowSignature = true\n",
		"repos/include/.git/config":                     "[include]\n\tpath = /tmp/evil.config\n",
		"repos/alias/.git/config":                       "[alias]\n\tst = !id\n",
		"repos/hooks/.git/config":                       "[core]\n\thooksPath = /tmp/hooks\n",
		"repos/worktree/.git/config":                    "[core]\n\tworktree = /\n",
		"repos/partial/.git/config":                     "[extensions]\n\tpartialClone = origin\n",
		"repos/trace/.git/config":                       "[trace2]\n\teventTarget = /tmp/x\n",
		"repos/dotted/.git/config":                      "[diff.x]\n\ttextconv = id\n",
		"repos/alternates/.git/objects/info/alternates": "/tmp/objects\n",
	} {
		p := filepath.Join(project, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "passwd"), []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"escape":          outside,                             // a directory outside
		"deep/a/b/out":    outside,                             // nested, for recursive reads
		"inner/readme":    filepath.Join(project, "README.md"), // inside: fine
		"dangling":        filepath.Join(outside, "new.txt"),   // not there yet, outside
		"passwd-link":     filepath.Join(outside, "passwd"),    // a file outside
		"envlink":         filepath.Join(project, ".env"),      // a second name for .env
		"chain":           "dangling",                          // inside, but leads to the missing file outside
		"linkedrepo/.git": filepath.Join(outside, "repo"),      // a .git symlink leading out
	} {
		if err := os.Symlink(target, filepath.Join(project, link)); err != nil {
			t.Fatal(err)
		}
	}
	return project, home
}

type corpusCase struct {
	line    int
	want    Verdict
	command string
}

type corpusSection struct {
	name  string
	mode  Mode
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
			cur = &corpusSection{name: name, mode: Default}
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
			cur.mode = Mode(rest)
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
			c.want = Allow
		case "ask":
			c.want = Ask
		case "deny":
			c.want = Deny
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
			project, home := workspace(t)
			sections := readCorpus(t, filepath.Join("testdata", c.file))
			total := 0
			for _, sec := range sections {
				sec.s.Home = home
				p := NewPolicy(project, &sec.s, sec.mode)
				if p.Mode() != sec.mode {
					t.Fatalf("section %q: mode %q, want %q", sec.name, p.Mode(), sec.mode)
				}
				for _, cc := range sec.cases {
					total++
					d := p.Decide(Call{Tool: "Bash", Command: cc.command, Kind: "execute", Cwd: project})
					if d.Verdict == cc.want {
						continue
					}
					if d.Verdict == Allow {
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
