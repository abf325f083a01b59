// Package openai streams model responses from any OpenAI-compatible Chat
// Completions API (OpenAI, OpenRouter, a local Ollama at
// http://localhost:11434/v1, vLLM, llama.cpp's server), speaking the API
// over net/http itself.
//
// The conversation keeps the Anthropic block shapes of package providers:
// tool_use blocks become an assistant message's tool_calls, tool_result
// blocks become tool messages, and streamed tool calls, reasoning deltas
// (reasoning_content or reasoning, as vLLM, DeepSeek, Ollama and
// OpenRouter send them) and usage come back as provider events and blocks.
//
// It does not use github.com/openai/openai-go: the one endpoint it needs
// is a POST and a stream of JSON chunks, and the SDK's generated packages
// doubled the binary (40 MB against 20 MB) and the work every start of
// agent-lsp did before main, initialize included (issue 21).
//
// A Provider holds one HTTP client and transport: make one per
// configuration and share it. It does not retry; wrap the Provider with
// providers/retry.
package openai

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/providers/internal/transport"
)

// DefaultBaseURL is OpenAI's API.
const DefaultBaseURL = "https://api.openai.com/v1"

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
	// BaseURL is the API root including /v1 (default DefaultBaseURL).
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
	client   *http.Client
	endpoint string // BaseURL + /chat/completions
	opts     Options
	// official is set for api.openai.com, which wants
	// max_completion_tokens; compatible servers know max_tokens.
	official bool
}

// New returns a Provider with one HTTP client for all its calls.
func New(opts Options) *Provider {
	if opts.BaseURL == "" {
		opts.BaseURL = DefaultBaseURL
	}
	if opts.MaxTokens <= 0 {
		opts.MaxTokens = DefaultMaxTokens
	}
	if opts.IdleTimeout == 0 {
		opts.IdleTimeout = DefaultIdleTimeout
	}
	official := false
	if u, err := url.Parse(opts.BaseURL); err == nil {
		official = u.Host == "api.openai.com"
	}
	return &Provider{
		client:   transport.Client(opts.HTTPClient),
		endpoint: strings.TrimSuffix(opts.BaseURL, "/") + "/chat/completions",
		opts:     opts,
		official: official,
	}
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
	body, err := json.Marshal(params)
	if err != nil {
		return nil, &providers.Error{Type: "invalid_request_error", Message: fmt.Sprintf("encoding the request: %v", err)}
	}
	sctx, wd := transport.NewWatchdog(ctx, p.opts.IdleTimeout)
	defer wd.Stop()

	acc := newAccumulator(emit)
	err = p.post(sctx, body, func(data []byte) error {
		wd.Kick()
		var ch chunk
		if err := json.Unmarshal(data, &ch); err != nil {
			return fmt.Errorf("decoding a chunk: %w", err)
		}
		acc.add(ch)
		return nil
	})
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if wd.Fired() {
		return nil, wd.Err()
	}
	if err != nil {
		var pe *providers.Error
		if acc.complete() && !errors.As(err, &pe) {
			// The connection dropped after finish_reason: only usage and
			// [DONE] were lost.
			return acc.response()
		}
		return nil, mapError(err)
	}
	return acc.response()
}

// post sends body to the chat completions endpoint and calls onData with
// each event's data until [DONE] or the end of the stream. An error
// status, or an error object inside the stream, is a *providers.Error.
func (p *Provider) post(ctx context.Context, body []byte, onData func([]byte) error) error {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, p.endpoint, bytes.NewReader(body))
	if err != nil {
		return err
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "text/event-stream")
	if p.opts.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+p.opts.APIKey)
	}
	for k, v := range p.opts.Headers {
		hreq.Header.Set(k, v)
	}
	resp, err := p.client.Do(hreq)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		if err != nil {
			return err
		}
		return statusError(resp, raw)
	}
	return readEvents(resp.Body, func(data []byte) error {
		if bytes.HasPrefix(data, []byte("[DONE]")) {
			return errDone
		}
		if e := streamError(data); e != nil {
			return e
		}
		return onData(data)
	})
}

// errDone ends the reading of a stream at [DONE].
var errDone = errors.New("done")

// readEvents reads a text/event-stream and calls onData with the data of
// each event (its data lines joined by newlines). It returns nil at the
// end of the stream or when onData returns errDone, and onData's or the
// reader's error otherwise.
func readEvents(r io.Reader, onData func([]byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	var data []byte
	have := false
	dispatch := func() error {
		if !have {
			return nil
		}
		d := data
		data, have = nil, false
		return onData(d)
	}
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			if err := dispatch(); err != nil {
				if err == errDone {
					return nil
				}
				return err
			}
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		if len(field) == 0 {
			continue // a comment
		}
		if string(field) != "data" {
			continue // event, id and retry do not matter here
		}
		value = bytes.TrimPrefix(value, []byte(" "))
		if have {
			data = append(data, '\n')
		}
		data = append(data, value...)
		have = true
	}
	if err := sc.Err(); err != nil {
		return err
	}
	// A last event without its blank line still counts.
	if err := dispatch(); err != nil && err != errDone {
		return err
	}
	return nil
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
