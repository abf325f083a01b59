package server

import (
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"go.lsp.dev/protocol"
)

// go.lsp.dev/protocol's types encode with their own encoders
// (go-json-experiment's MarshalJSONTo); rpc.Raw uses them when the value
// it sends is such a type. These helpers carry protocol values where that
// test does not reach: inside an LSPAny field, and in a list.

// lspAny encodes v, a value of protocol's types or of plain Go ones, as
// an LSPAny field (a command's arguments, a progress value). The values
// passed here (strings, ranges, progress reports) always encode; should
// one not, the field is null rather than invalid JSON.
func lspAny(v any) protocol.LSPAny {
	b, err := jsonv2.Marshal(v)
	if err != nil {
		return protocol.LSPAny("null")
	}
	return protocol.LSPAny(b)
}

// codeActions is the result of textDocument/codeAction: a list, which
// rpc.Raw would encode with encoding/json, so it encodes its elements
// with their own encoders itself.
type codeActions []protocol.CodeAction

// MarshalJSONTo encodes the list with protocol's encoders.
func (a codeActions) MarshalJSONTo(enc *jsontext.Encoder) error {
	return jsonv2.MarshalEncode(enc, []protocol.CodeAction(a))
}
