package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/tools"
)

// gate remembers the user's "always" answers for the session.
type gate struct {
	mu     sync.Mutex
	always map[string]bool // rule -> allowed (true) or rejected (false); guarded by mu
	mode   string          // guarded by mu
}

func newGate(mode string) *gate { return &gate{always: make(map[string]bool), mode: mode} }

func (g *gate) setMode(mode string) error {
	g.mu.Lock()
	g.mode = mode
	g.mu.Unlock()
	return nil
}

// rule is what an "always" answer covers: the tool, and for Bash the
// command's first word.
func rule(name string, p *tools.Preview) string {
	if p != nil && p.Command != "" {
		if f := strings.Fields(p.Command); len(f) > 0 {
			return name + "(" + f[0] + ":*)"
		}
	}
	return name
}

// verdict is the outcome of authorize: a refusal for the model, or
// permission to run, possibly with text the user edited.
type verdict struct {
	refusal *tools.Result
	edited  *string
}

// Permission option ids offered in session/request_permission.
const (
	optAllowOnce    = "allow_once"
	optAllowAlways  = "allow_always"
	optRejectOnce   = "reject_once"
	optRejectAlways = "reject_always"
)

// authorize decides whether a call may run, asking the user when needed.
func (s *Session) authorize(ctx context.Context, t tools.Tool, call *schema.ToolCall, input []byte, p *tools.Preview) verdict {
	spec := t.Spec()
	if spec.ReadOnly {
		return verdict{}
	}
	r := rule(spec.Name, p)
	s.gate.mu.Lock()
	allowed, known := s.gate.always[r]
	mode := s.gate.mode
	s.gate.mu.Unlock()
	switch {
	case mode == ModePlan:
		return verdict{refusal: tools.Errorf("the session is in plan mode: only read-only tools may run. Present your plan to the user instead of making changes")}
	case mode == ModeBypassPermissions:
		return verdict{}
	case mode == ModeAcceptEdits && spec.Kind == schema.KindEdit:
		return verdict{}
	}
	if known {
		if allowed {
			return verdict{}
		}
		return verdict{refusal: tools.Errorf("the user has rejected %s calls for this session; do not try again, ask the user what to do instead", r)}
	}

	params := &schema.RequestPermissionParams{
		SessionID: s.ID,
		ToolCall:  *call,
		Options: []schema.PermissionOption{
			{OptionID: optAllowOnce, Name: "Allow", Kind: schema.AllowOnce},
			{OptionID: optAllowAlways, Name: fmt.Sprintf("Always allow %s", r), Kind: schema.AllowAlways},
			{OptionID: optRejectOnce, Name: "Reject", Kind: schema.RejectOnce},
			{OptionID: optRejectAlways, Name: fmt.Sprintf("Always reject %s", r), Kind: schema.RejectAlways},
		},
	}
	res, err := s.client.RequestPermission(ctx, params)
	if err != nil {
		if ctx.Err() != nil {
			return verdict{refusal: tools.Errorf("the user cancelled this tool call")}
		}
		return verdict{refusal: tools.Errorf("could not ask the user for permission (%v); the call was not run", err)}
	}
	out := res.Outcome
	if out.Outcome != "selected" {
		return verdict{refusal: tools.Errorf("the user cancelled this tool call")}
	}
	switch out.OptionID {
	case optAllowOnce, optAllowAlways:
		if out.OptionID == optAllowAlways {
			s.gate.mu.Lock()
			s.gate.always[r] = true
			s.gate.mu.Unlock()
		}
		return verdict{edited: editedText(out, p)}
	case optRejectAlways:
		s.gate.mu.Lock()
		s.gate.always[r] = false
		s.gate.mu.Unlock()
	case optRejectOnce:
	default:
		return verdict{refusal: tools.Errorf("the editor answered the permission request with unknown option %q; the call was not run", out.OptionID)}
	}
	return verdict{refusal: tools.Errorf("the user rejected this tool call. Do not retry it as is; ask the user what they want instead if it is unclear")}
}

// editedText returns the text the user put in place of a single-file
// proposal, if they changed it.
func editedText(out schema.PermissionOutcome, p *tools.Preview) *string {
	text, ok := out.Meta["editedText"].(string)
	if !ok || p == nil || len(p.Edits) != 1 || text == p.Edits[0].New {
		return nil
	}
	return &text
}
