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
)

// sessionDoor is what the session methods need of the door they serve:
// the service a session in cwd runs in, and the options of a session on
// this door (its client, file system and terminal), with a function to
// call with the session's id once it is known.
type sessionDoor interface {
	serviceFor(cwd string) (*engine.Service, error)
	sessionOptions(cwd string, mcp []schema.MCPServer) (engine.SessionOptions, func(id string))
}

// sessionMethods serves the session/* methods that both doors share.
type sessionMethods struct {
	c    *core
	door sessionDoor
}

// addTo adds the session methods to a door's table.
func (h sessionMethods) addTo(t methodTable) {
	t[schema.MethodSessionNew] = h.newSession
	t[schema.MethodSessionPrompt] = h.prompt
	t[schema.MethodSessionCancel] = h.cancel
	t[schema.MethodSessionClose] = h.close
	t[schema.MethodSessionSetModel] = h.setModel
	t[schema.MethodSessionSetMode] = h.setMode
	t[schema.MethodSessionSetConfigOption] = h.setConfigOption
	t[schema.MethodSessionList] = h.list
	t[schema.MethodSessionLoad] = h.load
	t[schema.MethodSessionResume] = h.resume
	t[schema.MethodSessionFork] = h.fork
	t[schema.MethodSessionCheckpoints] = h.checkpoints
	t[schema.MethodSessionRewind] = h.rewind
	t[schema.MethodSessionMCPResources] = h.mcpResources
}

func (h sessionMethods) newSession(ctx context.Context, req *jsonrpc2.Request) (any, error) {
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
	svc, err := h.door.serviceFor(p.Cwd)
	if err != nil {
		return nil, rpc.InvalidParams("%v", err)
	}
	opts, bind := h.door.sessionOptions(p.Cwd, p.MCPServers)
	opts.Overrides = sessionOverrides(req)
	opts.Model = p.Model
	sess, err := svc.NewSession(ctx, opts)
	if err != nil {
		return nil, rpc.InvalidParams("%v", err)
	}
	bind(sess.ID)
	h.announce(ctx, sess)
	return sessionResult(sess), nil
}

// sessionResult is the result of session/new, load and resume.
func sessionResult(sess *engine.Session) schema.NewSessionResult {
	return schema.NewSessionResult{SessionID: sess.ID, Modes: sess.Modes(), Models: sess.Models(), ConfigOptions: sess.ConfigOptions(), Meta: sess.Meta()}
}

// announce sends a new session's slash commands once the response that
// names the session has been written, so editors know the session id the
// updates carry. The goroutine is the connection's: core.run stops and waits for it.
func (h sessionMethods) announce(ctx context.Context, sess *engine.Session) {
	written := make(chan struct{})
	h.c.afterAnswer(ctx, func() { close(written) })
	h.c.bg.Add(1)
	go func() {
		defer h.c.bg.Done()
		select {
		case <-written:
			sess.AnnounceCommands(context.Background())
		case <-h.c.closing:
		}
	}()
}

// session returns the session a request names.
func (h sessionMethods) session(method, id string) (*engine.Session, error) {
	if err := rpc.Required(method, "sessionId", id); err != nil {
		return nil, err
	}
	sess, _, err := h.c.services.openSession(id)
	if err != nil {
		return nil, h.c.sessionError(method, id, err)
	}
	return sess, nil
}

func (h sessionMethods) prompt(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p schema.PromptParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	sess, err := h.session(req.Method(), p.SessionID)
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

func (h sessionMethods) cancel(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p schema.SessionIDParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	sess, err := h.session(req.Method(), p.SessionID)
	if err != nil {
		return nil, err
	}
	sess.Cancel()
	return nil, nil
}

func (h sessionMethods) close(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p schema.SessionIDParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	if err := rpc.Required(req.Method(), "sessionId", p.SessionID); err != nil {
		return nil, err
	}
	_, svc, err := h.c.services.openSession(p.SessionID)
	if err == nil {
		err = svc.CloseSession(p.SessionID)
	}
	if err != nil {
		return nil, h.c.sessionError(req.Method(), p.SessionID, err)
	}
	return struct{}{}, nil
}

func (h sessionMethods) setModel(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p schema.SetModelParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	sess, err := h.session(req.Method(), p.SessionID)
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

func (h sessionMethods) list(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p schema.ListSessionsParams
	if len(req.Params()) > 0 && string(req.Params()) != "null" {
		if err := decode(req, &p); err != nil {
			return nil, err
		}
	}
	infos, next, err := h.c.service().ListSessions(p.Cwd, p.Cursor)
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

func (h sessionMethods) load(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	return h.reopen(ctx, req, true)
}

func (h sessionMethods) resume(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	return h.reopen(ctx, req, false)
}

// fork serves session/fork: session/resume of a copy under a new
// id, as _meta {"agent-lsp": {"fork": true}} asks of load and resume.
func (h sessionMethods) fork(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	return h.reopen(ctx, req, false)
}

// reopen serves session/load (replay) and session/resume (no replay).
func (h sessionMethods) reopen(ctx context.Context, req *jsonrpc2.Request, replay bool) (any, error) {
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
	_, svc, err := h.c.services.openSession(p.SessionID)
	if err != nil {
		if svc, err = h.door.serviceFor(p.Cwd); err != nil {
			return nil, rpc.InvalidParams("%s: %v", req.Method(), err)
		}
	}
	opts, bind := h.door.sessionOptions(p.Cwd, p.MCPServers)
	opts.Overrides = sessionOverrides(req)
	opts.Fork = req.Method() == schema.MethodSessionFork || p.Meta != nil && p.Meta.AgentLSP.Fork
	if !opts.Fork {
		bind(p.SessionID)
	}
	var sess *engine.Session
	if n := forkCheckpoint(p); opts.Fork && n != 0 {
		sess, err = svc.ForkAt(ctx, p.SessionID, n, opts)
	} else {
		sess, err = svc.ResumeSession(ctx, p.SessionID, opts, replay)
	}
	if err != nil {
		return nil, h.c.sessionError(req.Method(), p.SessionID, err)
	}
	bind(sess.ID)
	h.announce(ctx, sess)
	return sessionResult(sess), nil
}

func (h sessionMethods) setMode(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p schema.SetModeParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	sess, err := h.session(req.Method(), p.SessionID)
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

func (h sessionMethods) setConfigOption(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p schema.SetConfigOptionParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	sess, err := h.session(req.Method(), p.SessionID)
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
	return schema.SetConfigOptionResult{ConfigOptions: opts}, nil
}
