package schema

// agent-lsp's extensions of the LSP door (docs/protocol.md): the agent's
// announcement inside the initialize result, agent/status and
// agent/diagnostics.

// InitializeResult is ACP's initialize result: the ACP door's answer to
// initialize, and what the LSP door announces in
// capabilities.experimental.agent.
type InitializeResult struct {
	ProtocolVersion   int               `json:"protocolVersion"`
	AgentCapabilities AgentCapabilities `json:"agentCapabilities"`
	AgentInfo         Implementation    `json:"agentInfo"`
	AuthMethods       []AuthMethod      `json:"authMethods"`
	// Meta carries {"agent-lsp": {"providerProblem": text}} when no
	// model provider is configured.
	Meta map[string]any `json:"_meta,omitempty"`
}

// SetConfigOptionResult is the result of session/set_config_option.
type SetConfigOptionResult struct {
	ConfigOptions []ConfigOption `json:"configOptions"`
}

// StatusParams is the params of the agent/status notification: a notice
// about the session that is not part of the conversation.
type StatusParams struct {
	SessionID string `json:"sessionId"`
	Kind      string `json:"kind"`
	Message   string `json:"message"`
	// RetryInMs is the wait before a retry, for StatusRetry.
	RetryInMs int64 `json:"retryInMs,omitempty"`
}

// agent/status kinds.
const (
	StatusRetry   = "retry"
	StatusWarning = "warning"
	StatusInfo    = "info"
)

// DiagnosticsParams is the params of agent/diagnostics: the editor's own
// diagnostics of a document, asked of clients that announce
// experimental.agent.diagnostics.
type DiagnosticsParams struct {
	URI string `json:"uri"`
	// Version, when set, asks the editor to wait (at most TimeoutMs)
	// until its diagnostics reflect that version of the document.
	Version   *int32 `json:"version,omitempty"`
	TimeoutMs int    `json:"timeoutMs,omitempty"`
}
