//go:build !windows

package permission

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/settings"
)

// TestFilesNotNames: a file the call names by a second name (a hard link)
// is decided as the file: a second name of a file a deny rule covers is
// denied, and one that may be a file outside the workspace is treated as
// outside.
func TestFilesNotNames(t *testing.T) {
	project, home := workspace(t)
	in := func(rel string) string { return filepath.Join(project, rel) }
	outside := filepath.Join(filepath.Dir(project), "outside", "secret.txt")
	if err := os.WriteFile(outside, []byte("outside\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(in("keys"), 0o755)
	os.WriteFile(in("keys/id.pem"), []byte("key\n"), 0o600)
	for link, target := range map[string]string{
		"env-copy.txt":     in(".env"),        // a name for a file Read(./.env) denies
		"docs/key.txt":     in("keys/id.pem"), // one Edit(keys/**) denies
		"outside-copy.txt": outside,           // a file outside the workspace
	} {
		os.MkdirAll(filepath.Dir(in(link)), 0o755)
		if err := os.Link(target, in(link)); err != nil {
			t.Skipf("no hard links here: %v", err)
		}
	}
	s := &settings.Settings{Home: home}
	s.Permissions.Deny = rules("Read(./.env)", "Edit(keys/**)")
	s.Permissions.Allow = rules("Read(./**)", "Edit(./**)")
	cases := []struct {
		mode       Mode
		tool, path string
		want       Verdict
		reason     string
	}{
		{Default, "Read", in("env-copy.txt"), Deny, ".env"},
		{BypassPermissions, "Read", in("env-copy.txt"), Deny, "deny rule"},
		{BypassPermissions, "Grep", in("env-copy.txt"), Deny, "deny rule"},
		{AcceptEdits, "Edit", in("env-copy.txt"), Deny, "deny rule"},
		{Default, "Read", in("docs/key.txt"), Deny, "keys/id.pem"},
		{Default, "Read", in("outside-copy.txt"), Ask, "2 names"},
		{AcceptEdits, "Write", in("outside-copy.txt"), Ask, "hard links"},
		{DontAsk, "Read", in("outside-copy.txt"), Deny, "dontAsk"},
		{Plan, "Edit", in("outside-copy.txt"), Deny, "plan mode"},
		{BypassPermissions, "Read", in("outside-copy.txt"), Allow, ""},
		{Default, "Read", in("README.md"), Allow, ""}, // one name: the rules as usual
		{Default, "Read", in(".env"), Deny, "Read(./.env)"},
	}
	for _, c := range cases {
		p := NewPolicy(project, s, c.mode)
		d := p.Decide(Call{Tool: c.tool, Paths: []string{c.path}, Cwd: project})
		if d.Verdict != c.want || !strings.Contains(d.Reason, c.reason) {
			t.Errorf("%s %s %s = %v (%s), want %v with %q", c.mode, c.tool, c.path, d.Verdict, d.Reason, c.want, c.reason)
		}
	}
}

// TestFilesNotNamesUnsearchable: when a deny rule's files cannot all be
// looked at (a rule over the whole disk), a file with several names is
// refused rather than guessed about.
func TestFilesNotNamesUnsearchable(t *testing.T) {
	project, home := workspace(t)
	in := func(rel string) string { return filepath.Join(project, rel) }
	if err := os.Link(in("README.md"), in("readme-copy.md")); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	s := &settings.Settings{Home: home}
	s.Permissions.Deny = rules("Read(//**/id_rsa)")
	d := NewPolicy(project, s, Default).Decide(Call{Tool: "Read", Paths: []string{in("readme-copy.md")}, Cwd: project})
	if d.Verdict != Deny || !strings.Contains(d.Reason, "cannot be ruled out") {
		t.Errorf("Read of a second name with a deny rule over the disk = %v (%s), want Deny", d.Verdict, d.Reason)
	}
}
