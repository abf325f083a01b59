package permission

import (
	"slices"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/internal/shelltest"
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
		{"rule-allowed runs in the rule sandbox", Default, "npm test", Allow, ConfineRule},
		{"rule and read-only together", Default, "npm test && ls", Allow, ConfineRule},
		{"rule-allowed in acceptEdits", AcceptEdits, "npm test -- --watch=false", Allow, ConfineRule},
		{"rule-allowed in dontAsk", DontAsk, "npm test", Allow, ConfineRule},
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

	// A bare Bash rule and a session "always allow" grant are rules too.
	bare := base
	bare.Permissions.Allow = rules("Bash")
	if d := NewPolicy(project, &bare, Default).Decide(Call{Tool: "Bash", Command: "rm -rf build", Cwd: project}); d.Verdict != Allow || d.Confine != ConfineRule {
		t.Errorf("bare Bash rule: %v confine=%d, want allow in the rule sandbox", d.Verdict, d.Confine)
	}
	p := NewPolicy(project, &base, Default)
	call := Call{Tool: "Bash", Command: "make build", Cwd: project}
	d := p.Decide(call)
	if d.Verdict != Ask || d.AlwaysRule == "" {
		t.Fatalf("make build: %v %q, want a question offering always", d.Verdict, d.AlwaysRule)
	}
	if err := p.AllowAlways(call, d); err != nil {
		t.Fatal(err)
	}
	if d := p.Decide(call); d.Verdict != Allow || d.Confine != ConfineRule {
		t.Errorf("after always allow: %v confine=%d, want allow in the rule sandbox", d.Verdict, d.Confine)
	}

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
		{"cat -n README.md", Allow}, // -n numbers lines: a flag, not a value
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

// workspace makes the workspace the classifier's corpus is written
// against (see package shelltest).
func workspace(t testing.TB) (project, home string) { return shelltest.Workspace(t) }
