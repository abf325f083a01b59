// Package server is the protocol layer between rpc and engine: it serves
// the editor's doors to the agent over one connection each, adapting
// each method to the engine's session service.
//
// # Doors
//
// Each door is a type of its own over the connection's shared core
// (server.go: the connection, its lifecycle state, the requests in
// flight and the session services of services.go). A door's constructor
// builds its method table, and the door owns its capabilities, its
// clients and file systems, its error codes and its cancel notice:
//
//   - lspDoor (lsp.go) serves our editor plugins: the session methods in
//     ACP's shapes over LSP framing (sessions.go), lifecycle
//     (lifecycle.go), document sync (textsync.go), workspace/applyEdit
//     and agent/diagnostics (client.go, diagnostics.go). It answers a
//     request before initialize with LSP's -32002 and cancels its calls
//     to the editor with $/cancelRequest.
//   - plainDoor (plain*.go) serves editors without a plugin on the same
//     connection, with standard LSP features only: code actions,
//     commands, progress, showMessageRequest and a transcript. Wrap mode
//     (package wrap) embeds it beside the user's language server through
//     NewPlainAgent (plain_embed.go).
//   - acpDoor (acp.go, acp_terminal.go) serves the Agent Client Protocol
//     over newline-delimited JSON: the same session methods, with files
//     and terminals through the client and a service per project. ACP's
//     -32002 means "resource not found", so a request before initialize
//     is an invalid request there, and it cancels with $/cancel_request.
//
// Handlers are thin, one file per method group, and delegate to the
// engine.
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
// LSP messages use go.lsp.dev/protocol's types: document sync params,
// ranges and positions, workspace/applyEdit and its answer,
// window/logMessage, window/showMessage, window/showMessageRequest and
// the button chosen, window/showDocument, work done progress (create,
// begin, report, end, cancel), workspace/executeCommand's params and the
// code actions and commands of textDocument/codeAction. They encode with
// their own encoders: rpc.Raw uses them for a value of such a type, and
// wire.go carries them where that does not reach (a list, an LSPAny).
//
// Three are copies written here, each on purpose:
//
//   - initialize's params (initializeParams, lifecycle.go). protocol's
//     decoder checks the whole of ClientCapabilities, some hundreds of
//     fields, and refuses initialize over any one of them, such as an
//     empty Lua table {} where a list goes (Lua encoders write an empty
//     list so) in a capability the server never reads. An editor refused
//     at initialize has no agent at all, so the copy reads only the
//     capabilities the server acts on.
//   - initialize's result (initializeResult, lifecycle.go). It carries
//     the agent's ACP initialize result in experimental.agent and the
//     agent-lsp _meta of docs/protocol.md beside the capabilities, which
//     protocol.InitializeResult has no field for, and it announces five
//     of ServerCapabilities' thirty-odd fields.
//   - textDocument/codeAction's params (codeActionParams,
//     plain_actions.go). Their diagnostics echo what other servers
//     published, and protocol's decoder refuses the request over fields
//     the door never reads (a null severity or code, {} for a list of
//     tags).
//
// agent/diagnostics is our own method, not LSP's, and the session methods
// are ACP's: they use package schema and the shapes beside their
// handlers.
package server
