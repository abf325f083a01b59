package server

import (
	"context"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/engine"
)

var (
	_ engine.DocumentShower = lspClient{}
	_ engine.DocumentShower = (*plainClient)(nil)
)

// ShowDocument opens path in the editor (/memory opens a memory file so).
func (lc lspClient) ShowDocument(ctx context.Context, path string) (bool, error) {
	return showDocument(ctx, lc.d, path)
}

// ShowDocument opens path in the editor (/memory opens a memory file so).
func (c *plainClient) ShowDocument(ctx context.Context, path string) (bool, error) {
	return showDocument(ctx, c.d.lsp, path)
}

// showDocument asks the editor to show path with window/showDocument. It
// reports false when the editor does not support the request or could
// not show the file.
func showDocument(ctx context.Context, d *lspDoor, path string) (bool, error) {
	if d == nil || !d.capabilities().showDocument {
		return false, nil
	}
	takeFocus := true
	var res protocol.ShowDocumentResult
	p := protocol.ShowDocumentParams{URI: uri.File(path), TakeFocus: &takeFocus}
	if err := d.c.peer.Call(ctx, "window/showDocument", p, &res); err != nil {
		return false, err
	}
	return res.Success, nil
}
