// Package langserver is a client of language servers (gopls, pyright,
// typescript-language-server, rust-analyzer, clangd, ...): it starts the
// server of a language lazily, the first time a file of that language is
// touched, feeds it the session's view of files (the editor's unsaved
// buffers over the disk) through didOpen/didChange, collects the
// diagnostics it publishes per document and version, and asks it for
// definitions, references, hover text and symbols.
//
// A Manager holds the servers of one sidecar, one per configured language
// and workspace root. A Manager that is never asked about a file of a
// configured language starts nothing. Close shuts every server down
// (shutdown, exit, then a kill of its process group) and waits for the
// goroutines it started.
//
// The package knows nothing of the engine: callers pass file text, paths
// and roots, and get back plain values.
package langserver
