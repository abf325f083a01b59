package server

import (
	"context"
	"fmt"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/diffs"
	"github.com/agent-lsp/agent-lsp/workspace"
)

// Document sync keeps the overlay of the editor's open documents. The
// params are go.lsp.dev/protocol's types.

// overlayRange converts a protocol range.
func overlayRange(r protocol.Range) *workspace.Range {
	return &workspace.Range{
		Start: diffs.Position{Line: r.Start.Line, Character: r.Start.Character},
		End:   diffs.Position{Line: r.End.Line, Character: r.End.Character},
	}
}

// documentPath returns the file path of a document URI, refusing others.
func documentPath(method string, u string) (string, error) {
	if u == "" {
		return "", fmt.Errorf("%s: textDocument.uri is missing", method)
	}
	parsed, err := uri.Parse(u)
	if err != nil || !parsed.IsFile() {
		return "", fmt.Errorf("%s: only file:// documents are tracked, got %q", method, u)
	}
	return parsed.FsPath(), nil
}

func (d *lspDoor) didOpen(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p protocol.DidOpenTextDocumentParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	path, err := documentPath(req.Method(), string(p.TextDocument.URI))
	if err != nil {
		return nil, err
	}
	d.overlay.Open(path, p.TextDocument.Text, p.TextDocument.Version)
	return nil, nil
}

func (d *lspDoor) didChange(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p protocol.DidChangeTextDocumentParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	path, err := documentPath(req.Method(), string(p.TextDocument.URI))
	if err != nil {
		return nil, err
	}
	changes := make([]workspace.Change, 0, len(p.ContentChanges))
	for _, c := range p.ContentChanges {
		switch c := c.(type) {
		case *protocol.TextDocumentContentChangePartial:
			changes = append(changes, workspace.Change{Range: overlayRange(c.Range), Text: c.Text})
		case *protocol.TextDocumentContentChangeWholeDocument:
			changes = append(changes, workspace.Change{Text: c.Text})
		}
	}
	return nil, d.overlay.Change(path, p.TextDocument.Version, changes)
}

func (d *lspDoor) didClose(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p protocol.DidCloseTextDocumentParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	path, err := documentPath(req.Method(), string(p.TextDocument.URI))
	if err != nil {
		return nil, err
	}
	d.overlay.Close(path)
	return nil, nil
}

func (d *lspDoor) didSave(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p protocol.DidSaveTextDocumentParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	path, err := documentPath(req.Method(), string(p.TextDocument.URI))
	if err != nil {
		return nil, err
	}
	d.overlay.Saved(path, p.Text)
	return nil, nil
}
