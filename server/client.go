package server

import (
	"context"
	"errors"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/diffs"
	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/workspace"
)

// peerClient is the editor as the engine sees it over a door that
// speaks the session methods: session/update and
// session/request_permission. The ACP door's sessions use it as it is:
// it is no engine.StatusClient, so the engine sends notices as
// agent_thought_chunk.
type peerClient struct{ c *core }

var _ engine.Client = peerClient{}

// Update sends a session/update notification.
func (pc peerClient) Update(ctx context.Context, sessionID string, u schema.Update) error {
	return pc.c.peer.Notify(ctx, schema.MethodSessionUpdate, schema.SessionNotification{SessionID: sessionID, Update: u})
}

// RequestPermission sends session/request_permission and waits for the
// user's answer. When ctx ends first, the request is cancelled with the
// door's cancel notice ($/cancelRequest, ACP's $/cancel_request) and the
// outcome is "cancelled".
func (pc peerClient) RequestPermission(ctx context.Context, p *schema.RequestPermissionParams) (*schema.RequestPermissionResult, error) {
	var res schema.RequestPermissionResult
	if err := pc.c.peer.Call(ctx, schema.MethodRequestPermission, p, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// lspClient is the editor over the LSP door: a peerClient that also
// shows agent/status notices, applies edits in its buffers and reports
// its diagnostics.
type lspClient struct {
	peerClient
	editorDiagnostics
	d *lspDoor
}

func newLSPClient(d *lspDoor) lspClient {
	return lspClient{peerClient: peerClient{d.c}, editorDiagnostics: editorDiagnostics{d}, d: d}
}

var (
	_ engine.Client            = lspClient{}
	_ engine.StatusClient      = lspClient{}
	_ engine.EditorDiagnostics = lspClient{}
	_ workspace.Editor         = lspClient{}
)

// Status sends an agent/status notification.
func (c lspClient) Status(ctx context.Context, sessionID string, st engine.Status) error {
	return c.d.c.peer.Notify(ctx, schema.MethodAgentStatus, schema.StatusParams{SessionID: sessionID, Kind: st.Kind, Message: st.Message, RetryInMs: st.RetryInMs})
}

// ApplyEdit sends workspace/applyEdit so the change lands in the editor's
// buffer, where the user can undo it.
func (c lspClient) ApplyEdit(ctx context.Context, fc workspace.FileChange) error {
	caps := c.d.capabilities()
	if fc.Create && !(caps.documentChanges && caps.resourceOps) {
		// The editor cannot create files through edits: write the disk.
		return tools.WriteFileAtomic(fc.Path, []byte(fc.After))
	}
	text, version, open, known := c.d.overlay.Snapshot(fc.Path)
	if known && !fc.Create && text != fc.Before {
		// The user typed since the change was computed (a didChange
		// applied while the approval waited): its edits would land on
		// other text, and the version would say they fit.
		return &workspace.EditRefusedError{Path: fc.Path, Reason: "it changed in the editor since the agent read it; read it again"}
	}
	docURI := uri.File(fc.Path)
	edits := toTextEdits(diffs.TextEdits(fc.Before, fc.After))
	var we protocol.WorkspaceEdit
	switch {
	case fc.Create:
		ignore := true
		we.DocumentChanges = []protocol.DocumentChange{
			&protocol.CreateFile{Kind: "create", URI: docURI, Options: &protocol.CreateFileOptions{IgnoreIfExists: &ignore}},
			&protocol.TextDocumentEdit{
				TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: docURI}},
				Edits:        []protocol.TextDocumentEditElement{&protocol.TextEdit{NewText: fc.After}},
			},
		}
	case caps.documentChanges:
		doc := protocol.OptionalVersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: docURI}}
		if open {
			doc.Version = &version
		}
		elems := make([]protocol.TextDocumentEditElement, len(edits))
		for i := range edits {
			elems[i] = &edits[i]
		}
		we.DocumentChanges = []protocol.DocumentChange{&protocol.TextDocumentEdit{TextDocument: doc, Edits: elems}}
	default:
		we.Changes = map[uri.URI][]protocol.TextEdit{docURI: edits}
	}
	p := protocol.ApplyWorkspaceEditParams{Edit: we}
	if fc.Label != "" {
		p.Label = &fc.Label
	}
	var res protocol.ApplyWorkspaceEditResult
	if err := c.d.c.peer.Call(ctx, schema.MethodApplyEdit, p, &res); err != nil {
		if errors.Is(err, jsonrpc2.ErrMethodNotFound) {
			// It announced applyEdit but does not serve it: as without
			// the capability, the disk is written.
			return tools.WriteFileAtomic(fc.Path, []byte(fc.After))
		}
		// Any other error is the editor's answer: the disk is not
		// written behind its back.
		return newClientError(schema.MethodApplyEdit, err)
	}
	if !res.Applied {
		reason := ""
		if res.FailureReason != nil {
			reason = *res.FailureReason
		}
		return &workspace.EditRefusedError{Path: fc.Path, Reason: reason}
	}
	return nil
}

func toTextEdits(edits []diffs.TextEdit) []protocol.TextEdit {
	out := make([]protocol.TextEdit, len(edits))
	for i, e := range edits {
		out[i] = protocol.TextEdit{
			Range: protocol.Range{
				Start: protocol.Position{Line: e.Start.Line, Character: e.Start.Character},
				End:   protocol.Position{Line: e.End.Line, Character: e.End.Character},
			},
			NewText: e.NewText,
		}
	}
	return out
}
