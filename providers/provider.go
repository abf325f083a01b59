package providers

import (
	"encoding/json"
	"fmt"
	"time"
)

// Request is one model call.
type Request struct {
	Model     string
	System    []SystemBlock
	Messages  []Message
	Tools     []ToolSpec
	MaxTokens int
	// ThinkingBudget enables extended thinking when > 0: adaptive
	// thinking on models that think adaptively, else thinking with this
	// many tokens.
	ThinkingBudget int
	// Effort is how much the model may spend on the answer: "low",
	// "medium", "high", "xhigh" or "max" (Anthropic's output_config.effort,
	// OpenAI's reasoning_effort). Providers send it only to models known
	// to take it; empty sends none.
	Effort string
	// WebSearch, when set, offers the provider's server-side web search
	// (Anthropic's web_search tool). Its results come back as
	// BlockWebSearchResult blocks. Only providers that have one accept it.
	WebSearch *WebSearch
}

// WebSearch configures a server-side web search.
type WebSearch struct {
	AllowedDomains []string
	BlockedDomains []string
	MaxUses        int
}

// SystemBlock is a part of the system prompt. Cache marks the end of a
// stable prefix the provider may cache (a cache_control breakpoint).
type SystemBlock struct {
	Text  string
	Cache bool
}

// ToolSpec is a tool as the model sees it.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// Response is a completed model response.
type Response struct {
	Message    Message
	StopReason StopReason
	Usage      Usage
	// Model is the model that answered, as the API reported it.
	Model string
}

// StopReason is why the model stopped.
type StopReason string

// Stop reasons.
const (
	StopEndTurn   StopReason = "end_turn"
	StopToolUse   StopReason = "tool_use"
	StopMaxTokens StopReason = "max_tokens"
	StopSequence  StopReason = "stop_sequence"
	StopRefusal   StopReason = "refusal"
	StopPause     StopReason = "pause_turn"
)

// Usage counts tokens of one model call.
type Usage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens,omitempty"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens,omitempty"`
}

// ContextTokens is the size of the conversation the call saw plus what it
// wrote: what the next call will start from.
func (u Usage) ContextTokens() int64 {
	return u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens + u.OutputTokens
}

// EventKind names a stream event.
type EventKind int

// Stream event kinds.
const (
	EventText      EventKind = iota + 1 // Text holds a text delta
	EventThinking                       // Text holds a thinking delta
	EventToolStart                      // ToolID and ToolName of a new tool call at Index
	EventToolDelta                      // Text holds a fragment of the tool call's JSON input
	EventToolEnd                        // the tool call at Index is complete; Input holds its JSON input
	EventUsage                          // Usage holds usage so far
	EventRetry                          // Retry describes a retry about to happen
)

// Event is one streaming event.
type Event struct {
	Kind     EventKind
	Index    int
	Text     string
	ToolID   string
	ToolName string
	Input    json.RawMessage
	Usage    Usage
	Retry    *RetryInfo
}

// RetryInfo describes a failed attempt that will be retried.
//
// An EventRetry voids every event emitted since the call began or since
// the previous EventRetry: the next attempt streams its response from the
// start, and only its events describe the message Stream returns. A
// consumer drops the partial text, thinking and pending tool calls it
// showed for the failed attempt. Reset says whether there was any.
type RetryInfo struct {
	Attempt int           // the attempt that failed, from 1
	Delay   time.Duration // wait before the next attempt
	Reason  string        // e.g. "429 rate limited", "stream cut"
	// Reset is set when the failed attempt had emitted events, which the
	// consumer must now discard.
	Reset bool
}

var eventKindNames = [...]string{
	EventText:      "text",
	EventThinking:  "thinking",
	EventToolStart: "tool_start",
	EventToolDelta: "tool_delta",
	EventToolEnd:   "tool_end",
	EventUsage:     "usage",
	EventRetry:     "retry",
}

// String returns the kind's name, e.g. "tool_delta".
func (k EventKind) String() string {
	if k > 0 && int(k) < len(eventKindNames) {
		return eventKindNames[k]
	}
	return fmt.Sprintf("EventKind(%d)", int(k))
}

// MarshalText encodes the kind by name.
func (k EventKind) MarshalText() ([]byte, error) {
	if k <= 0 || int(k) >= len(eventKindNames) {
		return nil, fmt.Errorf("unknown event kind %d", int(k))
	}
	return []byte(eventKindNames[k]), nil
}

// UnmarshalText decodes a kind's name.
func (k *EventKind) UnmarshalText(b []byte) error {
	for i, n := range eventKindNames {
		if i > 0 && n == string(b) {
			*k = EventKind(i)
			return nil
		}
	}
	return fmt.Errorf("unknown event kind %q", b)
}
