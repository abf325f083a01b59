package server_test

import (
	"bytes"
	"encoding/json"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/providers/fake"
)

// strandGap is how far apart two messages must be written for the
// stranding editor to read them in separate reads.
const strandGap = 300 * time.Millisecond

// strandingConn is the server's end of the pipe, delivering what the
// server writes as Emacs 28's jsonrpc (eglot 1.9) reads it: the messages
// that come in the same read as the answer to one of its synchronous
// requests stay unread until the server writes again. Messages written
// less than strandGap apart count as one read, unless the editor wrote
// in between: it had read what came before.
type strandingConn struct {
	net.Conn

	mu        sync.Mutex // guards the fields below
	partial   []byte     // the start of a message not yet whole
	held      []byte     // the messages stranded after an answer
	stranding bool       // an answer came, and nothing after a pause since
	last      time.Time  // when the last message was written
	heard     bool       // the editor wrote since the last message
}

func (s *strandingConn) Read(p []byte) (int, error) {
	n, err := s.Conn.Read(p)
	if n > 0 {
		s.mu.Lock()
		s.heard = true
		s.mu.Unlock()
	}
	return n, err
}

func (s *strandingConn) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.partial = append(s.partial, p...)
	for {
		frame, body, ok := cutFrame(s.partial)
		if !ok {
			return len(p), nil
		}
		s.partial = s.partial[len(frame):]
		now := time.Now()
		sameRead := now.Sub(s.last) < strandGap && !s.heard
		s.last, s.heard = now, false
		if s.stranding && sameRead {
			s.held = append(s.held, frame...)
			continue
		}
		out := append(s.held, frame...)
		s.held = nil
		s.stranding = isAnswer(body)
		if _, err := s.Conn.Write(out); err != nil {
			return 0, err
		}
	}
}

// cutFrame returns the first whole Content-Length frame of b and its body.
func cutFrame(b []byte) (frame, body []byte, ok bool) {
	head, rest, found := bytes.Cut(b, []byte("\r\n\r\n"))
	if !found {
		return nil, nil, false
	}
	n := -1
	for _, line := range strings.Split(string(head), "\r\n") {
		if v, found := strings.CutPrefix(line, "Content-Length: "); found {
			n, _ = strconv.Atoi(v)
		}
	}
	if n < 0 || len(rest) < n {
		return nil, nil, false
	}
	size := len(head) + 4 + n
	return b[:size:size], rest[:n], true
}

// isAnswer reports whether body is a response rather than a request or
// a notification.
func isAnswer(body []byte) bool {
	var m struct {
		Method string          `json:"method"`
		ID     json.RawMessage `json:"id"`
	}
	return json.Unmarshal(body, &m) == nil && m.Method == "" && len(m.ID) > 0
}

// TestPlainDoorReachesAStrandingEditor: a short turn's messages all come
// right after the answer to the command that started it, which eglot 1.9
// sends synchronously; such an editor sees the turn's end only because
// the door writes again after it (the CI hang of eglot's third turn).
func TestPlainDoorReachesAStrandingEditor(t *testing.T) {
	wrap := func(c net.Conn) net.Conn { return &strandingConn{Conn: c} }
	e := newEnvThrough(t, map[string]string{"calc.py": calc}, nil, wrap,
		fake.Turn{fake.Text("It averages the values.")},
		fake.Turn{fake.Text("You are welcome.")},
	)
	e.editor.InitializeWith(map[string]any{
		"rootUri":      string(uri.File(e.root)),
		"capabilities": map[string]any{"workspace": map[string]any{"applyEdit": true}},
	})
	e.editor.Open(e.path("calc.py"), calc)
	shown := func(text string) func() bool {
		return func() bool {
			for _, n := range e.editor.Notifications() {
				if n.Method == "window/showMessage" && strings.Contains(string(n.Params), text) {
					return true
				}
			}
			return false
		}
	}
	for _, turn := range []struct{ prompt, answer string }{
		{"Explain average", "It averages the values."},
		{"Thanks", "You are welcome."},
	} {
		e.editor.MustCall("workspace/executeCommand", map[string]any{"command": "agent.prompt", "arguments": []string{turn.prompt}}, nil)
		e.editor.WaitFor("the turn's end: "+turn.answer, shown(turn.answer))
	}
}
