package session

import "errors"

// Dir returns the store's data directory, where the sidecar keeps its
// state (the checkpoints of workspaces among it).
func (s *Store) Dir() string { return s.dir }

// Len returns how many messages the log's live context holds: what
// Delete can count back from.
func (l *Log) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.ids)
}

// Boundary returns the uuid of the compaction (or /clear) boundary the
// live context starts at, "" when there was none: a position in the log
// taken under one boundary means nothing under another.
func (l *Log) Boundary() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.base
}

// Gone reports whether no file of session id exists for cwd (ours or
// Claude Code's): the session was deleted. An error reading the folders
// is not taken for a deletion.
func (s *Store) Gone(cwd, id string) bool {
	_, err := s.find(cwd, id)
	return errors.Is(err, ErrNotFound)
}
