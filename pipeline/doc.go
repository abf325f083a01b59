// Package pipeline is the shape of a tool call's way from the model to
// its tool: one Call, one Handler that runs it, and Middleware around
// the handler (hooks, the editor's view of the call, the permission
// gate), after the MCP Go SDK's func(Handler) Handler.
//
// The package holds no policy: the engine builds the chain from its
// session's parts (permission, sandbox, hooks). It knows tools, the
// editor's schema and the permission vocabulary, and nothing above
// them.
package pipeline
