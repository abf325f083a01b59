package schema

// ProtocolVersion is the ACP protocol version agent-lsp speaks.
const ProtocolVersion = 1

// AgentCapabilities are announced by the agent in initialize.
type AgentCapabilities struct {
	LoadSession         bool                 `json:"loadSession"`
	PromptCapabilities  PromptCapabilities   `json:"promptCapabilities"`
	MCPCapabilities     MCPCapabilities      `json:"mcpCapabilities"`
	SessionCapabilities *SessionCapabilities `json:"sessionCapabilities,omitempty"`
}

// PromptCapabilities say which content blocks a prompt may carry.
type PromptCapabilities struct {
	Image           bool `json:"image"`
	Audio           bool `json:"audio"`
	EmbeddedContext bool `json:"embeddedContext"`
}

// MCPCapabilities say which MCP transports session/new accepts besides stdio.
type MCPCapabilities struct {
	HTTP bool `json:"http"`
	SSE  bool `json:"sse"`
}

// SessionCapabilities announce the optional session methods.
type SessionCapabilities struct {
	List   *struct{} `json:"list,omitempty"`
	Resume *struct{} `json:"resume,omitempty"`
	Close  *struct{} `json:"close,omitempty"`
	Fork   *struct{} `json:"fork,omitempty"`
}

// ClientCapabilities are announced by an ACP client in initialize.
type ClientCapabilities struct {
	FS       FSCapabilities `json:"fs"`
	Terminal bool           `json:"terminal"`
	// Elicitation is nil when the client takes no elicitation/create.
	Elicitation *ElicitationCapabilities `json:"elicitation,omitempty"`
}

// FSCapabilities say whether the client serves fs/read_text_file and
// fs/write_text_file.
type FSCapabilities struct {
	ReadTextFile  bool `json:"readTextFile"`
	WriteTextFile bool `json:"writeTextFile"`
}

// AuthMethod is an authentication method the agent offers.
type AuthMethod struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// Implementation names a program and its version.
type Implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// MCPServer is an MCP server passed in session/new: stdio (command) or
// http/sse (url).
type MCPServer struct {
	Type    string        `json:"type,omitempty"` // "", "stdio", "http" or "sse"
	Name    string        `json:"name"`
	Command string        `json:"command,omitempty"`
	Args    []string      `json:"args,omitempty"`
	Env     []EnvVariable `json:"env,omitempty"`
	URL     string        `json:"url,omitempty"`
	Headers []HTTPHeader  `json:"headers,omitempty"`
}

// EnvVariable is one environment variable of a stdio MCP server.
type EnvVariable struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// HTTPHeader is one header sent to an http MCP server.
type HTTPHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// NewSessionParams is the params of session/new.
type NewSessionParams struct {
	Cwd        string      `json:"cwd"`
	MCPServers []MCPServer `json:"mcpServers"`
	// Model optionally picks the model (agent-lsp extension).
	Model string `json:"model,omitempty"`
}

// NewSessionResult is the result of session/new, session/load and
// session/resume.
type NewSessionResult struct {
	SessionID     string         `json:"sessionId,omitempty"`
	Modes         *ModeState     `json:"modes,omitempty"`
	Models        *ModelState    `json:"models,omitempty"`
	ConfigOptions []ConfigOption `json:"configOptions,omitempty"`
	// Meta carries {"agent-lsp": {"providerProblem": text}} when no
	// model provider is configured.
	Meta map[string]any `json:"_meta,omitempty"`
}

// ModelState lists the models a session can use, the current one first,
// and names the current one (ACP's SessionModelState).
type ModelState struct {
	CurrentModelID  string      `json:"currentModelId"`
	AvailableModels []ModelInfo `json:"availableModels"`
}

// ModelInfo is a model the user can pick: its id, a display name
// ("Claude Opus 4.5") and a description; _meta["agent-lsp"].group names
// its group in a picker ("Anthropic", "OpenAI-compatible").
type ModelInfo struct {
	ModelID     string         `json:"modelId"`
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Meta        map[string]any `json:"_meta,omitempty"`
}

// LoadSessionParams is the params of session/load, session/resume and
// session/fork.
type LoadSessionParams struct {
	SessionID  string      `json:"sessionId"`
	Cwd        string      `json:"cwd"`
	MCPServers []MCPServer `json:"mcpServers"`
	Meta       *LoadMeta   `json:"_meta,omitempty"`
}

// LoadMeta is the _meta of session/load and session/resume.
type LoadMeta struct {
	AgentLSP struct {
		// Fork continues a copy of the session under a new id (the
		// result's sessionId), leaving the stored one as it is.
		Fork bool `json:"fork"`
		// Checkpoint, with a fork, forks the session as it was before
		// this prompt (session/checkpoints lists them).
		Checkpoint int `json:"checkpoint,omitempty"`
	} `json:"agent-lsp"`
}

// ModeState lists the session modes and the current one.
type ModeState struct {
	CurrentModeID  string `json:"currentModeId"`
	AvailableModes []Mode `json:"availableModes"`
}

// Mode is a permission mode a session can be in.
type Mode struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// ConfigOption is a session configuration option, such as the model.
type ConfigOption struct {
	ID           string        `json:"id"`
	Name         string        `json:"name"`
	Description  string        `json:"description,omitempty"`
	Category     string        `json:"category,omitempty"`
	Type         string        `json:"type"` // "select"
	CurrentValue string        `json:"currentValue"`
	Options      []ConfigValue `json:"options"`
}

// ConfigValue is one choice of a select config option.
type ConfigValue struct {
	Value       string `json:"value"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// SetConfigOptionParams is the params of session/set_config_option.
type SetConfigOptionParams struct {
	SessionID string `json:"sessionId"`
	ConfigID  string `json:"configId"`
	Value     string `json:"value"`
}

// SetModeParams is the params of session/set_mode.
type SetModeParams struct {
	SessionID string `json:"sessionId"`
	ModeID    string `json:"modeId"`
}

// SetModelParams is the params of session/set_model.
type SetModelParams struct {
	SessionID string `json:"sessionId"`
	ModelID   string `json:"modelId"`
}

// PromptParams is the params of session/prompt.
type PromptParams struct {
	SessionID string         `json:"sessionId"`
	Prompt    []ContentBlock `json:"prompt"`
}

// PromptResult is the result of session/prompt.
type PromptResult struct {
	StopReason string `json:"stopReason"`
}

// Stop reasons.
const (
	StopEndTurn         = "end_turn"
	StopMaxTokens       = "max_tokens"
	StopMaxTurnRequests = "max_turn_requests"
	StopRefusal         = "refusal"
	StopCancelled       = "cancelled"
)

// SessionIDParams is the params of methods that name only a session:
// session/cancel and session/close.
type SessionIDParams struct {
	SessionID string `json:"sessionId"`
}

// ListSessionsParams is the params of session/list.
type ListSessionsParams struct {
	Cwd    string `json:"cwd,omitempty"`
	Cursor string `json:"cursor,omitempty"`
}

// ListSessionsResult is the result of session/list.
type ListSessionsResult struct {
	Sessions   []SessionInfo `json:"sessions"`
	NextCursor string        `json:"nextCursor,omitempty"`
}

// SessionInfo describes a stored session.
type SessionInfo struct {
	SessionID string `json:"sessionId"`
	Cwd       string `json:"cwd"`
	Title     string `json:"title,omitempty"`
	UpdatedAt string `json:"updatedAt,omitempty"` // RFC 3339
	// Meta carries agent-lsp extensions: "source" ("agent-lsp" or
	// "claude-code") and "readOnly".
	Meta map[string]any `json:"_meta,omitempty"`
}
