package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agent-lsp/agent-lsp/permission"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/tools"
)

// The way out of plan mode and the way in, with Claude Code's tool names
// and inputs. ExitPlanMode shows the plan to the user as a permission
// question (as Claude Code's ACP adapter does): "Yes, and auto-accept
// edits" switches to acceptEdits, "Yes, and manually approve edits" to
// default, "No, keep planning" stays in plan mode and ends the turn so
// the user can say what to change. The user may edit the plan before
// approving it (the answer's _meta.editedText): the model gets the plan
// as the user left it. Nothing else switches a mode from the model's
// side: EnterPlanMode only narrows (plan mode runs nothing that
// changes anything), so it needs no question.

// The options of the plan question; their ids are the modes they choose.
const (
	optPlanAcceptEdits = "acceptEdits"
	optPlanDefault     = "default"
	optPlanKeep        = "plan"
)

// exitPlanModeTool is the ExitPlanMode tool.
type exitPlanModeTool struct{ s *Session }

type exitPlanModeInput struct {
	Plan string `json:"plan" jsonschema:"The plan you came up with, that you want to run by the user for approval. Supports markdown. The plan should be pretty concise."`
}

var exitPlanModeSchema = tools.InputSchema[exitPlanModeInput](nil)

func (t *exitPlanModeTool) Spec() tools.Spec {
	return tools.Spec{
		Name: "ExitPlanMode",
		Description: "Use this tool when you are in plan mode and have finished planning the implementation steps of a task that requires writing code, and are ready to present the plan to the user for approval. " +
			"The user reads (and may edit) the plan and either approves it, which switches the session out of plan mode so you can carry it out, or keeps planning and tells you what to change. " +
			"Do not use it for research tasks where you only gather information, search files or read code.",
		InputSchema: exitPlanModeSchema(),
		Kind:        schema.KindSwitchMode,
		ReadOnly:    true,
		// The tool changes nothing itself: the user's answer to its own
		// question does.
		Access: tools.AccessNone,
	}
}

// Preview titles the call as Claude Code's adapter does.
func (t *exitPlanModeTool) Preview(_ context.Context, input json.RawMessage) (*tools.Preview, error) {
	if _, err := parsePlan(input); err != nil {
		return nil, err
	}
	return &tools.Preview{Title: "Ready to code?"}, nil
}

func parsePlan(input json.RawMessage) (string, error) {
	var in exitPlanModeInput
	if err := tools.DecodeInput(input, &in); err != nil {
		return "", fmt.Errorf("invalid input: %w", err)
	}
	if strings.TrimSpace(in.Plan) == "" {
		return "", fmt.Errorf("invalid input: plan: the plan is empty; write the plan in markdown")
	}
	return in.Plan, nil
}

func (t *exitPlanModeTool) Run(ctx context.Context, input json.RawMessage) *tools.Result {
	s := t.s
	plan, err := parsePlan(input)
	if err != nil {
		return tools.Errorf("%v", err)
	}
	if mode := s.pipe.gate.policy.Mode(); mode != permission.Plan {
		return tools.Errorf("the session is not in plan mode (it is in %s mode); carry on without ExitPlanMode", mode)
	}
	q := &schema.RequestPermissionParams{
		SessionID: s.ID,
		ToolCall: schema.ToolCall{
			ToolCallID: toolCallID(ctx),
			Title:      "Ready to code?",
			Kind:       schema.KindSwitchMode,
			RawInput:   input,
			Content:    []schema.ToolCallContent{{Type: "content", Content: &schema.ContentBlock{Type: schema.BlockText, Text: plan}}},
			Meta:       schema.ToolMeta("ExitPlanMode"),
		},
		Options: []schema.PermissionOption{
			{OptionID: optPlanAcceptEdits, Name: "Yes, and auto-accept edits", Kind: schema.AllowAlways},
			{OptionID: optPlanDefault, Name: "Yes, and manually approve edits", Kind: schema.AllowOnce},
			{OptionID: optPlanKeep, Name: "No, keep planning", Kind: schema.RejectOnce},
		},
	}
	res, err := s.client.RequestPermission(ctx, q)
	switch {
	case err != nil && ctx.Err() != nil, err == nil && res.Outcome.Outcome != "selected":
		s.turn.requestStop("The plan's review was cancelled: the session stays in plan mode.")
		return tools.Errorf("the user cancelled the plan's review; the session stays in plan mode")
	case err != nil:
		return tools.Errorf("could not show the plan to the user (%v); the session stays in plan mode", err)
	}
	if edited, ok := res.Outcome.Meta["editedText"].(string); ok && strings.TrimSpace(edited) != "" {
		plan = edited
	}
	switch res.Outcome.OptionID {
	case optPlanAcceptEdits, optPlanDefault:
		if err := s.SetMode(ctx, res.Outcome.OptionID); err != nil {
			return tools.Errorf("the user approved the plan, but switching to %s mode failed: %v; the session stays in plan mode", res.Outcome.OptionID, err)
		}
		return &tools.Result{
			Title:   "Exited Plan Mode",
			Content: fmt.Sprintf("The user approved the plan (the session is now in %s mode). You can now start coding. Start by updating your todo list if applicable.\n\n## Approved plan:\n%s", res.Outcome.OptionID, plan),
		}
	case optPlanKeep:
		s.turn.requestStop("Still planning: say what to change in the plan.")
		r := tools.Errorf("the user wants to keep planning: the session stays in plan mode. Wait for the user to say what to change in the plan.")
		r.Title = "Kept planning"
		return r
	}
	return tools.Errorf("the editor answered the plan's review with unknown option %q; the session stays in plan mode", res.Outcome.OptionID)
}

// enterPlanModeTool is the EnterPlanMode tool.
type enterPlanModeTool struct{ s *Session }

type enterPlanModeInput struct{}

var enterPlanModeSchema = tools.InputSchema[enterPlanModeInput](nil)

func (t *enterPlanModeTool) Spec() tools.Spec {
	return tools.Spec{
		Name: "EnterPlanMode",
		Description: "Switch the session to plan mode before a non-trivial change, to explore the code and design an approach first: in plan mode only read-only tools run. " +
			"When the plan is ready, present it with ExitPlanMode for the user's approval.",
		InputSchema: enterPlanModeSchema(),
		Kind:        schema.KindSwitchMode,
		ReadOnly:    true,
		Access:      tools.AccessNone,
	}
}

func (t *enterPlanModeTool) Run(ctx context.Context, input json.RawMessage) *tools.Result {
	var in enterPlanModeInput
	if err := tools.DecodeInput(input, &in); err != nil {
		return tools.Errorf("invalid input: %v", err)
	}
	s := t.s
	if s.pipe.gate.policy.Mode() == permission.Plan {
		return &tools.Result{Title: "Entered Plan Mode", Content: "The session is already in plan mode."}
	}
	if err := s.SetMode(ctx, string(permission.Plan)); err != nil {
		return tools.Errorf("switching to plan mode failed: %v", err)
	}
	return &tools.Result{
		Title: "Entered Plan Mode",
		Content: "Entered plan mode. Explore the code base and design an implementation approach: only read-only tools run now. " +
			"When the plan is ready, present it with ExitPlanMode for the user's approval.",
	}
}
