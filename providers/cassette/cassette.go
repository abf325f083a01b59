// Package cassette records a provider's model calls to a file and plays
// them back, so a real session can be replayed offline: by `agent-lsp
// demo`, and by tests that need a realistic stream without a server.
//
// # Format
//
// A cassette is JSON lines. The first line is a header,
//
//	{"agentLspCassette":1}
//
// and each further line is one call, in the order the calls ended:
//
//	{"request":{"model":"claude-sonnet-4-5","messages":1,"tools":["Read","Edit"],"last":"user: fix average"},
//	 "events":[{"kind":"text","text":"I'll ","ms":410},{"kind":"tool_start","index":1,"toolId":"toolu_1","toolName":"Read","ms":980},...],
//	 "response":{"message":{"role":"assistant","content":[...]},"stopReason":"tool_use","usage":{...},"model":"claude-sonnet-4-5"}}
//
// A failed call has "error" ({"status":529,"type":"overloaded_error",...})
// instead of "response". "ms" is the event's time since the call began.
// The request is a summary for people and for Strict replay; cassettes
// hold no keys or headers. Lines may be edited by hand, and Synthesize
// makes a call from a message for scripted cassettes.
package cassette

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/agent-lsp/agent-lsp/providers"
)

// Version is the format version in the header.
const Version = 1

type header struct {
	Version int `json:"agentLspCassette"`
}

// Cassette is a recorded sequence of calls.
type Cassette struct {
	Calls []Call
}

// Call is one recorded model call.
type Call struct {
	Request  Request      `json:"request"`
	Events   []Event      `json:"events"`
	Response *Response    `json:"response,omitempty"`
	Error    *ErrorRecord `json:"error,omitempty"`
}

// Request summarizes a request.
type Request struct {
	Model    string   `json:"model,omitempty"`
	Messages int      `json:"messages"`
	Tools    []string `json:"tools,omitempty"`
	// Last is the start of the last message, for people reading the file.
	Last string `json:"last,omitempty"`
}

// Event is a recorded stream event.
type Event struct {
	Kind     providers.EventKind `json:"kind"`
	Index    int                 `json:"index,omitempty"`
	Text     string              `json:"text,omitempty"`
	ToolID   string              `json:"toolId,omitempty"`
	ToolName string              `json:"toolName,omitempty"`
	Input    json.RawMessage     `json:"input,omitempty"`
	Usage    *providers.Usage    `json:"usage,omitempty"`
	Retry    *Retry              `json:"retry,omitempty"`
	// Ms is the time since the call began, in milliseconds.
	Ms int64 `json:"ms,omitempty"`
}

// Retry is a recorded RetryInfo.
type Retry struct {
	Attempt int    `json:"attempt"`
	DelayMs int64  `json:"delayMs"`
	Reason  string `json:"reason"`
	Reset   bool   `json:"reset,omitempty"`
}

// Response is a recorded response.
type Response struct {
	Message    providers.Message    `json:"message"`
	StopReason providers.StopReason `json:"stopReason"`
	Usage      providers.Usage      `json:"usage"`
	Model      string               `json:"model,omitempty"`
}

// ErrorRecord is a recorded failure, replayed as a *providers.Error.
type ErrorRecord struct {
	Status         int    `json:"status,omitempty"`
	Type           string `json:"type,omitempty"`
	Message        string `json:"message"`
	RetryAfter     string `json:"retryAfter,omitempty"`
	Retryable      bool   `json:"retryable,omitempty"`
	ContextTooLong bool   `json:"contextTooLong,omitempty"`
}

func summarize(req *providers.Request) Request {
	s := Request{Model: req.Model, Messages: len(req.Messages)}
	for _, t := range req.Tools {
		s.Tools = append(s.Tools, t.Name)
	}
	if n := len(req.Messages); n > 0 {
		m := req.Messages[n-1]
		var parts []string
		for _, b := range m.Content {
			switch b.Type {
			case providers.BlockText:
				parts = append(parts, b.Text)
			case providers.BlockToolResult:
				parts = append(parts, fmt.Sprintf("[tool_result %s]", b.ToolUseID))
			case providers.BlockToolUse:
				parts = append(parts, fmt.Sprintf("[tool_use %s]", b.Name))
			}
		}
		s.Last = truncate(string(m.Role)+": "+strings.Join(parts, " "), 120)
	}
	return s
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

func recordEvent(ev providers.Event, since time.Duration) Event {
	e := Event{Kind: ev.Kind, Index: ev.Index, Text: ev.Text, ToolID: ev.ToolID, ToolName: ev.ToolName, Input: ev.Input, Ms: since.Milliseconds()}
	if ev.Kind == providers.EventUsage {
		u := ev.Usage
		e.Usage = &u
	}
	if ev.Retry != nil {
		e.Retry = &Retry{Attempt: ev.Retry.Attempt, DelayMs: ev.Retry.Delay.Milliseconds(), Reason: ev.Retry.Reason, Reset: ev.Retry.Reset}
	}
	return e
}

// Provider event of a recorded one.
func (e Event) event() providers.Event {
	ev := providers.Event{Kind: e.Kind, Index: e.Index, Text: e.Text, ToolID: e.ToolID, ToolName: e.ToolName, Input: e.Input}
	if e.Usage != nil {
		ev.Usage = *e.Usage
	}
	if e.Retry != nil {
		ev.Retry = &providers.RetryInfo{Attempt: e.Retry.Attempt, Delay: time.Duration(e.Retry.DelayMs) * time.Millisecond, Reason: e.Retry.Reason, Reset: e.Retry.Reset}
	}
	return ev
}

func recordError(err error) *ErrorRecord {
	var pe *providers.Error
	if errors.As(err, &pe) {
		return &ErrorRecord{Status: pe.Status, Type: pe.Type, Message: pe.Message, RetryAfter: pe.RetryAfter, Retryable: pe.Retryable, ContextTooLong: pe.ContextTooLong}
	}
	return &ErrorRecord{Message: err.Error()}
}

func (e *ErrorRecord) err() error {
	return &providers.Error{Status: e.Status, Type: e.Type, Message: e.Message, RetryAfter: e.RetryAfter, Retryable: e.Retryable, ContextTooLong: e.ContextTooLong}
}

// Read reads a cassette.
func Read(r io.Reader) (*Cassette, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 64<<20)
	c := &Cassette{}
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		if line == 1 {
			var h header
			if err := json.Unmarshal(b, &h); err != nil || h.Version == 0 {
				return nil, fmt.Errorf("cassette line 1: not a cassette header (want {\"agentLspCassette\":%d})", Version)
			}
			if h.Version > Version {
				return nil, fmt.Errorf("cassette version %d is newer than this agent-lsp reads (%d)", h.Version, Version)
			}
			continue
		}
		var call Call
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&call); err != nil {
			return nil, fmt.Errorf("cassette line %d: %w", line, err)
		}
		if (call.Response == nil) == (call.Error == nil) {
			return nil, fmt.Errorf("cassette line %d: a call needs exactly one of response and error", line)
		}
		c.Calls = append(c.Calls, call)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read cassette: %w", err)
	}
	if line == 0 {
		return nil, errors.New("cassette is empty")
	}
	return c, nil
}

// Load reads the cassette at path.
func Load(path string) (*Cassette, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open cassette: %w", err)
	}
	defer f.Close()
	c, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// Write writes c in the cassette format.
func (c *Cassette) Write(w io.Writer) error {
	bw := bufio.NewWriter(w)
	if err := writeLine(bw, header{Version: Version}); err != nil {
		return err
	}
	for _, call := range c.Calls {
		if err := writeLine(bw, call); err != nil {
			return err
		}
	}
	return bw.Flush()
}

func writeLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode cassette line: %w", err)
	}
	b = append(b, '\n')
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("write cassette: %w", err)
	}
	return nil
}

// Synthesize makes a call that streams msg as a model would: text and
// thinking in word-sized deltas, each tool call as start, input deltas
// and end, then usage. Times are spaced by step. It is for writing
// scripted cassettes by hand.
func Synthesize(msg providers.Message, stop providers.StopReason, usage providers.Usage, step time.Duration) Call {
	var evs []Event
	t := time.Duration(0)
	add := func(e Event) {
		t += step
		e.Ms = t.Milliseconds()
		evs = append(evs, e)
	}
	for i, b := range msg.Content {
		switch b.Type {
		case providers.BlockText:
			for _, w := range words(b.Text) {
				add(Event{Kind: providers.EventText, Index: i, Text: w})
			}
		case providers.BlockThinking:
			for _, w := range words(b.Thinking) {
				add(Event{Kind: providers.EventThinking, Index: i, Text: w})
			}
		case providers.BlockToolUse:
			add(Event{Kind: providers.EventToolStart, Index: i, ToolID: b.ID, ToolName: b.Name})
			add(Event{Kind: providers.EventToolDelta, Index: i, Text: string(b.Input)})
			add(Event{Kind: providers.EventToolEnd, Index: i, ToolID: b.ID, ToolName: b.Name, Input: b.Input})
		}
	}
	u := usage
	add(Event{Kind: providers.EventUsage, Usage: &u})
	if msg.Role == "" {
		msg.Role = providers.RoleAssistant
	}
	return Call{Events: evs, Response: &Response{Message: msg, StopReason: stop, Usage: usage}}
}

// words splits s after each run of spaces, keeping every byte.
func words(s string) []string {
	var out []string
	start, inSpace := 0, false
	for i, r := range s {
		sp := r == ' ' || r == '\n' || r == '\t'
		if inSpace && !sp {
			out = append(out, s[start:i])
			start = i
		}
		inSpace = sp
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}
