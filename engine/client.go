package engine

import (
	"context"
	"sync"

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

// sessionClient is the client part of a session: the editor as the
// session reaches it, and the notices held until the editor knows the
// session. A subagent's session has its own, whose Client (agentClient)
// sends through its parent's by pointer.
type sessionClient struct {
	Client
	id   string                        // the session's id, set before it is shared
	logf func(format string, a ...any) // the service's log

	mu sync.Mutex // guards the fields below
	// notices are queued until announce, which sets announced.
	notices   []Status
	announced bool
}

func newSessionClient(id string, c Client, logf func(string, ...any)) *sessionClient {
	return &sessionClient{Client: c, id: id, logf: logf}
}

// update sends a session update, logging a failure: a lost notification
// must not stop the turn.
func (c *sessionClient) update(ctx context.Context, u schema.Update) {
	if err := c.Update(ctx, c.id, u); err != nil && ctx.Err() == nil {
		c.logf("session %s: sending %s: %v", c.id, u.SessionUpdate, err)
	}
}

// status sends a status notice, as an agent thought chunk to a client
// that cannot show notices.
func (c *sessionClient) status(ctx context.Context, st Status) {
	if sc, ok := c.Client.(StatusClient); ok {
		if err := sc.Status(ctx, c.id, st); err != nil && ctx.Err() == nil {
			c.logf("session %s: sending status: %v", c.id, err)
		}
		return
	}
	b := schema.TextBlock(st.Message + "\n")
	c.update(ctx, schema.Update{SessionUpdate: schema.UpdateAgentThoughtChunk, Content: &b})
}

// notice shows a status notice once the editor knows the session (after
// announce); until then it is queued.
func (c *sessionClient) notice(st Status) {
	c.mu.Lock()
	if !c.announced {
		c.notices = append(c.notices, st)
		c.mu.Unlock()
		return
	}
	c.mu.Unlock()
	c.status(context.Background(), st)
}

// announce marks the session as known to the editor and sends the
// notices queued until then.
func (c *sessionClient) announce(ctx context.Context) {
	c.mu.Lock()
	queued := c.notices
	c.notices, c.announced = nil, true
	c.mu.Unlock()
	for _, st := range queued {
		c.status(ctx, st)
	}
}

// plan shows the agent's plan (TodoWrite's entries).
func (c *sessionClient) plan(entries []schema.PlanEntry) {
	c.update(context.Background(), schema.Update{SessionUpdate: schema.UpdatePlan, Entries: entries})
}
