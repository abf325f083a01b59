// Package wrap is wrap mode (agent-lsp --wrap -- <server command...>): a
// proxy between an editor that runs one language server per buffer
// (eglot, Helix, Kate) and the user's real language server. Every message
// passes through unchanged, both ways, frame for frame: requests,
// responses, notifications, server-to-client requests, cancellation,
// progress, dynamic registration. A few are also shown to the agent, which
// runs in process behind its own plain-LSP door:
//
//   - initialize goes to both; the editor gets the real server's result
//     with the agent's code actions and commands merged in.
//   - textDocument/codeAction goes to both; the agent's actions ("Agent:
//     fix this" on the real server's diagnostics, ...) follow the real
//     server's.
//   - workspace/executeCommand of an agent command goes to the agent only.
//   - document sync goes to both, so the agent sees the unsaved buffers.
//   - the real server's publishDiagnostics are kept and answer the agent's
//     agent/diagnostics: edit results carry the real server's findings.
//
// The agent's own requests to the editor (applyEdit, showMessageRequest,
// progress) carry ids of the form "agent-lsp:N", apart from the real
// server's. A real server that exits unexpectedly is reported
// (window/showMessage) and started again, re-initialized with the
// editor's initialize and the open documents; a server that does not
// answer delays the agent's code actions and shutdown by a bounded time.
//
// The agent is the plain-LSP door of package server, served in process
// through server.NewPlainAgent; the proxy reads only the few wire fields
// it needs (envelope), and passes everything else through as bytes.
package wrap
