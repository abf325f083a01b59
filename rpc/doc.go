// Package rpc is agent-lsp's JSON-RPC plumbing over go.lsp.dev/jsonrpc2:
// a framing wrapper that answers malformed input with a JSON-RPC error and
// keeps serving, encoding helpers that use encoding/json for every wire
// value, and params decoding that names the offending field.
//
// rpc knows framing and wire encoding only; it imports no engine code.
package rpc
