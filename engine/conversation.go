package engine

import (
	"encoding/json"
	"sync"

	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/session"
)

// conversation is what was said in a session: its messages, what the
// model counted of them at its last call, what the calls cost, and the
// session file that keeps them. It knows nothing of turns or of the
// editor: the session decides what to add, and reports what saving it
// did. Its methods are safe for concurrent use.
type conversation struct {
	// log is the session file; nil when sessions are not persisted.
	// Set before the session is shared, read-only after.
	log *session.Log
	// startModel is the service's default model when the session
	// started, set before it is shared.
	startModel string

	mu       sync.Mutex          // guards the fields below
	history  []providers.Message // what the model is sent, in order
	counted  int                 // history messages the last usage covers
	overhead int64               // tokens of system prompt and tools, estimated
	usage    providers.Usage     // of the last model call
	cost     float64             // spent so far in USD
	// shown are what finished file-changing calls did (toolUseResult),
	// by tool_use_id, until their results are saved.
	shown      map[string]json.RawMessage
	titled     bool   // the session has a title
	saveFailed bool   // the last write to the session file failed
	model      string // the model asked
	// system is the system prompt as last built; nil until it is
	// built again (the instructions changed).
	system []providers.SystemBlock

	stateMu    sync.Mutex     // serializes saveState; guards savedState
	savedState *session.State // what the file holds last
}

// messages returns a copy of the history.
func (c *conversation) messages() []providers.Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]providers.Message(nil), c.history...)
}

// isEmpty reports whether nothing was said yet.
func (c *conversation) isEmpty() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.history) == 0
}

// add appends a message to the history, merging it into the last one
// when both have the same role (the API wants roles to alternate), and
// writes it to the session file: a model response with its info, other
// messages with what their tool calls showed. It returns the write's
// error.
func (c *conversation) add(m providers.Message, info *session.ResponseInfo) error {
	c.mu.Lock()
	if n := len(c.history); n > 0 && c.history[n-1].Role == m.Role {
		last := &c.history[n-1]
		last.Content = append(append([]providers.Block(nil), last.Content...), m.Content...)
	} else {
		c.history = append(c.history, m)
	}
	var results map[string]json.RawMessage
	for _, b := range m.Content {
		if r, ok := c.shown[b.ToolUseID]; ok && b.Type == providers.BlockToolResult {
			if results == nil {
				results = make(map[string]json.RawMessage)
			}
			results[b.ToolUseID] = r
			delete(c.shown, b.ToolUseID)
		}
	}
	c.mu.Unlock()
	switch {
	case c.log == nil:
		return nil
	case info != nil:
		return c.log.AppendResponse(m, *info)
	default:
		return c.log.AppendResults(m, results)
	}
}

// remember keeps what a finished call did for display until its result
// is saved with it.
func (c *conversation) remember(toolUseID string, result json.RawMessage) {
	if result == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.shown == nil {
		c.shown = make(map[string]json.RawMessage)
	}
	c.shown[toolUseID] = result
}

// noteSave records the outcome of a write to the session file and
// returns whether the write before it had failed.
func (c *conversation) noteSave(err error) (wasFailing bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	wasFailing = c.saveFailed
	c.saveFailed = err != nil
	return wasFailing
}

// markTitled marks the session as titled and reports whether it was.
func (c *conversation) markTitled() (already bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	already = c.titled
	c.titled = true
	return already
}

// noteOverhead records the estimated tokens of a request's system prompt
// and tools, used until the model has counted a call.
func (c *conversation) noteOverhead(tokens int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.counted == 0 {
		c.overhead = tokens
	}
}

// counts records a model call's usage as covering the history so far.
func (c *conversation) counts(u providers.Usage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.usage = u
	c.counted = len(c.history)
}

// addCost adds to what the session spent and returns the total.
func (c *conversation) addCost(usd float64) float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cost += usd
	return c.cost
}

// startCost sets what the session spent before this process (a replayed
// session's responses), unless calls were already counted, and returns
// the total.
func (c *conversation) startCost(usd float64) float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cost == 0 {
		c.cost = usd
	}
	return c.cost
}

// tokens estimates the size of the next request: what the model counted
// at its last call plus an estimate of what was added since.
func (c *conversation) tokens() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	counted := c.counted
	if counted > len(c.history) {
		counted = 0
	}
	if counted == 0 {
		return estimateTokens(c.history) + c.overhead
	}
	return c.usage.ContextTokens() + estimateTokens(c.history[counted:])
}

// shrinkResults truncates the tool results of the last message that
// alone would take more than limit tokens.
func (c *conversation) shrinkResults(limit int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(c.history)
	if n == 0 {
		return
	}
	last := &c.history[n-1]
	for i, b := range last.Content {
		if b.Type != providers.BlockToolResult || blockTokens(b) <= limit {
			continue
		}
		last.Content[i].Content = []providers.Block{providers.TextBlock(truncatedResult(b, limit))}
	}
}

// compacted replaces the history by a summary and the messages kept
// after it, and writes them to the session file. It returns the write's
// error.
func (c *conversation) compacted(summary providers.Message, kept []providers.Message, trigger string) error {
	c.mu.Lock()
	c.history = append([]providers.Message{summary}, kept...)
	c.counted = 0
	c.mu.Unlock()
	if c.log == nil {
		return nil
	}
	// The summary with its lead-in, as the model saw it, so a resumed
	// session reads the same (Claude Code's summaries carry theirs too).
	err := c.log.AppendSummary(summary.Text(), trigger)
	for _, m := range kept {
		if err == nil {
			err = c.log.Append(m)
		}
	}
	return err
}

// clear forgets the history, and marks the point in the session file.
func (c *conversation) clear() error {
	c.mu.Lock()
	c.history, c.counted = nil, 0
	c.mu.Unlock()
	if c.log == nil {
		return nil
	}
	return c.log.AppendSummary("(The user cleared the conversation; nothing before this point matters.)", session.TriggerManual)
}

// saveState writes the session's state, as current returns it, to its
// file when it differs from what was written last. It reports whether it
// wrote, and the error. current is called under stateMu, so that saves
// racing each other cannot leave an older state last in the file.
func (c *conversation) saveState(current func() session.State) (wrote bool, err error) {
	if c.log == nil {
		return false, nil
	}
	c.stateMu.Lock()
	defer c.stateMu.Unlock()
	st := current()
	if c.savedState != nil && c.savedState.Equal(&st) {
		return false, nil
	}
	if err := c.log.SetState(st); err != nil {
		return true, err
	}
	c.savedState = &st
	return true, nil
}

// restoredState records a state read back from the session file as what
// the file holds.
func (c *conversation) restoredState(st session.State) {
	c.stateMu.Lock()
	defer c.stateMu.Unlock()
	c.savedState = &st
}

// asked returns the model the conversation asks.
func (c *conversation) asked() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.model
}

// setModel changes the model asked from the next model call on.
func (c *conversation) setModel(model string) {
	c.mu.Lock()
	c.model = model
	c.mu.Unlock()
}

// followDefault makes the conversation ask model, the new default, when
// it still asks the default it started with.
func (c *conversation) followDefault(model string) {
	c.mu.Lock()
	if c.model == c.startModel {
		c.model = model
	}
	c.mu.Unlock()
}

// systemPrompt returns the system prompt as last built, nil when it must
// be built again.
func (c *conversation) systemPrompt() []providers.SystemBlock {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.system
}

// setSystemPrompt keeps the system prompt built; nil makes the next
// model call build it again.
func (c *conversation) setSystemPrompt(blocks []providers.SystemBlock) {
	c.mu.Lock()
	c.system = blocks
	c.mu.Unlock()
}

// close closes the session file, if any.
func (c *conversation) close() error {
	if c.log == nil {
		return nil
	}
	return c.log.Close()
}
