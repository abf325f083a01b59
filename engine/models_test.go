package engine

import (
	"testing"
)

// TestModelsCurrentFirst: the model picker lists the current model
// first, each model with its display name, description and group; a
// current model the service does not list is named from its id.
func TestModelsCurrentFirst(t *testing.T) {
	for _, tt := range []struct {
		current string
		want    []string // model ids in order
		names   []string
	}{
		{"claude-sonnet-4-5", []string{"claude-sonnet-4-5", "claude-opus-4-5", "gpt-5"}, []string{"Claude Sonnet 4.5", "Claude Opus 4.5", "GPT-5"}},
		{"claude-haiku-4-5", []string{"claude-haiku-4-5", "claude-opus-4-5", "claude-sonnet-4-5", "gpt-5"}, []string{"Claude Haiku 4.5", "Claude Opus 4.5", "Claude Sonnet 4.5", "GPT-5"}},
	} {
		h := newHarness(t, newScript(t), nil, func(c *Config) {
			c.Model = tt.current
			c.Models = []ModelInfo{
				{ID: "claude-opus-4-5", Name: "Claude Opus 4.5", Description: "claude-opus-4-5 · 200K context", Group: "Anthropic"},
				{ID: "claude-sonnet-4-5", Name: "Claude Sonnet 4.5", Group: "Anthropic"},
				{ID: "gpt-5", Name: "GPT-5", Group: "OpenAI"},
			}
		})
		st := h.sess.Models()
		if st.CurrentModelID != tt.current {
			t.Errorf("current %q, want %q", st.CurrentModelID, tt.current)
		}
		var ids, names []string
		for _, m := range st.AvailableModels {
			ids, names = append(ids, m.ModelID), append(names, m.Name)
		}
		if len(ids) != len(tt.want) {
			t.Fatalf("models %q, want %q", ids, tt.want)
		}
		for i := range ids {
			if ids[i] != tt.want[i] || names[i] != tt.names[i] {
				t.Errorf("models %q named %q, want %q named %q", ids, names, tt.want, tt.names)
				break
			}
		}
		opus := st.AvailableModels[1]
		if g, _ := opus.Meta[metaKey].(map[string]any)["group"].(string); g != "Anthropic" || opus.Description != "claude-opus-4-5 · 200K context" {
			t.Errorf("opus = %+v, want its group and description", opus)
		}
		opts := h.sess.ConfigOptions()[0].Options
		if opts[0].Value != tt.current || opts[0].Name != tt.names[0] {
			t.Errorf("config option values %+v, want the current model first by name", opts)
		}
	}
}
