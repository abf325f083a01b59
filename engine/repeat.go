package engine

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/agent-lsp/agent-lsp/providers"
)

// repeatGuard notices a model going round in circles within one turn:
// the same tool call (name and input) asked for a third time, or two
// calls alternating (A B A B), with no successful change (a call of a
// tool that is not read-only) in between. The result of the repeated
// call then carries a warning.
type repeatGuard struct {
	calls []string // keys of the calls since the last change
}

// repeatLimit is how many identical calls earn a warning.
const repeatLimit = 3

// callKey identifies a call by its name and its input, compacted.
func callKey(use providers.Block) string {
	var b bytes.Buffer
	if json.Compact(&b, use.Input) != nil {
		b.Reset()
		b.Write(use.Input)
	}
	return use.Name + " " + b.String()
}

// see records a call and returns how many times it was asked for since
// the last change, and whether the last four calls alternate between two.
func (g *repeatGuard) see(key string) (count int, cycle bool) {
	g.calls = append(g.calls, key)
	for _, k := range g.calls {
		if k == key {
			count++
		}
	}
	if n := len(g.calls); n >= 4 {
		a, b := g.calls[n-4], g.calls[n-3]
		cycle = a != b && g.calls[n-2] == a && g.calls[n-1] == b
	}
	return count, cycle
}

// checkRepeats records a model message's calls and adds a warning to the
// result of each call that repeats.
func (s *Session) checkRepeats(g *repeatGuard, uses, results []providers.Block) {
	for i, use := range uses {
		count, cycle := g.see(callKey(use))
		var warn string
		if count == repeatLimit-1 {
			s.svc.cfg.Logf("session %s: repeated tool call: %s asked for %d times with the same input", s.ID, use.Name, count)
		}
		switch {
		case count >= repeatLimit:
			s.svc.cfg.Logf("session %s: repeated tool call: %s asked for %d times with the same input and nothing changed in between", s.ID, use.Name, count)
			warn = fmt.Sprintf("Warning: you have made this exact %s call %d times in this turn and nothing changed in between, so the result is the same. Do not repeat it: use what you already have, try another approach, or ask the user.", use.Name, count)
		case cycle:
			s.svc.cfg.Logf("session %s: repeated tool calls: the model alternates between two calls (the last is %s)", s.ID, use.Name)
			warn = "Warning: you are alternating between the same two tool calls and nothing changed in between. Stop the cycle: use what you already have, try another approach, or ask the user."
		}
		if warn != "" && i < len(results) {
			results[i].Content = append(results[i].Content, providers.TextBlock(warn))
		}
		if t, ok := s.tools.lookup(use.Name); i < len(results) && !results[i].IsError && (!ok || !t.Spec().ReadOnly) {
			g.calls = nil // something may have changed
		}
	}
}
