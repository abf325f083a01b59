package permission

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agent-lsp/agent-lsp/settings"
)

func rules(texts ...string) []settings.Rule {
	var out []settings.Rule
	for _, t := range texts {
		out = append(out, settings.Rule{Text: t, Pos: settings.Position{File: "test"}})
	}
	return out
}

func TestToolDecisions(t *testing.T) {
	project, home := workspace(t)
	extra := filepath.Join(filepath.Dir(project), "shared")
	if err := os.MkdirAll(extra, 0o755); err != nil {
		t.Fatal(err)
	}
	in := func(rel string) string { return filepath.Join(project, rel) }
	base := settings.Settings{Home: home}
	base.Permissions.Allow = rules("Edit(docs/**)", "WebFetch(domain:*.example.com)", "mcp__db", "mcp__gh__get_*")
	base.Permissions.Deny = rules("Edit(.env)", "Read(./secrets/**)", "mcp__web__fetch", "Write(//etc/**)")
	base.Permissions.Ask = rules("Edit(docs/private/**)")
	base.Permissions.AdditionalDirectories = []string{extra}

	fetch := func(u string) json.RawMessage { return json.RawMessage(fmt.Sprintf(`{"url": %q}`, u)) }
	cases := []struct {
		name   string
		mode   Mode
		call   Call
		want   Verdict
		always string
	}{
		{"read inside", Default, Call{Tool: "Read", ReadOnly: true, Kind: "read", Paths: []string{in("src/main.go")}}, Allow, ""},
		{"read in additional dir", Default, Call{Tool: "Read", ReadOnly: true, Kind: "read", Paths: []string{filepath.Join(extra, "x")}}, Allow, ""},
		{"read outside", Default, Call{Tool: "Read", ReadOnly: true, Kind: "read", Paths: []string{"/etc/hosts"}}, Ask, "Read(//etc/**)"},
		{"grep denied dir", Default, Call{Tool: "Grep", ReadOnly: true, Kind: "search", Paths: []string{in("secrets/key")}}, Deny, ""},
		{"edit asks", Default, Call{Tool: "Edit", Kind: "edit", Paths: []string{in("src/main.go")}}, Ask, "Edit(src/**)"},
		{"write root file asks", Default, Call{Tool: "Write", Kind: "edit", Paths: []string{in("README.md")}}, Ask, "Edit(/README.md)"},
		{"edit allowed by rule", Default, Call{Tool: "MultiEdit", Kind: "edit", Paths: []string{in("docs/a/b.md")}}, Allow, ""},
		{"ask beats allow", Default, Call{Tool: "Edit", Kind: "edit", Paths: []string{in("docs/private/x.md")}}, Ask, ""},
		{"edit rule covers every edit tool", Default, Call{Tool: "Write", Kind: "edit", Paths: []string{in("sub/.env")}}, Deny, ""},
		{"tool-specific deny", Default, Call{Tool: "Write", Kind: "edit", Paths: []string{"/etc/passwd"}}, Deny, ""},
		{"all paths must be allowed", Default, Call{Tool: "MultiEdit", Kind: "edit", Paths: []string{in("docs/a.md"), in("src/b.go")}}, Ask, ""},
		{"fetch asks", Default, Call{Tool: "WebFetch", ReadOnly: true, Kind: "fetch", Input: fetch("https://evil.test/x")}, Ask, "WebFetch(domain:evil.test)"},
		{"fetch allowed subdomain", Default, Call{Tool: "WebFetch", ReadOnly: true, Kind: "fetch", Input: fetch("https://docs.example.com/")}, Allow, ""},
		{"fetch lookalike", Default, Call{Tool: "WebFetch", ReadOnly: true, Kind: "fetch", Input: fetch("https://badexample.com/")}, Ask, ""},
		{"mcp server rule", Default, Call{Tool: "mcp__db__query"}, Allow, ""},
		{"mcp tool pattern", Default, Call{Tool: "mcp__gh__get_issue"}, Allow, ""},
		{"mcp tool pattern miss", Default, Call{Tool: "mcp__gh__create_issue"}, Ask, "mcp__gh__create_issue"},
		{"mcp read-only hint still asks", Default, Call{Tool: "mcp__other__list", ReadOnly: true}, Ask, ""},
		{"mcp deny", BypassPermissions, Call{Tool: "mcp__web__fetch"}, Deny, ""},
		{"other tool asks", Default, Call{Tool: "Task", Kind: "other"}, Ask, "Task"},
		{"read-only other tool", Default, Call{Tool: "TodoWrite", ReadOnly: true, Kind: "think"}, Allow, ""},

		{"acceptEdits edit", AcceptEdits, Call{Tool: "Edit", Kind: "edit", Paths: []string{in("src/main.go")}}, Allow, ""},
		{"acceptEdits new file", AcceptEdits, Call{Tool: "Write", Kind: "edit", Paths: []string{in("src/new/file.go")}}, Allow, ""},
		{"acceptEdits .git", AcceptEdits, Call{Tool: "Edit", Kind: "edit", Paths: []string{in(".git/config")}}, Ask, ""},
		{"acceptEdits settings", AcceptEdits, Call{Tool: "Write", Kind: "edit", Paths: []string{in(".claude/settings.local.json")}}, Ask, ""},
		{"acceptEdits outside", AcceptEdits, Call{Tool: "Write", Kind: "edit", Paths: []string{"/tmp/x"}}, Ask, ""},
		{"acceptEdits deny holds", AcceptEdits, Call{Tool: "Edit", Kind: "edit", Paths: []string{in(".env")}}, Deny, ""},
		{"acceptEdits shell asks", AcceptEdits, Call{Tool: "Bash", Kind: "execute", Command: "touch x"}, Ask, "Bash(touch x:*)"},

		{"plan read", Plan, Call{Tool: "Read", ReadOnly: true, Kind: "read", Paths: []string{in("README.md")}}, Allow, ""},
		{"plan edit", Plan, Call{Tool: "Edit", Kind: "edit", Paths: []string{in("README.md")}}, Deny, ""},
		{"plan edit even if allowed", Plan, Call{Tool: "Edit", Kind: "edit", Paths: []string{in("docs/x.md")}}, Deny, ""},
		{"plan mcp", Plan, Call{Tool: "mcp__db__query"}, Deny, ""},

		{"bypass edit", BypassPermissions, Call{Tool: "Edit", Kind: "edit", Paths: []string{"/etc/hosts"}}, Allow, ""},
		{"bypass deny", BypassPermissions, Call{Tool: "Edit", Kind: "edit", Paths: []string{in(".env")}}, Deny, ""},
		{"dontAsk edit", DontAsk, Call{Tool: "Edit", Kind: "edit", Paths: []string{in("src/x.go")}}, Deny, ""},
		{"dontAsk read", DontAsk, Call{Tool: "Read", ReadOnly: true, Kind: "read", Paths: []string{in("src/x.go")}}, Allow, ""},
	}
	for _, c := range cases {
		s := base
		p := NewPolicy(project, &s, c.mode)
		d := p.Decide(c.call)
		if d.Verdict != c.want {
			t.Errorf("%s: got %v (%s), want %v", c.name, d.Verdict, d.Reason, c.want)
		}
		if c.always != "" && d.AlwaysRule != c.always {
			t.Errorf("%s: AlwaysRule %q, want %q", c.name, d.AlwaysRule, c.always)
		}
		if d.Verdict == Deny && d.Reason == "" {
			t.Errorf("%s: a denial needs a message for the model", c.name)
		}
	}
}

func TestSuggestedRules(t *testing.T) {
	project, home := workspace(t)
	p := NewPolicy(project, &settings.Settings{Home: home}, Default)
	cases := map[string]string{
		"npm install lodash":              "Bash(npm install:*)",
		"npm run build":                   "Bash(npm run build:*)",
		"git commit -m 'fix the bug'":     "Bash(git commit:*)",
		"cargo build --release":           "Bash(cargo build:*)",
		"go generate ./...":               "Bash(go generate:*)",
		"pytest tests/unit":               "Bash(pytest:*)",
		"make":                            "Bash(make:*)",
		"rm foo.txt":                      "Bash(rm foo.txt)",
		"curl https://example.com":        "Bash(curl https://example.com)",
		"python3 manage.py migrate":       "Bash(python3 manage.py:*)",
		"npx prettier --write src":        "Bash(npx prettier:*)",
		"CI=1 npm install":                "Bash(npm install:*)",
		"timeout 60 cargo test":           "Bash(cargo test:*)",
		"bash -c 'npm ci'":                "Bash(npm ci:*)",
		"npm ci && cargo fetch":           "Bash(npm ci:*), Bash(cargo fetch:*)",
		"git -C src commit -m x":          "Bash(git -C src commit -m x)",
		"echo hi > out.txt":               "",
		"$(which rm) x":                   "",
		"rm *.o":                          "",
		"npm install $(cat deps)":         "Bash(npm install:*)",
		"git status && npm install x":     "Bash(npm install:*)",
		"ls | xargs rm":                   "",
		"cat README.md | python3 lint.py": "Bash(python3 lint.py:*)",
	}
	for cmd, want := range cases {
		d := p.Decide(Call{Tool: "Bash", Command: cmd})
		if d.Verdict != Ask {
			t.Errorf("%q: verdict %v, want ask", cmd, d.Verdict)
			continue
		}
		if d.AlwaysRule != want {
			t.Errorf("%q: AlwaysRule %q, want %q", cmd, d.AlwaysRule, want)
		}
		// A suggested rule must allow the command it was offered for,
		// and nothing unrelated.
		if want == "" {
			continue
		}
		q := NewPolicy(project, &settings.Settings{Home: home, Permissions: settings.Permissions{Allow: rules(d.AlwaysRules...)}}, Default)
		if got := q.Decide(Call{Tool: "Bash", Command: cmd}); got.Verdict != Allow {
			t.Errorf("%q: after allowing %s it still %v (%s)", cmd, want, got.Verdict, got.Reason)
		}
		if got := q.Decide(Call{Tool: "Bash", Command: "rm -rf /"}); got.Verdict == Allow {
			t.Errorf("%q: %s also allows rm -rf /", cmd, want)
		}
	}
}

func TestAllowAlwaysPersistsBashRules(t *testing.T) {
	project, home := workspace(t)
	opts := settings.Options{Project: project, Home: home, CheckRule: CheckRule, TrustProject: true}
	s, _ := settings.Load(opts)
	p := NewPolicy(project, s, "")

	call := Call{Tool: "Bash", Command: "npm install lodash"}
	d := p.Decide(call)
	if d.Verdict != Ask || d.AlwaysRule != "Bash(npm install:*)" {
		t.Fatalf("first decision %+v", d)
	}
	if err := p.AllowAlways(call, d); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"npm install lodash", "npm install react && git status", "npm install x; ls src"} {
		if d := p.Decide(Call{Tool: "Bash", Command: cmd}); d.Verdict != Allow {
			t.Errorf("%q after allow always: %v (%s)", cmd, d.Verdict, d.Reason)
		}
	}
	if d := p.Decide(Call{Tool: "Bash", Command: "npm publish"}); d.Verdict != Ask {
		t.Errorf("npm publish: %v, the rule must not be wider than asked", d.Verdict)
	}

	// The rule is in settings.local.json and holds in a new session.
	s, problems := settings.Load(opts)
	if len(problems) != 0 {
		t.Fatalf("problems: %v", problems)
	}
	q := NewPolicy(project, s, "")
	if d := q.Decide(Call{Tool: "Bash", Command: "npm install left-pad"}); d.Verdict != Allow {
		t.Errorf("new session: %v (%s)", d.Verdict, d.Reason)
	}

	// Edits are remembered for the session only.
	edit := Call{Tool: "Edit", Kind: "edit", Paths: []string{filepath.Join(project, "src", "main.go")}}
	d = q.Decide(edit)
	if err := q.AllowAlways(edit, d); err != nil {
		t.Fatal(err)
	}
	if d := q.Decide(Call{Tool: "Write", Kind: "edit", Paths: []string{filepath.Join(project, "src", "new.go")}}); d.Verdict != Allow {
		t.Errorf("write in src after allowing Edit(src/**): %v", d.Verdict)
	}
	if d := q.Decide(Call{Tool: "Write", Kind: "edit", Paths: []string{filepath.Join(project, "README.md")}}); d.Verdict != Ask {
		t.Errorf("write outside src: %v", d.Verdict)
	}
	data, _ := os.ReadFile(settings.LocalPath(project))
	if strings.Contains(string(data), "Edit") {
		t.Errorf("edit rule persisted: %s", data)
	}

	// A hazard cannot be allowed always.
	d = q.Decide(Call{Tool: "Bash", Command: "npm install x > log"})
	if d.Verdict != Ask || len(d.AlwaysRules) != 0 {
		t.Errorf("redirect: %+v", d)
	}
	if err := q.AllowAlways(Call{Tool: "Bash", Command: "npm install x > log"}, d); err == nil {
		t.Error("AllowAlways without rules succeeded")
	}
}

func TestAddRoots(t *testing.T) {
	project, home := workspace(t)
	other := t.TempDir()
	p := NewPolicy(project, &settings.Settings{Home: home}, Default)
	read := Call{Tool: "Read", ReadOnly: true, Kind: "read", Paths: []string{filepath.Join(other, "x")}}
	if d := p.Decide(read); d.Verdict != Ask {
		t.Errorf("read in another folder before AddRoots: %v", d.Verdict)
	}
	p.AddRoots(other)
	p.Update(&settings.Settings{Home: home})
	if d := p.Decide(read); d.Verdict != Allow {
		t.Errorf("read in an added workspace folder: %v (%s)", d.Verdict, d.Reason)
	}
	if d := p.Decide(Call{Tool: "Bash", Command: "cat " + filepath.Join(other, "x")}); d.Verdict != Allow {
		t.Errorf("cat in an added workspace folder: %v (%s)", d.Verdict, d.Reason)
	}
}

func TestModes(t *testing.T) {
	project, home := workspace(t)
	s := &settings.Settings{Home: home}
	s.Permissions.DefaultMode = "acceptEdits"
	p := NewPolicy(project, s, "")
	if p.Mode() != AcceptEdits {
		t.Errorf("mode %q, want the settings' default", p.Mode())
	}
	if err := p.SetMode("yolo"); err == nil {
		t.Error("SetMode accepted an unknown mode")
	}
	if err := p.SetMode(BypassPermissions); err != nil {
		t.Fatal(err)
	}
	if len(p.Modes()) != 5 || p.ModeState().CurrentModeID != "bypassPermissions" {
		t.Errorf("modes %+v", p.ModeState())
	}
	s2 := &settings.Settings{Home: home}
	s2.Permissions.DisableBypassPermissions = true
	p.Update(s2)
	if p.Mode() != Default {
		t.Errorf("mode %q after the settings disabled bypass", p.Mode())
	}
	if err := p.SetMode(BypassPermissions); err == nil {
		t.Error("SetMode(bypassPermissions) succeeded while disabled")
	}
	for _, m := range p.Modes() {
		if m.ID == string(BypassPermissions) {
			t.Error("Modes lists a disabled mode")
		}
	}
	if q := NewPolicy(project, s2, BypassPermissions); q.Mode() != Default {
		t.Errorf("NewPolicy started in a disabled mode")
	}
}

func TestInvalidRules(t *testing.T) {
	project, home := workspace(t)
	s := &settings.Settings{Home: home}
	s.Permissions.Allow = rules("Bash(npm test", "Read(")
	s.Permissions.Deny = rules("Edit(src/[)", "WebFetch(example.com)")
	p := NewPolicy(project, s, Default)
	if len(p.Invalid()) != 4 {
		t.Errorf("invalid rules %v", p.Invalid())
	}
	if d := p.Decide(Call{Tool: "Bash", Command: "npm test"}); d.Verdict != Ask {
		t.Errorf("an invalid allow rule allowed: %v", d.Verdict)
	}
	// An invalid deny rule asks for every use of its tool, even where the
	// mode would allow.
	p.SetMode(AcceptEdits)
	if d := p.Decide(Call{Tool: "Edit", Kind: "edit", Paths: []string{filepath.Join(project, "x")}}); d.Verdict != Ask {
		t.Errorf("edit under an invalid deny rule: %v", d.Verdict)
	}
	if d := p.Decide(Call{Tool: "WebFetch", ReadOnly: true, Kind: "fetch", Input: json.RawMessage(`{"url":"https://x.org"}`)}); d.Verdict != Ask {
		t.Errorf("fetch under an invalid deny rule: %v", d.Verdict)
	}
}

func TestConcurrentUse(t *testing.T) {
	project, home := workspace(t)
	s := &settings.Settings{Home: home}
	p := NewPolicy(project, s, Default)
	p.persist = func(string) error { return nil }
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 50 {
				cmd := fmt.Sprintf("tool%d run", (i+j)%5)
				c := Call{Tool: "Bash", Command: cmd}
				d := p.Decide(c)
				if d.Verdict == Ask {
					p.AllowAlways(c, d)
				}
				switch j % 10 {
				case 3:
					p.Update(s)
				case 7:
					p.SetMode(AcceptEdits)
					p.SetMode(Default)
				}
				p.Modes()
			}
		}()
	}
	wg.Wait()
	for i := range 5 {
		if d := p.Decide(Call{Tool: "Bash", Command: fmt.Sprintf("tool%d run again", i)}); d.Verdict != Allow {
			t.Errorf("tool%d: %v", i, d.Verdict)
		}
	}
}

func TestHides(t *testing.T) {
	project, home := workspace(t)
	in := func(rel string) string { return filepath.Join(project, rel) }
	s := &settings.Settings{Home: home}
	s.Permissions.Deny = rules("Read(./.env)", "Read(secrets/)", "Grep(*.key)", "Edit(src/**)", "Bash(curl:*)", "Read(bad[)")
	s.Permissions.Ask = rules("Read(./private/**)", "Edit(docs/**)")
	p := NewPolicy(project, s, BypassPermissions)
	tests := []struct {
		tool, path string
		want       bool
	}{
		{"Grep", in(".env"), true},
		{"Glob", in(".env"), true},
		{"LS", in(".env"), true},
		{"Grep", in("sub/.env"), false}, // ./ anchors the rule at the root
		{"Grep", in(".envrc"), false},
		{"Grep", in("x.env"), false},
		{"Grep", in(".env/inside"), true},
		{"Grep", in("secrets"), true},
		{"LS", in("a/secrets/x"), true}, // a bare name matches at any depth
		{"Grep", in("b.key"), true},
		{"Glob", in("b.key"), false},    // a Grep rule covers Grep alone
		{"Grep", in("src/x.go"), false}, // Edit rules hide nothing
		{"Grep", in("README.md"), false},
		{"Glob", in("private/notes.md"), true}, // Read would ask: not shown unasked
		{"Grep", in("docs/a.md"), false},
	}
	for _, tt := range tests {
		if got := p.Hides(tt.tool, tt.path); got != tt.want {
			t.Errorf("Hides(%s, %s) = %v, want %v", tt.tool, tt.path, got, tt.want)
		}
	}
	if got := len(p.HiddenGlobs("Grep")); got != 4 {
		t.Errorf("HiddenGlobs(Grep) = %q, want the four Read and Grep path rules", p.HiddenGlobs("Grep"))
	}
	if got := p.HiddenGlobs("Edit"); len(got) != 0 {
		t.Errorf("HiddenGlobs(Edit) = %q, want none", got)
	}
}
