package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/agent-lsp/agent-lsp/permission"
	"github.com/agent-lsp/agent-lsp/pipeline"
	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/workspace"
)

// runTools runs the tool calls of one model message and returns their
// results in the model's order. Calls run concurrently when all of them
// are read-only, one at a time otherwise.
func (s *Session) runTools(ctx context.Context, uses []providers.Block) []providers.Block {
	s.awaitCheckpoint() // the prompt's checkpoint holds the files before any tool
	results := make([]providers.Block, len(uses))
	if s.allReadOnly(uses) {
		var wg sync.WaitGroup
		for i, use := range uses {
			wg.Go(func() { results[i] = s.runTool(ctx, use) })
		}
		wg.Wait()
		return results
	}
	for i, use := range uses {
		results[i] = s.runTool(ctx, use)
	}
	return results
}

func (s *Session) allReadOnly(uses []providers.Block) bool {
	if len(uses) < 2 {
		return false
	}
	for _, u := range uses {
		t, ok := s.tools.lookup(u.Name)
		if !ok || !t.Spec().ReadOnly {
			return false
		}
	}
	return true
}

// runTool runs one tool call through the session's middleware (hooks,
// the editor's view of the call, the permission gate) to the tool,
// reports the result to the editor and returns it for the model.
func (s *Session) runTool(ctx context.Context, use providers.Block) providers.Block {
	if ctx.Err() != nil {
		return s.finish(ctx, use, nil, tools.Errorf("the user cancelled this tool call before it ran"))
	}
	t, ok := s.tools.lookup(use.Name)
	if !ok {
		return s.finish(ctx, use, nil, tools.Errorf("unknown tool %q; the available tools are: %s", use.Name, strings.Join(s.toolNames(), ", ")))
	}
	if why := s.turn.restricted(use.Name); why != "" {
		return s.finish(ctx, use, nil, tools.Errorf("%s", why))
	}
	input := use.Input
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	c := &pipeline.Call{ID: use.ID, Name: use.Name, Tool: t, Input: input}
	res := pipeline.Chain(s.runCall, s.preToolUse, s.showCall, s.gateCall, s.postToolUse)(ctx, c)
	return s.finish(ctx, use, c.Display, res)
}

// preToolUse runs the PreToolUse hooks: they may replace the input or
// settle the permission question. A refusal is carried on the call, for
// showCall to report once the editor has seen the call.
func (s *Session) preToolUse(next pipeline.Handler) pipeline.Handler {
	return func(ctx context.Context, c *pipeline.Call) *tools.Result {
		c.Input, c.HookDecision, c.HookContext, c.Refusal = s.preToolHooks(ctx, c.ID, c.Name, c.Input)
		return next(ctx, c)
	}
}

// showCall previews the call and shows it to the editor, then stops a
// call a hook refused or one that cannot run as given.
func (s *Session) showCall(next pipeline.Handler) pipeline.Handler {
	return func(ctx context.Context, c *pipeline.Call) *tools.Result {
		preview, perr := s.preview(ctx, c.Tool, c.Input)
		c.Preview = preview
		c.Display = s.describe(c.ID, c.Tool, c.Input, preview)
		s.update(ctx, schema.Update{SessionUpdate: schema.UpdateToolCallUpdate, ToolCall: c.Display})
		if c.Refusal != nil {
			return c.Refusal
		}
		if perr != nil {
			// The call cannot run as given (bad input, a file not read
			// first): tell the model without asking the user to approve
			// something that would fail.
			return tools.Errorf("%v", perr)
		}
		return next(ctx, c)
	}
}

// gateCall decides whether and how the call runs (its plan, the
// question), and stops it when it may not.
func (s *Session) gateCall(next pipeline.Handler) pipeline.Handler {
	return func(ctx context.Context, c *pipeline.Call) *tools.Result {
		v := s.authorize(ctx, c.Tool, c.Display, c.Input, c.Preview, c.HookDecision)
		if v.refusal != nil {
			return v.refusal
		}
		if v.input != nil {
			c.Input = v.input // a PermissionRequest hook's updatedInput
		}
		c.Confine, c.Edited = v.confine, v.edited
		return next(ctx, c)
	}
}

// postToolUse runs the PostToolUse hooks on the result of a call that
// ran, unless the user cancelled it.
func (s *Session) postToolUse(next pipeline.Handler) pipeline.Handler {
	return func(ctx context.Context, c *pipeline.Call) *tools.Result {
		res := next(ctx, c)
		if ctx.Err() != nil && res.IsError {
			return tools.Errorf("the user cancelled this tool call: %s", res.Content)
		}
		s.postToolHooks(ctx, c.ID, c.Name, c.Input, res, c.HookContext)
		return res
	}
}

// runCall runs an allowed call held as its plan says.
func (s *Session) runCall(ctx context.Context, c *pipeline.Call) *tools.Result {
	name := c.Name
	s.update(ctx, schema.Update{SessionUpdate: schema.UpdateToolCallUpdate, ToolCall: &schema.ToolCall{ToolCallID: c.ID, Status: schema.StatusInProgress, Meta: schema.ToolMeta(name)}})

	runCtx := workspace.WithLabel(withToolCallID(ctx, c.ID), "Agent: "+c.Display.Title)
	runCtx = withConfinement(runCtx, c.Confine)
	runCtx = tools.WithProgress(runCtx, func(display []schema.ToolCallContent) {
		s.update(ctx, schema.Update{SessionUpdate: schema.UpdateToolCallUpdate, ToolCall: &schema.ToolCall{ToolCallID: c.ID, Status: schema.StatusInProgress, Content: display, Meta: schema.ToolMeta(name)}})
	})
	var res *tools.Result
	if c.Edited != nil {
		res = s.applyEdited(runCtx, c.Preview, *c.Edited)
	} else {
		res = c.Tool.Run(runCtx, c.Input)
	}
	if res == nil {
		res = tools.Errorf("tool %s returned no result", name)
	}
	if !c.Tool.Spec().ReadOnly && c.Confine != permission.ConfineReadOnly {
		s.pipe.confiner.Invalidate() // it may have changed the workspace
	}
	if res.IsError && name == "Bash" {
		res.Content += s.sandboxNote(c.Confine, res.Content)
	}
	if name == "Bash" {
		res.Content += s.refusedNote(c.ID)
	}
	return res
}

// preview asks a tool what a call would do, if it can tell.
// A tool that can preview but fails to says why the call cannot run.
func (s *Session) preview(ctx context.Context, t tools.Tool, input json.RawMessage) (*tools.Preview, error) {
	pv, ok := t.(tools.Previewer)
	if !ok {
		return nil, nil
	}
	return pv.Preview(ctx, input)
}

// describe builds the tool call the editor sees.
func (s *Session) describe(id string, t tools.Tool, input json.RawMessage, p *tools.Preview) *schema.ToolCall {
	spec := t.Spec()
	call := &schema.ToolCall{
		ToolCallID: id,
		Title:      spec.Name,
		Kind:       spec.Kind,
		Status:     schema.StatusPending,
		RawInput:   json.RawMessage(input),
		Meta:       schema.ToolMeta(spec.Name),
	}
	call.Title = s.callTitle(spec.Name, p)
	withDescription(call, input)
	if p != nil {
		call.Locations = p.Locations
		if call.Locations == nil {
			for _, path := range p.Paths {
				call.Locations = append(call.Locations, schema.Location{Path: path})
			}
		}
		for _, e := range p.Edits {
			call.Content = append(call.Content, schema.DiffContent(e.Path, e.Old, e.New, e.Created))
		}
	}
	return call
}

// finish reports a call's end to the editor and returns its result block.
func (s *Session) finish(ctx context.Context, use providers.Block, call *schema.ToolCall, res *tools.Result) providers.Block {
	status := schema.StatusCompleted
	if res.IsError {
		status = schema.StatusFailed
	}
	upd := &schema.ToolCall{ToolCallID: use.ID, Status: status, Title: res.Title, Locations: res.Locations, Meta: schema.ToolMeta(use.Name)}
	if use.Name != "Bash" {
		upd.Title = s.displayPaths(res.Title, nil, res.Locations)
	}
	if call == nil {
		upd.Title, upd.Kind = use.Name, s.kindOf(use.Name)
	}
	upd.Content = res.Display
	if len(upd.Content) == 0 && res.Content != "" {
		upd.Content = []schema.ToolCallContent{schema.TextContent(truncateDisplay(res.Content))}
	}
	if t, ok := s.tools.lookup(use.Name); ok && !res.IsError {
		var r json.RawMessage
		if rec, ok := t.(tools.Recorder); ok {
			r = rec.Record(use.Input, res)
		}
		s.conv.remember(use.ID, r)
		s.tools.noteEdit(t, res)
	}
	s.update(context.WithoutCancel(ctx), schema.Update{SessionUpdate: schema.UpdateToolCallUpdate, ToolCall: upd})

	content := []providers.Block{providers.TextBlock(tools.Truncate(res.Content, s.svc.cfg.ResultBudget))}
	for _, img := range res.Images {
		content = append(content, providers.Block{Type: providers.BlockImage, Source: &providers.ImageSource{Type: "base64", MediaType: img.MediaType, Data: img.Data}})
	}
	return providers.Block{Type: providers.BlockToolResult, ToolUseID: use.ID, Content: content, IsError: res.IsError}
}

// displayBudget bounds the tool output shown in the editor.
const displayBudget = 20_000

func truncateDisplay(s string) string { return tools.Truncate(s, displayBudget) }

// applyEdited writes the text the user edited in the permission prompt
// instead of the model's proposal.
func (s *Session) applyEdited(ctx context.Context, p *tools.Preview, text string) *tools.Result {
	e := p.Edits[0]
	var before []byte
	if !e.Created {
		before = []byte(e.Old)
	}
	if err := s.tools.env.Files.WriteFile(ctx, e.Path, before, []byte(text)); err != nil {
		return tools.Errorf("writing %s: %v", e.Path, err)
	}
	s.tools.env.Reads.Saw(e.Path, []byte(text))
	return &tools.Result{
		Content:   fmt.Sprintf("The user changed your proposed edit of %s before accepting it. The file now differs from your proposal: Read it again before editing it further.", e.Path),
		Display:   []schema.ToolCallContent{schema.DiffContent(e.Path, e.Old, text, e.Created)},
		Locations: []schema.Location{{Path: e.Path}},
	}
}

func (s *Session) toolNames() []string {
	all := s.tools.all()
	names := make([]string, 0, len(all))
	for _, t := range all {
		names = append(names, t.Spec().Name)
	}
	slices.Sort(names)
	return names
}

// relative shortens the workspace paths in a title ("Edit calc.py").
func (s *Session) relative(title string) string {
	return strings.ReplaceAll(title, s.cwd+string(filepath.Separator), "")
}
