package config

import (
	"slices"
	"strings"

	"github.com/agent-lsp/agent-lsp/providers"
)

// Model is what the agent needs to know of a model: its window, its
// output limit and its price.
type Model struct {
	ID       string `json:"id"`
	Provider string `json:"provider,omitempty"`
	// ContextWindow and MaxOutput are in tokens.
	ContextWindow int `json:"contextWindow,omitempty"`
	MaxOutput     int `json:"maxOutput,omitempty"`
	// Prices in USD per million tokens. CacheWrite is the 5-minute cache
	// write of Anthropic; CacheRead a cache hit (OpenAI's cached input).
	Input      float64 `json:"input,omitempty"`
	Output     float64 `json:"output,omitempty"`
	CacheWrite float64 `json:"cacheWrite,omitempty"`
	CacheRead  float64 `json:"cacheRead,omitempty"`
	// Known is false for a model the table has no entry for: its numbers
	// are a conservative default and its price is unknown (zero).
	Known bool `json:"-"`
}

// Cost is the price of a call's usage in USD.
func (m Model) Cost(u providers.Usage) float64 {
	return (float64(u.InputTokens)*m.Input +
		float64(u.OutputTokens)*m.Output +
		float64(u.CacheCreationInputTokens)*m.CacheWrite +
		float64(u.CacheReadInputTokens)*m.CacheRead) / 1e6
}

// Defaults for models missing from the table.
var (
	// UnknownClaude is assumed of a claude-* model the table lacks.
	UnknownClaude = Model{Provider: ProviderAnthropic, ContextWindow: 200_000, MaxOutput: 32_000}
	// UnknownLocal is assumed of any other model, typically one served by
	// Ollama, vLLM or llama.cpp: a modest window, so compaction starts
	// early rather than the server refusing the prompt.
	UnknownLocal = Model{Provider: ProviderOpenAI, ContextWindow: 32_768, MaxOutput: 4_096}
)

// builtin lists current models. Sources: Anthropic's and OpenAI's model and
// pricing pages. Haiku 5.5 is priced by prompt length; the table has its
// price for prompts up to 100k tokens.
var builtin = []Model{
	// Anthropic.
	{ID: "claude-fable-5-1", ContextWindow: 1_000_000, MaxOutput: 128_000, Input: 10, Output: 50, CacheWrite: 12.5, CacheRead: 0.25},
	{ID: "claude-mythos-5-1", ContextWindow: 1_000_000, MaxOutput: 128_000, Input: 10, Output: 50, CacheWrite: 12.5, CacheRead: 0.25},
	{ID: "claude-fable-5", ContextWindow: 1_000_000, MaxOutput: 128_000, Input: 10, Output: 50, CacheWrite: 12.5, CacheRead: 1},
	{ID: "claude-mythos-5", ContextWindow: 1_000_000, MaxOutput: 128_000, Input: 10, Output: 50, CacheWrite: 12.5, CacheRead: 1},
	{ID: "claude-opus-5-5", ContextWindow: 1_000_000, MaxOutput: 128_000, Input: 4, Output: 20, CacheWrite: 5, CacheRead: 0.2},
	{ID: "claude-opus-5", ContextWindow: 1_000_000, MaxOutput: 128_000, Input: 5, Output: 25, CacheWrite: 6.25, CacheRead: 0.5},
	{ID: "claude-opus-4-8", ContextWindow: 1_000_000, MaxOutput: 128_000, Input: 5, Output: 25, CacheWrite: 6.25, CacheRead: 0.5},
	{ID: "claude-opus-4-7", ContextWindow: 1_000_000, MaxOutput: 128_000, Input: 5, Output: 25, CacheWrite: 6.25, CacheRead: 0.5},
	{ID: "claude-opus-4-6", ContextWindow: 200_000, MaxOutput: 128_000, Input: 5, Output: 25, CacheWrite: 6.25, CacheRead: 0.5},
	{ID: "claude-opus-4-5", ContextWindow: 200_000, MaxOutput: 64_000, Input: 5, Output: 25, CacheWrite: 6.25, CacheRead: 0.5},
	{ID: "claude-opus-4-1", ContextWindow: 200_000, MaxOutput: 32_000, Input: 15, Output: 75, CacheWrite: 18.75, CacheRead: 1.5},
	{ID: "claude-opus-4", ContextWindow: 200_000, MaxOutput: 32_000, Input: 15, Output: 75, CacheWrite: 18.75, CacheRead: 1.5},
	{ID: "claude-sonnet-5-5", ContextWindow: 1_000_000, MaxOutput: 128_000, Input: 2, Output: 10, CacheWrite: 2.5, CacheRead: 0.1},
	{ID: "claude-sonnet-5", ContextWindow: 1_000_000, MaxOutput: 128_000, Input: 2, Output: 10, CacheWrite: 2.5, CacheRead: 0.2},
	{ID: "claude-sonnet-4-6", ContextWindow: 1_000_000, MaxOutput: 64_000, Input: 3, Output: 15, CacheWrite: 3.75, CacheRead: 0.3},
	{ID: "claude-sonnet-4-5", ContextWindow: 200_000, MaxOutput: 64_000, Input: 3, Output: 15, CacheWrite: 3.75, CacheRead: 0.3},
	{ID: "claude-sonnet-4", ContextWindow: 200_000, MaxOutput: 64_000, Input: 3, Output: 15, CacheWrite: 3.75, CacheRead: 0.3},
	{ID: "claude-3-7-sonnet", ContextWindow: 200_000, MaxOutput: 64_000, Input: 3, Output: 15, CacheWrite: 3.75, CacheRead: 0.3},
	{ID: "claude-haiku-5-5", ContextWindow: 1_000_000, MaxOutput: 128_000, Input: 0.1, Output: 0.5, CacheWrite: 0.125, CacheRead: 0.01},
	{ID: "claude-haiku-4-5", ContextWindow: 200_000, MaxOutput: 64_000, Input: 1, Output: 5, CacheWrite: 1.25, CacheRead: 0.1},
	{ID: "claude-3-5-haiku", ContextWindow: 200_000, MaxOutput: 8_192, Input: 0.8, Output: 4, CacheWrite: 1, CacheRead: 0.08},

	// OpenAI.
	{ID: "gpt-5", ContextWindow: 400_000, MaxOutput: 128_000, Input: 1.25, Output: 10, CacheRead: 0.125},
	{ID: "gpt-5-mini", ContextWindow: 400_000, MaxOutput: 128_000, Input: 0.25, Output: 2, CacheRead: 0.025},
	{ID: "gpt-5-nano", ContextWindow: 400_000, MaxOutput: 128_000, Input: 0.05, Output: 0.4, CacheRead: 0.005},
	{ID: "gpt-4.1", ContextWindow: 1_047_576, MaxOutput: 32_768, Input: 2, Output: 8, CacheRead: 0.5},
	{ID: "gpt-4.1-mini", ContextWindow: 1_047_576, MaxOutput: 32_768, Input: 0.4, Output: 1.6, CacheRead: 0.1},
	{ID: "gpt-4.1-nano", ContextWindow: 1_047_576, MaxOutput: 32_768, Input: 0.1, Output: 0.4, CacheRead: 0.025},
	{ID: "gpt-4o", ContextWindow: 128_000, MaxOutput: 16_384, Input: 2.5, Output: 10, CacheRead: 1.25},
	{ID: "gpt-4o-mini", ContextWindow: 128_000, MaxOutput: 16_384, Input: 0.15, Output: 0.6, CacheRead: 0.075},
	{ID: "o1", ContextWindow: 200_000, MaxOutput: 100_000, Input: 15, Output: 60, CacheRead: 7.5},
	{ID: "o3", ContextWindow: 200_000, MaxOutput: 100_000, Input: 2, Output: 8, CacheRead: 0.5},
	{ID: "o3-mini", ContextWindow: 200_000, MaxOutput: 100_000, Input: 1.1, Output: 4.4, CacheRead: 0.55},
	{ID: "o4-mini", ContextWindow: 200_000, MaxOutput: 100_000, Input: 1.1, Output: 4.4, CacheRead: 0.275},
}

// Table is a model table. It does not change once built, so it is safe
// for concurrent use.
type Table struct {
	models map[string]Model // by ID
}

// NewTable returns a table of the built-in models.
func NewTable() *Table {
	t := &Table{models: map[string]Model{}}
	for _, m := range builtin {
		if m.Provider == "" {
			m.Provider = ProviderOpenAI
			if strings.HasPrefix(m.ID, "claude-") {
				m.Provider = ProviderAnthropic
			}
		}
		m.Known = true
		t.models[m.ID] = m
	}
	return t
}

// Models returns the table's models sorted by ID.
func (t *Table) Models() []Model {
	out := make([]Model, 0, len(t.models))
	for _, m := range t.models {
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b Model) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// Lookup returns the entry of a model ID. It tries the ID as given, then
// without a vendor prefix ("anthropic/claude-sonnet-4-5", as OpenRouter
// names models) and a "[1m]" suffix, then the longest table ID the ID
// starts with followed by "-" (so "claude-sonnet-4-5-20250929" finds
// "claude-sonnet-4-5"). A model not found gets UnknownClaude or
// UnknownLocal with Known false.
func (t *Table) Lookup(id string) Model {
	if m, ok := t.models[id]; ok {
		return m
	}
	base := id
	if i := strings.LastIndex(base, "/"); i >= 0 {
		base = base[i+1:]
	}
	base = strings.TrimSuffix(base, "[1m]")
	if m, ok := t.models[base]; ok {
		m.ID = id
		return m
	}
	best := ""
	for k := range t.models {
		if len(k) > len(best) && strings.HasPrefix(base, k+"-") {
			best = k
		}
	}
	if best != "" {
		m := t.models[best]
		m.ID = id
		return m
	}
	m := t.defaultFor(base)
	m.ID = id
	return m
}

func (t *Table) defaultFor(id string) Model {
	if strings.HasPrefix(id, "claude") {
		return UnknownClaude
	}
	return UnknownLocal
}
