package server

import (
	"context"
	"fmt"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/diffs"
	"github.com/agent-lsp/agent-lsp/workspace"
)

func init() {
	register("textDocument/didOpen", (*Server).didOpen)
	register("textDocument/didChange", (*Server).didChange)
	register("textDocument/didClose", (*Server).didClose)
	register("textDocument/didSave", (*Server).didSave)
}

type textDocumentItem struct {
	URI        string `json:"uri"`
	LanguageID string `json:"languageId"`
	Version    int32  `json:"version"`
	Text       string `json:"text"`
}

type versionedTextDocument struct {
	URI     string `json:"uri"`
	Version int32  `json:"version"`
}

type lspPosition struct {
	Line      uint32 `json:"line"`
	Character uint32 `json:"character"`
}

type lspRange struct {
	Start lspPosition `json:"start"`
	End   lspPosition `json:"end"`
}

func (r lspRange) workspace() *workspace.Range {
	return &workspace.Range{
		Start: diffs.Position{Line: r.Start.Line, Character: r.Start.Character},
		End:   diffs.Position{Line: r.End.Line, Character: r.End.Character},
	}
}

// documentPath returns the file path of a document URI, refusing others.
func documentPath(method, u string) (string, error) {
	if u == "" {
		return "", fmt.Errorf("%s: textDocument.uri is missing", method)
	}
	parsed, err := uri.Parse(u)
	if err != nil || !parsed.IsFile() {
		return "", fmt.Errorf("%s: only file:// documents are tracked, got %q", method, u)
	}
	return parsed.FsPath(), nil
}

func (s *Server) didOpen(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p struct {
		TextDocument textDocumentItem `json:"textDocument"`
	}
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	path, err := documentPath(req.Method(), p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	s.overlay.Open(path, p.TextDocument.Text, p.TextDocument.Version)
	return nil, nil
}

func (s *Server) didChange(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p struct {
		TextDocument   versionedTextDocument `json:"textDocument"`
		ContentChanges []struct {
			Range *lspRange `json:"range"`
			Text  string    `json:"text"`
		} `json:"contentChanges"`
	}
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	path, err := documentPath(req.Method(), p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	changes := make([]workspace.Change, len(p.ContentChanges))
	for i, c := range p.ContentChanges {
		changes[i].Text = c.Text
		if c.Range != nil {
			changes[i].Range = c.Range.workspace()
		}
	}
	return nil, s.overlay.Change(path, p.TextDocument.Version, changes)
}

func (s *Server) didClose(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p struct {
		TextDocument versionedTextDocument `json:"textDocument"`
	}
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	path, err := documentPath(req.Method(), p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	s.overlay.Close(path)
	return nil, nil
}

func (s *Server) didSave(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p struct {
		TextDocument versionedTextDocument `json:"textDocument"`
		Text         *string               `json:"text"`
	}
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	path, err := documentPath(req.Method(), p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	s.overlay.Saved(path, p.Text)
	return nil, nil
}
