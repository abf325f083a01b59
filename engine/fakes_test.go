package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/settings"
	"github.com/agent-lsp/agent-lsp/tools"
)

// step is one scripted model call of a scriptProvider.
type step func(ctx context.Context, req *providers.Request, emit func(providers.Event)) (*providers.Response, error)

// scriptProvider is an in-memory Provider: each model call takes the next
// step of its script and records the request. A call past the script's
// end fails the test.
type scriptProvider struct {
	t *testing.T

	mu    sync.Mutex
	steps []step               // guarded by mu
	reqs  []*providers.Request // guarded by mu
	// then, if set, answers every call past the script's end.
	then step // guarded by mu
}

func newScript(t *testing.T, steps ...step) *scriptProvider {
	return &scriptProvider{t: t, steps: steps}
}

func (p *scriptProvider) Stream(ctx context.Context, req *providers.Request, emit func(providers.Event)) (*providers.Response, error) {
	p.mu.Lock()
	p.reqs = append(p.reqs, req)
	if len(p.steps) == 0 && p.then != nil {
		s := p.then
		p.mu.Unlock()
		return s(ctx, req, emit)
	}
	if len(p.steps) == 0 {
		p.mu.Unlock()
		p.t.Errorf("model call %d past the end of the script", len(p.reqs))
		return nil, fmt.Errorf("script exhausted")
	}
	s := p.steps[0]
	p.steps = p.steps[1:]
	p.mu.Unlock()
	return s(ctx, req, emit)
}

func (p *scriptProvider) requests() []*providers.Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*providers.Request(nil), p.reqs...)
}

// say answers with text, streamed as two deltas, and ends the turn.
func say(text string) step {
	return func(ctx context.Context, req *providers.Request, emit func(providers.Event)) (*providers.Response, error) {
		half := len(text) / 2
		emit(providers.Event{Kind: providers.EventText, Text: text[:half]})
		emit(providers.Event{Kind: providers.EventText, Text: text[half:]})
		return &providers.Response{
			Message:    providers.Message{Role: providers.RoleAssistant, Content: []providers.Block{providers.TextBlock(text)}},
			StopReason: providers.StopEndTurn,
			Usage:      providers.Usage{InputTokens: 10, OutputTokens: 5},
		}, nil
	}
}

// use answers with one tool call.
func use(id, name string, input any) step {
	raw, err := json.Marshal(input)
	if err != nil {
		panic(err)
	}
	return func(ctx context.Context, req *providers.Request, emit func(providers.Event)) (*providers.Response, error) {
		emit(providers.Event{Kind: providers.EventToolStart, ToolID: id, ToolName: name})
		emit(providers.Event{Kind: providers.EventToolDelta, Text: string(raw)})
		emit(providers.Event{Kind: providers.EventToolEnd, Input: raw})
		return &providers.Response{
			Message:    providers.Message{Role: providers.RoleAssistant, Content: []providers.Block{{Type: providers.BlockToolUse, ID: id, Name: name, Input: raw}}},
			StopReason: providers.StopToolUse,
			Usage:      providers.Usage{InputTokens: 10, OutputTokens: 5},
		}, nil
	}
}

// hang streams text, closes started, and waits for the call's cancel.
func hang(started chan<- struct{}) step {
	return func(ctx context.Context, req *providers.Request, emit func(providers.Event)) (*providers.Response, error) {
		emit(providers.Event{Kind: providers.EventText, Text: "partial answer"})
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	}
}

// answer is a scripted reply to a permission request.
type answer func(ctx context.Context, p *schema.RequestPermissionParams) (*schema.RequestPermissionResult, error)

// pick selects an option by id.
func pick(optionID string) answer {
	return func(ctx context.Context, p *schema.RequestPermissionParams) (*schema.RequestPermissionResult, error) {
		return &schema.RequestPermissionResult{Outcome: schema.PermissionOutcome{Outcome: "selected", OptionID: optionID}}, nil
	}
}

// recordingClient is an in-memory Client: it records every update and
// answers permission requests from a script; a request past the script's
// end fails the test.
type recordingClient struct {
	t *testing.T

	mu      sync.Mutex
	updates []schema.Update                   // guarded by mu
	asked   []*schema.RequestPermissionParams // guarded by mu
	answers []answer                          // guarded by mu
	// onUpdate, if set, sees every update as it arrives (outside mu),
	// on the goroutine that sends it.
	onUpdate func(schema.Update) // guarded by mu
	watches  []*waiter           // guarded by mu
}

// waiter is a wait for an update that matches.
type waiter struct {
	match func(schema.Update) bool
	seen  chan struct{}
}

func (c *recordingClient) Update(ctx context.Context, sessionID string, u schema.Update) error {
	c.mu.Lock()
	c.updates = append(c.updates, u)
	f := c.onUpdate
	c.watches = slices.DeleteFunc(c.watches, func(w *waiter) bool {
		if w.match(u) {
			close(w.seen)
			return true
		}
		return false
	})
	c.mu.Unlock()
	if f != nil {
		f(u)
	}
	return nil
}

// setOnUpdate sets onUpdate.
func (c *recordingClient) setOnUpdate(f func(schema.Update)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.onUpdate = f
}

// watch returns a channel closed at the first update from now on that
// matches.
func (c *recordingClient) watch(match func(schema.Update) bool) <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := &waiter{match: match, seen: make(chan struct{})}
	c.watches = append(c.watches, w)
	return w.seen
}

// thought matches an agent thought chunk (a status notice, for a client
// without Status) that contains text.
func thought(text string) func(schema.Update) bool {
	return func(u schema.Update) bool {
		return u.SessionUpdate == schema.UpdateAgentThoughtChunk && u.Content != nil && strings.Contains(u.Content.Text, text)
	}
}

// queuedNotice is the status a prompt queued to steer a running turn
// sends.
var queuedNotice = thought("your message will be given to the agent at its next step")

// userChunks returns the user message texts the editor was sent.
func (c *recordingClient) userChunks() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, u := range c.updates {
		if u.SessionUpdate == schema.UpdateUserMessageChunk && u.Content != nil {
			out = append(out, u.Content.Text)
		}
	}
	return out
}

func (c *recordingClient) RequestPermission(ctx context.Context, p *schema.RequestPermissionParams) (*schema.RequestPermissionResult, error) {
	c.mu.Lock()
	c.asked = append(c.asked, p)
	if len(c.answers) == 0 {
		c.mu.Unlock()
		c.t.Errorf("unexpected permission request for %s", p.ToolCall.Title)
		return nil, fmt.Errorf("no scripted answer")
	}
	a := c.answers[0]
	c.answers = c.answers[1:]
	c.mu.Unlock()
	return a(ctx, p)
}

func (c *recordingClient) permissionRequests() []*schema.RequestPermissionParams {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*schema.RequestPermissionParams(nil), c.asked...)
}

// text returns the agent message text the editor was sent.
func (c *recordingClient) text() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var s string
	for _, u := range c.updates {
		if u.SessionUpdate == schema.UpdateAgentMessageChunk && u.Content != nil {
			s += u.Content.Text
		}
	}
	return s
}

// toolStatuses returns the statuses the editor saw for a tool call, in order.
func (c *recordingClient) toolStatuses(id string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, u := range c.updates {
		if u.ToolCall != nil && u.ToolCall.ToolCallID == id && u.ToolCall.Status != "" {
			out = append(out, u.ToolCall.Status)
		}
	}
	return out
}

// harness is one session over a scriptProvider and a recordingClient in a
// temporary workspace.
type harness struct {
	svc    *Service
	sess   *Session
	model  *scriptProvider
	client *recordingClient
	dir    string
}

// newHarness starts a session. edit, if set, changes the config first.
func newHarness(t *testing.T, model *scriptProvider, client *recordingClient, edit func(*Config)) *harness {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if client == nil {
		client = &recordingClient{}
	}
	client.t = t
	cfg := Config{
		Provider: model,
		Model:    "test-model",
		Home:     t.TempDir(),
		Logf:     t.Logf,
		Settings: &settings.Settings{Project: dir},
	}
	if edit != nil {
		edit(&cfg)
	}
	svc := NewService(cfg)
	t.Cleanup(svc.Close)
	sess, err := svc.NewSession(context.Background(), SessionOptions{Cwd: dir, Client: client})
	if err != nil {
		t.Fatal(err)
	}
	return &harness{svc: svc, sess: sess, model: model, client: client, dir: dir}
}

// outcome is what Prompt returned.
type outcome struct {
	stop string
	err  error
}

// promptAsync sends a prompt on its own goroutine; its outcome arrives on
// the channel returned.
func (h *harness) promptAsync(text string) <-chan outcome {
	out := make(chan outcome, 1)
	go func() {
		stop, err := h.sess.Prompt(context.Background(), []schema.ContentBlock{schema.TextBlock(text)})
		out <- outcome{stop, err}
	}()
	return out
}

// await waits for ch to be closed or to deliver, and fails the test
// instead of hanging shortly before the test binary's deadline.
func await[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	var timeout <-chan time.Time
	if d, ok := t.Deadline(); ok {
		timer := time.NewTimer(time.Until(d) * 9 / 10)
		defer timer.Stop()
		timeout = timer.C
	}
	select {
	case v := <-ch:
		return v
	case <-timeout:
		t.Fatalf("still waiting for %s: hung", what)
		panic("unreachable")
	}
}

// ended waits for a prompt's outcome and checks its stop reason.
func ended(t *testing.T, ch <-chan outcome, what, want string) {
	t.Helper()
	o := await(t, ch, what)
	if o.err != nil || o.stop != want {
		t.Errorf("%s ended with %q, %v; want %q", what, o.stop, o.err, want)
	}
}

func (h *harness) prompt(t *testing.T, text string) string {
	t.Helper()
	stop, err := h.sess.Prompt(context.Background(), []schema.ContentBlock{schema.TextBlock(text)})
	if err != nil {
		t.Fatalf("Prompt: %v", err)
	}
	return stop
}

// toolResult returns the result block the model was given for a tool call.
func (h *harness) toolResult(t *testing.T, id string) providers.Block {
	t.Helper()
	for _, m := range h.sess.History() {
		for _, b := range m.Content {
			if b.Type == providers.BlockToolResult && b.ToolUseID == id {
				return b
			}
		}
	}
	t.Fatalf("no tool result for %s in the history", id)
	return providers.Block{}
}

// blockingTool is a tool that closes started when it runs and then waits
// for its context to end.
type blockingTool struct {
	started chan struct{}
}

func (b *blockingTool) Spec() tools.Spec {
	return tools.Spec{Name: "Block", Description: "waits", InputSchema: json.RawMessage(`{"type":"object"}`), Kind: schema.KindRead, ReadOnly: true}
}

func (b *blockingTool) Run(ctx context.Context, input json.RawMessage) *tools.Result {
	close(b.started)
	<-ctx.Done()
	return tools.Errorf("interrupted: %v", ctx.Err())
}

// gateTool is a tool that, when it runs, closes started and waits for
// release; cancelled first, it closes cancelled and waits for drain (nil:
// at once) before it returns, so a test can act while the cancelled turn
// winds down.
type gateTool struct {
	started   chan struct{}
	release   chan struct{}
	cancelled chan struct{}
	drain     chan struct{}
}

func newGateTool() *gateTool {
	return &gateTool{started: make(chan struct{}), release: make(chan struct{}), cancelled: make(chan struct{})}
}

func (g *gateTool) Spec() tools.Spec {
	return tools.Spec{Name: "Gate", Description: "waits for the test", InputSchema: json.RawMessage(`{"type":"object"}`), Kind: schema.KindRead, ReadOnly: true}
}

func (g *gateTool) Run(ctx context.Context, input json.RawMessage) *tools.Result {
	close(g.started)
	select {
	case <-g.release:
		return &tools.Result{Content: "the gate opened"}
	case <-ctx.Done():
	}
	close(g.cancelled)
	if g.drain != nil {
		<-g.drain
	}
	return tools.Errorf("interrupted: %v", ctx.Err())
}

// holdThen streams text, closes streaming, waits for proceed, and ends
// the turn with text.
func holdThen(text string, streaming chan<- struct{}, proceed <-chan struct{}) step {
	return func(ctx context.Context, req *providers.Request, emit func(providers.Event)) (*providers.Response, error) {
		emit(providers.Event{Kind: providers.EventText, Text: text})
		close(streaming)
		select {
		case <-proceed:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return &providers.Response{
			Message:    providers.Message{Role: providers.RoleAssistant, Content: []providers.Block{providers.TextBlock(text)}},
			StopReason: providers.StopEndTurn,
		}, nil
	}
}

// call is one tool call of a calls step.
type call struct {
	id, name string
	input    any
}

// calls answers with several tool calls in one message.
func calls(cs ...call) step {
	var blocks []providers.Block
	for _, c := range cs {
		raw, err := json.Marshal(c.input)
		if err != nil {
			panic(err)
		}
		blocks = append(blocks, providers.Block{Type: providers.BlockToolUse, ID: c.id, Name: c.name, Input: raw})
	}
	return func(ctx context.Context, req *providers.Request, emit func(providers.Event)) (*providers.Response, error) {
		for _, b := range blocks {
			emit(providers.Event{Kind: providers.EventToolStart, ToolID: b.ID, ToolName: b.Name})
			emit(providers.Event{Kind: providers.EventToolEnd, Input: b.Input})
		}
		return &providers.Response{
			Message:    providers.Message{Role: providers.RoleAssistant, Content: blocks},
			StopReason: providers.StopToolUse,
		}, nil
	}
}

// stopWith answers with text and ends with the given stop reason.
func stopWith(text string, reason providers.StopReason) step {
	return func(ctx context.Context, req *providers.Request, emit func(providers.Event)) (*providers.Response, error) {
		emit(providers.Event{Kind: providers.EventText, Text: text})
		return &providers.Response{
			Message:    providers.Message{Role: providers.RoleAssistant, Content: []providers.Block{providers.TextBlock(text)}},
			StopReason: reason,
		}, nil
	}
}

// fail answers with an error.
func fail(err error) step {
	return func(ctx context.Context, req *providers.Request, emit func(providers.Event)) (*providers.Response, error) {
		return nil, err
	}
}

// meetTool is a read-only tool that runs until every other meetTool of
// its group has started: two of them only end when they run at once.
type meetTool struct {
	name    string
	started chan struct{}
	others  []*meetTool
}

func (m *meetTool) Spec() tools.Spec {
	return tools.Spec{Name: m.name, Description: "meets the others", InputSchema: json.RawMessage(`{"type":"object"}`), Kind: schema.KindRead, ReadOnly: true}
}

func (m *meetTool) Run(ctx context.Context, input json.RawMessage) *tools.Result {
	close(m.started)
	for _, o := range m.others {
		select {
		case <-o.started:
		case <-ctx.Done():
			return tools.Errorf("cancelled before %s started", o.name)
		}
	}
	return &tools.Result{Content: m.name + " met the others"}
}
