package engine

import (
	"context"
	"fmt"

	"github.com/agent-lsp/agent-lsp/permission"
	"github.com/agent-lsp/agent-lsp/schema"
)

// Modes returns the session's permission modes and the current one.
func (s *Session) Modes() *schema.ModeState {
	return s.gate.policy.ModeState()
}

// Mode returns the current permission mode.
func (s *Session) Mode() string {
	return string(s.gate.policy.Mode())
}

// SetMode switches the permission mode and reports it to the editor with a
// current_mode_update.
func (s *Session) SetMode(ctx context.Context, modeID string) error {
	m, err := permission.ParseMode(modeID)
	if err != nil {
		return err
	}
	if err := s.gate.policy.SetMode(m); err != nil {
		return err
	}
	s.saveState()
	s.update(ctx, schema.Update{SessionUpdate: schema.UpdateCurrentMode, CurrentModeID: modeID})
	return nil
}

// ConfigOptions returns the session's configuration options: the model.
func (s *Session) ConfigOptions() []schema.ConfigOption {
	current := s.Model()
	opt := schema.ConfigOption{
		ID:           "model",
		Name:         "Model",
		Description:  "The model that answers",
		Category:     "model",
		Type:         "select",
		CurrentValue: current,
	}
	seen := false
	for _, m := range s.svc.models() {
		opt.Options = append(opt.Options, schema.ConfigValue{Value: m.ID, Name: m.Name})
		seen = seen || m.ID == current
	}
	if !seen {
		opt.Options = append([]schema.ConfigValue{{Value: current, Name: current}}, opt.Options...)
	}
	return []schema.ConfigOption{opt}
}

// SetConfigOption sets a configuration option and returns them all.
func (s *Session) SetConfigOption(ctx context.Context, id, value string) ([]schema.ConfigOption, error) {
	switch id {
	case "model":
		if err := s.SetModel(value); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("unknown config option %q (want model)", id)
	}
	opts := s.ConfigOptions()
	s.update(ctx, schema.Update{SessionUpdate: schema.UpdateConfigOption, ConfigOptions: opts})
	return opts, nil
}

// ModelInfo names a model the user can pick.
type ModelInfo struct {
	ID   string
	Name string
}

// models returns the models offered in the model picker.
func (s *Service) models() []ModelInfo {
	if len(s.cfg.Models) > 0 {
		return s.cfg.Models
	}
	return []ModelInfo{{ID: s.cfg.Model, Name: s.cfg.Model}}
}
