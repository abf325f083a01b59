package session

import (
	stdjson "encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// sidechainPath returns where Claude Code keeps the transcript of a
// subagent of the session whose file is sessionPath:
// <project dir>/<session id>/subagents/agent-<agent id>.jsonl.
func sidechainPath(sessionPath, agentID string) string {
	dir := filepath.Join(filepath.Dir(sessionPath), filepath.Base(sessionPath[:len(sessionPath)-len(filepath.Ext(sessionPath))]))
	return filepath.Join(dir, "subagents", "agent-"+agentID+".jsonl")
}

// AgentMeta describes a subagent run, as Claude Code's
// agent-<agentId>.meta.json beside its transcript.
type AgentMeta struct {
	AgentType string `json:"agentType"`
	IsBuiltIn bool   `json:"isBuiltIn"`
}

// Sidechain creates the transcript of one subagent run of this session,
// as Claude Code writes it: a file of its own beside the session's
// (<session id>/subagents/agent-<agentID>.jsonl), every line marked
// isSidechain with the agentId, the session's id as sessionId, and its
// agent-<agentID>.meta.json naming the agent type. The main session's
// loading never reads it; LoadSidechain does.
func (l *Log) Sidechain(agentID string, meta AgentMeta) (*Log, error) {
	if err := checkArgs(l.cwd, agentID); err != nil {
		return nil, err
	}
	path := sidechainPath(l.path, agentID)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("creating subagent directory: %w", err)
	}
	if b, err := stdjson.Marshal(meta); err == nil {
		metaPath := strings.TrimSuffix(path, ".jsonl") + ".meta.json"
		if err := os.WriteFile(metaPath, b, 0o600); err != nil {
			return nil, fmt.Errorf("writing subagent metadata: %w", err)
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("creating subagent transcript %s: %w", agentID, err)
	}
	return &Log{cwd: l.cwd, id: l.id, path: path, version: l.version, f: f, truncTo: -1, dirty: true, titled: true, agentID: agentID}, nil
}

// LoadSidechain reads the transcript of a subagent of a session, ours
// or else Claude Code's, as a conversation.
func (s *Store) LoadSidechain(cwd, sessionID, agentID string) (*History, error) {
	if err := checkArgs(cwd, sessionID); err != nil {
		return nil, err
	}
	if err := checkArgs(cwd, agentID); err != nil {
		return nil, err
	}
	path := sidechainPath(s.ourPath(cwd, sessionID), agentID)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && s.claudeDir != "" {
		path = sidechainPath(s.claudePath(cwd, sessionID), agentID)
		data, err = os.ReadFile(path)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: subagent %s of %s", ErrNotFound, agentID, sessionID)
	}
	if err != nil {
		return nil, fmt.Errorf("reading subagent transcript %s: %w", path, err)
	}
	var warn warnings
	p := &parser{warn: &warn}
	p.parse(splitLines(data, 0))
	for i := range p.entries {
		p.entries[i].e.Sidechain = false // here they are the conversation
	}
	return p.history(&warn), nil
}
