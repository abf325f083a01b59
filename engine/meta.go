package engine

// Meta is the _meta of the initialize result:
// {"agent-lsp": {"providerProblem": NoProviderMessage}} when no model
// provider is configured, so editors can show the no-key state before
// the first prompt; nil when one is.
func (s *Service) Meta() map[string]any {
	if p := s.ProviderProblem(); p != "" {
		return map[string]any{metaKey: map[string]any{"providerProblem": p}}
	}
	return nil
}

// Meta is the _meta of the session/new, load and resume results: the
// service's (Service.Meta).
func (s *Session) Meta() map[string]any { return s.svc.Meta() }
