package engine

import (
	"github.com/agent-lsp/agent-lsp/sandbox"
	"github.com/agent-lsp/agent-lsp/settings"
)

// setSandbox prepares the sandbox shell commands run in, from the
// settings. A sandbox that cannot run is reported once per process.
func (s *Session) setSandbox(st *settings.Settings) {
	sb, warning := sandbox.New(st.Sandbox, s.env.Roots)
	s.sandbox.Store(sb)
	if warning != "" {
		s.svc.warnOnce("sandbox: "+warning, func(msg string) {
			s.notice(Status{Kind: StatusWarning, Message: msg})
		})
	}
}

// wrapCommand runs a shell command's argv through the current sandbox.
func (s *Session) wrapCommand(argv []string) ([]string, error) {
	sb := s.sandbox.Load()
	if sb == nil {
		return argv, nil
	}
	return sb.Wrap(argv)
}
