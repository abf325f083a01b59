// Package fake runs scripted model API servers on httptest: the Anthropic
// Messages API and the OpenAI Chat Completions API, both streaming the
// real SSE wire format, so providers and the whole agent loop can be tested
// offline.
//
// A test scripts one Turn per expected request:
//
//	srv := fake.NewAnthropic(t,
//		fake.Turn{fake.Text("Let me look."), fake.ToolUse("toolu_1", "Read", `{"file_path":"a.go"}`)},
//		fake.Turn{fake.RateLimited("1")},
//		fake.Turn{fake.Text("Done.")},
//	)
//	p := anthropic.New(anthropic.Options{APIKey: "test", BaseURL: srv.URL})
//	...
//	reqs := srv.Requests() // what the client sent, decoded
//
// Each request consumes the next Turn; a request with no Turn left is a
// test failure answered with HTTP 500. Faults (HTTPError, Cut, StreamError,
// Hold, Delay) are Parts of a Turn.
//
// Servers need no *testing.T: pass any T, or nil from a program (failures
// are then only collected in Errors). When the T has a Cleanup method the
// server closes itself at the end of the test.
package fake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// T is the part of testing.TB the servers use to report failures.
type T interface {
	Helper()
	Errorf(format string, args ...any)
}

// DefaultHoldTimeout is how long a Hold or Hang may last before the server
// reports a failure and drops the connection.
const DefaultHoldTimeout = 20 * time.Second

// Request is a request the server received.
type Request struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
	// JSON is the decoded body (nil if it was not a JSON object).
	JSON map[string]any
}

// Decode unmarshals the body into v.
func (r Request) Decode(v any) error {
	if err := json.Unmarshal(r.Body, v); err != nil {
		return fmt.Errorf("decode fake request body: %w", err)
	}
	return nil
}

// Server is a scripted fake model API server.
type Server struct {
	// URL is the server's root, e.g. http://127.0.0.1:1234.
	URL string

	wire wire
	t    T
	hs   *httptest.Server

	closeOnce sync.Once
	closed    chan struct{} // closed by Close to stop held handlers

	mu          sync.Mutex // guards the fields below
	turns       []Turn
	next        int // index of the turn the next request consumes
	reqs        []Request
	errs        []string
	holdTimeout time.Duration
}

// wire is one API's wire format.
type wire interface {
	name() string
	// path reports whether the request path is this API's endpoint.
	path(p string) bool
	// baseURL is the base URL a client of this API is configured with.
	baseURL(root string) string
	// errorBody is the body of an HTTP error response.
	errorBody(e HTTPError) []byte
	// stream encodes the turn as labelled SSE events.
	stream(p *plan, req map[string]any, seq int) ([]event, error)
	// message encodes the turn as a non-streaming JSON response.
	message(p *plan, req map[string]any, seq int) ([]byte, error)
	// streamError is the wire's in-stream error event.
	streamError(e StreamError) event
}

// event is one SSE event. label names it for Cut, Hold and StreamError.
type event struct {
	label string
	name  string // the SSE `event:` field, empty for none
	data  []byte
}

func newServer(t T, w wire, turns []Turn) *Server {
	s := &Server{
		wire:        w,
		t:           t,
		turns:       turns,
		closed:      make(chan struct{}),
		holdTimeout: DefaultHoldTimeout,
	}
	s.hs = httptest.NewServer(http.HandlerFunc(s.handle))
	s.URL = s.hs.URL
	if c, ok := t.(interface{ Cleanup(func()) }); ok {
		c.Cleanup(s.Close)
	}
	return s
}

// BaseURL is the base URL to configure a client with: URL for Anthropic,
// URL+"/v1" for OpenAI.
func (s *Server) BaseURL() string { return s.wire.baseURL(s.URL) }

// Close stops the server, releasing held streams first. It is safe to call
// more than once.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.closed)
		s.hs.CloseClientConnections()
		s.hs.Close()
	})
}

// Add appends turns to the script.
func (s *Server) Add(turns ...Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.turns = append(s.turns, turns...)
}

// SetHoldTimeout changes how long a Hold may last before it fails.
func (s *Server) SetHoldTimeout(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.holdTimeout = d
}

// Requests returns the requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Remaining is the number of scripted turns not yet consumed.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.turns) - s.next
}

// Errors returns the failures the server reported (also sent to T).
func (s *Server) Errors() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.errs...)
}

func (s *Server) fail(format string, args ...any) {
	msg := fmt.Sprintf("fake %s server: "+format, append([]any{s.wire.name()}, args...)...)
	s.mu.Lock()
	s.errs = append(s.errs, msg)
	s.mu.Unlock()
	if s.t != nil {
		s.t.Helper()
		s.t.Errorf("%s", msg)
	}
}

// take records r and returns its turn and sequence number (from 1).
func (s *Server) take(r Request) (Turn, int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, r)
	seq := len(s.reqs)
	if s.next >= len(s.turns) {
		return nil, seq, false
	}
	t := s.turns[s.next]
	s.next++
	return t, seq, true
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		s.fail("read request body: %v", err)
		http.Error(w, "read body", http.StatusBadRequest)
		return
	}
	if r.Method != http.MethodPost || !s.wire.path(r.URL.Path) {
		s.fail("unexpected request %s %s", r.Method, r.URL.Path)
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	if c, ok := s.wire.(checker); ok {
		if err := c.check(r, body); err != nil {
			s.fail("request %s %s: %v", r.Method, r.URL.Path, err)
			s.writeError(w, HTTPError{Status: http.StatusForbidden, Type: "permission_error", Message: err.Error()})
			return
		}
	}
	req := Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	_ = json.Unmarshal(body, &req.JSON)
	turn, seq, ok := s.take(req)
	if !ok {
		s.fail("request %d has no scripted turn (model %v)", seq, req.JSON["model"])
		s.writeError(w, HTTPError{Status: 500, Type: "api_error", Message: fmt.Sprintf("fake server: no turn scripted for request %d", seq)})
		return
	}
	p := compile(turn)
	if !s.sleep(r, p.delay.FirstByte) {
		return
	}
	w.Header().Set("request-id", fmt.Sprintf("req_fake_%d", seq))
	if p.httpErr != nil {
		s.writeError(w, *p.httpErr)
		return
	}
	stream, _ := req.JSON["stream"].(bool)
	if st, ok := s.wire.(pathStreamer); ok {
		stream = st.streamed(r.URL.Path)
	}
	if !stream {
		msg, err := s.wire.message(p, req.JSON, seq)
		if err != nil {
			s.fail("request %d: %v", seq, err)
			s.writeError(w, HTTPError{Status: 500, Message: err.Error()})
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(msg)
		return
	}
	events, err := s.wire.stream(p, req.JSON, seq)
	if err != nil {
		s.fail("request %d: %v", seq, err)
		s.writeError(w, HTTPError{Status: 500, Message: err.Error()})
		return
	}
	s.play(w, r, seq, p, events)
}

// play streams events, applying the turn's faults.
func (s *Server) play(w http.ResponseWriter, r *http.Request, seq int, p *plan, events []event) {
	cutAt, errAt := -1, -1
	if p.cut != nil {
		cutAt = s.position(seq, events, "Cut", p.cut.After, p.cut.Event, p.cut.Nth)
	}
	if p.streamErr != nil {
		errAt = s.position(seq, events, "StreamError", p.streamErr.After, p.streamErr.Event, p.streamErr.Nth)
	}
	holdAt := make([]int, len(p.holds))
	for i, h := range p.holds {
		holdAt[i] = s.position(seq, events, "Hold", h.After, h.Event, 1)
	}

	write := writeEvent
	w.Header().Set("Content-Type", "text/event-stream")
	if f, ok := s.wire.(framer); ok {
		w.Header().Set("Content-Type", f.contentType())
		write = f.frame
	}
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	for k := 0; ; k++ {
		for i, at := range holdAt {
			if at == k && !s.hold(r, seq, p.holds[i].Release) {
				panic(http.ErrAbortHandler) // drop the connection
			}
		}
		if k == errAt {
			write(w, s.wire.streamError(*p.streamErr))
			_ = rc.Flush()
			return
		}
		if k == cutAt {
			if p.cut.Clean {
				return
			}
			panic(http.ErrAbortHandler) // drop the connection mid-body
		}
		if k == len(events) {
			return
		}
		write(w, events[k])
		if err := rc.Flush(); err != nil {
			return
		}
		if !s.sleep(r, p.delay.Between) {
			return
		}
	}
}

// position resolves a fault's point to the number of events sent before it.
func (s *Server) position(seq int, events []event, fault string, after int, label string, nth int) int {
	if label == "" {
		if after > len(events) {
			s.fail("request %d: %s after %d events, but the turn has only %d", seq, fault, after, len(events))
		}
		return after
	}
	if nth <= 0 {
		nth = 1
	}
	seen := 0
	for i, e := range events {
		if e.label == label {
			seen++
			if seen == nth {
				return i + 1
			}
		}
	}
	var labels []string
	for _, e := range events {
		labels = append(labels, e.label)
	}
	s.fail("request %d: %s at event %q #%d, but the turn's events are %s", seq, fault, label, nth, strings.Join(labels, " "))
	return -1
}

// sleep waits for d. It reports false if the client went away or the
// server closed first.
func (s *Server) sleep(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	case <-s.closed:
		return false
	}
}

// hold waits until release is closed (a nil release never is). It reports
// false if the client went away, the server closed or the hold timeout
// passed, which is a failure.
func (s *Server) hold(r *http.Request, seq int, release <-chan struct{}) bool {
	s.mu.Lock()
	d := s.holdTimeout
	s.mu.Unlock()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-release:
		return true
	case <-r.Context().Done():
		return false
	case <-s.closed:
		return false
	case <-t.C:
		s.fail("request %d held for %v: the client neither cancelled nor was the hold released", seq, d)
		return false
	}
}

func (s *Server) writeError(w http.ResponseWriter, e HTTPError) {
	if e.RetryAfter != "" {
		w.Header().Set("Retry-After", e.RetryAfter)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.Status)
	_, _ = w.Write(s.wire.errorBody(e))
}

func writeEvent(w io.Writer, e event) {
	var b bytes.Buffer
	if e.name != "" {
		fmt.Fprintf(&b, "event: %s\n", e.name)
	}
	fmt.Fprintf(&b, "data: %s\n\n", e.data)
	_, _ = w.Write(b.Bytes())
}

// defaultErrorType is the API error type of an HTTP status.
func defaultErrorType(status int) string {
	switch status {
	case 400:
		return "invalid_request_error"
	case 401:
		return "authentication_error"
	case 403:
		return "permission_error"
	case 404:
		return "not_found_error"
	case 413:
		return "request_too_large"
	case 429:
		return "rate_limit_error"
	case 529:
		return "overloaded_error"
	default:
		return "api_error"
	}
}

func defaultErrorMessage(status int) string {
	switch status {
	case 429:
		return "Number of request tokens has exceeded your per-minute rate limit"
	case 529:
		return "Overloaded"
	case 401:
		return "invalid x-api-key"
	default:
		if t := http.StatusText(status); t != "" {
			return t
		}
		return "Internal server error"
	}
}
