// Package retry wraps a model provider so that failed calls are retried:
// 429 after its Retry-After, 5xx and 529 with exponential backoff and
// jitter, connection errors and streams cut before the message was
// complete by sending the whole request again. Non-retryable errors (400,
// 401, 403, context too long) return at once.
//
// # What the consumer sees
//
// Events stream live: every attempt's events are forwarded as they
// arrive, so the user sees text the moment the model writes it. When an
// attempt fails and will be retried, an EventRetry is emitted before the
// wait. It voids everything emitted since the call began or since the
// previous EventRetry (RetryInfo.Reset says whether there was anything):
// the consumer drops the partial text, thinking and pending tool calls it
// showed, and the next attempt streams its response from the start.
//
// Only the Response that Stream returns is the model's message; it comes
// from the one attempt that completed, so history gets it exactly once
// and its tool calls run once, provided tools are run from the returned
// message and not started on EventToolEnd. A stream that lost only its
// final marker (message_stop, or usage and [DONE]) after every block was
// complete is already a completed response from the vendor providers and
// is not retried.
package retry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/providers/internal/transport"
)

// Streamer is a model provider: the method of engine.Provider, declared
// here because engine imports the providers.
type Streamer interface {
	Stream(ctx context.Context, req *providers.Request, emit func(providers.Event)) (*providers.Response, error)
}

// Policy defaults.
const (
	defaultMaxAttempts   = 8
	DefaultBase          = 200 * time.Millisecond
	defaultCap           = 10 * time.Second
	defaultMaxRetryAfter = 60 * time.Second
)

// Policy says how often and how long to retry. Zero fields take the
// defaults.
type Policy struct {
	// MaxAttempts is the number of attempts in all, the first included.
	MaxAttempts int
	// Base is the first backoff; each later one doubles, up to Cap.
	Base time.Duration
	Cap  time.Duration
	// MaxRetryAfter bounds how long a Retry-After header makes us wait.
	MaxRetryAfter time.Duration
	// Sleep waits d or until ctx ends (tests replace it).
	Sleep func(ctx context.Context, d time.Duration) error
	// Jitter returns a number in [0, 1) (tests replace it).
	Jitter func() float64
}

func (p Policy) withDefaults() Policy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = defaultMaxAttempts
	}
	if p.Base <= 0 {
		p.Base = DefaultBase
	}
	if p.Cap <= 0 {
		p.Cap = defaultCap
	}
	if p.MaxRetryAfter <= 0 {
		p.MaxRetryAfter = defaultMaxRetryAfter
	}
	if p.Sleep == nil {
		p.Sleep = transport.Sleep
	}
	if p.Jitter == nil {
		p.Jitter = rand.Float64
	}
	return p
}

// Provider retries the calls of the provider it wraps.
type Provider struct {
	p   Streamer
	pol Policy
}

// Wrap returns p with retries.
func Wrap(p Streamer, pol Policy) *Provider {
	return &Provider{p: p, pol: pol.withDefaults()}
}

// Stream calls the wrapped provider until an attempt completes, fails
// with an error that is not retryable, or the attempts run out; see the
// package doc for the events. The error of the last attempt is returned
// (wrapped, so errors.As finds the *providers.Error). A cancelled ctx
// returns ctx.Err() at once, also while waiting.
func (r *Provider) Stream(ctx context.Context, req *providers.Request, emit func(providers.Event)) (*providers.Response, error) {
	for attempt := 1; ; attempt++ {
		emitted := false
		resp, err := r.p.Stream(ctx, req, func(ev providers.Event) {
			if ev.Kind != providers.EventUsage {
				emitted = true
			}
			emit(ev)
		})
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var pe *providers.Error
		if !errors.As(err, &pe) || !pe.Retryable {
			return nil, err
		}
		if attempt >= r.pol.MaxAttempts {
			return nil, fmt.Errorf("model call failed %d times: %w", attempt, err)
		}
		d := r.delay(attempt, pe)
		emit(providers.Event{Kind: providers.EventRetry, Retry: &providers.RetryInfo{
			Attempt: attempt,
			Delay:   d,
			Reason:  Reason(pe),
			Reset:   emitted,
		}})
		if err := r.pol.Sleep(ctx, d); err != nil {
			return nil, err
		}
	}
}

// delay is the wait after a failed attempt: the Retry-After when the
// server sent one, else base·2^(attempt-1) capped, with ±20% jitter.
func (r *Provider) delay(attempt int, e *providers.Error) time.Duration {
	if d, ok := parseRetryAfter(e.RetryAfter, time.Now()); ok {
		return min(d, r.pol.MaxRetryAfter)
	}
	d := float64(r.pol.Base) * math.Pow(2, float64(attempt-1))
	d = min(d, float64(r.pol.Cap))
	d *= 0.8 + 0.4*r.pol.Jitter()
	return time.Duration(d)
}

// parseRetryAfter reads a Retry-After value: seconds (possibly
// fractional) or an HTTP date.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// Reason is a short description of a failed attempt, e.g. "429 rate
// limited", for the user.
func Reason(e *providers.Error) string {
	switch {
	case e.Status == 429:
		return "429 rate limited"
	case e.Status == 529 || e.Type == "overloaded_error":
		return "529 overloaded"
	case e.Status >= 500:
		return fmt.Sprintf("%d server error", e.Status)
	case e.Status != 0:
		return fmt.Sprintf("%d %s", e.Status, strings.ToLower(http.StatusText(e.Status)))
	case e.Type == "stream_incomplete" || errors.Is(e, io.ErrUnexpectedEOF):
		return "stream cut"
	case e.Type == "stream_stalled":
		return "stream stalled"
	case e.Type != "":
		return strings.ReplaceAll(e.Type, "_", " ")
	default:
		return "connection error"
	}
}
