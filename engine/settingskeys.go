package engine

import (
	"fmt"
	"os"
	"strings"

	"github.com/agent-lsp/agent-lsp/settings"
)

// defaultCommitAttribution ends the commit messages of a Claude model
// when the settings do not say otherwise, as Claude Code's do.
const defaultCommitAttribution = "Co-Authored-By: Claude <noreply@anthropic.com>"

// defaultPRAttribution ends pull request descriptions when the settings
// do not say otherwise.
const defaultPRAttribution = "Generated with agent-lsp"

// envTrue reports whether the environment variable name, from the
// settings' env or the process's, is set to a true value.
func envTrue(st *settings.Settings, name string) bool {
	v, ok := "", false
	if st != nil {
		v, ok = st.Env[name]
	}
	if !ok {
		v = os.Getenv(name)
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// autoCompactOff reports whether the session must not compact by itself
// (autoCompactEnabled: false, or DISABLE_AUTO_COMPACT as in Claude Code).
func (s *Session) autoCompactOff() bool {
	st, _ := s.svc.settings()
	return (st != nil && st.NoAutoCompact) || envTrue(st, "DISABLE_AUTO_COMPACT")
}

// settingsPrompt is the part of the system prompt the settings write:
// the answer language and the git instructions with their attribution.
func (s *Session) settingsPrompt() string {
	st, _ := s.svc.settings()
	return settingsPromptFor(st, s.conv.asked())
}

// settingsPromptFor builds settingsPrompt for the settings st and the
// model asked.
func settingsPromptFor(st *settings.Settings, model string) string {
	var b strings.Builder
	if st != nil && strings.TrimSpace(st.Language) != "" {
		fmt.Fprintf(&b, "Always respond in %s: the user's preferred language. Technical terms and code stay as they are.\n", strings.TrimSpace(st.Language))
	}
	if (st != nil && st.NoGitInstructions) || envTrue(st, "CLAUDE_CODE_DISABLE_GIT_INSTRUCTIONS") {
		return strings.TrimSpace(b.String())
	}
	commit, pr := "", defaultPRAttribution
	if strings.Contains(strings.ToLower(model), "claude") {
		commit = defaultCommitAttribution
	}
	if st != nil && st.CommitAttribution != nil {
		commit = *st.CommitAttribution
	}
	if st != nil && st.PRAttribution != nil {
		pr = *st.PRAttribution
	}
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	b.WriteString(`Git: commit or open a pull request only when the user asks. Before a commit, read git status and git diff, then write a message in the repository's style that says why. Never change the git configuration, skip hooks (--no-verify) or force-push unless the user asks.`)
	if strings.TrimSpace(commit) == "" {
		b.WriteString("\nAdd no attribution and no Co-Authored-By trailer to commit messages.")
	} else {
		fmt.Fprintf(&b, "\nEnd each commit message with this text, after a blank line:\n%s", strings.TrimSpace(commit))
	}
	if strings.TrimSpace(pr) == "" {
		b.WriteString("\nAdd no attribution to pull request descriptions.")
	} else {
		fmt.Fprintf(&b, "\nEnd each pull request description with this text, after a blank line:\n%s", strings.TrimSpace(pr))
	}
	return b.String()
}
