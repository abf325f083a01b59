package engine

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/settings"
)

// elicitingClient is a recordingClient that also answers
// elicitation/create from a script.
type elicitingClient struct {
	*recordingClient

	mu      sync.Mutex
	asked   []*schema.CreateElicitationParams // guarded by mu
	answers []elicitAnswer                    // guarded by mu
}

type elicitAnswer func(ctx context.Context, p *schema.CreateElicitationParams) (*schema.CreateElicitationResult, error)

func (c *elicitingClient) Elicit(ctx context.Context, p *schema.CreateElicitationParams) (*schema.CreateElicitationResult, error) {
	c.mu.Lock()
	c.asked = append(c.asked, p)
	if len(c.answers) == 0 {
		c.mu.Unlock()
		c.t.Errorf("unexpected elicitation %q", p.Message)
		return &schema.CreateElicitationResult{Action: schema.ElicitationCancel}, nil
	}
	a := c.answers[0]
	c.answers = c.answers[1:]
	c.mu.Unlock()
	return a(ctx, p)
}

func (c *elicitingClient) elicitations() []*schema.CreateElicitationParams {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.asked)
}

// accept answers a form with content.
func accept(content map[string]any) elicitAnswer {
	return func(context.Context, *schema.CreateElicitationParams) (*schema.CreateElicitationResult, error) {
		return &schema.CreateElicitationResult{Action: schema.ElicitationAccept, Content: content}, nil
	}
}

// elicitAction answers a form with an action and no content.
func elicitAction(action string) elicitAnswer {
	return func(context.Context, *schema.CreateElicitationParams) (*schema.CreateElicitationResult, error) {
		return &schema.CreateElicitationResult{Action: action}, nil
	}
}

// newAskHarness is newHarness with a client that can ask forms.
func newAskHarness(t *testing.T, model *scriptProvider, client *elicitingClient, mode string) *harness {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	client.recordingClient = &recordingClient{t: t}
	svc := NewService(Config{Provider: model, Model: "test-model", Home: t.TempDir(), Logf: t.Logf, Settings: &settings.Settings{Project: dir}, Mode: mode})
	t.Cleanup(svc.Close)
	sess, err := svc.NewSession(context.Background(), SessionOptions{Cwd: dir, Client: client})
	if err != nil {
		t.Fatal(err)
	}
	return &harness{svc: svc, sess: sess, model: model, client: client.recordingClient, dir: dir}
}

// sentResult is the text of the tool result for id in a model request.
func sentResult(req *providers.Request, id string) (string, bool) {
	for _, m := range req.Messages {
		for _, b := range m.Content {
			if b.Type == providers.BlockToolResult && b.ToolUseID == id {
				return resultText(b), b.IsError
			}
		}
	}
	return "", false
}

var (
	dbQuestion = map[string]any{
		"question": "Which database?", "header": "Database",
		"options": []map[string]any{{"label": "Postgres", "description": "Relational"}, {"label": "Redis", "description": "Key-value"}},
	}
	featQuestion = map[string]any{
		"question": "Which features?", "header": "Features", "multiSelect": true,
		"options": []map[string]any{{"label": "Auth", "description": "Log in"}, {"label": "Search", "description": "Find things"}, {"label": "Export", "description": "CSV"}},
	}
)

// TestAskUserQuestion: the model asks; the editor gets one form with a
// choice and an "Other" field per question; the answers (single, multiple,
// typed) reach the model in its next request in Claude Code's words; a
// declined or dismissed form tells the model so without an error, and
// the turn goes on. Plan mode runs it.
func TestAskUserQuestion(t *testing.T) {
	both := map[string]any{"questions": []any{dbQuestion, featQuestion}}
	for _, tt := range []struct {
		name   string
		input  map[string]any
		mode   string
		answer elicitAnswer
		want   string
	}{
		{name: "single", input: map[string]any{"questions": []any{dbQuestion}}, answer: accept(map[string]any{"question_0": "Postgres"}),
			want: `User has answered your questions: "Which database?"="Postgres". You can now continue with the user's answers in mind.`},
		{name: "single in plan mode", mode: "plan", input: map[string]any{"questions": []any{dbQuestion}}, answer: accept(map[string]any{"question_0": "Redis"}),
			want: `"Which database?"="Redis"`},
		{name: "multi and other", input: both, answer: accept(map[string]any{"question_0": "Redis", "question_1": []any{"Auth", "Export"}, "question_1_custom": "Dark mode, maybe"}),
			want: `User has answered your questions: "Which database?"="Redis", "Which features?"="Auth, Export, \"Dark mode, maybe\"". You can now continue`},
		{name: "other only", input: both, answer: accept(map[string]any{"question_0_custom": "SQLite"}),
			want: `User has answered your questions: "Which database?"="SQLite". You can`},
		{name: "pick with a note", input: both, answer: accept(map[string]any{"question_0": "Postgres", "question_0_custom": "version 16"}),
			want: `"Which database?"="Postgres" user notes: version 16.`},
		{name: "declined", input: both, answer: elicitAction(schema.ElicitationDecline), want: "User declined to answer questions"},
		{name: "dismissed", input: both, answer: elicitAction(schema.ElicitationCancel), want: "User declined to answer questions"},
		{name: "submitted blank", input: both, answer: accept(map[string]any{"question_1": []any{}}), want: "User declined to answer questions"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			model := newScript(t, use("toolu_1", "AskUserQuestion", tt.input), say("thanks"))
			client := &elicitingClient{answers: []elicitAnswer{tt.answer}}
			h := newAskHarness(t, model, client, tt.mode)
			if stop := h.prompt(t, "set it up"); stop != "end_turn" {
				t.Errorf("stop = %q, want end_turn: the turn goes on after the question", stop)
			}
			asked := client.elicitations()
			if len(asked) != 1 {
				t.Fatalf("asked %d forms, want 1", len(asked))
			}
			reqs := model.requests()
			if len(reqs) != 2 {
				t.Fatalf("model calls = %d, want 2", len(reqs))
			}
			got, isErr := sentResult(reqs[1], "toolu_1")
			if isErr || !strings.Contains(got, tt.want) {
				t.Errorf("the model got (error %v) %q, want %q", isErr, got, tt.want)
			}
			if n := len(client.permissionRequests()); n != 0 {
				t.Errorf("%d permission questions, want none: the question is the consent", n)
			}
		})
	}
}

// TestAskForm: the form holds, per question, its choice field (one of, or
// any of, the labels) titled with the header and an "Other" text field;
// one question is the message, several are the fields' descriptions.
func TestAskForm(t *testing.T) {
	qs := []askQuestion{
		{Question: "Which database?", Header: "Database", Options: []askOption{{"Postgres", "Relational"}, {"Redis", "Key-value"}}},
		{Question: "Which features?", Header: "Features", MultiSelect: true, Options: []askOption{{"Auth", "Log in"}, {"Search", "Find"}}},
	}
	one := askForm("s1", "toolu_1", qs[:1])
	if one.Message != "Which database?" || one.Mode != "form" || one.ToolCallID != "toolu_1" || one.SessionID != "s1" {
		t.Errorf("one question's form = %+v", one)
	}
	p := one.RequestedSchema.Properties["question_0"]
	if p.Type != "string" || p.Title != "Database" || p.Description != "" || len(p.OneOf) != 2 || p.OneOf[1] != (schema.EnumOption{Const: "Redis", Title: "Redis", Description: "Key-value"}) {
		t.Errorf("question_0 = %+v", p)
	}
	two := askForm("s1", "toolu_1", qs)
	if two.Message != "Please answer the following questions." || len(two.RequestedSchema.Properties) != 4 {
		t.Errorf("two questions' form = %+v", two)
	}
	m := two.RequestedSchema.Properties["question_1"]
	if m.Type != "array" || m.Items == nil || len(m.Items.AnyOf) != 2 || m.Description != "Which features?" || m.OneOf != nil {
		t.Errorf("question_1 = %+v", m)
	}
	if o := two.RequestedSchema.Properties["question_1_custom"]; o.Type != "string" || o.Title != "Other" {
		t.Errorf("question_1_custom = %+v", o)
	}
}

// TestAskUserQuestionBadInput: input outside the schema or Claude Code's
// rules is an error result that says where, without asking the user.
func TestAskUserQuestionBadInput(t *testing.T) {
	opts := func(labels ...string) []map[string]any {
		var out []map[string]any
		for _, l := range labels {
			out = append(out, map[string]any{"label": l, "description": "d"})
		}
		return out
	}
	q := func(question string, labels ...string) map[string]any {
		return map[string]any{"question": question, "header": "H", "options": opts(labels...)}
	}
	for _, tt := range []struct {
		name  string
		input map[string]any
		want  string
	}{
		{name: "no questions", input: map[string]any{"questions": []any{}}, want: "questions: 0 questions; ask 1 to 4"},
		{name: "five questions", input: map[string]any{"questions": []any{q("a", "x", "y"), q("b", "x", "y"), q("c", "x", "y"), q("d", "x", "y"), q("e", "x", "y")}}, want: "5 questions"},
		{name: "missing", input: map[string]any{}, want: "questions: required field is missing"},
		{name: "one option", input: map[string]any{"questions": []any{q("a", "x")}}, want: "questions[0].options: 1 options; give 2 to 4"},
		{name: "five options", input: map[string]any{"questions": []any{q("a", "1", "2", "3", "4", "5")}}, want: "5 options"},
		{name: "repeated label", input: map[string]any{"questions": []any{q("a", "x", "x")}}, want: "questions[0].options[1].label: \"x\" is offered twice"},
		{name: "repeated question", input: map[string]any{"questions": []any{q("a", "x", "y"), q("a", "x", "y")}}, want: "questions[1].question: \"a\" is asked twice"},
		{name: "no header", input: map[string]any{"questions": []any{map[string]any{"question": "a", "header": " ", "options": opts("x", "y")}}}, want: "questions[0].header: the header is empty"},
		{name: "no description", input: map[string]any{"questions": []any{map[string]any{"question": "a", "header": "h", "options": []any{map[string]any{"label": "x"}, map[string]any{"label": "y", "description": "d"}}}}}, want: "questions[0].options[0].description: required field is missing"},
		{name: "wrong type", input: map[string]any{"questions": []any{map[string]any{"question": "a", "header": "h", "options": opts("x", "y"), "multiSelect": "yes"}}}, want: "multiSelect: expected boolean"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			model := newScript(t, use("toolu_1", "AskUserQuestion", tt.input), say("ok"))
			client := &elicitingClient{}
			h := newAskHarness(t, model, client, "")
			h.prompt(t, "go")
			res := h.toolResult(t, "toolu_1")
			if !res.IsError || !strings.Contains(resultText(res), tt.want) {
				t.Errorf("result (error %v) %q, want an error saying %q", res.IsError, resultText(res), tt.want)
			}
			if n := len(client.elicitations()); n != 0 {
				t.Errorf("asked %d forms for bad input", n)
			}
		})
	}
}

// TestAskUserQuestionNeedsAnAskingEditor: a session whose editor cannot
// show a form has no AskUserQuestion; an editor that fails to show it
// gets the model an error result, and the turn goes on.
func TestAskUserQuestionNeedsAnAskingEditor(t *testing.T) {
	h := newHarness(t, newScript(t), nil, nil)
	if _, ok := h.sess.tools.lookup("AskUserQuestion"); ok {
		t.Error("a client without Elicit has AskUserQuestion")
	}
	model := newScript(t, use("toolu_1", "AskUserQuestion", map[string]any{"questions": []any{dbQuestion}}), say("ok"))
	client := &elicitingClient{answers: []elicitAnswer{func(context.Context, *schema.CreateElicitationParams) (*schema.CreateElicitationResult, error) {
		return nil, errors.New("method not found")
	}}}
	h = newAskHarness(t, model, client, "")
	if stop := h.prompt(t, "go"); stop != "end_turn" {
		t.Errorf("stop = %q", stop)
	}
	if res := h.toolResult(t, "toolu_1"); !res.IsError || !strings.Contains(resultText(res), "could not show the questions") {
		t.Errorf("result %q", resultText(res))
	}
}

// TestAskUserQuestionCancel: cancelling the turn while the form waits
// ends the wait and the turn.
func TestAskUserQuestionCancel(t *testing.T) {
	model := newScript(t, use("toolu_1", "AskUserQuestion", map[string]any{"questions": []any{dbQuestion}}))
	waiting := make(chan struct{})
	client := &elicitingClient{answers: []elicitAnswer{func(ctx context.Context, _ *schema.CreateElicitationParams) (*schema.CreateElicitationResult, error) {
		close(waiting)
		<-ctx.Done()
		return nil, ctx.Err()
	}}}
	h := newAskHarness(t, model, client, "")
	done := h.promptAsync("go")
	await(t, waiting, "the form")
	h.sess.Cancel()
	ended(t, done, "the cancelled turn", "cancelled")
}
