package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/session"
)

// errNoStore is returned by the stored-session methods when sessions are
// not persisted.
var errNoStore = errors.New("sessions are not persisted in this configuration")

// ListSessions lists stored sessions for cwd ("" for all), newest first.
func (s *Service) ListSessions(cwd, cursor string) ([]session.Info, string, error) {
	if s.cfg.Store == nil {
		return nil, "", errNoStore
	}
	return s.cfg.Store.List(cwd, cursor, 50)
}

// ResumeSession reopens a stored session with its model context, ready
// to prompt. With replay set, the whole stored conversation is sent to the
// client as session updates first (session/load). With opts.Fork the
// returned session is a copy under a new id (its ID), and the stored
// session is left as it is.
func (s *Service) ResumeSession(ctx context.Context, id string, opts SessionOptions, replay bool) (*Session, error) {
	if s.cfg.Store == nil {
		return nil, errNoStore
	}
	if id == "" {
		return nil, fmt.Errorf("sessionId is empty")
	}
	s.mu.Lock()
	open, isOpen := s.sessions[id]
	s.mu.Unlock()
	if isOpen && !opts.Fork {
		// Already live in this process: hand it over as it is.
		if replay {
			h, err := s.cfg.Store.Load(opts.Cwd, id)
			if err != nil {
				h = nil // replay what is in memory without the stored extras
			}
			open.replay(ctx, open.History(), h)
		}
		return open, nil
	}
	if err := CheckCwd(opts.Cwd); err != nil {
		return nil, err
	}
	newID := id
	var log *session.Log
	var hist *session.History
	var err error
	if opts.Fork {
		newID = uuid.NewString()
		log, hist, err = s.cfg.Store.Fork(opts.Cwd, id, newID)
	} else {
		log, hist, err = s.cfg.Store.Resume(opts.Cwd, id)
	}
	if errors.Is(err, session.ErrNotFound) {
		return nil, fmt.Errorf("%w %q: no session with this id was saved for %s", ErrUnknownSession, id, opts.Cwd)
	}
	if err != nil {
		return nil, fmt.Errorf("resuming session %s: %w", id, err)
	}
	if opts.Model == "" && sameFamily(hist.Model, s.defaultModel()) {
		// A continued session keeps the model it was using, unless the
		// editor picks one.
		opts.Model = hist.Model
	}
	sess := newSession(s, newID, opts)
	sess.conv.log = log
	sess.restoreState(hist.State)
	sess.conv.history = normalize(hist.Messages)
	sess.conv.titled = true
	sess.resumed = true
	for _, w := range hist.Warnings {
		s.cfg.Logf("session %s: %s", id, w)
	}
	if replay {
		full, err := s.cfg.Store.Load(opts.Cwd, id)
		if err != nil {
			log.Close()
			return nil, fmt.Errorf("loading session %s: %w", id, err)
		}
		sess.replay(ctx, full.Messages, full)
	} else {
		// The editor keeps the chat it has; its context meter comes
		// back (the cost of the turns before this process is not
		// counted: Resume reads from the last compaction on).
		sess.replayUsage(ctx, hist.Usage, false)
	}
	s.mu.Lock()
	s.sessions[newID] = sess
	s.mu.Unlock()
	return sess, nil
}

// sameFamily reports whether a session's stored model can be asked
// through the provider that serves def: both are Claude models (a Claude
// Code session continued with an Anthropic provider), or equal.
func sameFamily(stored, def string) bool {
	if stored == "" {
		return false
	}
	return stored == def || strings.HasPrefix(stored, "claude-") && strings.HasPrefix(def, "claude-")
}

// setTitle names a new session after its first prompt.
func (s *Session) setTitle(prompt []schema.ContentBlock) {
	if s.conv.markTitled() || s.conv.log == nil {
		return
	}
	title := strings.Join(strings.Fields(promptText(prompt)), " ")
	if len(title) > 100 {
		cut := 100
		for cut > 0 && !utf8.RuneStart(title[cut]) {
			cut--
		}
		title = title[:cut] + "…"
	}
	if title == "" {
		return
	}
	if err := s.conv.log.SetTitle(title); err != nil {
		s.svc.cfg.Logf("session %s: saving title: %v", s.ID, err)
	}
}

// normalize makes a stored conversation valid to send again: roles
// alternate (messages a failed save lost leave two of one role in a row),
// the first message is the user's, and every tool call has a result.
func normalize(msgs []providers.Message) []providers.Message {
	var out []providers.Message
	for _, m := range msgs {
		if len(m.Content) == 0 {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Role == m.Role {
			out[n-1].Content = append(append([]providers.Block(nil), out[n-1].Content...), m.Content...)
			continue
		}
		if len(out) == 0 && m.Role != providers.RoleUser {
			out = append(out, providers.Message{Role: providers.RoleUser, Content: []providers.Block{providers.TextBlock("(The conversation continues from a saved session.)")}})
		}
		out = append(out, m)
	}
	for i, m := range out {
		if m.Role != providers.RoleAssistant {
			continue
		}
		answered := map[string]bool{}
		if i+1 < len(out) {
			for _, b := range out[i+1].Content {
				if b.Type == providers.BlockToolResult {
					answered[b.ToolUseID] = true
				}
			}
		}
		var missing []providers.Block
		for _, use := range m.ToolUses() {
			if !answered[use.ID] {
				missing = append(missing, providers.ToolResultBlock(use.ID, "The result of this call was not saved; run it again if you need it.", true))
			}
		}
		if len(missing) == 0 {
			continue
		}
		if i+1 < len(out) {
			out[i+1].Content = append(missing, out[i+1].Content...)
		} else {
			out = append(out, providers.Message{Role: providers.RoleUser, Content: missing})
		}
	}
	return out
}
