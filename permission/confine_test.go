package permission

import (
	"slices"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/settings"
)

func TestConfinement(t *testing.T) {
	project, home := workspace(t)
	base := settings.Settings{Home: home}
	base.Permissions.Allow = rules("Bash(npm test:*)")
	base.Permissions.Deny = rules("Read(./.env)", "Read(secrets/**)", "Edit(src/**)")
	cases := []struct {
		name    string
		mode    Mode
		command string
		want    Verdict
		confine Confinement
	}{
		{"read-only is confined", Default, "grep -r foo src", Allow, ConfineReadOnly},
		{"rule-allowed is not", Default, "npm test", Allow, NotConfined},
		{"rule and read-only together are not", Default, "npm test && ls", Allow, NotConfined},
		{"bypass is not", BypassPermissions, "rm -rf build", Allow, NotConfined},
		{"acceptEdits write is confined writable", AcceptEdits, "ls > out.txt", Allow, ConfineWorkspace},
		{"acceptEdits read-only stays read-only", AcceptEdits, "ls", Allow, ConfineReadOnly},
		{"plan read-only is confined", Plan, "cat README.md", Allow, ConfineReadOnly},
		{"asking is not", Default, "rm README.md", Ask, NotConfined},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := NewPolicy(project, &base, c.mode)
			d := p.Decide(Call{Tool: "Bash", Command: c.command, Cwd: project})
			if d.Verdict != c.want || d.Confine != c.confine {
				t.Errorf("%q: %v confine=%d (%s), want %v confine=%d", c.command, d.Verdict, d.Confine, d.Reason, c.want, c.confine)
			}
		})
	}

	p := NewPolicy(project, &base, Default)
	globs := p.DenyReadGlobs()
	if len(globs) != 2 || !slices.ContainsFunc(globs, func(g string) bool { return strings.HasSuffix(g, "/.env") }) {
		t.Errorf("DenyReadGlobs = %q, want the two Read rules", globs)
	}
}

func TestUnconfinedShortList(t *testing.T) {
	project, home := workspace(t)
	base := settings.Settings{Home: home}
	cases := []struct {
		command string
		want    Verdict
	}{
		{"ls -la src", Allow},
		{"pwd", Allow},
		{"cat README.md | head -n 5", Allow},
		{"tail -20 README.md && wc -l README.md", Allow},
		{"git status --short", Allow},
		{"git diff --stat", Allow},
		{"git log --oneline -n 5", Allow},
		{"grep -r foo src", Ask},
		{"git log --format=%GG", Ask},
		{"git show HEAD", Ask},
		{"sort README.md", Ask},
		{"ls src/*.go", Ask},
		{"head -n x README.md", Ask},
	}
	for _, c := range cases {
		p := NewPolicy(project, &base, Default)
		if d := p.Decide(Call{Tool: "Bash", Command: c.command, Cwd: project}); d.Verdict != Allow {
			if c.want == Allow {
				t.Errorf("%q: classifier verdict %v (%s); the short list holds only read-only commands", c.command, d.Verdict, d.Reason)
			}
			continue // the classifier asks already: nothing for the short list to do
		}
		p.SetUnconfined(true)
		d := p.Decide(Call{Tool: "Bash", Command: c.command, Cwd: project})
		if d.Verdict != c.want {
			t.Errorf("unconfined %q: %v (%s), want %v", c.command, d.Verdict, d.Reason, c.want)
		}
		p.SetMode(DontAsk)
		if d := p.Decide(Call{Tool: "Bash", Command: c.command, Cwd: project}); c.want == Ask && d.Verdict != Deny {
			t.Errorf("unconfined dontAsk %q: %v, want deny", c.command, d.Verdict)
		}
	}
}
