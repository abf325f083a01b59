package engine

import (
	"sync"
	"sync/atomic"

	"github.com/agent-lsp/agent-lsp/hooks"
	"github.com/agent-lsp/agent-lsp/sandbox"
)

// callPipe is what a session's tool calls go through on their way to
// running: the permission gate, the hooks, and the sandboxes that hold
// commands. A subagent's session shares its parent's by this one pointer,
// so that its calls are asked about, hooked and confined exactly as the
// parent's are, and what the user rejects for the session holds in both.
// The middleware that uses it is in run.go.
type callPipe struct {
	gate  *gate
	hooks *hooks.Runner
	// sandbox is where Bash runs; replaced when the settings change.
	sandbox atomic.Pointer[sandbox.Sandbox]
	// confiner holds the commands that run without a question.
	confiner *sandbox.Confiner
	// classifierOff makes every Bash call that would ask run confined
	// (AGENT_LSP_CLASSIFIER=off, for testing the sandbox alone).
	classifierOff bool
	// tickets are the network proxy's tickets of running Bash calls, by
	// tool call id (proxyFor, refusedNote).
	tickets sync.Map
}
