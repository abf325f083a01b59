package server

import (
	"context"
	"encoding/base64"

	"go.lsp.dev/jsonrpc2"

	"github.com/agent-lsp/agent-lsp/rpc"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/thumbnail"
)

// thumbnailOf serves agent/thumbnail: an image scaled to a grid of
// colours, for an editor that draws it with characters (Neovim's chat).
// It reads nothing but the request: no file, no session.
func thumbnailOf(_ context.Context, req *jsonrpc2.Request) (any, error) {
	var p schema.ThumbnailParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	if err := rpc.Required(req.Method(), "data", p.Data); err != nil {
		return nil, err
	}
	if n := base64.StdEncoding.DecodedLen(len(p.Data)); n > schema.MaxImageBytes {
		return nil, rpc.InvalidParams("%s: field \"data\" holds %d KB; images of at most %d MB are shown", req.Method(), n>>10, schema.MaxImageBytes>>20)
	}
	data, err := base64.StdEncoding.DecodeString(p.Data)
	if err != nil {
		return nil, rpc.InvalidParams("%s: field \"data\" is not base64: %v", req.Method(), err)
	}
	t, err := thumbnail.Of(data, p.Cols, p.Rows)
	if err != nil {
		return nil, rpc.InvalidParams("%s: %v", req.Method(), err)
	}
	return schema.ThumbnailResult{Width: t.Width, Height: t.Height, Pixels: t.Pixels}, nil
}
