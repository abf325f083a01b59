package config

import (
	"slices"
	"testing"
)

// TestDisplayName: pickers show names, not ids.
func TestDisplayName(t *testing.T) {
	for _, tt := range []struct{ id, want string }{
		{"claude-opus-4-5", "Claude Opus 4.5"},
		{"claude-opus-4-5-20251101", "Claude Opus 4.5"},
		{"claude-sonnet-4", "Claude Sonnet 4"},
		{"claude-opus-5", "Claude Opus 5"},
		{"claude-3-7-sonnet", "Claude Sonnet 3.7"},
		{"claude-3-5-haiku-20241022", "Claude Haiku 3.5"},
		{"claude-sonnet-4-5[1m]", "Claude Sonnet 4.5 (1M context)"},
		{"anthropic/claude-fable-5-1", "Claude Fable 5.1"},
		{"gpt-5-mini", "GPT-5 mini"},
		{"gpt-4.1", "GPT-4.1"},
		{"gpt-4o", "GPT-4o"},
		{"o4-mini", "o4-mini"},
		{"qwen3-coder:30b", "Qwen3-coder:30b"},
		{"", ""},
	} {
		if got := DisplayName(tt.id); got != tt.want {
			t.Errorf("DisplayName(%q) = %q, want %q", tt.id, got, tt.want)
		}
	}
}

// TestEveryBuiltinModelHasAName: no model of the table is shown by its
// id in a picker.
func TestEveryBuiltinModelHasAName(t *testing.T) {
	for _, m := range DefaultTable().Models() {
		if n := DisplayName(m.ID); n == m.ID && !openAIModel().MatchString(m.ID) {
			t.Errorf("%s has no display name", m.ID)
		}
	}
}

func TestModelDescriptionAndGroup(t *testing.T) {
	m := DefaultTable().Lookup("claude-opus-4-5")
	if got := ModelDescription(m); got != "claude-opus-4-5 · 200K context" {
		t.Errorf("ModelDescription = %q", got)
	}
	if got := ModelDescription(DefaultTable().Lookup("claude-opus-5")); got != "claude-opus-5 · 1M context" {
		t.Errorf("ModelDescription = %q", got)
	}
	for _, tt := range []struct {
		provider string
		known    bool
		want     string
	}{{ProviderAnthropic, true, "Anthropic"}, {ProviderOpenAI, true, "OpenAI"}, {ProviderOpenAI, false, "OpenAI-compatible"}} {
		if got := ModelGroup(tt.provider, tt.known); got != tt.want {
			t.Errorf("ModelGroup(%s, %v) = %q, want %q", tt.provider, tt.known, got, tt.want)
		}
	}
}

func TestCompareForPicker(t *testing.T) {
	type m struct{ group, name string }
	in := []m{{"OpenAI", "GPT-5"}, {"Anthropic", "Claude Opus 4.1"}, {"Anthropic", "Claude Haiku 4.5"}, {"Anthropic", "Claude Opus 4.5"}, {"Anthropic", "Claude Opus 5"}, {"OpenAI", "GPT-4.1"}}
	slices.SortStableFunc(in, func(a, b m) int { return CompareForPicker(a.group, a.name, b.group, b.name) })
	var got []string
	for _, x := range in {
		got = append(got, x.name)
	}
	want := []string{"Claude Haiku 4.5", "Claude Opus 5", "Claude Opus 4.5", "Claude Opus 4.1", "GPT-4.1", "GPT-5"}
	if !slices.Equal(got, want) {
		t.Errorf("order %q, want %q", got, want)
	}
}
