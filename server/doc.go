// Package server is the protocol layer between rpc and engine: it serves
// the LSP door (session methods in ACP's shapes over LSP framing, document
// sync, workspace/applyEdit) over one connection, adapting each method to
// the engine's session service.
//
// Handlers are thin, one file per method group: lifecycle.go (initialize,
// shutdown, exit), textsync.go (textDocument/did*), sessions.go (session/*),
// and client.go, the engine.Client that carries updates, permission
// requests and edits back to the editor.
//
// # Dispatch
//
// No method runs on jsonrpc2's read loop, so any handler may call the
// editor (fs/read_text_file, workspace/applyEdit, a permission request)
// and wait for the answer: registering a method takes no flag. The
// order the protocol needs is kept by dispatch.go:
//
//   - notifications (textDocument/did*, $/cancelRequest, $/cancel_request,
//     initialized, exit, session/cancel) run one at a time, in the order
//     received, on one queue;
//   - every request runs on its own goroutine, concurrently with the
//     others, but only once every notification received before it has
//     been applied: a didChange is never overtaken by a later request that
//     reads the buffer;
//   - initialize and shutdown are ordered like notifications: whatever
//     comes after initialize sees the initialized server, whatever comes
//     after shutdown sees it shut down.
//
// A request's cancellation ($/cancelRequest) is registered before the
// read loop reads the next message, so it reaches a request still waiting
// for its turn. When the editor's input ends, the requests in flight get
// a short while to answer (a script that pipes its requests and closes
// its end still reads the answers); jsonrpc2 writes nothing once its
// reader has seen that end, so watchInput holds it back meanwhile.
//
// # Wire types
//
// LSP messages use go.lsp.dev/protocol's types (document sync params,
// ranges and positions). A few are small copies written here, on purpose:
// the initialize result (initializeResult in lifecycle.go) names the
// handful of capabilities the server announces, with the agent's ACP
// initialize result inside experimental.agent, where protocol's
// ServerCapabilities has some thirty fields and an untyped Experimental;
// and the plain door's code actions, commands and showMessageRequest
// carry only the fields it sends. The session methods are ACP's and use
// package schema.
package server
