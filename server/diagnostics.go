package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/tools"
)

// agent/diagnostics (agent → editor): the editor's own diagnostics of a
// document, for clients that announce experimental.agent.diagnostics.

var _ engine.EditorDiagnostics = client{}

type agentDiagnosticsParams struct {
	URI string `json:"uri"`
	// Version, when set, asks the editor to wait (at most TimeoutMs)
	// until its diagnostics reflect that version of the document.
	Version   *int32 `json:"version,omitempty"`
	TimeoutMs int    `json:"timeoutMs,omitempty"`
}

type editorDiagnostic struct {
	Range    lspRange        `json:"range"`
	Severity int             `json:"severity,omitempty"`
	Code     json.RawMessage `json:"code,omitempty"`
	Source   string          `json:"source,omitempty"`
	Message  string          `json:"message"`
}

// OffersDiagnostics reports whether the editor announced
// experimental.agent.diagnostics.
func (c client) OffersDiagnostics() bool {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	return c.s.caps.diagnostics
}

// CoversDiagnostics reports whether the editor reports on path: it
// announced the capability and has the file open.
func (c client) CoversDiagnostics(path string) bool {
	c.s.mu.Lock()
	ok := c.s.caps.diagnostics
	c.s.mu.Unlock()
	return ok && c.s.overlay.IsOpen(path)
}

// Diagnostics asks the editor for its diagnostics of path.
func (c client) Diagnostics(ctx context.Context, path string, changed bool, wait time.Duration) ([]tools.Diagnostic, error) {
	p := agentDiagnosticsParams{URI: string(uri.File(path))}
	// The editor's didChange for the edit may still be on its way, so
	// the version to wait for is the one after the version seen before
	// the edit.
	v, open := c.s.overlay.Version(path)
	c.s.mu.Lock()
	if c.s.diagVersions == nil {
		c.s.diagVersions = map[string]int32{}
	}
	before, known := c.s.diagVersions[path]
	if !changed && open {
		c.s.diagVersions[path] = v
	}
	c.s.mu.Unlock()
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
	if err := c.s.peer.Call(ctx, "agent/diagnostics", p, &raw); err != nil {
		return nil, err
	}
	var res []editorDiagnostic
	// Lua's JSON encoders write an empty list as {}.
	if t := strings.TrimSpace(string(raw)); t != "{}" && t != "null" {
		if err := json.Unmarshal(raw, &res); err != nil {
			return nil, fmt.Errorf("agent/diagnostics: %w", err)
		}
	}
	out := make([]tools.Diagnostic, 0, len(res))
	for _, d := range res {
		code := strings.Trim(string(d.Code), `"`)
		if code == "null" {
			code = ""
		}
		out = append(out, tools.Diagnostic{
			Path:     path,
			Line:     int(d.Range.Start.Line) + 1,
			Column:   int(d.Range.Start.Character) + 1,
			Severity: severityName(d.Severity),
			Message:  d.Message,
			Source:   d.Source,
			Code:     code,
		})
	}
	return out, nil
}

func severityName(n int) string {
	switch n {
	case 0, 1:
		return "error"
	case 2:
		return "warning"
	case 3:
		return "info"
	}
	return "hint"
}

// The plain door's client answers like the LSP door's (wrap mode's
// agent gets the wrapped server's diagnostics this way).
var _ engine.EditorDiagnostics = (*plainClient)(nil)

// OffersDiagnostics is client.OffersDiagnostics.
func (pc *plainClient) OffersDiagnostics() bool { return client{pc.s}.OffersDiagnostics() }

// CoversDiagnostics is client.CoversDiagnostics.
func (pc *plainClient) CoversDiagnostics(path string) bool {
	return client{pc.s}.CoversDiagnostics(path)
}

// Diagnostics is client.Diagnostics.
func (pc *plainClient) Diagnostics(ctx context.Context, path string, changed bool, wait time.Duration) ([]tools.Diagnostic, error) {
	return client{pc.s}.Diagnostics(ctx, path, changed, wait)
}
