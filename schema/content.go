package schema

// ContentBlock is one piece of content in a prompt, a message chunk or a tool
// result: text, image, audio, resource_link or resource (embedded).
type ContentBlock struct {
	Type string `json:"type"`

	// text
	Text string `json:"text,omitempty"`

	// image and audio
	Data     string `json:"data,omitempty"`
	MimeType string `json:"mimeType,omitempty"`

	// resource_link (and image, optionally)
	URI         string `json:"uri,omitempty"`
	Name        string `json:"name,omitempty"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Size        *int64 `json:"size,omitempty"`

	// resource
	Resource *EmbeddedResource `json:"resource,omitempty"`

	Annotations map[string]any `json:"annotations,omitempty"`
	// Meta is ACP's extension point; in a prompt,
	// _meta["agent-lsp"].ambient marks the editor's own context (the
	// open file, the selection) sent without the user asking.
	Meta map[string]any `json:"_meta,omitempty"`
}

// EmbeddedResource is the resource of a "resource" content block: a text or a
// base64 blob with its URI.
type EmbeddedResource struct {
	URI      string `json:"uri"`
	MimeType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"`
	Blob     string `json:"blob,omitempty"`
}

// Content block types.
const (
	BlockText         = "text"
	BlockImage        = "image"
	BlockAudio        = "audio"
	BlockResourceLink = "resource_link"
	BlockResource     = "resource"
)

// MaxImageBytes is the largest image an image block may carry, decoded:
// the most the model takes (Anthropic's limit), for a prompt's images, the
// Read tool's and agent/thumbnail's.
const MaxImageBytes = 5 << 20

// TextBlock returns a text content block.
func TextBlock(s string) ContentBlock { return ContentBlock{Type: BlockText, Text: s} }
