package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/google/uuid"

	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/session"
	"github.com/agent-lsp/agent-lsp/tools"
)

// Agent tool names: Claude Code calls it Agent, and Task before that;
// calls of Task run Agent (see toolAliases).
const (
	agentToolName = "Agent"
	taskToolName  = "Task"
)

// agentRun is what a subagent's session knows of its run.
type agentRun struct {
	parent *Session
	def    AgentDef
	id     string // agentId: names its transcript
	callID string // the parent's Agent tool call
}

// agentInput is the Agent tool's input, Claude Code's fields.
type agentInput struct {
	Description  string `json:"description" jsonschema:"A short (3-5 word) description of the task"`
	Prompt       string `json:"prompt" jsonschema:"The task for the agent to perform"`
	SubagentType string `json:"subagent_type,omitempty" jsonschema:"The type of specialized agent to use for this task"`
	Model        string `json:"model,omitempty" jsonschema:"Optional model for this agent (sonnet, opus, haiku or a model id); it inherits yours by default"`
}

var agentSchema = tools.InputSchema[agentInput](nil)

// agentTool starts subagents. It is read-only for the gate and for
// parallel runs: what the subagent does goes through the gate call by
// call.
type agentTool struct {
	s *Session

	mu   sync.Mutex
	desc string // the description listing the agents, guarded by mu
}

// reload lists the agent definitions in the description again; the
// session calls it before each model request, so edited definitions
// apply at once.
func (t *agentTool) reload() {
	d := t.describe()
	t.mu.Lock()
	t.desc = d
	t.mu.Unlock()
}

func (t *agentTool) Spec() tools.Spec {
	t.mu.Lock()
	desc := t.desc
	t.mu.Unlock()
	if desc == "" {
		desc = "Launch a subagent to handle a complex, multi-step task on its own."
	}
	return tools.Spec{
		Name:        agentToolName,
		Description: desc,
		InputSchema: agentSchema(),
		Kind:        schema.KindThink,
		ReadOnly:    true,
		// The subagent's own calls go through the gate one by one.
		Access: tools.AccessNone,
	}
}

// describe is the tool's description with the agents available now.
func (t *agentTool) describe() string {
	var b strings.Builder
	b.WriteString(`Launch a subagent to handle a complex, multi-step task on its own. It works with its own context and tools and returns one final report, which only you see: relay what matters to the user.

Available agent types (subagent_type) and the tools they have access to:
`)
	for _, d := range t.s.agentDefs() {
		tl := "all tools"
		if d.Tools != nil {
			tl = strings.Join(d.Tools, ", ")
		}
		fmt.Fprintf(&b, "- %s: %s (Tools: %s)\n", d.Name, d.Description, tl)
	}
	b.WriteString(`
Usage notes:
- Launch several agents at once when their work is independent: put several Agent calls in one message; they run in parallel.
- Give each agent a complete task description: it does not see this conversation. Say exactly what it should return.
- The agent's report is not shown to the user: summarize it for them.`)
	return b.String()
}

func (t *agentTool) Preview(_ context.Context, raw json.RawMessage) (*tools.Preview, error) {
	var in agentInput
	if err := tools.DecodeInput(raw, &in); err != nil {
		return nil, fmt.Errorf("invalid input: %w", err)
	}
	typ := in.SubagentType
	if typ == "" {
		typ = generalPurpose.Name
	}
	return &tools.Preview{Title: fmt.Sprintf("%s: %s", typ, in.Description)}, nil
}

func (t *agentTool) Run(ctx context.Context, raw json.RawMessage) *tools.Result {
	var in agentInput
	if err := tools.DecodeInput(raw, &in); err != nil {
		return tools.Errorf("invalid input: %v", err)
	}
	if strings.TrimSpace(in.Prompt) == "" {
		return tools.Errorf("prompt is required: the task for the agent")
	}
	typ := in.SubagentType
	if typ == "" {
		typ = generalPurpose.Name
	}
	defs := t.s.agentDefs()
	i := slices.IndexFunc(defs, func(d AgentDef) bool { return d.Name == typ })
	if i < 0 {
		names := make([]string, len(defs))
		for j, d := range defs {
			names[j] = d.Name
		}
		return tools.Errorf("unknown subagent_type %q; the available agents are: %s", typ, strings.Join(names, ", "))
	}
	def := defs[i]
	if in.Model != "" {
		def.Model = in.Model
	}
	return t.s.runAgent(ctx, def, toolCallID(ctx), in.Prompt)
}

// runAgent runs a subagent to the end of its turn and returns its final
// report as the Agent call's result.
func (s *Session) runAgent(ctx context.Context, def AgentDef, callID, prompt string) *tools.Result {
	c := s.child(def, callID)
	defer c.closeChild()
	s.svc.cfg.Logf("session %s: subagent %s (%s) starts for call %s with tools %s", s.ID, c.agent.id, def.Name, callID, strings.Join(c.toolNames(), ","))
	first := []providers.Block{providers.TextBlock(prompt)}
	if extra := s.subagentStartHooks(ctx, c.agent.id, def.Name); extra != "" {
		first = append(first, providers.TextBlock(extra))
	}
	c.appendMessage(providers.Message{Role: providers.RoleUser, Content: first})
	stop, err := c.loop(ctx)
	s.svc.cfg.Logf("session %s: subagent %s ends: %s %v", s.ID, c.agent.id, stop, err)
	switch {
	case ctx.Err() != nil || stop == schema.StopCancelled:
		return tools.Errorf("the user cancelled the %s agent", def.Name)
	case err != nil:
		return tools.Errorf("the %s agent failed: %v", def.Name, err)
	}
	report := c.lastText()
	if report == "" {
		report = "(the agent ended without a report)"
	}
	if stop != schema.StopEndTurn {
		report += fmt.Sprintf("\n\n(The agent stopped early: %s.)", stop)
	}
	return &tools.Result{Content: report, Title: fmt.Sprintf("%s: done", def.Name)}
}

// child builds the session a subagent runs in from its parent's parts:
// the parent's pipe (gate, hooks, sandbox) by pointer; a toolset of its
// own built-ins that shares the parent's groups of tools; a client that
// sends through the parent's (agentClient labels what it sends); and a
// conversation and turn of its own.
func (s *Session) child(def AgentDef, callID string) *Session {
	run := &agentRun{parent: s, def: def, id: strings.ReplaceAll(uuid.NewString(), "-", "")[:16], callID: callID}
	env := *s.tools.env
	env.Reads = tools.NewReadTracker()
	env.OnPlan = func([]schema.PlanEntry) {} // the plan shown is the parent's
	c := &Session{
		ID:    s.ID,
		svc:   s.svc,
		cwd:   s.cwd,
		agent: run,
		tools: s.tools.forAgent(&env, def.Tools, tools.New(&env)),
		// The parent's gate, hooks and confinement, by one pointer:
		// without the confiner the gate would run rule-allowed commands
		// unsandboxed, and git would not ask in a repository holding a
		// Read-denied file.
		pipe:   s.pipe,
		client: newSessionClient(s.ID, &agentClient{parent: s.client, run: run}, s.svc.cfg.Logf),
	}
	c.conv.titled = true
	c.conv.startModel = s.conv.startModel
	c.conv.model = s.svc.agentModel(def.Model, s.Model())
	c.conv.system = c.agentSystemPrompt(def)
	c.turn.started = true // SessionStart ran for the parent
	if s.conv.log != nil {
		if l, err := s.conv.log.Sidechain(run.id, session.AgentMeta{AgentType: def.Name, IsBuiltIn: def.Source == generalPurpose.Source}); err != nil {
			s.svc.cfg.Logf("session %s: subagent %s: %v; its transcript is not saved", s.ID, run.id, err)
		} else {
			c.conv.log = l
		}
	}
	return c
}

// agentModel resolves a definition's model: an alias names the first
// offered model whose id contains it; "" and "inherit" keep the parent's.
func (svc *Service) agentModel(want, parent string) string {
	switch want = strings.TrimSpace(want); want {
	case "", "inherit":
		return parent
	case "sonnet", "opus", "haiku":
		if strings.Contains(parent, want) {
			return parent
		}
		for _, m := range svc.models() {
			if strings.Contains(m.ID, want) {
				return m.ID
			}
		}
		return parent
	}
	return want
}

// agentSystemPrompt is a subagent's system prompt: its definition's, then
// the project's instructions and the environment.
func (c *Session) agentSystemPrompt(def AgentDef) []providers.SystemBlock {
	prompt := def.Prompt
	if prompt == "" {
		prompt = generalPurpose.Prompt
	}
	blocks := []providers.SystemBlock{{Text: prompt}}
	if memo := c.instructions(); memo != "" {
		blocks = append(blocks, providers.SystemBlock{Text: memo})
	}
	blocks[len(blocks)-1].Cache = true
	return append(blocks, providers.SystemBlock{Text: c.environment()})
}

// closeChild ends a subagent's session: its transcript is closed; its
// tools share the parent's background shells, which stay the parent's.
func (c *Session) closeChild() {
	if err := c.conv.close(); err != nil {
		c.svc.cfg.Logf("session %s: closing subagent transcript: %v", c.ID, err)
	}
}

// lastText returns the text of the last assistant message.
func (s *Session) lastText() string {
	h := s.History()
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Role != providers.RoleAssistant {
			continue
		}
		var b strings.Builder
		for _, blk := range h[i].Content {
			if blk.Type == providers.BlockText {
				b.WriteString(blk.Text)
			}
		}
		if b.Len() > 0 {
			return strings.TrimSpace(b.String())
		}
	}
	return ""
}

// MetaParentToolCall is the key, under _meta["agent-lsp"], of the tool
// call id of the Agent call a subagent's update or permission request
// belongs to; MetaAgent names the subagent's type and MetaAgentID its
// run (its transcript's agentId).
const (
	MetaParentToolCall = "parentToolCallId"
	MetaAgent          = "agent"
	MetaAgentID        = "agentId"
)

// agentClient is the editor as a subagent sees it: its tool calls go to
// the parent's editor marked with the parent's Agent call in _meta, and
// the Agent call shows them as its progress; its text, thoughts, plan and
// usage stay inside (the parent gets its final report). Its permission
// requests are labelled with the agent.
type agentClient struct {
	parent *sessionClient // the parent session's, shared by pointer
	run    *agentRun

	mu    sync.Mutex
	order []string           // child tool call ids in order, guarded by mu
	lines map[string]*string // each call's progress line, guarded by mu
	title map[string]string  // each call's title, guarded by mu
}

func (c *agentClient) meta(m map[string]any) map[string]any {
	out := maps.Clone(m)
	if out == nil {
		out = map[string]any{}
	}
	ours, _ := out["agent-lsp"].(map[string]any)
	ours = maps.Clone(ours)
	if ours == nil {
		ours = map[string]any{}
	}
	ours[MetaParentToolCall] = c.run.callID
	ours[MetaAgent] = c.run.def.Name
	ours[MetaAgentID] = c.run.id
	out["agent-lsp"] = ours
	return out
}

func (c *agentClient) Update(ctx context.Context, sessionID string, u schema.Update) error {
	if u.ToolCall == nil || (u.SessionUpdate != schema.UpdateToolCall && u.SessionUpdate != schema.UpdateToolCallUpdate) {
		return nil
	}
	u.Meta = c.meta(u.Meta)
	if err := c.parent.Update(ctx, sessionID, u); err != nil {
		return err
	}
	if c.run.callID == "" {
		return nil
	}
	progress := c.progress(u.ToolCall)
	return c.parent.Update(ctx, sessionID, schema.Update{
		SessionUpdate: schema.UpdateToolCallUpdate,
		ToolCall:      &schema.ToolCall{ToolCallID: c.run.callID, Status: schema.StatusInProgress, Content: []schema.ToolCallContent{schema.TextContent(progress)}},
	})
}

// progress records a child call's state and returns the list shown as
// the Agent call's content.
func (c *agentClient) progress(tc *schema.ToolCall) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.title == nil {
		c.title = map[string]string{}
		c.lines = map[string]*string{}
	}
	if _, ok := c.title[tc.ToolCallID]; !ok {
		c.order = append(c.order, tc.ToolCallID)
		c.title[tc.ToolCallID] = tc.ToolCallID
	}
	if tc.Title != "" {
		c.title[tc.ToolCallID] = tc.Title
	}
	if tc.Status != "" {
		st := string(tc.Status)
		c.lines[tc.ToolCallID] = &st
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s agent:\n", c.run.def.Name)
	for _, id := range c.order {
		st := ""
		if p := c.lines[id]; p != nil {
			st = " (" + *p + ")"
		}
		fmt.Fprintf(&b, "- %s%s\n", c.title[id], st)
	}
	return b.String()
}

func (c *agentClient) RequestPermission(ctx context.Context, p *schema.RequestPermissionParams) (*schema.RequestPermissionResult, error) {
	q := *p
	q.ToolCall.Title = fmt.Sprintf("[%s agent] %s", c.run.def.Name, p.ToolCall.Title)
	q.Meta = c.meta(p.Meta)
	return c.parent.RequestPermission(ctx, &q)
}

func (c *agentClient) Status(ctx context.Context, sessionID string, st Status) error {
	st.Message = fmt.Sprintf("%s agent: %s", c.run.def.Name, st.Message)
	if sc, ok := c.parent.Client.(StatusClient); ok {
		return sc.Status(ctx, sessionID, st)
	}
	return nil
}

// toolCallKey is the context key of the running tool call's id.
type toolCallKey struct{}

// withToolCallID returns ctx carrying the id of the tool call it runs.
func withToolCallID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, toolCallKey{}, id)
}

// toolCallID returns the id of the tool call ctx runs, or "".
func toolCallID(ctx context.Context) string {
	id, _ := ctx.Value(toolCallKey{}).(string)
	return id
}
