package engine

import (
	"context"

	"github.com/agent-lsp/agent-lsp/schema"
)

// Client is the editor as a session sees it. Each protocol door implements
// it over its wire format.
type Client interface {
	// Update delivers a session update. Doors write it to the editor
	// before returning, so an editor that stops reading slows the
	// session down; it should not block otherwise.
	Update(ctx context.Context, sessionID string, u schema.Update) error
	// RequestPermission asks the user whether a tool call may run. It
	// returns when the user answers or ctx ends.
	RequestPermission(ctx context.Context, p *schema.RequestPermissionParams) (*schema.RequestPermissionResult, error)
}

// Status kinds sent through StatusClient (agent/status's kinds).
const (
	StatusRetry   = schema.StatusRetry
	StatusWarning = schema.StatusWarning
	StatusInfo    = schema.StatusInfo
)

// Status is a notice about the session that is not part of the
// conversation: a retry after an API error, a broken MCP server, a settings
// file with errors.
type Status struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
	// RetryInMs is the wait before a retry, for StatusRetry.
	RetryInMs int64 `json:"retryInMs,omitempty"`
}

// StatusClient is implemented by clients that can show status notices.
// Clients that do not implement it get them as agent thought chunks.
type StatusClient interface {
	Status(ctx context.Context, sessionID string, s Status) error
}
