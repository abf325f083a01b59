package schema

// RequestPermissionParams is the params of session/request_permission.
type RequestPermissionParams struct {
	SessionID string             `json:"sessionId"`
	ToolCall  ToolCall           `json:"toolCall"`
	Options   []PermissionOption `json:"options"`
	// Meta carries agent-lsp extensions: {"agent-lsp": {"kind":
	// "folderTrust", ...}} marks a request to trust a folder.
	Meta map[string]any `json:"_meta,omitempty"`
}

// PermissionOption is one choice offered to the user.
type PermissionOption struct {
	OptionID string `json:"optionId"`
	Name     string `json:"name"`
	Kind     string `json:"kind"` // allow_once, allow_always, reject_once, reject_always
	// Meta carries {"agent-lsp": {"rule": "Edit(/calc.go)"}}: the
	// settings rule an "always" option adds, for a tooltip.
	Meta map[string]any `json:"_meta,omitempty"`
}

// Permission option kinds.
const (
	AllowOnce    = "allow_once"
	AllowAlways  = "allow_always"
	RejectOnce   = "reject_once"
	RejectAlways = "reject_always"
)

// RequestPermissionResult is the result of session/request_permission.
type RequestPermissionResult struct {
	Outcome PermissionOutcome `json:"outcome"`
}

// PermissionOutcome is the user's answer: "selected" with an option, or
// "cancelled".
type PermissionOutcome struct {
	Outcome  string `json:"outcome"`
	OptionID string `json:"optionId,omitempty"`
	// Meta may carry agent-lsp extensions, such as "editedText": the
	// proposed file text as the user changed it before accepting.
	Meta map[string]any `json:"_meta,omitempty"`
}
