package schema

// ACP's elicitation/create (MethodElicitationCreate): the agent asks the
// user for structured input, here the questions of the model's
// AskUserQuestion tool, as a form. Both doors send it; an ACP client
// gets it only when it announced clientCapabilities.elicitation.form.

// ElicitationCapabilities are the elicitation modes a client announced
// (clientCapabilities.elicitation). A mode is supported only when its
// field is present and not null.
type ElicitationCapabilities struct {
	Form *struct{} `json:"form,omitempty"`
	URL  *struct{} `json:"url,omitempty"`
}

// Elicitation modes: a form, or a URL the user opens.
const (
	ElicitationForm = "form"
	ElicitationURL  = "url"
)

// CreateElicitationParams is the params of elicitation/create in form
// mode, tied to the session and the tool call that asks.
type CreateElicitationParams struct {
	SessionID  string `json:"sessionId"`
	ToolCallID string `json:"toolCallId,omitempty"`
	Mode       string `json:"mode"`
	// Message says what is asked: the question when there is one, else
	// a line before the questions (each in its field's description).
	Message         string            `json:"message"`
	RequestedSchema ElicitationSchema `json:"requestedSchema"`
	Meta            map[string]any    `json:"_meta,omitempty"`
}

// ElicitationSchema is the restricted JSON Schema of a form: an object
// of flat properties.
type ElicitationSchema struct {
	Type       string                         `json:"type"` // "object"
	Properties map[string]ElicitationProperty `json:"properties"`
	Required   []string                       `json:"required,omitempty"`
}

// ElicitationProperty is one field of a form: a single choice (a
// "string" with OneOf), a multiple choice (an "array" whose Items have
// AnyOf) or free text (a "string" without OneOf).
type ElicitationProperty struct {
	Type        string            `json:"type"`
	Title       string            `json:"title,omitempty"`
	Description string            `json:"description,omitempty"`
	OneOf       []EnumOption      `json:"oneOf,omitempty"`
	Items       *ElicitationItems `json:"items,omitempty"`
}

// ElicitationItems are the choices of a multiple-choice field.
type ElicitationItems struct {
	AnyOf []EnumOption `json:"anyOf"`
}

// EnumOption is one choice: its value (Const), the label shown and a
// line that explains it.
type EnumOption struct {
	Const       string `json:"const"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
}

// CreateElicitationResult is the user's answer to elicitation/create:
// "accept" with the form's Content (each field's value by name: a
// string, or an array of strings for a multiple choice), "decline" or
// "cancel".
type CreateElicitationResult struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// Elicitation actions.
const (
	ElicitationAccept  = "accept"
	ElicitationDecline = "decline"
	ElicitationCancel  = "cancel"
)
