// Package openai streams model responses from any OpenAI-compatible Chat
// Completions API (OpenAI, OpenRouter, a local Ollama at
// http://localhost:11434/v1, vLLM, llama.cpp's server) through
// github.com/openai/openai-go/v3.
//
// The conversation keeps the Anthropic block shapes of package providers:
// tool_use blocks become an assistant message's tool_calls, tool_result
// blocks become tool messages, and streamed tool calls, reasoning deltas
// (reasoning_content or reasoning, as vLLM, DeepSeek, Ollama and
// OpenRouter send them) and usage come back as provider events and blocks.
//
// A Provider holds one SDK client and one HTTP transport: make one per
// configuration and share it. The SDK's own retries are off; wrap the
// Provider with providers/retry.
package openai

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/providers/internal/transport"
)

// defaultBaseURL is OpenAI's API.
const defaultBaseURL = "https://api.openai.com/v1"

// DefaultMaxTokens is the output limit of a request that sets none.
const DefaultMaxTokens = 8192

// DefaultIdleTimeout is how long a stream may go without a chunk before
// the call fails as stalled. Local servers can be slow to start a long
// prompt, so it is generous.
const DefaultIdleTimeout = 5 * time.Minute

// Options configure a Provider. The environment is not consulted for the
// key or base URL: callers resolve OPENAI_API_KEY and OPENAI_BASE_URL (see
// providers/config).
type Options struct {
	// APIKey is sent as a bearer token; local servers need none.
	APIKey string
	// BaseURL is the API root including /v1 (default defaultBaseURL).
	BaseURL string
	// HTTPClient overrides the provider's own client.
	HTTPClient *http.Client
	// Model is used when a Request names none.
	Model string
	// MaxTokens is used when a Request sets none (default DefaultMaxTokens).
	MaxTokens int
	// IdleTimeout fails a stream that delivers nothing for this long
	// (default DefaultIdleTimeout; negative disables).
	IdleTimeout time.Duration
	// NoStreamUsage leaves out stream_options.include_usage, for servers
	// that reject it. Usage is then zero.
	NoStreamUsage bool
	// ReasoningEffort ("low", "medium", "high") is sent as
	// reasoning_effort, for reasoning models that take it.
	ReasoningEffort string
	// Headers are added to every request (e.g. OpenRouter's HTTP-Referer).
	Headers map[string]string
}

// Provider streams Chat Completions responses. It is safe for concurrent
// use.
type Provider struct {
	client openai.Client
	opts   Options
	// official is set for api.openai.com, which wants
	// max_completion_tokens; compatible servers know max_tokens.
	official bool
}

// New returns a Provider with one SDK client for all its calls.
func New(opts Options) *Provider {
	if opts.BaseURL == "" {
		opts.BaseURL = defaultBaseURL
	}
	if opts.MaxTokens <= 0 {
		opts.MaxTokens = DefaultMaxTokens
	}
	if opts.IdleTimeout == 0 {
		opts.IdleTimeout = DefaultIdleTimeout
	}
	// Every option the SDK would take from the environment that matters
	// here is set explicitly, so the environment cannot override it.
	ro := []option.RequestOption{
		option.WithHTTPClient(transport.Client(opts.HTTPClient)),
		option.WithMaxRetries(0),
		option.WithBaseURL(opts.BaseURL),
		option.WithAPIKey(opts.APIKey),
		option.WithAdminAPIKey(""),
	}
	for k, v := range opts.Headers {
		ro = append(ro, option.WithHeader(k, v))
	}
	official := false
	if u, err := url.Parse(opts.BaseURL); err == nil {
		official = u.Host == "api.openai.com"
	}
	return &Provider{client: openai.NewClient(ro...), opts: opts, official: official}
}

// Stream sends req and streams the response: text, reasoning and tool
// call events as they arrive, then the complete message in Anthropic
// shape. Tool calls end (EventToolEnd) when the server sends the
// finish_reason.
//
// Errors are *providers.Error, as for providers/anthropic. A cancelled
// ctx returns ctx.Err().
func (p *Provider) Stream(ctx context.Context, req *providers.Request, emit func(providers.Event)) (*providers.Response, error) {
	if p.official && p.opts.APIKey == "" {
		return nil, &providers.Error{Type: "authentication_error", Message: "no OpenAI API key: set OPENAI_API_KEY"}
	}
	params, err := p.params(req)
	if err != nil {
		return nil, err
	}
	sctx, wd := transport.NewWatchdog(ctx, p.opts.IdleTimeout)
	defer wd.Stop()

	stream := p.client.Chat.Completions.NewStreaming(sctx, params)
	defer stream.Close()
	acc := newAccumulator(emit)
	for stream.Next() {
		wd.Kick()
		acc.add(stream.Current())
	}
	err = stream.Err()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if wd.Fired() {
		return nil, wd.Err()
	}
	if err != nil {
		var se *ssestream.StreamError
		var apiErr *openai.Error
		if acc.complete() && !errors.As(err, &se) && !errors.As(err, &apiErr) {
			// The connection dropped after finish_reason: only usage and
			// [DONE] were lost.
			return acc.response()
		}
		return nil, mapError(err)
	}
	return acc.response()
}

// stopReason maps a finish_reason to a stop reason.
func stopReason(finish string, hasTools bool) providers.StopReason {
	switch finish {
	case "tool_calls", "function_call":
		return providers.StopToolUse
	case "length":
		return providers.StopMaxTokens
	case "content_filter":
		return providers.StopRefusal
	}
	if hasTools {
		// Some compatible servers finish with "stop" after tool calls.
		return providers.StopToolUse
	}
	return providers.StopEndTurn
}

func joinText(blocks []providers.Block) string {
	var parts []string
	for _, b := range blocks {
		if b.Type == providers.BlockText && b.Text != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n\n")
}
