package server

import (
	"context"
	"sync"

	"github.com/agent-lsp/agent-lsp/engine"
)

// The plain-LSP door serves editors that have no agent plugin (Helix,
// Kate, eglot, vanilla Neovim) with standard LSP 3.17 messages only: code
// actions (plain_actions.go) and commands (plain_commands.go) start
// turns, progress shows what the agent does (plain_session.go),
// window/showMessageRequest asks for approvals (plain_approval.go),
// workspace/applyEdit makes the edits and a markdown transcript
// (plain_transcript.go, opened with window/showDocument) holds the whole
// exchange. It shares the LSP door's connection, documents and file
// system, and is offered to clients that did not announce
// experimental.agent.

// plainDoor is the state of the plain-LSP door of a connection: one
// session at a time and the turn running in it.
type plainDoor struct {
	lsp *lspDoor

	mu      sync.Mutex         // guards the fields below
	sess    *engine.Session    // the door's session, nil before the first prompt
	client  *plainClient       // of sess
	cancel  context.CancelFunc // of the running turn
	ctx     context.Context    // of the running turn
	running bool
	// steering counts the prompts sent into the running turn that have
	// not returned yet. The turn is not over for the door until they
	// have: one that came as the engine's turn ended runs as a turn of
	// its own, under the same turn context.
	steering int
	idle     *sync.Cond // signalled when steering drops; L is &mu

	// trailing, closed to stop them, belongs to the nudges after the
	// last turn's end (nil when none run); closed is set once the
	// connection has stopped serving, after which none start.
	trailing chan struct{}
	closed   bool

	turns sync.WaitGroup // the turns, steering prompts and nudges running
}

func newPlainDoor(lsp *lspDoor) *plainDoor {
	p := &plainDoor{lsp: lsp}
	p.idle = sync.NewCond(&p.mu)
	return p
}

// addTo adds the door's methods to the LSP door's table.
func (p *plainDoor) addTo(t methodTable) {
	t["textDocument/codeAction"] = p.codeAction
	t["workspace/executeCommand"] = p.executeCommand
	t["window/workDoneProgress/cancel"] = p.progressCancel
}

// announce adds the door's capabilities to the initialize result.
func (p *plainDoor) announce(caps *serverCapabilities) {
	caps.CodeActionProvider = &codeActionOptions{CodeActionKinds: []string{"quickfix", "refactor", "refactor.rewrite"}}
	caps.ExecuteCommandProvider = &executeCommandOptions{Commands: plainCommands}
}

// The capabilities of the plain-LSP door, in the initialize result.
type (
	codeActionOptions struct {
		CodeActionKinds []string `json:"codeActionKinds"`
	}
	executeCommandOptions struct {
		Commands []string `json:"commands"`
	}
)

// close waits for the running turns once the connection has stopped
// serving, and closes the session's transcript.
func (p *plainDoor) close() {
	p.mu.Lock()
	p.closed = true
	p.stopTrailLocked()
	p.mu.Unlock()
	p.turns.Wait()
	p.mu.Lock()
	pc := p.client
	p.mu.Unlock()
	if pc != nil {
		pc.transcript().close()
	}
}
