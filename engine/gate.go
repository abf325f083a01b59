package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"

	"github.com/agent-lsp/agent-lsp/pathres"
	"github.com/agent-lsp/agent-lsp/permission"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/tools"
)

// gate is the session's permission gate: the policy (settings rules, the
// mode, what the user allowed for the session) and what the user rejected
// for the rest of the session.
type gate struct {
	policy *permission.Policy

	mu       sync.Mutex
	rejected map[string]bool // rules the user always rejects, guarded by mu
}

func newGate(policy *permission.Policy) *gate {
	return &gate{policy: policy, rejected: make(map[string]bool)}
}

// verdict is the outcome of authorize: a refusal for the model, or
// permission to run, possibly with text the user edited.
type verdict struct {
	refusal *tools.Result
	edited  *string
	// confine says how the call must be held; its zero value is the
	// read-only sandbox, so running unconfined is always set by name.
	confine permission.Confinement
	// input, when set, replaces the call's input (a PermissionRequest
	// hook's updatedInput).
	input json.RawMessage
}

// Permission option ids offered in session/request_permission.
const (
	optAllowOnce    = "allow_once"
	optAllowAlways  = "allow_always"
	optRejectOnce   = "reject_once"
	optRejectAlways = "reject_always"
)

// authorize decides whether a call may run, asking the user when the
// policy says so.
// A PreToolUse hook's decision ("allow", "ask") settles an undecided call.
func (s *Session) authorize(ctx context.Context, t tools.Tool, call *schema.ToolCall, input json.RawMessage, p *tools.Preview, hookDecision string) verdict {
	spec := t.Spec()
	pc := permissionCall(spec, input, p, s.cwd)
	plan := s.plan(pc, input)
	d := plan.decision
	switch {
	case plan.verdict == permission.Deny:
		return verdict{refusal: tools.Errorf("%s", plan.reason)}
	case hookDecision == "allow":
		// A hook's allow does not loosen a confinement the classifier
		// asked for: the command was harmless to begin with.
		// An undecided call the hook allows is an approval: a command
		// runs in the write sandbox, as one the user approved would.
		if plan.verdict == permission.Allow {
			return verdict{confine: plan.confine}
		}
		return verdict{confine: s.approvedConfinement(pc.Command)}
	case plan.verdict == permission.Allow && hookDecision != "ask":
		return verdict{confine: plan.confine}
	case hookDecision != "ask" && s.skillRead(spec.Name, pc.Paths):
		// A loaded skill's own files, outside the workspace.
		return verdict{confine: permission.NotConfined}
	}
	key := d.AlwaysRule
	if key == "" {
		key = spec.Name
	}
	s.pipe.gate.mu.Lock()
	rejected := s.pipe.gate.rejected[key]
	s.pipe.gate.mu.Unlock()
	if rejected {
		return verdict{refusal: tools.Errorf("the user rejected %s for this session; do not try again, ask the user what to do instead", key)}
	}

	if v, updated, done := s.permissionRequestHooks(ctx, call.ToolCallID, spec.Name, input, pc.Command); done {
		v.input = updated
		return v
	}
	s.notifyHooks(ctx, "permission_prompt", "Claude needs your permission to use "+spec.Name)
	q := s.question(call, input, pc.Command, d.AlwaysRule, key)
	options := q.Options
	res, err := s.client.RequestPermission(ctx, q)
	if err != nil {
		if ctx.Err() != nil {
			s.answered(ctx, call, options, permCancelled, "")
			return verdict{refusal: tools.Errorf("the user cancelled this tool call")}
		}
		return verdict{refusal: tools.Errorf("could not ask the user for permission (%v); the call was not run", err)}
	}
	out := res.Outcome
	if out.Outcome != "selected" {
		s.answered(ctx, call, options, permCancelled, "")
		return verdict{refusal: tools.Errorf("the user cancelled this tool call")}
	}
	switch out.OptionID {
	case optAllowOnce:
		s.answered(ctx, call, options, permAllowed, out.OptionID)
		return verdict{edited: editedText(out, p), confine: s.approvedConfinement(pc.Command)}
	case optAllowOutside:
		if !offered(options, optAllowOutside) {
			break
		}
		s.answered(ctx, call, options, permAllowed, out.OptionID)
		return verdict{confine: permission.NotConfined}
	case optAllowAlways:
		if d.AlwaysRule == "" {
			break
		}
		s.answered(ctx, call, options, permAllowed, out.OptionID)
		if err := s.pipe.gate.policy.AllowAlways(pc, d); err != nil {
			s.status(ctx, Status{Kind: StatusWarning, Message: fmt.Sprintf("allowed %s for this session, but saving the rule failed: %v", d.AlwaysRule, err)})
		}
		s.saveState()
		return verdict{edited: editedText(out, p), confine: s.approvedConfinement(pc.Command)}
	case optRejectAlways:
		s.answered(ctx, call, options, permRejected, out.OptionID)
		s.pipe.gate.mu.Lock()
		s.pipe.gate.rejected[key] = true
		s.pipe.gate.mu.Unlock()
		s.saveState()
		return verdict{refusal: tools.Errorf("the user rejected this tool call. Do not retry it as is; ask the user what they want instead if it is unclear")}
	case optRejectOnce:
		s.answered(ctx, call, options, permRejected, out.OptionID)
		return verdict{refusal: tools.Errorf("the user rejected this tool call. Do not retry it as is; ask the user what they want instead if it is unclear")}
	}
	return verdict{refusal: tools.Errorf("the editor answered the permission request with unknown option %q; the call was not run", out.OptionID)}
}

// permissionCall is the call the policy checks: what the tool's spec
// declares it does, and the paths it touches, from its preview and the
// input fields its spec names (relative ones from cwd). A tool that
// declares neither its access nor that it is read-only asks.
func permissionCall(spec tools.Spec, input json.RawMessage, p *tools.Preview, cwd string) permission.Call {
	pc := permission.Call{Tool: spec.Name, Input: input, Access: accessOf(spec.Access), ReadOnly: spec.ReadOnly, Kind: spec.Kind, Cwd: cwd}
	if p != nil {
		pc.Paths, pc.Command = slices.Clone(p.Paths), p.Command
	}
	if len(spec.PathFields) == 0 {
		return pc
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(input, &fields) != nil {
		return pc
	}
	for _, name := range spec.PathFields {
		var v string
		if json.Unmarshal(fields[name], &v) != nil || v == "" {
			continue
		}
		if !filepath.IsAbs(v) {
			v = filepath.Join(cwd, v)
		}
		real, err := pathres.Resolve(cwd, v)
		if err != nil && !errors.Is(err, pathres.ErrPseudo) {
			real = filepath.Clean(v)
		}
		if !slices.Contains(pc.Paths, real) {
			pc.Paths = append(pc.Paths, real)
		}
	}
	return pc
}

// accessOf is the policy's name for a tool's access.
func accessOf(a tools.Access) permission.Access {
	switch a {
	case tools.AccessNone:
		return permission.AccessNone
	case tools.AccessRead:
		return permission.AccessRead
	case tools.AccessEdit:
		return permission.AccessEdit
	case tools.AccessExecute:
		return permission.AccessExecute
	case tools.AccessFetch:
		return permission.AccessFetch
	}
	return permission.AccessUndeclared
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
