// Package server is the protocol layer between rpc and engine: it serves
// the LSP door (session methods in ACP's shapes over LSP framing, document
// sync, workspace/applyEdit) over one connection, adapting each method to
// the engine's session service.
//
// Handlers are thin, one file per method group: lifecycle.go (initialize,
// shutdown, exit), textsync.go (textDocument/did*), sessions.go (session/*),
// and client.go, the engine.Client that carries updates, permission
// requests and edits back to the editor.
package server
