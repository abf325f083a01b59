// Package engine runs agent sessions: the loop that streams a model
// response, runs the tool calls it asks for behind the permission gate and
// hooks, feeds the results back and repeats until the model ends its turn.
//
// A session's permission mode, model and "always" answers are part of the
// session: they are saved in its file (session.State) whenever they change
// and restored when it is resumed or loaded in any process, so a restored
// session is never looser than it was.
//
// The engine knows nothing of JSON-RPC. Each protocol door (LSP, ACP,
// plain LSP) adapts a Service to its wire format and gives each session a
// Client through which updates and permission requests reach the editor.
//
// A service whose project folder is not trusted (Config.Trust) runs with
// the folder's settings restricted to what tightens the rules. At the
// first prompt, before the turn starts, it asks once, with a permission
// request marked as a folder trust request (IsTrustRequest); after "trust"
// it adopts the configuration rebuilt with the folder's settings in full.
package engine
