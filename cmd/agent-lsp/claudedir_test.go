package main

import "testing"

// TestClaudeDir: Claude Code's sessions are looked for in its own
// directory ("": CLAUDE_CONFIG_DIR, else ~/.claude), nowhere when the
// user's settings are ignored, unless CLAUDE_CONFIG_DIR names one.
func TestClaudeDir(t *testing.T) {
	for _, tc := range []struct {
		noUser, configDir, want string
	}{
		{"", "", ""},
		{"", "/cc", ""},
		{"1", "", "-"},
		{"1", "/cc", ""},
	} {
		t.Setenv("AGENT_LSP_NO_USER_SETTINGS", tc.noUser)
		t.Setenv("CLAUDE_CONFIG_DIR", tc.configDir)
		if got := claudeDir(); got != tc.want {
			t.Errorf("AGENT_LSP_NO_USER_SETTINGS=%q CLAUDE_CONFIG_DIR=%q: claudeDir() = %q, want %q", tc.noUser, tc.configDir, got, tc.want)
		}
	}
}
