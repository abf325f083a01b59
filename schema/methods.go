package schema

// Method names: ACP's session methods, which both doors serve, and the
// methods an editor plugin speaks with the agent over the LSP door
// (docs/protocol.md). The doors register and send them by these names,
// and the editors' copies (editors/vscode/src/protocol.ts,
// editors/neovim/lua/agent_lsp/methods_gen.lua) are checked against
// EditorMethods by internal/protocheck.
const (
	MethodSessionNew             = "session/new"
	MethodSessionPrompt          = "session/prompt"
	MethodSessionCancel          = "session/cancel"
	MethodSessionSetMode         = "session/set_mode"
	MethodSessionSetModel        = "session/set_model"
	MethodSessionSetConfigOption = "session/set_config_option"
	MethodSessionList            = "session/list"
	MethodSessionLoad            = "session/load"
	MethodSessionResume          = "session/resume"
	MethodSessionFork            = "session/fork"
	MethodSessionClose           = "session/close"
	MethodSessionCheckpoints     = "session/checkpoints"
	MethodSessionRewind          = "session/rewind"
	MethodSessionMCPResources    = "session/mcp_resources"
	MethodSessionUpdate          = "session/update"
	MethodRequestPermission      = "session/request_permission"
	MethodElicitationCreate      = "elicitation/create"
	MethodAgentStatus            = "agent/status"
	MethodAgentDiagnostics       = "agent/diagnostics"
	MethodAgentThumbnail         = "agent/thumbnail"
	MethodApplyEdit              = "workspace/applyEdit"
	MethodCancelRequest          = "$/cancelRequest"
)

// Direction says which side sends a method.
type Direction int

// Directions of a method.
const (
	// ToAgent: the editor sends it and the agent handles it.
	ToAgent Direction = iota + 1
	// ToEditor: the agent sends it and the editor handles it.
	ToEditor
	// Both: either side sends it.
	Both
)

// Method describes one method of the editor protocol.
type Method struct {
	Name         string
	Dir          Direction
	Notification bool
	// Params and Result are zero values of the Go types on the wire;
	// nil when there is none or the shape is LSP's own.
	Params, Result any
	// LSP marks a standard LSP method, which an editor's LSP client
	// library serves or sends by itself.
	LSP bool
}

// EditorMethods lists every method an editor plugin speaks with the agent
// over the LSP door, besides LSP's lifecycle and document sync. It is
// read, never changed.
var EditorMethods = []Method{
	{Name: MethodSessionNew, Dir: ToAgent, Params: NewSessionParams{}, Result: NewSessionResult{}},
	{Name: MethodSessionPrompt, Dir: ToAgent, Params: PromptParams{}, Result: PromptResult{}},
	{Name: MethodSessionCancel, Dir: ToAgent, Notification: true, Params: SessionIDParams{}},
	{Name: MethodSessionSetMode, Dir: ToAgent, Params: SetModeParams{}},
	{Name: MethodSessionSetModel, Dir: ToAgent, Params: SetModelParams{}},
	{Name: MethodSessionSetConfigOption, Dir: ToAgent, Params: SetConfigOptionParams{}, Result: SetConfigOptionResult{}},
	{Name: MethodSessionList, Dir: ToAgent, Params: ListSessionsParams{}, Result: ListSessionsResult{}},
	{Name: MethodSessionLoad, Dir: ToAgent, Params: LoadSessionParams{}, Result: NewSessionResult{}},
	{Name: MethodSessionResume, Dir: ToAgent, Params: LoadSessionParams{}, Result: NewSessionResult{}},
	{Name: MethodSessionFork, Dir: ToAgent, Params: LoadSessionParams{}, Result: NewSessionResult{}},
	{Name: MethodSessionClose, Dir: ToAgent, Params: SessionIDParams{}},
	{Name: MethodSessionCheckpoints, Dir: ToAgent, Params: CheckpointsParams{}, Result: CheckpointsResult{}},
	{Name: MethodSessionRewind, Dir: ToAgent, Params: RewindParams{}, Result: RewindResult{}},
	{Name: MethodSessionMCPResources, Dir: ToAgent, Params: MCPResourcesParams{}, Result: MCPResourcesResult{}},
	{Name: MethodSessionUpdate, Dir: ToEditor, Notification: true, Params: SessionNotification{}},
	{Name: MethodRequestPermission, Dir: ToEditor, Params: RequestPermissionParams{}, Result: RequestPermissionResult{}},
	{Name: MethodElicitationCreate, Dir: ToEditor, Params: CreateElicitationParams{}, Result: CreateElicitationResult{}},
	{Name: MethodAgentStatus, Dir: ToEditor, Notification: true, Params: StatusParams{}},
	{Name: MethodAgentDiagnostics, Dir: ToEditor, Params: DiagnosticsParams{}},
	{Name: MethodAgentThumbnail, Dir: ToAgent, Params: ThumbnailParams{}, Result: ThumbnailResult{}},
	{Name: MethodApplyEdit, Dir: ToEditor, LSP: true},
	{Name: MethodCancelRequest, Dir: Both, Notification: true, LSP: true},
}
