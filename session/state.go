package session

import (
	"errors"
	"io"
	"slices"
)

// State is what a session holds besides its conversation that must
// survive the process: the permission mode, the model and the user's
// "always" answers. A restored session must be exactly as strict as it
// was, so the engine saves its State whenever it changes and applies the
// last one on resume.
type State struct {
	// Mode is the permission mode ("default", "plan", ...).
	Mode string `json:"permissionMode,omitempty"`
	// Model is the model the session asks.
	Model string `json:"model,omitempty"`
	// Allow are the rules the user allowed always in this session.
	Allow []string `json:"allowRules,omitempty"`
	// Reject are the rules (or tool names) the user rejected always.
	Reject []string `json:"rejectRules,omitempty"`
}

// Equal reports whether s and t hold the same state.
func (s *State) Equal(t *State) bool {
	if s == nil || t == nil {
		return s == t
	}
	return s.Mode == t.Mode && s.Model == t.Model && slices.Equal(s.Allow, t.Allow) && slices.Equal(s.Reject, t.Reject)
}

func (s *State) clone() *State {
	if s == nil {
		return nil
	}
	c := *s
	c.Allow = slices.Clone(s.Allow)
	c.Reject = slices.Clone(s.Reject)
	return &c
}

// SetState appends st as an agent-lsp-state line. The last such line is
// the session's state ([History.State]); a compaction writes it again
// after its boundary, so resuming finds it in the live part of the file.
// Claude Code reads past lines of types it does not know.
func (l *Log) SetState(st State) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	le := newLineEncoder()
	c := st.clone()
	if err := le.add(l.stateLine(c)); err != nil {
		return err
	}
	if err := l.writeLocked(le.buf.Bytes()); err != nil {
		return err
	}
	l.state = c
	return nil
}

func (l *Log) stateLine(st *State) metaLine {
	return metaLine{Type: typeState, State: st, SessionID: l.id, Timestamp: timestamp()}
}

// lastState returns the state of the last state line in the first end
// bytes of r, or nil. It searches backwards in blocks and parses only the
// lines holding the state marker.
func lastState(r io.ReaderAt, end int64) (*State, error) {
	var st *State
	_, err := lastLine(r, end, [][]byte{markerState}, func(line []byte) bool {
		e, err := parseLine(line)
		if err != nil || e.Type != typeState || e.State == nil {
			return false
		}
		st = e.State
		return true
	})
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return st, nil
}

// stateOf returns the state of the last state line of entries, or nil.
func stateOf(entries []parsed) *State {
	for i := len(entries) - 1; i >= 0; i-- {
		if e := &entries[i].e; e.Type == typeState && e.State != nil {
			return e.State
		}
	}
	return nil
}
