package server

import (
	"context"
	"io"
	"sync"

	"go.lsp.dev/jsonrpc2"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/rpc"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/workspace"
)

// lspDoor is the LSP door: our editor plugins speak the session methods
// over LSP's framing, beside document sync and workspace/applyEdit. An
// editor without a plugin gets the plain-LSP door (plainDoor) on the same
// connection.
type lspDoor struct {
	c       *core
	overlay *workspace.Overlay // the editor's open documents
	plain   *plainDoor

	mu    sync.Mutex         // guards the fields below
	roots []string           // workspace folders
	caps  clientCapabilities // what the editor announced
	// diagVersions is, per file, the document's version when the editor
	// last reported its diagnostics before an edit (agent/diagnostics).
	diagVersions map[string]int32
}

// Serve serves the LSP door on rwc until the editor sends exit, the stream
// ends or ctx is cancelled. It returns the process exit code LSP asks for:
// 0 after shutdown then exit, 1 otherwise. Every session is closed (and
// every process it started stopped) before Serve returns.
func Serve(ctx context.Context, rwc io.ReadWriteCloser, opts Options) int {
	return newLSPDoor(opts).c.serveStream(ctx, rwc, rpc.NewHeaderStream)
}

// newLSPDoor returns the LSP door of a connection, with its method table:
// lifecycle (lifecycle.go), document sync (textsync.go), the session
// methods (sessions.go), the plain-LSP door's (plain.go) and
// $/cancelRequest and agent/thumbnail (thumbnail.go, on both doors).
func newLSPDoor(opts Options) *lspDoor {
	c := newCore(opts, errorCodes{notInitialized: codeServerNotInitialized})
	d := &lspDoor{c: c, overlay: workspace.NewOverlay()}
	d.plain = newPlainDoor(d)
	c.atClose = d.plain.close
	c.nudge = d.plain.nudge
	c.methods = methodTable{
		"initialize":                d.initialize,
		"initialized":               func(context.Context, *jsonrpc2.Request) (any, error) { return nil, nil },
		"shutdown":                  d.shutdown,
		"exit":                      c.exit,
		"$/cancelRequest":           c.cancelRequest("id"),
		"textDocument/didOpen":      d.didOpen,
		"textDocument/didChange":    d.didChange,
		"textDocument/didClose":     d.didClose,
		"textDocument/didSave":      d.didSave,
		schema.MethodAgentThumbnail: thumbnailOf,
	}
	sessionMethods{c: c, door: d}.addTo(c.methods)
	d.plain.addTo(c.methods)
	return d
}

// serviceFor returns the one service of the connection, whatever cwd.
func (d *lspDoor) serviceFor(string) (*engine.Service, error) { return d.c.service(), nil }

// sessionOptions returns the options of a session on the LSP door: the
// editor's client, and files read from its buffers and edited with
// workspace/applyEdit when it offers that.
func (d *lspDoor) sessionOptions(cwd string, mcp []schema.MCPServer) (engine.SessionOptions, func(string)) {
	roots, caps := d.state()
	fs := &workspace.FS{Overlay: d.overlay}
	cl := newLSPClient(d)
	if caps.applyEdit {
		fs.Editor = cl
	}
	return engine.SessionOptions{Cwd: cwd, Roots: roots, Client: cl, Files: fs, MCPServers: mcp}, func(string) {}
}

// state returns the workspace folders and the editor's capabilities.
func (d *lspDoor) state() ([]string, clientCapabilities) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.roots, d.caps
}

// capabilities returns the editor's capabilities.
func (d *lspDoor) capabilities() clientCapabilities {
	_, caps := d.state()
	return caps
}

// workspaceRoots returns the workspace folders.
func (d *lspDoor) workspaceRoots() []string {
	roots, _ := d.state()
	return roots
}
