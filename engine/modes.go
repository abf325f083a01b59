package engine

import (
	"context"
	"fmt"
	"slices"

	"github.com/agent-lsp/agent-lsp/permission"
	"github.com/agent-lsp/agent-lsp/providers/config"
	"github.com/agent-lsp/agent-lsp/schema"
)

// Modes returns the session's permission modes and the current one.
func (s *Session) Modes() *schema.ModeState {
	return s.pipe.gate.policy.ModeState()
}

// Mode returns the current permission mode.
func (s *Session) Mode() string {
	return string(s.pipe.gate.policy.Mode())
}

// SetMode switches the permission mode and reports it to the editor with a
// current_mode_update.
func (s *Session) SetMode(ctx context.Context, modeID string) error {
	m, err := permission.ParseMode(modeID)
	if err != nil {
		return err
	}
	if err := s.pipe.gate.policy.SetMode(m); err != nil {
		return err
	}
	s.saveState()
	s.update(ctx, schema.Update{SessionUpdate: schema.UpdateCurrentMode, CurrentModeID: modeID})
	return nil
}

// ConfigOptions returns the session's configuration options: the model
// and the effort.
func (s *Session) ConfigOptions() []schema.ConfigOption {
	opt := schema.ConfigOption{
		ID:           "model",
		Name:         "Model",
		Description:  "The model that answers",
		Category:     "model",
		Type:         "select",
		CurrentValue: s.Model(),
	}
	for _, m := range s.models() {
		opt.Options = append(opt.Options, schema.ConfigValue{Value: m.ID, Name: m.Name, Description: m.Description})
	}
	return []schema.ConfigOption{opt, s.effortOption()}
}

// Models returns the models the session can use, the current one first,
// with their display names and groups.
func (s *Session) Models() *schema.ModelState {
	st := &schema.ModelState{CurrentModelID: s.Model()}
	for _, m := range s.models() {
		info := schema.ModelInfo{ModelID: m.ID, Name: m.Name, Description: m.Description}
		if m.Group != "" {
			info.Meta = map[string]any{metaKey: map[string]any{"group": m.Group}}
		}
		st.AvailableModels = append(st.AvailableModels, info)
	}
	return st
}

// models returns the models offered in the pickers, the current one
// first (named from its id when the service does not list it).
func (s *Session) models() []ModelInfo {
	current := s.Model()
	all := s.svc.models()
	out := make([]ModelInfo, 0, len(all)+1)
	i := slices.IndexFunc(all, func(m ModelInfo) bool { return m.ID == current })
	if i >= 0 {
		out = append(out, all[i])
	} else {
		out = append(out, ModelInfo{ID: current, Name: config.DisplayName(current), Description: current})
	}
	for j, m := range all {
		if j != i {
			out = append(out, m)
		}
	}
	return out
}

// SetConfigOption sets a configuration option and returns them all.
func (s *Session) SetConfigOption(ctx context.Context, id, value string) ([]schema.ConfigOption, error) {
	switch id {
	case "model":
		if err := s.SetModel(value); err != nil {
			return nil, err
		}
	case effortOptionID:
		if err := s.setEffort(value); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("unknown config option %q (want model or %s)", id, effortOptionID)
	}
	opts := s.ConfigOptions()
	s.update(ctx, schema.Update{SessionUpdate: schema.UpdateConfigOption, ConfigOptions: opts})
	return opts, nil
}

// ModelInfo names a model the user can pick.
type ModelInfo struct {
	ID string
	// Name is its display name ("Claude Opus 4.5"); Description says
	// more (its id and context window).
	Name        string
	Description string
	// Group is where a picker lists it ("Anthropic", "OpenAI-compatible").
	Group string
}

// models returns the models offered in the model picker.
func (s *Service) models() []ModelInfo {
	if len(s.cfg.Models) > 0 {
		return s.cfg.Models
	}
	return []ModelInfo{{ID: s.cfg.Model, Name: config.DisplayName(s.cfg.Model), Description: s.cfg.Model}}
}
