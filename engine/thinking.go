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

// effortOptionID is the config option that picks the effort; its
// category is ACP's "thought_level", so ACP clients show it as such.
const effortOptionID = "effort"

// effortAuto is the effort option's value that defers to the settings.
const effortAuto = "auto"

// effortOption is the effort as a config option: "auto" (the settings'
// effortLevel, else the default) and each level, the current one being
// the session's /effort choice or "auto".
func (s *Session) effortOption() schema.ConfigOption {
	st, _ := s.svc.settings()
	level, source := s.effortLevel(st)
	current := s.effort.get()
	if current == "" {
		current = effortAuto
	}
	opt := schema.ConfigOption{
		ID:           effortOptionID,
		Name:         "Effort",
		Description:  "How much effort the model spends (now " + level + ", " + source + ")",
		Category:     "thought_level",
		Type:         "select",
		CurrentValue: current,
	}
	auto := s.effortLevelFromSettings(st)
	opt.Options = append(opt.Options, schema.ConfigValue{Value: effortAuto, Name: "Auto", Description: auto})
	for _, l := range settings.EffortLevels {
		opt.Options = append(opt.Options, schema.ConfigValue{Value: l, Name: effortNames[l]})
	}
	return opt
}

// effortNames are the effort levels' display names.
var effortNames = map[string]string{"low": "Low", "medium": "Medium", "high": "High", "xhigh": "Extra high", "max": "Max"}

// effortLevelFromSettings says what "auto" means: the settings' level or
// the default.
func (s *Session) effortLevelFromSettings(st *settings.Settings) string {
	if st != nil && st.EffortLevel != "" {
		return st.EffortLevel + " (the settings' effortLevel)"
	}
	return defaultEffort + " (the default)"
}

// setEffort sets the session's effort: a level, or "auto" (or "") to go
// back to the settings' or the default.
func (s *Session) setEffort(level string) error {
	level = strings.ToLower(strings.TrimSpace(level))
	switch {
	case level == "" || level == effortAuto:
		s.effort.set("")
	case slices.Contains(settings.EffortLevels, level):
		s.effort.set(level)
	default:
		return fmt.Errorf("unknown effort %q: use one of %s, or %s", level, strings.Join(settings.EffortLevels, ", "), effortAuto)
	}
	return nil
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
	default:
		if err := s.setEffort(arg); err != nil {
			s.say(ctx, fmt.Sprintf("Not changed: %v.", err))
			break
		}
		if arg == effortAuto {
			level, source := s.effortLevel(st)
			s.say(ctx, fmt.Sprintf("Effort: %s (%s).", level, source))
		} else {
			s.say(ctx, fmt.Sprintf("Effort set to %s for this session.", arg))
		}
		s.update(ctx, schema.Update{SessionUpdate: schema.UpdateConfigOption, ConfigOptions: s.ConfigOptions()})
	}
	return schema.StopEndTurn, true, nil
}
