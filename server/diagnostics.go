package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/langserver"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/tools"
)

// agent/diagnostics (agent → editor): the editor's own diagnostics of a
// document, for clients that announce experimental.agent.diagnostics.

// editorDiagnostics answers the engine's questions about the editor's
// diagnostics, for the clients of the LSP and plain-LSP doors (wrap
// mode's agent gets the wrapped server's diagnostics this way).
type editorDiagnostics struct{ d *lspDoor }

var _ engine.EditorDiagnostics = editorDiagnostics{}

// agentDiagnosticsParams is the params of agent/diagnostics.
type agentDiagnosticsParams = schema.DiagnosticsParams

// OffersDiagnostics reports whether the editor announced
// experimental.agent.diagnostics.
func (e editorDiagnostics) OffersDiagnostics() bool {
	return e.d.capabilities().diagnostics
}

// CoversDiagnostics reports whether the editor reports on path: it
// announced the capability and has the file open.
func (e editorDiagnostics) CoversDiagnostics(path string) bool {
	return e.d.capabilities().diagnostics && e.d.overlay.IsOpen(path)
}

// Diagnostics asks the editor for its diagnostics of path.
func (e editorDiagnostics) Diagnostics(ctx context.Context, path string, changed bool, wait time.Duration) ([]tools.Diagnostic, error) {
	d := e.d
	p := agentDiagnosticsParams{URI: string(uri.File(path))}
	// The editor's didChange for the edit may still be on its way, so
	// the version to wait for is the one after the version seen before
	// the edit.
	v, open := d.overlay.Version(path)
	d.mu.Lock()
	if d.diagVersions == nil {
		d.diagVersions = map[string]int32{}
	}
	before, known := d.diagVersions[path]
	if !changed && open {
		d.diagVersions[path] = v
	}
	d.mu.Unlock()
	if changed {
		if !known {
			before = v
		}
		after := before + 1
		p.Version = &after
		p.TimeoutMs = int(wait / time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(ctx, wait+time.Second)
	defer cancel()
	var raw json.RawMessage
	if err := d.c.peer.Call(ctx, schema.MethodAgentDiagnostics, p, &raw); err != nil {
		return nil, err
	}
	var res []langserver.WireDiagnostic
	// Lua's JSON encoders write an empty list as {}.
	if t := strings.TrimSpace(string(raw)); t != "{}" && t != "null" {
		if err := json.Unmarshal(raw, &res); err != nil {
			return nil, fmt.Errorf("agent/diagnostics: %w", err)
		}
	}
	diags := langserver.FromWire(path, res)
	out := make([]tools.Diagnostic, len(diags))
	for i, d := range diags {
		out[i] = tools.Diagnostic(d)
	}
	return out, nil
}
