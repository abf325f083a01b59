package server

import (
	"context"

	"go.lsp.dev/jsonrpc2"

	"github.com/agent-lsp/agent-lsp/rpc"
	"github.com/agent-lsp/agent-lsp/schema"
)

// checkpoints serves session/checkpoints: the session's checkpoints,
// one per prompt.
func (h sessionMethods) checkpoints(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p schema.CheckpointsParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	sess, err := h.session(req.Method(), p.SessionID)
	if err != nil {
		return nil, err
	}
	points, err := sess.Checkpoints()
	if err != nil {
		return nil, rpc.InvalidParams("%s: %v", req.Method(), err)
	}
	return schema.CheckpointsResult{Checkpoints: points}, nil
}

// rewind serves session/rewind: the session's code, conversation or
// both back to before a prompt. Conflicts are a result (applied false),
// bad input an error.
func (h sessionMethods) rewind(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p schema.RewindParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	sess, err := h.session(req.Method(), p.SessionID)
	if err != nil {
		return nil, err
	}
	if err := rpc.Required(req.Method(), "restore", p.Restore); err != nil {
		return nil, err
	}
	if p.Checkpoint < 1 {
		return nil, rpc.InvalidParams("%s: field \"checkpoint\" must be a checkpoint number (from 1; session/checkpoints lists them), got %d", req.Method(), p.Checkpoint)
	}
	res, err := sess.Rewind(ctx, p)
	if err != nil {
		return nil, rpc.InvalidParams("%s: %v", req.Method(), err)
	}
	return res, nil
}

// forkCheckpoint is the checkpoint a fork starts from (0: the session's
// end).
func forkCheckpoint(p schema.LoadSessionParams) int {
	if p.Meta == nil {
		return 0
	}
	return p.Meta.AgentLSP.Checkpoint
}
