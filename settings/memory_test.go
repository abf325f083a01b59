package settings

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestAutoMemorySettings: autoMemoryEnabled merges with the higher layer
// winning (a project may turn auto memory off); autoMemoryDirectory is
// taken from the user's settings only, "~/" expanded, and a project's is
// ignored with a warning, trusted or not.
func TestAutoMemorySettings(t *testing.T) {
	tests := []struct {
		name          string
		user, project string
		local         string
		wantEnabled   string // "unset", "true", "false"
		wantDir       string // relative to the home, or "" for none
		wantProblem   string
	}{
		{name: "unset", user: `{}`, project: `{}`, wantEnabled: "unset"},
		{name: "project turns it off", user: `{"autoMemoryEnabled": true}`, project: `{"autoMemoryEnabled": false}`, wantEnabled: "false"},
		{name: "user folder", user: `{"autoMemoryDirectory": "~/notes/mem"}`, project: `{}`, wantEnabled: "unset", wantDir: "notes/mem"},
		{name: "project folder ignored", user: `{}`, project: `{"autoMemoryDirectory": "/tmp/elsewhere"}`, wantEnabled: "unset", wantProblem: "autoMemoryDirectory is read from the user's and the managed settings only"},
		{name: "local folder ignored", user: `{"autoMemoryDirectory": "~/mine"}`, local: `{"autoMemoryDirectory": "/tmp/elsewhere"}`, project: `{}`, wantEnabled: "unset", wantDir: "mine", wantProblem: "autoMemoryDirectory is read from the user's"},
		{name: "relative folder", user: `{"autoMemoryDirectory": "mem"}`, project: `{}`, wantEnabled: "unset", wantProblem: "neither absolute nor under ~/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			write(t, filepath.Join(f.home, ".claude", "settings.json"), tt.user)
			write(t, filepath.Join(f.project, ".claude", "settings.json"), tt.project)
			if tt.local != "" {
				write(t, LocalPath(f.project), tt.local)
			}
			s, problems := Load(f.opts())
			got := "unset"
			if s.AutoMemoryEnabled != nil {
				got = map[bool]string{true: "true", false: "false"}[*s.AutoMemoryEnabled]
			}
			if got != tt.wantEnabled {
				t.Errorf("autoMemoryEnabled %s, want %s", got, tt.wantEnabled)
			}
			wantDir := ""
			if tt.wantDir != "" {
				wantDir = filepath.Join(f.home, tt.wantDir)
			}
			if s.AutoMemoryDirectory != wantDir {
				t.Errorf("autoMemoryDirectory %q, want %q", s.AutoMemoryDirectory, wantDir)
			}
			var all []string
			for _, p := range problems {
				all = append(all, p.String())
			}
			if joined := strings.Join(all, "\n"); (tt.wantProblem == "") != (joined == "") || !strings.Contains(joined, tt.wantProblem) {
				t.Errorf("problems = %q, want %q", joined, tt.wantProblem)
			}
		})
	}
}
