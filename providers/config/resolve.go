// Package config decides which model the agent talks to, through which
// provider, base URL and key, and knows the models' windows and prices.
//
// Resolver.Resolve takes the places a choice can come from, highest priority
// first, as plain Sources (the caller reads the settings file and the
// protocol messages; this package imports neither):
//
//	r, err := config.Resolver{}.Resolve(ctx,
//		config.Source{Name: "session/set_model", Model: modelID},
//		config.Source{Name: "initializationOptions", Model: init.Model, BaseURL: init.BaseURL},
//		config.Source{Name: "settings", Provider: s.Provider, Model: s.Model, BaseURL: s.BaseURL, APIKeyHelper: s.APIKeyHelper},
//	)
//
// The environment comes last: ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN,
// ANTHROPIC_BASE_URL and ANTHROPIC_MODEL for Anthropic; OPENAI_API_KEY,
// OPENAI_BASE_URL and OPENAI_MODEL for OpenAI-compatible servers. A Pool
// turns a Resolved into a provider, reusing one per endpoint and key.
package config

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Providers.
const (
	ProviderAnthropic = "anthropic"
	ProviderOpenAI    = "openai"
)

// Default models when no source names one.
const (
	DefaultAnthropicModel = "claude-sonnet-4-5"
	DefaultOpenAIModel    = "gpt-4.1"
)

// DefaultHelperTimeout bounds an apiKeyHelper command.
const DefaultHelperTimeout = 10 * time.Second

// ErrNoAPIKey is wrapped by the error of a configuration without a key.
var ErrNoAPIKey = errors.New("no API key")

// Source is one place the configuration can come from. Empty fields leave
// the choice to later sources.
type Source struct {
	// Name says where the values came from, for error messages, e.g.
	// "settings file ~/.agent-lsp/settings.json".
	Name string
	// Provider is "anthropic" or "openai", or a server the OpenAI
	// provider speaks to: "ollama", "vllm", "llamacpp", "openrouter",
	// "openai-compatible".
	Provider string
	Model    string
	BaseURL  string
	APIKey   string
	// APIKeyHelper is a shell command that prints the key.
	APIKeyHelper string
}

// Resolved is the configuration chosen.
type Resolved struct {
	Provider string // ProviderAnthropic or ProviderOpenAI
	Model    string
	BaseURL  string // empty for the provider's default
	// APIKey, or for Anthropic AuthToken (ANTHROPIC_AUTH_TOKEN, a bearer
	// token), authenticates. Local servers may need neither.
	APIKey    string
	AuthToken string
	// KeyFrom says where the key came from ("ANTHROPIC_API_KEY",
	// "apiKeyHelper of settings", ...), never the key itself.
	KeyFrom string
	// Info is the model's table entry.
	Info Model
	// Cloud is set when Claude is reached through Amazon Bedrock or
	// Google Vertex AI (Provider is then ProviderAnthropic, Model the
	// platform's ID and BaseURL the platform endpoint's override).
	Cloud *Cloud
	// FallbackModel, set by the caller (settings "fallbackModel"),
	// answers when the model is overloaded; see Pool.Provider.
	FallbackModel string
}

// Resolver resolves configurations. The zero value reads the process
// environment and the built-in model table.
type Resolver struct {
	// Getenv reads the environment (default os.Getenv).
	Getenv func(string) string
	// Table is the model table (default NewTable()).
	Table *Table
	// HelperTimeout bounds an apiKeyHelper (default DefaultHelperTimeout).
	HelperTimeout time.Duration
	// RunHelper runs an apiKeyHelper command and returns its output
	// (default: sh -c).
	RunHelper func(ctx context.Context, command string) (string, error)
}

// wellKnown are servers spoken to with the OpenAI provider, with their
// default base URL.
var wellKnown = map[string]string{
	"ollama":            "http://localhost:11434/v1",
	"vllm":              "http://localhost:8000/v1",
	"llamacpp":          "http://localhost:8080/v1",
	"llama.cpp":         "http://localhost:8080/v1",
	"openrouter":        "https://openrouter.ai/api/v1",
	"openai-compatible": "",
	"openai":            "",
}

// normalize maps a provider name to a provider and a default base URL.
func normalize(name string) (provider, baseURL string, err error) {
	n := strings.ToLower(strings.TrimSpace(name))
	switch n {
	case "anthropic", "claude":
		return ProviderAnthropic, "", nil
	}
	if u, ok := wellKnown[n]; ok {
		return ProviderOpenAI, u, nil
	}
	return "", "", fmt.Errorf("unknown provider %q: use anthropic, openai, ollama, vllm, llamacpp or openrouter", name)
}

var openAIModel = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(gpt-|o\d|chatgpt-|codex-)`) })

// inferProvider guesses the provider from a model ID: "" when it cannot
// tell.
func (r Resolver) inferProvider(model string) string {
	if model == "" {
		return ""
	}
	if m := r.table().Lookup(model); m.Known {
		return m.Provider
	}
	base := model
	if i := strings.LastIndex(base, "/"); i >= 0 {
		base = base[i+1:]
	}
	switch {
	case strings.HasPrefix(base, "claude"):
		return ProviderAnthropic
	case openAIModel().MatchString(base):
		return ProviderOpenAI
	}
	return ""
}

// Resolve picks the provider, model, base URL and key.
//
// The provider is the first one a source names; else the one the first
// model named implies (claude-* is Anthropic, gpt-*, o1..o4 and models
// unknown to the table are OpenAI-compatible); else the environment's
// (ANTHROPIC_* before OPENAI_*); else Anthropic. A source's model, base
// URL and key count only if the source does not name, or imply by its
// model, another provider. The environment's variables of the chosen
// provider come last, then the default model. A missing key is an error
// wrapping ErrNoAPIKey that names the variable to set; local servers
// (any base URL other than api.openai.com) need no key.
func (r Resolver) Resolve(ctx context.Context, sources ...Source) (Resolved, error) {
	getenv := r.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	type layer struct {
		Source
		provider string // explicit, normalized
		baseURL  string // the well-known server's default
	}
	layers := make([]layer, 0, len(sources))
	for _, s := range sources {
		l := layer{Source: s}
		if s.Provider != "" {
			p, u, err := normalize(s.Provider)
			if err != nil {
				return Resolved{}, fmt.Errorf("%s: %w", s.Name, err)
			}
			l.provider, l.baseURL = p, u
		}
		layers = append(layers, l)
	}

	var res Resolved
	for _, l := range layers {
		if l.provider != "" {
			res.Provider = l.provider
			break
		}
	}
	cloud, cloudURL, cloudErr := resolveCloud(getenv)
	if cloud == nil && cloudErr != nil {
		return Resolved{Provider: ProviderAnthropic}, cloudErr
	}
	if cloud != nil && (res.Provider == "" || res.Provider == ProviderAnthropic) {
		// CLAUDE_CODE_USE_BEDROCK or _VERTEX: every model is Claude's,
		// whatever its ID looks like (an inference profile ARN).
		res.Provider, res.Cloud = ProviderAnthropic, cloud
	}
	if res.Provider == "" {
		for _, l := range layers {
			if l.Model == "" {
				continue
			}
			if res.Provider = r.inferProvider(l.Model); res.Provider == "" {
				res.Provider = ProviderOpenAI
				if getenv("ANTHROPIC_BASE_URL") != "" && getenv("OPENAI_BASE_URL") == "" && getenv("OPENAI_API_KEY") == "" {
					// A model the table does not know, behind an
					// Anthropic-compatible gateway.
					res.Provider = ProviderAnthropic
				}
			}
			break
		}
	}
	if res.Provider == "" {
		switch {
		case getenv("ANTHROPIC_API_KEY") != "" || getenv("ANTHROPIC_AUTH_TOKEN") != "" || getenv("ANTHROPIC_MODEL") != "" || getenv("ANTHROPIC_BASE_URL") != "":
			res.Provider = ProviderAnthropic
		case getenv("OPENAI_API_KEY") != "" || getenv("OPENAI_BASE_URL") != "" || getenv("OPENAI_MODEL") != "":
			res.Provider = ProviderOpenAI
		default:
			res.Provider = ProviderAnthropic
		}
	}

	// applies reports whether a layer's values are for the chosen provider.
	applies := func(l layer) bool {
		if l.provider != "" {
			return l.provider == res.Provider
		}
		if res.Cloud != nil {
			return true
		}
		p := r.inferProvider(l.Model)
		return p == "" || p == res.Provider
	}
	var helper, helperFrom, wellKnownURL string
	for _, l := range layers {
		if !applies(l) {
			continue
		}
		if res.Model == "" {
			res.Model = l.Model
		}
		if res.BaseURL == "" {
			res.BaseURL = l.BaseURL
		}
		if wellKnownURL == "" {
			wellKnownURL = l.baseURL
		}
		if res.APIKey == "" && helper == "" {
			switch {
			case l.APIKey != "":
				res.APIKey, res.KeyFrom = l.APIKey, l.Name
			case l.APIKeyHelper != "":
				helper, helperFrom = l.APIKeyHelper, "apiKeyHelper of "+l.Name
			}
		}
	}

	env := envNames[res.Provider]
	if res.Model == "" {
		res.Model = getenv(env.model)
	}
	if res.Cloud != nil {
		return r.resolveCloudRest(res, cloudURL, cloudErr)
	}
	if res.Model == "" {
		res.Model = env.defaultModel
	}
	if res.BaseURL == "" {
		res.BaseURL = getenv(env.baseURL)
	}
	if res.BaseURL == "" {
		res.BaseURL = wellKnownURL
	}
	if res.APIKey == "" && helper != "" {
		key, err := r.runHelper(ctx, helper)
		if err != nil {
			return Resolved{}, fmt.Errorf("%s: %w", helperFrom, err)
		}
		res.APIKey, res.KeyFrom = key, helperFrom
	}
	if res.APIKey == "" {
		if k := getenv(env.key); k != "" {
			res.APIKey, res.KeyFrom = k, env.key
		}
	}
	if res.APIKey == "" && res.Provider == ProviderAnthropic {
		if tok := getenv("ANTHROPIC_AUTH_TOKEN"); tok != "" {
			res.AuthToken, res.KeyFrom = tok, "ANTHROPIC_AUTH_TOKEN"
		}
	}
	res.Info = r.table().Lookup(res.Model)
	res.Info.Provider = res.Provider

	if res.APIKey == "" && res.AuthToken == "" && needsKey(res) {
		return res, fmt.Errorf("%w for %s (model %s): set %s in the environment agent-lsp starts with, or apiKeyHelper in the settings file", ErrNoAPIKey, res.Provider, res.Model, env.key)
	}
	return res, nil
}

// needsKey reports whether the endpoint wants a key: Anthropic's API and
// OpenAI's always, a gateway behind ANTHROPIC_BASE_URL too (it speaks
// Anthropic's protocol), a local OpenAI-compatible server not.
func needsKey(r Resolved) bool {
	if r.Provider == ProviderAnthropic {
		return true
	}
	return r.BaseURL == "" || strings.Contains(r.BaseURL, "api.openai.com") || strings.Contains(r.BaseURL, "openrouter.ai")
}

type envVars struct {
	key, baseURL, model, defaultModel string
}

var envNames = map[string]envVars{
	ProviderAnthropic: {"ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_MODEL", DefaultAnthropicModel},
	ProviderOpenAI:    {"OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL", DefaultOpenAIModel},
}

func (r Resolver) table() *Table {
	if r.Table != nil {
		return r.Table
	}
	return defaultTable
}

// defaultTable is shared by Resolvers without a Table; it never changes.
var defaultTable = NewTable()

// DefaultTable returns the table Resolvers use when given none.
func DefaultTable() *Table { return defaultTable }
