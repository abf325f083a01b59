package fake

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Turn is the scripted answer to one request: the content blocks the model
// streams, in order, plus any faults. Each request a server receives
// consumes the next Turn. The same Turn plays on both wire formats.
type Turn []Part

// Part is an element of a Turn: a content block (Text, Thinking, ToolUse),
// a setting (StopReason, Model, Usage, Interleave) or a fault (HTTPError,
// Cut, StreamError, Hold, Delay).
type Part interface {
	apply(*plan)
}

// plan is a Turn compiled into what the handler does.
type plan struct {
	blocks     []block
	stopReason string
	usage      *Usage
	interleave bool

	httpErr   *HTTPError
	cut       *Cut
	streamErr *StreamError
	holds     []Hold
	delay     Delay
}

func compile(t Turn) *plan {
	p := &plan{}
	for _, part := range t {
		part.apply(p)
	}
	return p
}

// hasToolUse reports whether the turn asks for a tool.
func (p *plan) hasToolUse() bool {
	for _, b := range p.blocks {
		if b.kind == kindToolUse {
			return true
		}
	}
	return false
}

// stop returns the Anthropic stop reason of the turn.
func (p *plan) stop() string {
	switch {
	case p.stopReason != "":
		return p.stopReason
	case p.hasToolUse():
		return "tool_use"
	default:
		return "end_turn"
	}
}

func (p *plan) usageOrDefault() Usage {
	if p.usage != nil {
		return *p.usage
	}
	out := 0
	for _, b := range p.blocks {
		out += len(b.fragments)
	}
	return Usage{Input: 100, Output: 10 + out}
}

type blockKind int

const (
	kindText blockKind = iota
	kindThinking
	kindToolUse
	kindWebSearch
	kindRedactedThinking
)

type block struct {
	kind      blockKind
	fragments []string       // the deltas, in order
	signature string         // thinking
	id, name  string         // tool_use
	results   []SearchResult // web search
}

func (b block) joined() string { return strings.Join(b.fragments, "") }

func (b block) apply(p *plan) { p.blocks = append(p.blocks, b) }

// Text is a text block. Each fragment is sent as its own delta; a single
// fragment is split at word boundaries into several deltas.
func Text(fragments ...string) Part {
	if len(fragments) == 1 {
		fragments = splitWords(fragments[0])
	}
	return block{kind: kindText, fragments: fragments}
}

// Thinking is an extended-thinking block with its signature, split like
// Text. On the OpenAI wire it is sent as reasoning_content and the
// signature is dropped.
func Thinking(text, signature string) Part {
	return block{kind: kindThinking, fragments: splitWords(text), signature: signature}
}

// RedactedThinking is thinking the API returns encrypted, as data, in
// one content_block_start. The OpenAI wire sends nothing for it.
func RedactedThinking(data string) Part {
	return block{kind: kindRedactedThinking, fragments: []string{data}}
}

// ToolUse is a tool call whose JSON input is streamed in fragments of a few
// bytes each, so that fragments end inside keys and strings as they do on
// the real APIs. input must be a JSON object.
func ToolUse(id, name, input string) Part {
	return block{kind: kindToolUse, id: id, name: name, fragments: splitBytes(input, 5)}
}

// SearchResult is one page a server-side web search found.
type SearchResult struct{ Title, URL string }

// WebSearch is Anthropic's server-side web search of query: a
// server_tool_use block, then a web_search_tool_result block listing
// results. The OpenAI wire has no server tools and sends nothing for it.
func WebSearch(id, query string, results ...SearchResult) Part {
	return block{kind: kindWebSearch, id: id, fragments: []string{query}, results: results}
}

// StopReason sets the turn's stop reason (Anthropic names: end_turn,
// tool_use, max_tokens, stop_sequence, refusal). By default it is tool_use
// when the turn has a ToolUse and end_turn otherwise. On the OpenAI wire it
// maps to finish_reason stop, tool_calls, length or content_filter.
type StopReason string

func (r StopReason) apply(p *plan) { p.stopReason = string(r) }

// Usage sets the token counts the turn reports. By default input is 100
// and output is 10 plus the number of deltas.
type Usage struct {
	Input      int
	Output     int
	CacheRead  int
	CacheWrite int // Anthropic only
}

func (u Usage) apply(p *plan) { p.usage = &u }

// Interleave makes the OpenAI wire send the argument fragments of parallel
// tool calls interleaved (call 0, call 1, call 0, ...), as some
// OpenAI-compatible servers do. The Anthropic wire ignores it.
func Interleave() Part { return interleave{} }

type interleave struct{}

func (interleave) apply(p *plan) { p.interleave = true }

// HTTPError makes the request fail with an HTTP error status and the wire
// format's error body. Type and Message default from Status (429
// rate_limit_error, 529 overloaded_error, 500 api_error, ...).
type HTTPError struct {
	Status     int
	Type       string
	Message    string
	RetryAfter string // the Retry-After header, e.g. "2"

	contextTooLong bool
}

func (e HTTPError) apply(p *plan) { p.httpErr = &e }

// RateLimited is a 429 with the given Retry-After header ("" for none).
func RateLimited(retryAfter string) HTTPError {
	return HTTPError{Status: 429, RetryAfter: retryAfter}
}

// Overloaded is Anthropic's 529 overloaded_error.
func Overloaded() HTTPError { return HTTPError{Status: 529} }

// ServerError is a 500.
func ServerError() HTTPError { return HTTPError{Status: 500} }

// ContextTooLong is the 400 each API returns when the prompt exceeds the
// model's context window ("prompt is too long" on Anthropic,
// context_length_exceeded on OpenAI).
func ContextTooLong() HTTPError {
	return HTTPError{Status: 400, contextTooLong: true}
}

// Cut ends the response stream early. The cut point is after the first
// After events, or, when Event is set, right after the Nth (default 1)
// event with that label (see the wire docs for labels). By default the
// connection is dropped mid-body, as a network failure does; with Clean the
// HTTP body ends normally and the stream just stops (e.g. message_stop is
// missing).
type Cut struct {
	After int
	Event string
	Nth   int
	Clean bool
}

func (c Cut) apply(p *plan) { p.cut = &c }

// StreamError sends the wire's error event (Anthropic `event: error`,
// OpenAI a data chunk with an "error" object) at the cut point and ends
// the stream. Type defaults to overloaded_error.
type StreamError struct {
	After   int
	Event   string
	Nth     int
	Type    string
	Message string
}

func (e StreamError) apply(p *plan) { p.streamErr = &e }

// Hold pauses the stream at a point (as for Cut) until Release is closed,
// the client goes away or the server closes. A nil Release holds until the
// client cancels. If the hold lasts longer than the server's hold timeout,
// the server reports a test failure and drops the connection, so a test
// that forgets to cancel or release fails instead of hanging.
type Hold struct {
	After   int
	Event   string
	Nth     int
	Release <-chan struct{}
}

func (h Hold) apply(p *plan) { p.holds = append(p.holds, h) }

// Hang holds the stream after n events until the client cancels.
func Hang(n int) Hold { return Hold{After: n} }

// Delay slows the response: FirstByte before the status line, Between
// after each event.
type Delay struct {
	FirstByte time.Duration
	Between   time.Duration
}

func (d Delay) apply(p *plan) { p.delay = d }

// splitWords splits s after each run of spaces, keeping every byte.
func splitWords(s string) []string {
	if s == "" {
		return []string{""}
	}
	var out []string
	start := 0
	inSpace := false
	for i, r := range s {
		sp := unicode.IsSpace(r)
		if inSpace && !sp {
			out = append(out, s[start:i])
			start = i
		}
		inSpace = sp
	}
	return append(out, s[start:])
}

// splitBytes splits s into pieces of about n bytes on rune boundaries.
func splitBytes(s string, n int) []string {
	if s == "" {
		return []string{""}
	}
	var out []string
	for len(s) > 0 {
		i := min(n, len(s))
		for i < len(s) && !utf8.RuneStart(s[i]) {
			i++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}
