package config

import (
	"context"
	"net/http"
	"sync"

	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/providers/anthropic"
	"github.com/agent-lsp/agent-lsp/providers/openai"
	"github.com/agent-lsp/agent-lsp/providers/retry"
)

// Pool makes providers for resolved configurations and keeps them: one
// per provider, base URL and key, so switching models never builds a new
// SDK client (each holds an HTTP transport with its idle connections).
// Providers are wrapped with retries. A Pool is safe for concurrent use.
type Pool struct {
	// Retry is the retry policy (zero: the defaults).
	Retry retry.Policy
	// HTTPClient, if set, is used by every provider.
	HTTPClient *http.Client

	mu        sync.Mutex // guards providers
	providers map[poolKey]retry.Streamer
}

type poolKey struct {
	provider, baseURL, apiKey, authToken string
	cloud                                string // Cloud's key
}

// Provider returns the provider for r. Its calls use r.Model when a
// request names no model, and max_tokens from the model table (bounded)
// when a request sets none.
func (p *Pool) Provider(r Resolved) retry.Streamer {
	k := poolKey{r.Provider, r.BaseURL, r.APIKey, r.AuthToken, r.Cloud.key()}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.providers == nil {
		p.providers = map[poolKey]retry.Streamer{}
	}
	base, ok := p.providers[k]
	if !ok {
		// Built on the first call, not here: a service is configured
		// while the editor waits for initialize, and a session may never
		// call the model (issue 21).
		hc, pol := p.HTTPClient, p.Retry
		base = &lazy{build: func() retry.Streamer {
			var sp retry.Streamer
			switch {
			case r.Cloud != nil:
				sp = newCloud(r, hc)
			case r.Provider == ProviderOpenAI:
				sp = openai.New(openai.Options{APIKey: r.APIKey, BaseURL: r.BaseURL, HTTPClient: hc})
			default:
				sp = anthropic.New(anthropic.Options{APIKey: r.APIKey, AuthToken: r.AuthToken, BaseURL: r.BaseURL, HTTPClient: hc})
			}
			return retry.Wrap(sp, pol)
		}}
		p.providers[k] = base
	}
	var sp retry.Streamer = base
	if r.FallbackModel != "" {
		sp = fallback{p: base, model: r.FallbackModel}
	}
	return defaults{p: sp, model: r.Model, maxTokens: maxTokens(r.Info)}
}

// lazy builds its provider on the first call and keeps it.
type lazy struct {
	once  sync.Once
	build func() retry.Streamer
	p     retry.Streamer // set once, by build
}

func (l *lazy) Stream(ctx context.Context, req *providers.Request, emit func(providers.Event)) (*providers.Response, error) {
	l.once.Do(func() { l.p = l.build() })
	return l.p.Stream(ctx, req, emit)
}

// maxTokens is the output limit asked for by default: the model's, but
// at most 32k, so the prompt keeps room in the window.
func maxTokens(m Model) int {
	return max(min(m.MaxOutput, 32_000), 1024)
}

// defaults fills a request's model and max tokens.
type defaults struct {
	p         retry.Streamer
	model     string
	maxTokens int
}

func (d defaults) Stream(ctx context.Context, req *providers.Request, emit func(providers.Event)) (*providers.Response, error) {
	if req.Model == "" || req.MaxTokens <= 0 {
		r := *req
		if r.Model == "" {
			r.Model = d.model
		}
		if r.MaxTokens <= 0 {
			r.MaxTokens = d.maxTokens
		}
		req = &r
	}
	return d.p.Stream(ctx, req, emit)
}
