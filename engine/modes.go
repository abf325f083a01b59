package engine

import (
	"context"
	"fmt"

	"github.com/agent-lsp/agent-lsp/schema"
)

// Permission modes, as Claude Code names them.
const (
	ModeDefault           = "default"
	ModeAcceptEdits       = "acceptEdits"
	ModePlan              = "plan"
	ModeBypassPermissions = "bypassPermissions"
)

// availableModes are the modes a session can be in.
var availableModes = []schema.Mode{
	{ID: ModeDefault, Name: "Default", Description: "Ask before anything that changes state"},
	{ID: ModeAcceptEdits, Name: "Accept edits", Description: "File edits in the workspace are allowed; shell commands still ask"},
	{ID: ModePlan, Name: "Plan", Description: "Read-only tools only: the agent plans, nothing changes"},
	{ID: ModeBypassPermissions, Name: "Bypass permissions", Description: "Never ask; deny rules still hold"},
}

// Modes returns the session's modes and the current one.
func (s *Session) Modes() *schema.ModeState {
	return &schema.ModeState{CurrentModeID: s.Mode(), AvailableModes: availableModes}
}

// Mode returns the current permission mode.
func (s *Session) Mode() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mode
}

// SetMode switches the permission mode and reports it to the editor with a
// current_mode_update.
func (s *Session) SetMode(ctx context.Context, modeID string) error {
	known := false
	for _, m := range availableModes {
		known = known || m.ID == modeID
	}
	if !known {
		return fmt.Errorf("unknown mode %q (want default, acceptEdits, plan or bypassPermissions)", modeID)
	}
	if err := s.gate.setMode(modeID); err != nil {
		return err
	}
	s.mu.Lock()
	s.mode = modeID
	s.mu.Unlock()
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
