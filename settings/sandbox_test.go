package settings

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestSandboxFilesystem: sandbox.filesystem's four lists (Claude Code's
// allowRead, denyRead, allowWrite, denyWrite) are read from every layer,
// made absolute ("~/" under the home, relative under the project) and
// added up; an untrusted project keeps its denials and loses its grants.
func TestSandboxFilesystem(t *testing.T) {
	f := newFixture(t)
	write(t, f.home+"/.claude/settings.json", `{"sandbox": {"filesystem": {"allowRead": ["~/.config/tool"], "denyRead": ["/srv/private"], "allowWrite": ["~/.cache/go-build"], "denyWrite": ["~/locked"]}}}`)
	write(t, f.project+"/.claude/settings.json", `{"sandbox": {"filesystem": {"allowRead": ["vendor-cache"], "denyRead": ["secrets"], "allowWrite": ["/"], "denyWrite": ["build/locked"]}}}`)
	s, problems := Load(f.opts())
	if len(problems) > 0 {
		t.Fatalf("problems: %v", problems)
	}
	want := SandboxFilesystem{
		AllowWrite: []string{"/", filepath.Join(f.home, ".cache/go-build")},
		AllowRead:  []string{filepath.Join(f.project, "vendor-cache"), filepath.Join(f.home, ".config/tool")},
		DenyRead:   []string{filepath.Join(f.project, "secrets"), "/srv/private"},
		DenyWrite:  []string{filepath.Join(f.project, "build/locked"), filepath.Join(f.home, "locked")},
	}
	if !reflect.DeepEqual(s.Sandbox.Filesystem, want) {
		t.Errorf("trusted: filesystem = %+v\nwant %+v", s.Sandbox.Filesystem, want)
	}
	opts := f.opts()
	opts.TrustProject = false
	s, _ = Load(opts)
	want = SandboxFilesystem{
		AllowWrite: []string{filepath.Join(f.home, ".cache/go-build")},
		AllowRead:  []string{filepath.Join(f.home, ".config/tool")},
		DenyRead:   []string{filepath.Join(f.project, "secrets"), "/srv/private"},
		DenyWrite:  []string{filepath.Join(f.project, "build/locked"), filepath.Join(f.home, "locked")},
	}
	if !reflect.DeepEqual(s.Sandbox.Filesystem, want) {
		t.Errorf("untrusted: filesystem = %+v\nwant %+v", s.Sandbox.Filesystem, want)
	}
}

// TestSandboxNetwork: sandbox.network's allowedDomains and deniedDomains
// are read from every layer and added up; an untrusted project keeps its
// denials and loses its grants.
func TestSandboxNetwork(t *testing.T) {
	f := newFixture(t)
	write(t, f.home+"/.claude/settings.json", `{"sandbox": {"network": {"allowedDomains": ["registry.npmjs.org"], "deniedDomains": ["evil.example"]}}}`)
	write(t, f.project+"/.claude/settings.json", `{"sandbox": {"network": {"allowedDomains": ["*.github.com"], "deniedDomains": ["gist.github.com"]}}}`)
	s, problems := Load(f.opts())
	if len(problems) > 0 {
		t.Fatalf("problems: %v", problems)
	}
	want := SandboxNetwork{AllowedDomains: []string{"*.github.com", "registry.npmjs.org"}, DeniedDomains: []string{"gist.github.com", "evil.example"}}
	if !reflect.DeepEqual(s.Sandbox.Network, want) {
		t.Errorf("trusted: network = %+v\nwant %+v", s.Sandbox.Network, want)
	}
	opts := f.opts()
	opts.TrustProject = false
	s, _ = Load(opts)
	want = SandboxNetwork{AllowedDomains: []string{"registry.npmjs.org"}, DeniedDomains: []string{"gist.github.com", "evil.example"}}
	if !reflect.DeepEqual(s.Sandbox.Network, want) {
		t.Errorf("untrusted: network = %+v\nwant %+v", s.Sandbox.Network, want)
	}
}

// TestAddLocalAllowedDomain: an "always" answer for a host lands in the
// project's settings.local.json beside what is there, once; a .claude
// that is a link is not written through.
func TestAddLocalAllowedDomain(t *testing.T) {
	f := newFixture(t)
	write(t, f.project+"/.claude/settings.local.json", `{"permissions": {"allow": ["Bash(npm install:*)"]}}`)
	for range 2 {
		if err := AddLocalAllowedDomain(f.project, "registry.npmjs.org"); err != nil {
			t.Fatal(err)
		}
	}
	s, problems := Load(f.opts())
	if len(problems) > 0 {
		t.Fatalf("problems: %v", problems)
	}
	if got := s.Sandbox.Network.AllowedDomains; !reflect.DeepEqual(got, []string{"registry.npmjs.org"}) {
		t.Errorf("allowedDomains = %q", got)
	}
	if len(s.Permissions.Allow) != 1 {
		t.Errorf("the rules were not kept: %q", s.Permissions.Allow)
	}
	other := t.TempDir()
	linked := t.TempDir()
	if err := os.Symlink(other, filepath.Join(linked, ".claude")); err != nil {
		t.Fatal(err)
	}
	if err := AddLocalAllowedDomain(linked, "x.test"); err == nil {
		t.Error("wrote through a .claude link")
	}
	if _, err := os.Stat(filepath.Join(other, "settings.local.json")); err == nil {
		t.Error("the file landed outside the project")
	}
}
