package settings

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestThinkingSettings: alwaysThinkingEnabled and effortLevel merge with
// the higher layer winning, and an unknown effort is reported and
// dropped.
func TestThinkingSettings(t *testing.T) {
	tests := []struct {
		name          string
		user, project string
		wantThinking  string // "unset", "true", "false"
		wantEffort    string
		wantProblem   string
		untrusted     bool
	}{
		{name: "unset", user: `{}`, project: `{}`, wantThinking: "unset"},
		{name: "user off", user: `{"alwaysThinkingEnabled": false, "effortLevel": "low"}`, project: `{}`, wantThinking: "false", wantEffort: "low"},
		{name: "project wins", user: `{"alwaysThinkingEnabled": false, "effortLevel": "low"}`, project: `{"alwaysThinkingEnabled": true, "effortLevel": "xhigh"}`, wantThinking: "true", wantEffort: "xhigh"},
		{name: "untrusted project turns off only", user: `{"effortLevel": "low"}`, project: `{"alwaysThinkingEnabled": false, "effortLevel": "max"}`, untrusted: true, wantThinking: "false", wantEffort: "low"},
		{name: "untrusted project cannot turn on", user: `{"alwaysThinkingEnabled": false}`, project: `{"alwaysThinkingEnabled": true}`, untrusted: true, wantThinking: "false"},
		{name: "unknown level", user: `{"effortLevel": "medium"}`, project: `{"effortLevel": "huge"}`, wantThinking: "unset", wantEffort: "medium", wantProblem: `effortLevel: unknown level "huge"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			write(t, filepath.Join(f.home, ".claude", "settings.json"), tt.user)
			write(t, filepath.Join(f.project, ".claude", "settings.json"), tt.project)
			opts := f.opts()
			opts.TrustProject = !tt.untrusted
			s, problems := Load(opts)
			got := "unset"
			if s.AlwaysThinkingEnabled != nil {
				got = map[bool]string{true: "true", false: "false"}[*s.AlwaysThinkingEnabled]
			}
			if got != tt.wantThinking || s.EffortLevel != tt.wantEffort {
				t.Errorf("alwaysThinkingEnabled %s effortLevel %q, want %s %q", got, s.EffortLevel, tt.wantThinking, tt.wantEffort)
			}
			var all []string
			for _, p := range problems {
				all = append(all, p.String())
			}
			if joined := strings.Join(all, "\n"); (tt.wantProblem == "") != (joined == "") || !strings.Contains(joined, tt.wantProblem) {
				t.Errorf("problems = %q, want %q", joined, tt.wantProblem)
			}
			for _, p := range problems {
				if !p.Warning {
					t.Errorf("%s is an error; an effort agent-lsp does not know is a warning", p)
				}
			}
		})
	}
}
