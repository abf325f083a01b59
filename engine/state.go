package engine

import (
	"fmt"
	"slices"

	"github.com/agent-lsp/agent-lsp/permission"
	"github.com/agent-lsp/agent-lsp/session"
)

// A session's permission mode, model and "always" answers are saved in
// its file whenever they change, and restored when the session is
// resumed or loaded in any process: a session left in plan mode comes
// back in plan mode, and what the user rejected always stays rejected.

// state returns what the session saves besides its messages.
func (s *Session) state() session.State {
	return session.State{
		Mode:   string(s.pipe.gate.policy.Mode()),
		Model:  s.Model(),
		Allow:  s.pipe.gate.policy.SessionRules(),
		Reject: s.pipe.gate.rejectedKeys(),
	}
}

// saveState appends the session's state to its file when it differs from
// what was saved last.
func (s *Session) saveState() {
	if s.agent != nil {
		s.agent.parent.saveState() // the gate is the parent's
		return
	}
	if wrote, err := s.conv.saveState(s.state); wrote {
		s.saved(err)
	}
}

// restoreState applies a saved state to a session being reopened. It never
// leaves the session looser than it was: the exact mode comes back, and a
// mode the settings now forbid (bypassPermissions) becomes default.
func (s *Session) restoreState(st *session.State) {
	if st == nil {
		return
	}
	if st.Model != "" {
		s.conv.setModel(st.Model)
	}
	if st.Mode != "" {
		m, err := permission.ParseMode(st.Mode)
		if err == nil {
			err = s.pipe.gate.policy.SetMode(m)
		}
		if err != nil {
			_ = s.pipe.gate.policy.SetMode(permission.Default)
			s.notice(Status{Kind: StatusWarning, Message: fmt.Sprintf("the session was saved in %q mode, which is not available now (%v); it continues in default mode", st.Mode, err)})
		}
	}
	if err := s.pipe.gate.policy.Grant(st.Allow); err != nil {
		s.svc.cfg.Logf("session %s: %v", s.ID, err)
	}
	s.pipe.gate.mu.Lock()
	for _, k := range st.Reject {
		s.pipe.gate.rejected[k] = true
	}
	s.pipe.gate.mu.Unlock()
	s.conv.restoredState(*st)
}

// rejectedKeys returns what the user rejected always, sorted.
func (g *gate) rejectedKeys() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	keys := make([]string, 0, len(g.rejected))
	for k := range g.rejected {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
