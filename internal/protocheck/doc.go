// Package protocheck keeps the editors' copies of the protocol equal to the
// Go schema, which is their source.
//
// Its tests generate editors/neovim/lua/agent_lsp/methods_gen.lua (the
// method names of schema.EditorMethods, the enums of schema's constant
// groups, and LuaCATS classes of every shape on the wire) and fail when
// the checked-in file differs (`go test ./internal/protocheck -update`
// rewrites it), and they read editors/vscode/src/protocol.ts and fail
// when it lacks a method, an enum value or a field of a Go type on the
// wire. The package has no code outside its tests.
package protocheck
