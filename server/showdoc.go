package server

import (
	"context"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/engine"
)

var _ engine.DocumentShower = lspClient{}

// ShowDocument opens path in the editor with window/showDocument (/memory
// opens a memory file so). It reports false when the editor does not
// support the request or could not show the file.
func (lc lspClient) ShowDocument(ctx context.Context, path string) (bool, error) {
	if !lc.d.capabilities().showDocument {
		return false, nil
	}
	takeFocus := true
	var res protocol.ShowDocumentResult
	p := protocol.ShowDocumentParams{URI: uri.File(path), TakeFocus: &takeFocus}
	if err := lc.d.c.peer.Call(ctx, "window/showDocument", p, &res); err != nil {
		return false, err
	}
	return res.Success, nil
}
