package permission

import (
	"testing"

	"github.com/agent-lsp/agent-lsp/settings"
)

// TestEditDenyHoldsAgainstShellWrites: an Edit deny rule held against
// the Edit and Write tools only, so in acceptEdits a redirect wrote the
// file, and in bypassPermissions (or with an allow rule) so did tee, cp,
// sed -i and the rest (issue 29). A write the rule covers is refused in
// every mode, in any spelling; a write whose file cannot be told asks,
// and is refused where nothing asks.
func TestEditDenyHoldsAgainstShellWrites(t *testing.T) {
	project, home := workspace(t)
	base := settings.Settings{Home: home}
	base.Permissions.Deny = rules("Edit(.env)", "Edit(secrets/**)")
	withAllow := base
	withAllow.Permissions.Allow = rules("Bash")
	policies := []struct {
		name string
		s    settings.Settings
		mode Mode
		// unsure is the verdict for a write that cannot be told.
		unsure Verdict
	}{
		{"default with a Bash allow rule", withAllow, Default, Ask},
		{"default", base, Default, Ask},
		{"acceptEdits", base, AcceptEdits, Ask},
		{"bypassPermissions", base, BypassPermissions, Deny},
		{"plan", base, Plan, Deny},
		{"dontAsk", base, DontAsk, Deny},
	}
	denied := []string{
		"echo x > .env",
		"echo x >> .env",
		`echo x > ".env"`,
		"echo x > './.env'",
		"echo x > ./.env",
		"echo x > src/../.env",
		"echo x > " + project + "/.env",
		"echo x > .e*", // a glob whose one match is .env
		"echo x > envlink",
		"printf x 1> secrets/key.pem",
		"echo x &> secrets/new",
		"cat README.md | tee .env",
		"tee -a secrets/key.pem < README.md",
		"cp README.md .env",
		"cp README.md secrets/",
		"cp -t secrets README.md",
		"mv .env old.env",
		"mv README.md secrets",
		"sed -i s/a/b/ .env",
		"sed -i.bak -e s/a/b/ secrets/key.pem",
		"dd if=README.md of=.env",
		"truncate -s 0 .env",
		"touch secrets/x",
		"rm -f .env",
		"rm -rf secrets",
		"/bin/rm .env",
		"ln -sf README.md .env",
		"chmod 600 .env",
		"install -m 600 README.md .env",
		"env tee .env < README.md",
		"timeout 5 rm .env",
		"bash -c 'echo x > .env'",
		"sudo tee .env < README.md",
		"ls && echo x > .env",
		"find . -name x -fprint .env",
	}
	unsure := []string{
		"echo x > $PWD/.env",
		"f=.env; echo x > $f",
		"echo x > \"$HOME/.env\"",
		"tee $(echo .env) < README.md",
		"rm -f *.$EXT",
		"xargs rm < README.md",
		"find . -name .env -delete",
		"find . -exec rm {} +",
		"sed -i s/a/b/ $f",
		"sed 's/a/b/w .env' README.md",
		"cp --frobnicate README.md .env.copy",
		"eval \"$CMD\"",
		"sh < README.md",
	}
	for _, pc := range policies {
		p := NewPolicy(project, &pc.s, pc.mode)
		for _, cmd := range denied {
			if d := p.Decide(Call{Tool: "Bash", Command: cmd, Cwd: project}); d.Verdict != Deny {
				t.Errorf("%s: %q: %v (%s), want deny: an Edit deny rule covers the file it writes", pc.name, cmd, d.Verdict, d.Reason)
			}
		}
		for _, cmd := range unsure {
			if d := p.Decide(Call{Tool: "Bash", Command: cmd, Cwd: project}); d.Verdict != pc.unsure {
				t.Errorf("%s: %q: %v (%s), want %v: what it writes cannot be told while Edit deny rules exist", pc.name, cmd, d.Verdict, d.Reason, pc.unsure)
			}
		}
	}

	// Writes the rules do not cover, and reading a covered file, are
	// decided as before.
	for _, c := range []struct {
		mode Mode
		cmd  string
		want Verdict
	}{
		{AcceptEdits, "echo x > notes.txt", Allow},
		{AcceptEdits, "echo x > secrets.txt", Allow},
		{BypassPermissions, "cp .env env.backup", Allow},
		{BypassPermissions, "rm -rf build", Allow},
		{BypassPermissions, "mv src/main.go src/old.go", Allow},
		{Default, "cat .env", Allow},
		{Default, "cp README.md docs.md", Ask},
	} {
		p := NewPolicy(project, &base, c.mode)
		if d := p.Decide(Call{Tool: "Bash", Command: c.cmd, Cwd: project}); d.Verdict != c.want {
			t.Errorf("%s: %q: %v (%s), want %v", c.mode, c.cmd, d.Verdict, d.Reason, c.want)
		}
	}

	// An invalid Edit deny rule asks for every edit, shell writes too.
	invalid := settings.Settings{Home: home}
	invalid.Permissions.Deny = rules("Edit(src/[)")
	if d := NewPolicy(project, &invalid, AcceptEdits).Decide(Call{Tool: "Bash", Command: "echo x > notes.txt", Cwd: project}); d.Verdict != Ask {
		t.Errorf("invalid Edit deny rule: %v (%s), want ask", d.Verdict, d.Reason)
	}
	// A bare Edit deny rule denies every edit.
	bare := settings.Settings{Home: home}
	bare.Permissions.Deny = rules("Edit")
	if d := NewPolicy(project, &bare, BypassPermissions).Decide(Call{Tool: "Bash", Command: "echo x > notes.txt", Cwd: project}); d.Verdict != Deny {
		t.Errorf("bare Edit deny rule: %v (%s), want deny", d.Verdict, d.Reason)
	}
	// A command that does not parse cannot be checked.
	if d := NewPolicy(project, &base, BypassPermissions).Decide(Call{Tool: "Bash", Command: "echo x > .env (", Cwd: project}); d.Verdict != Deny {
		t.Errorf("unparseable in bypassPermissions with Edit deny rules: %v (%s), want deny", d.Verdict, d.Reason)
	}
}
