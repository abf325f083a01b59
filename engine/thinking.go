package engine

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/settings"
)

// Thinking and effort are asked of the model as Claude Code asks them:
// thinking is on unless the settings' alwaysThinkingEnabled is false or
// MAX_THINKING_TOKENS is 0; models that think adaptively get adaptive
// thinking, older ones a budget (MAX_THINKING_TOKENS, else
// defaultThinkingBudget bounded by the response's limit). The effort is
// the session's /effort choice, else the settings' effortLevel, else
// defaultEffort. The provider leaves out what a model does not take.

// defaultThinkingBudget is Claude Code's default thinking budget.
const defaultThinkingBudget = 31999

// minThinkingBudget is the smallest budget the API accepts.
const minThinkingBudget = 1024

// defaultEffort is the effort asked when nothing chose one: the API's
// own default, sent as Claude Code sends it.
const defaultEffort = "high"

// effortChoice is the effort /effort chose for a session; "" defers to
// the settings. Its methods are safe for concurrent use.
type effortChoice struct {
	mu    sync.Mutex // guards level
	level string
}

func (e *effortChoice) get() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.level
}

func (e *effortChoice) set(level string) {
	e.mu.Lock()
	e.level = level
	e.mu.Unlock()
}

// thinking returns the thinking budget (0: no thinking) and the effort of
// the session's next model request.
func (s *Session) thinking() (budget int, effort string) {
	st, _ := s.svc.settings()
	effort, _ = s.effortLevel(st)
	if st != nil && st.AlwaysThinkingEnabled != nil && !*st.AlwaysThinkingEnabled {
		return 0, effort
	}
	raw := s.svc.cfg.MaxThinkingTokens
	if st != nil {
		if v, ok := st.Env["MAX_THINKING_TOKENS"]; ok {
			raw = v
		}
	}
	if raw = strings.TrimSpace(raw); raw != "" {
		n, err := strconv.Atoi(raw)
		switch {
		case err != nil || n < 0:
			s.svc.cfg.Logf("session %s: MAX_THINKING_TOKENS=%q is not a number of tokens; the default budget applies", s.ID, raw)
		case n == 0:
			return 0, effort
		default:
			return max(n, minThinkingBudget), effort
		}
	}
	budget = min(defaultThinkingBudget, s.svc.cfg.MaxTokens-1)
	if budget < minThinkingBudget {
		budget = minThinkingBudget
	}
	return budget, effort
}

// effortLevel returns the session's effort and where it came from.
func (s *Session) effortLevel(st *settings.Settings) (level, source string) {
	if l := s.effort.get(); l != "" {
		return l, "chosen with /effort"
	}
	if st != nil && st.EffortLevel != "" {
		return st.EffortLevel, "the settings' effortLevel"
	}
	return defaultEffort, "the default"
}

// effortCommand runs /effort: without an argument it says the effort in
// use; with a level it sets the session's; "auto" goes back to the
// settings' or the default.
func (s *Session) effortCommand(ctx context.Context, arg string) (string, bool, error) {
	arg = strings.ToLower(strings.TrimSpace(arg))
	st, _ := s.svc.settings()
	switch {
	case arg == "" || arg == "status":
		level, source := s.effortLevel(st)
		s.say(ctx, fmt.Sprintf("Effort: %s (%s). Set it with /effort %s, or /effort auto.", level, source, strings.Join(settings.EffortLevels, "|")))
	case arg == "auto":
		s.effort.set("")
		level, source := s.effortLevel(st)
		s.say(ctx, fmt.Sprintf("Effort: %s (%s).", level, source))
	case slices.Contains(settings.EffortLevels, arg):
		s.effort.set(arg)
		s.say(ctx, fmt.Sprintf("Effort set to %s for this session.", arg))
	default:
		s.say(ctx, fmt.Sprintf("Unknown effort %q: use one of %s, or auto.", arg, strings.Join(settings.EffortLevels, ", ")))
	}
	return schema.StopEndTurn, true, nil
}
