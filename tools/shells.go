package tools

import "sync"

// shellManager owns a session's background shells.
type shellManager struct {
	mu     sync.Mutex
	shells map[string]*shell // guarded by mu
	nextID int               // guarded by mu
	closed bool              // guarded by mu
}

func newShellManager() *shellManager {
	return &shellManager{shells: map[string]*shell{}}
}

// Close kills every background shell the session's tools started (Bash
// with run_in_background) and waits for them to end. Call it once the
// session is over; Bash refuses new background runs afterwards. It is
// safe to call more than once and on an Env that New never saw.
func (e *Env) Close() error {
	if e.shells == nil {
		return nil
	}
	e.shells.closeAll()
	return nil
}

// closeAll kills all shells and waits for them.
func (m *shellManager) closeAll() {
	m.mu.Lock()
	m.closed = true
	all := make([]*shell, 0, len(m.shells))
	for _, s := range m.shells {
		all = append(all, s)
	}
	m.mu.Unlock()
	for _, s := range all {
		s.kill()
	}
}

// shell is a background command.
type shell struct{}

func (s *shell) kill() {}
