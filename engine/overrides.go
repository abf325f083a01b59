package engine

import (
	"strings"

	"github.com/agent-lsp/agent-lsp/providers"
)

// Overrides are session options a client passes when it starts or
// resumes a session (on the ACP door, in _meta, as claude-agent-acp reads
// them). They last for the session's life in this process.
type Overrides struct {
	// AllowedTools are permission rules ("Read", "Bash(npm test:*)")
	// granted for the session, as Claude Code's --allowedTools.
	AllowedTools []string
	// DisallowedTools are tools taken away from the model, by name
	// ("WebFetch", "mcp__github__create_issue"), as Claude Code's
	// --disallowedTools.
	DisallowedTools []string
	// MaxTurns bounds the model calls of one prompt (0: the service's).
	MaxTurns int
	// SystemPrompt replaces agent-lsp's own system prompt; the project's
	// instructions and the environment still follow it.
	SystemPrompt string
	// AppendSystemPrompt is added after the system prompt.
	AppendSystemPrompt string
}

// applyOverrides applies the overrides that shape a new session.
func (s *Session) applyOverrides(o Overrides) {
	s.overrides = o
	if len(o.AllowedTools) > 0 {
		if err := s.pipe.gate.policy.Grant(o.AllowedTools); err != nil {
			s.svc.cfg.Logf("session %s: allowed tools: %v", s.ID, err)
		}
	}
	if len(o.DisallowedTools) > 0 {
		s.tools.hide(o.DisallowedTools)
	}
}

// maxTurns is the session's bound on model calls per prompt.
func (s *Session) maxTurns() int {
	if s.overrides.MaxTurns > 0 {
		return s.overrides.MaxTurns
	}
	return s.svc.cfg.MaxTurns
}

// overrideSystem applies SystemPrompt and AppendSystemPrompt to the
// system prompt's blocks; the first block is agent-lsp's identity.
func (s *Session) overrideSystem(blocks []providers.SystemBlock) []providers.SystemBlock {
	if p := strings.TrimSpace(s.overrides.SystemPrompt); p != "" {
		blocks[0].Text = p
	}
	if p := strings.TrimSpace(s.overrides.AppendSystemPrompt); p != "" {
		blocks = append(blocks, providers.SystemBlock{Text: p})
	}
	return blocks
}
