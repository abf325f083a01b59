package engine

import (
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/settings"
)

// TestSettingsPrompt checks the system prompt's part that the settings
// write: language, git instructions, and the attribution of commits and
// pull requests (attribution, includeCoAuthoredBy, includeGitInstructions).
func TestSettingsPrompt(t *testing.T) {
	str := func(s string) *string { return &s }
	tests := []struct {
		name   string
		st     *settings.Settings
		model  string
		want   []string
		absent []string
	}{
		{name: "claude default", st: &settings.Settings{}, model: "claude-sonnet-4-5",
			want: []string{"Git: commit", "End each commit message with this text, after a blank line:\n" + defaultCommitAttribution, "End each pull request description with this text, after a blank line:\n" + defaultPRAttribution}},
		{name: "other model claims no co-author", st: &settings.Settings{}, model: "gpt-5",
			want: []string{"Add no attribution and no Co-Authored-By trailer to commit messages."}, absent: []string{defaultCommitAttribution}},
		{name: "includeCoAuthoredBy false", st: &settings.Settings{CommitAttribution: str(""), PRAttribution: str("")}, model: "claude-opus-4-1",
			want:   []string{"Add no attribution and no Co-Authored-By trailer to commit messages.", "Add no attribution to pull request descriptions."},
			absent: []string{defaultCommitAttribution, defaultPRAttribution}},
		{name: "attribution text", st: &settings.Settings{CommitAttribution: str("Assisted-by: agent-lsp\nTeam: infra"), PRAttribution: str("Made with care")}, model: "claude-opus-4-1",
			want: []string{"after a blank line:\nAssisted-by: agent-lsp\nTeam: infra", "after a blank line:\nMade with care"}, absent: []string{defaultCommitAttribution}},
		{name: "no git instructions", st: &settings.Settings{NoGitInstructions: true}, model: "claude-opus-4-1", absent: []string{"Git:", defaultCommitAttribution}},
		{name: "no git instructions from env", st: &settings.Settings{Env: map[string]string{"CLAUDE_CODE_DISABLE_GIT_INSTRUCTIONS": "1"}}, model: "claude-opus-4-1", absent: []string{"Git:"}},
		{name: "language", st: &settings.Settings{Language: "japanese", NoGitInstructions: true}, want: []string{"Always respond in japanese"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := settingsPromptFor(tc.st, tc.model)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("prompt lacks %q:\n%s", w, got)
				}
			}
			for _, a := range tc.absent {
				if strings.Contains(got, a) {
					t.Errorf("prompt has %q:\n%s", a, got)
				}
			}
		})
	}

	// The part reaches the model's system prompt.
	model := newScript(t, say("ok"))
	h := newHarness(t, model, nil, func(c *Config) { c.Settings.Language = "pirate speak" })
	h.prompt(t, "hi")
	var system strings.Builder
	for _, b := range model.requests()[0].System {
		system.WriteString(b.Text)
	}
	if !strings.Contains(system.String(), "Always respond in pirate speak") || !strings.Contains(system.String(), "Git: commit") {
		t.Errorf("system prompt lacks the settings' part:\n%s", system.String())
	}
}

// TestAutoCompactOff checks that autoCompactEnabled: false (and Claude
// Code's DISABLE_AUTO_COMPACT) keeps the session from summarizing when
// the context passes the threshold.
func TestAutoCompactOff(t *testing.T) {
	for _, tc := range []struct {
		name string
		st   func(*settings.Settings)
	}{
		{"setting", func(s *settings.Settings) { s.NoAutoCompact = true }},
		{"env", func(s *settings.Settings) { s.Env = map[string]string{"DISABLE_AUTO_COMPACT": "1"} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model := newScript(t, say("first answer"))
			h := newHarness(t, model, nil, func(c *Config) { c.Window = 1000; c.CompactAt = 0.5; tc.st(c.Settings) })
			h.prompt(t, "a short question")
			model.steps = []step{say("second answer")}
			if stop := h.prompt(t, strings.Repeat("lorem ipsum ", 200)); stop != schema.StopEndTurn {
				t.Fatalf("stop = %q", stop)
			}
			reqs := model.requests()
			if len(reqs) != 2 {
				t.Fatalf("%d model calls, want 2 (no summary call)", len(reqs))
			}
			if got := reqs[1].Messages[0].Text(); got != "a short question" {
				t.Errorf("the second call starts with %q, want the first prompt", got)
			}
		})
	}
}
