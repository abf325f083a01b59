// Package anthropic streams model responses from the Anthropic Messages API
// through github.com/anthropics/anthropic-sdk-go.
//
// A Provider holds one SDK client, and with it one HTTP transport and its
// pool of keep-alive connections: make one per configuration and share it
// between sessions and prompts. The SDK's own retries are off; wrap the
// Provider with providers/retry to retry failed calls.
package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/providers/internal/transport"
)

// DefaultMaxTokens is the output limit of a request that sets none.
const DefaultMaxTokens = 8192

// DefaultIdleTimeout is how long a stream may go without an event (the
// API sends pings while the model thinks) before the call fails as
// stalled.
const DefaultIdleTimeout = 3 * time.Minute

// Options configure a Provider. The environment is not consulted: callers
// resolve ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL (see providers/config).
type Options struct {
	// APIKey is sent as x-api-key. AuthToken, when set instead, is sent as
	// a bearer token (for gateways that want one).
	APIKey    string
	AuthToken string
	// BaseURL overrides https://api.anthropic.com.
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
	// Headers are added to every request (e.g. anthropic-beta).
	Headers map[string]string
	// ClientOptions are applied last, after HTTPClient and BaseURL: a
	// platform's (Amazon Bedrock's, Google Vertex AI's) which brings its
	// own credentials, so that APIKey and AuthToken are not needed.
	ClientOptions []option.RequestOption
}

// Provider streams Messages API responses. It is safe for concurrent use.
type Provider struct {
	client anthropic.Client
	opts   Options
}

// New returns a Provider with one SDK client for all its calls.
func New(opts Options) *Provider {
	if opts.MaxTokens <= 0 {
		opts.MaxTokens = DefaultMaxTokens
	}
	if opts.IdleTimeout == 0 {
		opts.IdleTimeout = DefaultIdleTimeout
	}
	ro := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithHTTPClient(transport.Client(opts.HTTPClient)),
		option.WithMaxRetries(0),
	}
	if opts.APIKey != "" {
		ro = append(ro, option.WithAPIKey(opts.APIKey))
	}
	if opts.AuthToken != "" {
		ro = append(ro, option.WithAuthToken(opts.AuthToken))
	}
	if opts.BaseURL != "" {
		ro = append(ro, option.WithBaseURL(opts.BaseURL))
	}
	for k, v := range opts.Headers {
		ro = append(ro, option.WithHeader(k, v))
	}
	ro = append(ro, opts.ClientOptions...)
	return &Provider{client: anthropic.NewClient(ro...), opts: opts}
}

// Stream sends req and streams the response: text, thinking and tool
// call events as they arrive, then the complete message. Thinking blocks
// keep their signatures so they can be sent back in the next request.
//
// Errors are *providers.Error, marked Retryable for 408/409/429/5xx/529,
// transport failures, a stalled stream and a stream that ended before the
// message was complete; ContextTooLong for a prompt over the model's
// window. A cancelled ctx returns ctx.Err().
func (p *Provider) Stream(ctx context.Context, req *providers.Request, emit func(providers.Event)) (*providers.Response, error) {
	if p.opts.APIKey == "" && p.opts.AuthToken == "" && len(p.opts.ClientOptions) == 0 {
		return nil, &providers.Error{Type: "authentication_error", Message: "no Anthropic API key: set ANTHROPIC_API_KEY"}
	}
	params, err := p.params(req)
	if err != nil {
		return nil, err
	}
	sctx, wd := transport.NewWatchdog(ctx, p.opts.IdleTimeout)
	defer wd.Stop()

	stream := p.client.Messages.NewStreaming(sctx, params)
	defer stream.Close()
	acc := newAccumulator(emit)
	for stream.Next() {
		wd.Kick()
		if err := acc.add(stream.Current()); err != nil {
			return nil, err
		}
	}
	err = stream.Err()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if wd.Fired() {
		return nil, wd.Err()
	}
	if err != nil {
		var apiErr *anthropic.Error
		if acc.complete() && !errors.As(err, &apiErr) {
			// The connection dropped after message_delta: only
			// message_stop was lost.
			return acc.response()
		}
		return nil, mapError(err)
	}
	return acc.response()
}

// accumulator builds the response message from stream events and emits
// the provider events.
type accumulator struct {
	emit   func(providers.Event)
	resp   providers.Response
	blocks map[int64]*providers.Block // open and closed blocks by index
	order  []int64
	input  map[int64][]byte // tool_use input JSON so far
	open   map[int64]bool
	// delta is set once message_delta arrived: every block is then final.
	delta bool
	stop  bool
}

func newAccumulator(emit func(providers.Event)) *accumulator {
	return &accumulator{
		emit:   emit,
		blocks: map[int64]*providers.Block{},
		input:  map[int64][]byte{},
		open:   map[int64]bool{},
	}
}

func (a *accumulator) add(ev anthropic.MessageStreamEventUnion) error {
	switch ev.Type {
	case "message_start":
		m := ev.Message
		a.resp.Model = string(m.Model)
		a.resp.Usage = providers.Usage{
			InputTokens:              m.Usage.InputTokens,
			OutputTokens:             m.Usage.OutputTokens,
			CacheCreationInputTokens: m.Usage.CacheCreationInputTokens,
			CacheReadInputTokens:     m.Usage.CacheReadInputTokens,
		}
		a.emit(providers.Event{Kind: providers.EventUsage, Usage: a.resp.Usage})
	case "content_block_start":
		cb := ev.ContentBlock
		b := &providers.Block{Type: cb.Type}
		switch cb.Type {
		case providers.BlockText:
			b.Text = cb.Text
		case providers.BlockThinking:
			b.Thinking, b.Signature = cb.Thinking, cb.Signature
		case providers.BlockRedactedThinking:
			b.Data = cb.Data
		case providers.BlockToolUse:
			b.ID, b.Name = cb.ID, cb.Name
			a.emit(providers.Event{Kind: providers.EventToolStart, Index: int(ev.Index), ToolID: cb.ID, ToolName: cb.Name})
		case providers.BlockWebSearchResult:
			r := cb.AsWebSearchToolResult()
			b.ToolUseID = r.ToolUseID
			for _, page := range r.Content.OfWebSearchResultBlockArray {
				b.Content = append(b.Content, providers.TextBlock(page.Title+"\n"+page.URL))
			}
			if r.Content.ErrorCode != "" {
				b.Text = string(r.Content.ErrorCode)
			}
			if _, dup := a.blocks[ev.Index]; !dup {
				a.order = append(a.order, ev.Index)
			}
			a.blocks[ev.Index] = b
			return nil
		default:
			// Other server tool blocks (server_tool_use) are not kept.
			return nil
		}
		if _, dup := a.blocks[ev.Index]; !dup {
			a.order = append(a.order, ev.Index)
		}
		a.blocks[ev.Index] = b
		a.open[ev.Index] = true
		if b.Text != "" {
			a.emit(providers.Event{Kind: providers.EventText, Index: int(ev.Index), Text: b.Text})
		}
	case "content_block_delta":
		b := a.blocks[ev.Index]
		if b == nil {
			return nil
		}
		d := ev.Delta
		switch d.Type {
		case "text_delta":
			b.Text += d.Text
			a.emit(providers.Event{Kind: providers.EventText, Index: int(ev.Index), Text: d.Text})
		case "thinking_delta":
			b.Thinking += d.Thinking
			a.emit(providers.Event{Kind: providers.EventThinking, Index: int(ev.Index), Text: d.Thinking})
		case "signature_delta":
			b.Signature += d.Signature
		case "input_json_delta":
			a.input[ev.Index] = append(a.input[ev.Index], d.PartialJSON...)
			if d.PartialJSON != "" {
				a.emit(providers.Event{Kind: providers.EventToolDelta, Index: int(ev.Index), Text: d.PartialJSON})
			}
		}
	case "content_block_stop":
		b := a.blocks[ev.Index]
		if b == nil || !a.open[ev.Index] {
			return nil
		}
		a.open[ev.Index] = false
		if b.Type == providers.BlockToolUse {
			in := a.input[ev.Index]
			if len(in) == 0 {
				in = []byte("{}")
			}
			if !json.Valid(in) {
				return &providers.Error{Type: "invalid_tool_input", Message: fmt.Sprintf("tool_use %s (%s) input is not valid JSON", b.ID, b.Name), Retryable: true}
			}
			b.Input = json.RawMessage(in)
			a.emit(providers.Event{Kind: providers.EventToolEnd, Index: int(ev.Index), ToolID: b.ID, ToolName: b.Name, Input: b.Input})
		}
	case "message_delta":
		a.delta = true
		a.resp.StopReason = providers.StopReason(ev.Delta.StopReason)
		u := ev.Usage
		a.resp.Usage.OutputTokens = u.OutputTokens
		// Newer API versions report cumulative input counts here too.
		if u.InputTokens > 0 {
			a.resp.Usage.InputTokens = u.InputTokens
		}
		if u.CacheCreationInputTokens > 0 {
			a.resp.Usage.CacheCreationInputTokens = u.CacheCreationInputTokens
		}
		if u.CacheReadInputTokens > 0 {
			a.resp.Usage.CacheReadInputTokens = u.CacheReadInputTokens
		}
		a.emit(providers.Event{Kind: providers.EventUsage, Usage: a.resp.Usage})
	case "message_stop":
		a.stop = true
	}
	return nil
}

// complete reports whether message_delta arrived with every block
// closed: the message is whole even if message_stop was lost.
func (a *accumulator) complete() bool {
	if !a.delta {
		return false
	}
	for _, idx := range a.order {
		if a.open[idx] {
			return false
		}
	}
	return true
}

// response returns the complete message. A stream that ended without
// message_stop is still complete when message_delta (which follows the
// last content block) arrived and every block was closed; otherwise it
// was cut and the call failed.
func (a *accumulator) response() (*providers.Response, error) {
	if !a.stop && !a.complete() {
		return nil, &providers.Error{Type: "stream_incomplete", Message: "the response stream ended before the message was complete", Retryable: true, Err: errIncomplete}
	}
	r := a.resp
	r.Message = providers.Message{Role: providers.RoleAssistant, Content: make([]providers.Block, 0, len(a.order))}
	for _, idx := range a.order {
		r.Message.Content = append(r.Message.Content, *a.blocks[idx])
	}
	return &r, nil
}

var errIncomplete = errors.New("incomplete stream")
