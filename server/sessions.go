package server

import (
	"context"
	"errors"
	"path/filepath"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/rpc"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/workspace"
)

func init() {
	sessionMethods.register("session/new", (*Server).newSession)
	sessionMethods.register("session/prompt", (*Server).prompt)
	sessionMethods.register("session/cancel", (*Server).cancelSession)
	sessionMethods.register("session/close", (*Server).closeSession)
	sessionMethods.register("session/set_model", (*Server).setModel)
	sessionMethods.register("session/set_mode", (*Server).setMode)
	sessionMethods.register("session/set_config_option", (*Server).setConfigOption)
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
	svc, err := s.serviceFor(p.Cwd)
	if err != nil {
		return nil, rpc.InvalidParams("%v", err)
	}
	opts, bind := s.doorOptions(p.Cwd, p.MCPServers)
	opts.Overrides = sessionOverrides(req)
	opts.Model = p.Model
	sess, err := svc.NewSession(ctx, opts)
	if err != nil {
		return nil, rpc.InvalidParams("%v", err)
	}
	bind(sess.ID)
	s.announce(ctx, sess)
	return sessionResult(sess), nil
}

// sessionResult is the result of session/new, load and resume.
func sessionResult(sess *engine.Session) schema.NewSessionResult {
	return schema.NewSessionResult{SessionID: sess.ID, Modes: sess.Modes(), Models: sess.Models(), ConfigOptions: sess.ConfigOptions(), Meta: sess.Meta()}
}

// announce sends a new session's slash commands once the response that
// names the session has been written, so editors know the session id the
// updates carry. The goroutine is the server's: Run stops and waits for it.
func (s *Server) announce(ctx context.Context, sess *engine.Session) {
	written := make(chan struct{})
	s.afterAnswer(ctx, func() { close(written) })
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		select {
		case <-written:
			sess.AnnounceCommands(context.Background())
		case <-s.closing:
		}
	}()
}

// doorOptions returns the options of a session on this connection's door,
// and a function to call with the session's id once it exists.
func (s *Server) doorOptions(cwd string, mcp []schema.MCPServer) (engine.SessionOptions, func(string)) {
	if s.acp {
		return s.acpSessionOptions(cwd, mcp)
	}
	return s.sessionOptions(cwd, mcp), func(string) {}
}

// sessionOptions returns the options of a session on the LSP door.
func (s *Server) sessionOptions(cwd string, mcp []schema.MCPServer) engine.SessionOptions {
	s.mu.Lock()
	roots, caps := s.roots, s.caps
	s.mu.Unlock()
	fs := &workspace.FS{Overlay: s.overlay}
	if caps.applyEdit {
		fs.Editor = client{s}
	}
	return engine.SessionOptions{Cwd: cwd, Roots: roots, Client: client{s}, Files: fs, MCPServers: mcp}
}

// session returns the session a request names.
func (s *Server) session(method, id string) (*engine.Session, error) {
	if err := rpc.Required(method, "sessionId", id); err != nil {
		return nil, err
	}
	sess, _, err := s.openSession(id)
	if err != nil {
		return nil, s.sessionError(method, id, err)
	}
	return sess, nil
}

func (s *Server) prompt(ctx context.Context, req *jsonrpc2.Request) (any, error) {
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
	ctx, err = awaitPromptTurn(ctx)
	if err != nil {
		return nil, err
	}
	stop, err := sess.Prompt(ctx, p.Prompt)
	switch {
	case errors.Is(err, engine.ErrBusy):
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%v", err)
	case errors.Is(err, engine.ErrNoProvider):
		return nil, jsonrpc2.Errorf(codeAuthRequired, "%v", err)
	case err != nil:
		return nil, failed("%v", err)
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
	_, svc, err := s.openSession(p.SessionID)
	if err == nil {
		err = svc.CloseSession(p.SessionID)
	}
	if err != nil {
		return nil, s.sessionError(req.Method(), p.SessionID, err)
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
		return nil, rpc.InvalidParams("%v", err)
	}
	return struct{}{}, nil
}

func init() {
	sessionMethods.register("session/list", (*Server).listSessions)
	sessionMethods.register("session/load", (*Server).loadSession)
	sessionMethods.register("session/resume", (*Server).resumeSession)
	sessionMethods.register("session/fork", (*Server).forkSession)
}

func (s *Server) listSessions(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p schema.ListSessionsParams
	if len(req.Params()) > 0 && string(req.Params()) != "null" {
		if err := decode(req, &p); err != nil {
			return nil, err
		}
	}
	infos, next, err := s.service().ListSessions(p.Cwd, p.Cursor)
	if err != nil {
		return nil, failed("%v", err)
	}
	res := schema.ListSessionsResult{Sessions: make([]schema.SessionInfo, 0, len(infos)), NextCursor: next}
	for _, in := range infos {
		res.Sessions = append(res.Sessions, schema.SessionInfo{
			SessionID: in.ID,
			Cwd:       in.Cwd,
			Title:     in.Title,
			UpdatedAt: in.UpdatedAt.UTC().Format(time.RFC3339),
		})
	}
	return res, nil
}

func (s *Server) loadSession(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	return s.reopen(ctx, req, true)
}

func (s *Server) resumeSession(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	return s.reopen(ctx, req, false)
}

// forkSession serves session/fork: session/resume of a copy under a new
// id, as _meta {"agent-lsp": {"fork": true}} asks of load and resume.
func (s *Server) forkSession(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	return s.reopen(ctx, req, false)
}

// reopen serves session/load (replay) and session/resume (no replay).
func (s *Server) reopen(ctx context.Context, req *jsonrpc2.Request, replay bool) (any, error) {
	var p schema.LoadSessionParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	if err := rpc.Required(req.Method(), "sessionId", p.SessionID); err != nil {
		return nil, err
	}
	if err := rpc.Required(req.Method(), "cwd", p.Cwd); err != nil {
		return nil, err
	}
	// A session already open (in any project's service) is handed over.
	_, svc, err := s.openSession(p.SessionID)
	if err != nil {
		if svc, err = s.serviceFor(p.Cwd); err != nil {
			return nil, rpc.InvalidParams("%s: %v", req.Method(), err)
		}
	}
	opts, bind := s.doorOptions(p.Cwd, p.MCPServers)
	opts.Overrides = sessionOverrides(req)
	opts.Fork = req.Method() == "session/fork" || p.Meta != nil && p.Meta.AgentLSP.Fork
	if !opts.Fork {
		bind(p.SessionID)
	}
	sess, err := svc.ResumeSession(ctx, p.SessionID, opts, replay)
	if err != nil {
		return nil, s.sessionError(req.Method(), p.SessionID, err)
	}
	bind(sess.ID)
	s.announce(ctx, sess)
	return sessionResult(sess), nil
}

func (s *Server) setMode(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p schema.SetModeParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	sess, err := s.session(req.Method(), p.SessionID)
	if err != nil {
		return nil, err
	}
	if err := rpc.Required(req.Method(), "modeId", p.ModeID); err != nil {
		return nil, err
	}
	if err := sess.SetMode(ctx, p.ModeID); err != nil {
		return nil, rpc.InvalidParams("%v", err)
	}
	return struct{}{}, nil
}

// setConfigOptionResult is the result of session/set_config_option.
type setConfigOptionResult struct {
	ConfigOptions []schema.ConfigOption `json:"configOptions"`
}

func (s *Server) setConfigOption(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p schema.SetConfigOptionParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	sess, err := s.session(req.Method(), p.SessionID)
	if err != nil {
		return nil, err
	}
	if err := rpc.Required(req.Method(), "configId", p.ConfigID); err != nil {
		return nil, err
	}
	opts, err := sess.SetConfigOption(ctx, p.ConfigID, p.Value)
	if err != nil {
		return nil, rpc.InvalidParams("%v", err)
	}
	return setConfigOptionResult{ConfigOptions: opts}, nil
}
