package server

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"

	"go.lsp.dev/jsonrpc2"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/rpc"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/workspace"
)

func init() {
	register("session/new", (*Server).newSession)
	register("session/prompt", (*Server).prompt)
	register("session/cancel", (*Server).cancelSession)
	register("session/close", (*Server).closeSession)
	register("session/set_model", (*Server).setModel)
	register("$/cancelRequest", (*Server).cancelRequest)
}

func (s *Server) newSession(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p schema.NewSessionParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	if err := rpc.Required(req.Method(), "cwd", p.Cwd); err != nil {
		return nil, err
	}
	if !filepath.IsAbs(p.Cwd) {
		return nil, rpc.InvalidParams("session/new: field \"cwd\" must be an absolute path, got %q", p.Cwd)
	}
	s.mu.Lock()
	svc, roots, caps := s.svc, s.roots, s.caps
	s.mu.Unlock()
	fs := &workspace.FS{Overlay: s.overlay}
	if caps.applyEdit {
		fs.Editor = client{s}
	}
	sess, err := svc.NewSession(ctx, engine.SessionOptions{
		Cwd:        p.Cwd,
		Roots:      roots,
		Client:     client{s},
		Files:      fs,
		MCPServers: p.MCPServers,
	})
	if err != nil {
		return nil, rpc.InvalidParams("session/new: %v", err)
	}
	return schema.NewSessionResult{SessionID: sess.ID}, nil
}

// session returns the session a request names.
func (s *Server) session(method, id string) (*engine.Session, error) {
	if err := rpc.Required(method, "sessionId", id); err != nil {
		return nil, err
	}
	sess, err := s.service().Session(id)
	if err != nil {
		return nil, rpc.InvalidParams("%s: %v", method, err)
	}
	return sess, nil
}

func (s *Server) prompt(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	// The turn runs long and makes calls to the editor: release the read
	// loop so other messages (didChange, cancel, responses) keep flowing.
	jsonrpc2.Async(ctx)
	var p schema.PromptParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	sess, err := s.session(req.Method(), p.SessionID)
	if err != nil {
		return nil, err
	}
	if len(p.Prompt) == 0 {
		return nil, rpc.InvalidParams("session/prompt: field \"prompt\" must hold at least one content block")
	}
	stop, err := sess.Prompt(ctx, p.Prompt)
	switch {
	case errors.Is(err, engine.ErrBusy):
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "session/prompt: %v", err)
	case errors.Is(err, engine.ErrNoProvider):
		return nil, jsonrpc2.Errorf(codeAuthRequired, "session/prompt: %v", err)
	case err != nil:
		return nil, failed("session/prompt: %v", err)
	}
	return schema.PromptResult{StopReason: stop}, nil
}

func (s *Server) cancelSession(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p schema.SessionIDParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	sess, err := s.session(req.Method(), p.SessionID)
	if err != nil {
		return nil, err
	}
	sess.Cancel()
	return nil, nil
}

func (s *Server) closeSession(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p schema.SessionIDParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	if err := rpc.Required(req.Method(), "sessionId", p.SessionID); err != nil {
		return nil, err
	}
	if err := s.service().CloseSession(p.SessionID); err != nil {
		return nil, rpc.InvalidParams("session/close: %v", err)
	}
	return struct{}{}, nil
}

func (s *Server) setModel(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p schema.SetModelParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	sess, err := s.session(req.Method(), p.SessionID)
	if err != nil {
		return nil, err
	}
	if err := rpc.Required(req.Method(), "modelId", p.ModelID); err != nil {
		return nil, err
	}
	if err := sess.SetModel(p.ModelID); err != nil {
		return nil, rpc.InvalidParams("session/set_model: %v", err)
	}
	return struct{}{}, nil
}

func (s *Server) cancelRequest(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var raw struct {
		ID json.RawMessage `json:"id"`
	}
	if err := decode(req, &raw); err != nil {
		return nil, err
	}
	if id, ok := rpc.ParseID(raw.ID); ok {
		s.cancel(id)
	}
	return nil, nil
}
