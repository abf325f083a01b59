package config

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/providers/fake"
)

func TestLookup(t *testing.T) {
	tab := NewTable()
	for _, tc := range []struct {
		id, entry string
		window    int
		known     bool
		provider  string
	}{
		{"claude-sonnet-4-5", "claude-sonnet-4-5", 200_000, true, ProviderAnthropic},
		{"claude-sonnet-4-5-20250929", "claude-sonnet-4-5", 200_000, true, ProviderAnthropic},
		{"claude-sonnet-4-6[1m]", "claude-sonnet-4-6", 1_000_000, true, ProviderAnthropic},
		{"anthropic/claude-opus-4-1", "claude-opus-4-1", 200_000, true, ProviderAnthropic},
		{"claude-opus-4-20250514", "claude-opus-4", 200_000, true, ProviderAnthropic},
		{"gpt-4.1-mini-2025-04-14", "gpt-4.1-mini", 1_047_576, true, ProviderOpenAI},
		{"gpt-4o-2024-08-06", "gpt-4o", 128_000, true, ProviderOpenAI},
		{"gpt-4o-mini", "gpt-4o-mini", 128_000, true, ProviderOpenAI},
		{"o3-mini", "o3-mini", 200_000, true, ProviderOpenAI},
		{"claude-nextgen-9", "", UnknownClaude.ContextWindow, false, ProviderAnthropic},
		{"qwen2.5-coder:32b", "", UnknownLocal.ContextWindow, false, ProviderOpenAI},
	} {
		m := tab.Lookup(tc.id)
		if m.ID != tc.id || m.ContextWindow != tc.window || m.Known != tc.known || m.Provider != tc.provider {
			t.Errorf("Lookup(%q) = %+v", tc.id, m)
		}
		if tc.entry != "" && m.Input != tab.Lookup(tc.entry).Input {
			t.Errorf("Lookup(%q) price %v, want %s's", tc.id, m.Input, tc.entry)
		}
	}
}

func TestCost(t *testing.T) {
	m := NewTable().Lookup("claude-sonnet-4-5")
	got := m.Cost(providers.Usage{InputTokens: 1_000_000, OutputTokens: 100_000, CacheCreationInputTokens: 200_000, CacheReadInputTokens: 2_000_000})
	want := 3 + 1.5 + 0.75 + 0.6
	if math.Abs(got-want) > 1e-9 {
		t.Errorf("cost = %v, want %v", got, want)
	}
}

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestResolve(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		env     map[string]string
		sources []Source
		want    Resolved
		err     string
	}{
		{
			name: "environment only",
			env:  map[string]string{"ANTHROPIC_API_KEY": "sk-ant", "ANTHROPIC_BASE_URL": "http://proxy", "ANTHROPIC_MODEL": "claude-opus-4-5"},
			want: Resolved{Provider: ProviderAnthropic, Model: "claude-opus-4-5", BaseURL: "http://proxy", APIKey: "sk-ant", KeyFrom: "ANTHROPIC_API_KEY"},
		},
		{
			name: "default model",
			env:  map[string]string{"ANTHROPIC_API_KEY": "sk-ant"},
			want: Resolved{Provider: ProviderAnthropic, Model: DefaultAnthropicModel, APIKey: "sk-ant", KeyFrom: "ANTHROPIC_API_KEY"},
		},
		{
			name: "session beats initializationOptions beats settings beats env",
			env:  map[string]string{"ANTHROPIC_API_KEY": "sk-env", "ANTHROPIC_MODEL": "claude-haiku-4-5", "ANTHROPIC_BASE_URL": "http://env"},
			sources: []Source{
				{Name: "session/set_model", Model: "claude-opus-4-6"},
				{Name: "initializationOptions", Model: "claude-sonnet-4-6", BaseURL: "http://init"},
				{Name: "settings", Model: "claude-sonnet-4-5", BaseURL: "http://settings", APIKey: "sk-settings"},
			},
			want: Resolved{Provider: ProviderAnthropic, Model: "claude-opus-4-6", BaseURL: "http://init", APIKey: "sk-settings", KeyFrom: "settings"},
		},
		{
			name:    "a model implies its provider; another provider's settings are skipped",
			env:     map[string]string{"ANTHROPIC_API_KEY": "sk-ant", "OPENAI_API_KEY": "sk-oai"},
			sources: []Source{{Name: "session/set_model", Model: "gpt-4.1"}, {Name: "settings", Model: "claude-sonnet-4-5", APIKey: "sk-settings", BaseURL: "http://anthropic-proxy"}},
			want:    Resolved{Provider: ProviderOpenAI, Model: "gpt-4.1", APIKey: "sk-oai", KeyFrom: "OPENAI_API_KEY"},
		},
		{
			name:    "ollama needs no key",
			sources: []Source{{Name: "settings", Provider: "ollama", Model: "qwen2.5-coder:7b"}},
			want:    Resolved{Provider: ProviderOpenAI, Model: "qwen2.5-coder:7b", BaseURL: "http://localhost:11434/v1"},
		},
		{
			name:    "unknown model goes to an OpenAI-compatible server",
			env:     map[string]string{"OPENAI_BASE_URL": "http://gpu:8000/v1"},
			sources: []Source{{Name: "initializationOptions", Model: "Qwen/Qwen3-Coder-30B"}},
			want:    Resolved{Provider: ProviderOpenAI, Model: "Qwen/Qwen3-Coder-30B", BaseURL: "http://gpu:8000/v1"},
		},
		{
			name:    "unknown model behind an Anthropic gateway",
			env:     map[string]string{"ANTHROPIC_BASE_URL": "http://litellm", "ANTHROPIC_AUTH_TOKEN": "tok"},
			sources: []Source{{Name: "settings", Model: "kimi-k2"}},
			want:    Resolved{Provider: ProviderAnthropic, Model: "kimi-k2", BaseURL: "http://litellm", AuthToken: "tok", KeyFrom: "ANTHROPIC_AUTH_TOKEN"},
		},
		{
			name:    "OpenAI environment",
			env:     map[string]string{"OPENAI_API_KEY": "sk-oai", "OPENAI_MODEL": "o4-mini"},
			want:    Resolved{Provider: ProviderOpenAI, Model: "o4-mini", APIKey: "sk-oai", KeyFrom: "OPENAI_API_KEY"},
			sources: nil,
		},
		{
			name: "missing Anthropic key names the variable",
			err:  "set ANTHROPIC_API_KEY",
		},
		{
			name:    "missing OpenAI key names the variable",
			sources: []Source{{Name: "session/new", Model: "gpt-4o"}},
			err:     "set OPENAI_API_KEY",
		},
		{
			name:    "unknown provider",
			sources: []Source{{Name: "settings", Provider: "gemini"}},
			err:     `settings: unknown provider "gemini"`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Resolver{Getenv: env(tc.env)}.Resolve(ctx, tc.sources...)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Info.ID != got.Model || got.Info.Provider != got.Provider {
				t.Errorf("info = %+v", got.Info)
			}
			got.Info = Model{}
			if got != tc.want {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestMissingKeyIsErrNoAPIKey(t *testing.T) {
	_, err := Resolver{Getenv: env(nil)}.Resolve(context.Background())
	if !errors.Is(err, ErrNoAPIKey) {
		t.Errorf("err = %v", err)
	}
}

func TestAPIKeyHelper(t *testing.T) {
	ctx := context.Background()
	r := Resolver{Getenv: env(map[string]string{"ANTHROPIC_API_KEY": "sk-env"})}
	got, err := r.Resolve(ctx, Source{Name: "settings", APIKeyHelper: "echo '  sk-helper  '"})
	if err != nil || got.APIKey != "sk-helper" || got.KeyFrom != "apiKeyHelper of settings" {
		t.Fatalf("got %+v, %v", got, err)
	}
	// A key given by a source of higher priority wins over the helper.
	got, err = r.Resolve(ctx, Source{Name: "initializationOptions", APIKey: "sk-init"}, Source{Name: "settings", APIKeyHelper: "exit 1"})
	if err != nil || got.APIKey != "sk-init" {
		t.Fatalf("got %+v, %v", got, err)
	}
	_, err = r.Resolve(ctx, Source{Name: "settings", APIKeyHelper: "echo vault is locked >&2; exit 3"})
	if err == nil || !strings.Contains(err.Error(), "apiKeyHelper of settings") || !strings.Contains(err.Error(), "vault is locked") {
		t.Errorf("failing helper: %v", err)
	}
	_, err = r.Resolve(ctx, Source{Name: "settings", APIKeyHelper: "true"})
	if err == nil || !strings.Contains(err.Error(), "printed no key") {
		t.Errorf("silent helper: %v", err)
	}
	r.HelperTimeout = 100 * time.Millisecond
	start := time.Now()
	_, err = r.Resolve(ctx, Source{Name: "settings", APIKeyHelper: "sleep 10"})
	if err == nil || !strings.Contains(err.Error(), "did not finish within 100ms") {
		t.Errorf("slow helper: %v", err)
	}
	if time.Since(start) > 3*time.Second {
		t.Errorf("slow helper took %v", time.Since(start))
	}
}

func TestPool(t *testing.T) {
	srv := fake.NewAnthropic(t, fake.Turn{fake.Text("one")}, fake.Turn{fake.Text("two")})
	var pool Pool
	r1, err := Resolver{Getenv: env(map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": srv.BaseURL()})}.Resolve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r2 := r1
	r2.Model, r2.Info = "claude-haiku-4-5", NewTable().Lookup("claude-haiku-4-5")
	// Configuring a service (at initialize) builds no SDK client: the
	// first call does.
	pool.Provider(r1)
	for _, base := range pool.providers {
		if l, ok := base.(*lazy); !ok || l.p != nil {
			t.Errorf("provider built before its first call: %T %+v", base, base)
		}
	}
	for _, r := range []Resolved{r1, r2} {
		req := &providers.Request{Messages: []providers.Message{{Role: providers.RoleUser, Content: []providers.Block{providers.TextBlock("hi")}}}}
		if _, err := pool.Provider(r).Stream(context.Background(), req, func(providers.Event) {}); err != nil {
			t.Fatal(err)
		}
		if req.Model != "" {
			t.Error("the caller's request was changed")
		}
	}
	if len(pool.providers) != 1 {
		t.Errorf("pool holds %d providers for one endpoint", len(pool.providers))
	}
	reqs := srv.Requests()
	if reqs[0].JSON["model"] != DefaultAnthropicModel || reqs[0].JSON["max_tokens"] != 32000.0 || reqs[1].JSON["model"] != "claude-haiku-4-5" {
		t.Errorf("requests: %v %v / %v", reqs[0].JSON["model"], reqs[0].JSON["max_tokens"], reqs[1].JSON["model"])
	}
}
