package permission

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/permission/shell"
	"github.com/agent-lsp/agent-lsp/settings"
)

func TestParseRule(t *testing.T) {
	valid := map[string]ruleKind{
		"Read":                          kindTool,
		"Bash":                          kindTool,
		"Bash(*)":                       kindTool,
		"Edit(**)":                      kindTool,
		"Bash(npm test:*)":              kindPrefix,
		"Bash(git diff:*)":              kindPrefix,
		"Bash(npm run build)":           kindExact,
		"Bash(grep '*' file)":           kindExact,
		"Bash(git * main)":              kindWildcard,
		"Bash(npm run *)":               kindWildcard,
		"Edit(src/**)":                  kindPath,
		"Read(./.env)":                  kindPath,
		"Read(//etc/**)":                kindPath,
		"Edit(~/notes/*.md)":            kindPath,
		"Write(/docs/**)":               kindPath,
		"WebFetch(domain:example.com)":  kindDomain,
		"WebFetch(domain:*.github.com)": kindDomain,
		"mcp__github":                   kindMCP,
		"mcp__github__create_issue":     kindMCP,
		"mcp__github__get_*":            kindMCP,
		"mcp__my-server.v2__tool":       kindMCP,
		"TodoWrite":                     kindTool,
	}
	for text, kind := range valid {
		r, err := ParseRule(text)
		if err != nil {
			t.Errorf("ParseRule(%q): %v", text, err)
			continue
		}
		if r.kind != kind {
			t.Errorf("ParseRule(%q) kind %d, want %d", text, r.kind, kind)
		}
	}
	invalid := []string{
		"", "Bash(", "Bash()", "Bash(npm test", "Bash)", "Bash(ls; rm x)", "Bash(ls > f)",
		"Bash(echo \"unterminated)", "Edit(src/[)", "WebFetch(example.com)", "WebFetch(domain:)",
		"WebFetch(domain:a b)", "mcp__", "mcp__server(x)", "Task(foo)", "rm -rf", "1Tool", "Bash(FOO=1 x)",
	}
	for _, text := range invalid {
		if _, err := ParseRule(text); err == nil {
			t.Errorf("ParseRule(%q) succeeded, want an error", text)
		}
	}
}

func TestBashRuleMatching(t *testing.T) {
	env := &shell.Env{Cwd: "/w", Roots: []string{"/w"}, Home: "/home/u"}
	cases := []struct {
		rule, cmd string
		want      bool
	}{
		{"Bash(npm test:*)", "npm test", true},
		{"Bash(npm test:*)", "npm test --watch", true},
		{"Bash(npm test:*)", "npm  'test'  -x", true},
		{"Bash(npm test:*)", "npm testing", false},
		{"Bash(npm test:*)", "'npm test'", false},
		{"Bash(npm run build)", "npm run build", true},
		{"Bash(npm run build)", "npm run build x", false},
		{"Bash(git * main)", "git push origin main", true},
		{"Bash(git * main)", "git push origin dev", false},
		{"Bash(ls *)", "ls", true},
		{"Bash(ls *)", "ls -la", true},
		{"Bash(ls *)", "lsof", false},
		{`Bash(echo "a b":*)`, "echo 'a b' c", true},
		{`Bash(echo "a b":*)`, "echo a b", false},
		{"Bash(grep '*' f)", "grep '*' f", true},
		{"Bash(grep '*' f)", "grep x f", false},
	}
	for _, c := range cases {
		r, err := ParseRule(c.rule)
		if err != nil {
			t.Fatalf("%s: %v", c.rule, err)
		}
		s, err := shell.Parse(c.cmd, env)
		if err != nil {
			t.Fatalf("%q: %v", c.cmd, err)
		}
		var cmds []*shell.Command
		s.Find(func(c *shell.Command) bool { cmds = append(cmds, c); return false })
		if len(cmds) != 1 {
			t.Fatalf("%q: %d commands, want 1", c.cmd, len(cmds))
		}
		if got := r.matchCommand(cmds[0].Words(), false); got != c.want {
			t.Errorf("%s vs %q: %v, want %v", c.rule, c.cmd, got, c.want)
		}
	}
}

func TestPathRules(t *testing.T) {
	project, home := "/w/proj [1]", "/home/u"
	cases := []struct {
		pattern, path string
		want          bool
	}{
		{"src/**", "/w/proj [1]/src/a/b.go", true},
		{"src/**", "/w/proj [1]/lib/src/a.go", false},
		{"src", "/w/proj [1]/src/a.go", true},
		{"*.env", "/w/proj [1]/a/b/prod.env", true},
		{".env", "/w/proj [1]/.env", true},
		{".env", "/w/proj [1]/.envrc", false},
		{"/docs/*.md", "/w/proj [1]/docs/a.md", true},
		{"/docs/*.md", "/w/proj [1]/docs/x/a.md", false},
		{"./docs/**", "/w/proj [1]/docs/x/a.md", true},
		{"//etc/**", "/etc/passwd", true},
		{"//etc/**", "/w/proj [1]/etc/passwd", false},
		{"~/.ssh/**", "/home/u/.ssh/id_rsa", true},
		{"~/.ssh/**", "/w/proj [1]/.ssh/id_rsa", false},
	}
	for _, c := range cases {
		glob := pathGlob(c.pattern, project, home)
		if got := matchPath(glob, filepath.Clean(c.path)); got != c.want {
			t.Errorf("%s (%s) vs %s: %v, want %v", c.pattern, glob, c.path, got, c.want)
		}
	}
}

// FuzzParseRule checks that ParseRule never panics, and that a rule it
// accepts prints back to a rule that parses to the same thing.
func FuzzParseRule(f *testing.F) {
	for _, seed := range []string{
		"Read", "Bash(npm test:*)", "Bash(git diff:*)", "Bash(git * main)", "Bash(ls *)",
		"Edit(src/**)", "Read(//etc/**)", "Edit(~/x/*.md)", "WebFetch(domain:example.com)",
		"WebFetch(domain:*.example.com)", "mcp__server", "mcp__server__tool", "mcp__s__get_*",
		"Bash(echo \"a b\":*)", "Bash(", "Bash(()", "Bash(a:*:*)", "Edit([)", "Bash($(x))",
		"Bash(a && b)", "Bash(*:*)", "Bash(echo 'x)", "mcp__a__b__c",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		r, err := ParseRule(text)
		if err != nil {
			if CheckRule(text) == nil {
				t.Fatalf("CheckRule accepts %q, ParseRule does not", text)
			}
			return
		}
		again, err := ParseRule(r.String())
		if err != nil {
			t.Fatalf("%q parsed, but its String %q does not: %v", text, r.String(), err)
		}
		if again.String() != r.String() || again.kind != r.kind || again.Tool != r.Tool {
			t.Fatalf("%q -> %q -> %q (kind %d -> %d)", text, r.String(), again.String(), r.kind, again.kind)
		}
		if r.kind == kindPath {
			matchPath(pathGlob(r.Content, "/p", "/h"), "/p/x")
		}
		if r.kind == kindPrefix || r.kind == kindExact || r.kind == kindWildcard {
			if sc, err := shell.Parse("x", &shell.Env{}); err == nil {
				if c := sc.Find(func(*shell.Command) bool { return true }); c != nil {
					r.matchCommand(c.Words(), strings.HasPrefix(text, "B"))
				}
			}
		}
	})
}

// FuzzDecideBash checks that no command line makes the classifier panic.
func FuzzDecideBash(f *testing.F) {
	for _, seed := range []string{
		"ls", "git status; rm -rf ~", "echo $(curl x | sh)", "bash -c 'bash -c \"eval ls\"'",
		"x=1 y=$(z) cmd <(a) >(b) 2>&1 | c && d || e &", "for i in *; do [[ $i -eq 1 ]]; done",
		"cd src && cat ../x", "xargs -I{} sh -c '{}'", "find . -exec rm {} +", "f() { g; }; f",
	} {
		f.Add(seed)
	}
	for _, seed := range []string{
		"sort --out=x -k1,2 -- a -b", "git -C . -c x=y log --format=%G? -p -- a", "cat .e?v {a,b} ~/x $'\\t'",
		"sed -n '1{p;q};s/a/b/gw x' f", "xxd -s 0x10 -ps a b", "wait -p 'a[$(id)]'", "builtin cd / && ls",
		"grep -R -f/etc/x --include=*.go foo deep", "find -L . -newer x -printf %p", "jq --arg a b -f x .",
	} {
		f.Add(seed)
	}
	project, home := workspace(f)
	p := NewPolicy(project, nil, Default)
	s := settings.Settings{Home: home}
	for _, r := range []string{"Read(./.env)", "Bash(rm:*)", "Bash(git push:*)", "Edit(secrets/**)"} {
		s.Permissions.Deny = append(s.Permissions.Deny, settings.Rule{Text: r})
	}
	q := NewPolicy(project, &s, BypassPermissions)
	f.Fuzz(func(t *testing.T, cmd string) {
		for _, p := range []*Policy{p, q} {
			d := p.Decide(Call{Tool: "Bash", Command: cmd, Cwd: project})
			if d.Verdict == Deny && d.Reason == "" {
				t.Fatalf("%q: denial without a reason", cmd)
			}
		}
	})
}
