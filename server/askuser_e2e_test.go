package server_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"go.lsp.dev/jsonrpc2"

	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/rpc"
	"github.com/agent-lsp/agent-lsp/schema"
)

// askInput is an AskUserQuestion call with a single and a multiple choice.
const askInput = `{"questions":[` +
	`{"question":"Which database?","header":"Database","multiSelect":false,"options":[{"label":"Postgres","description":"Relational"},{"label":"Redis","description":"Key-value"}]},` +
	`{"question":"Which features?","header":"Features","multiSelect":true,"options":[{"label":"Auth","description":"Log in"},{"label":"Search","description":"Find things"},{"label":"Export","description":"CSV"}]}]}`

// askTurns: the model asks, then answers.
func askTurns() []fake.Turn {
	return []fake.Turn{
		{fake.ToolUse("toolu_ask", "AskUserQuestion", askInput)},
		{fake.Text("Thanks.")},
	}
}

// resultOf is the text of the tool result block and whether it is an
// error.
func resultOf(t *testing.T, blocks []map[string]any) (string, bool) {
	t.Helper()
	if len(blocks) != 1 {
		t.Fatalf("tool results = %v, want one", blocks)
	}
	isErr, _ := blocks[0]["is_error"].(bool)
	switch c := blocks[0]["content"].(type) {
	case string:
		return c, isErr
	case []any:
		var b strings.Builder
		for _, part := range c {
			if m, ok := part.(map[string]any); ok {
				s, _ := m["text"].(string)
				b.WriteString(s)
			}
		}
		return b.String(), isErr
	}
	return "", isErr
}

// TestAskUserQuestionLSPDoor: the plugin gets elicitation/create with
// the questions as a form and answers single, multiple and Other; the
// model's next request holds the answers. A declined form gives the
// model no error and the turn goes on to its end.
func TestAskUserQuestionLSPDoor(t *testing.T) {
	for _, tt := range []struct {
		name   string
		answer schema.CreateElicitationResult
		want   string
	}{
		{name: "answered", answer: schema.CreateElicitationResult{Action: "accept", Content: map[string]any{"question_0": "Redis", "question_1": []string{"Auth", "Export"}, "question_1_custom": "Dark mode"}},
			want: `User has answered your questions: "Which database?"="Redis", "Which features?"="Auth, Export, Dark mode". You can now continue with the user's answers in mind.`},
		{name: "other", answer: schema.CreateElicitationResult{Action: "accept", Content: map[string]any{"question_0_custom": "SQLite"}},
			want: `User has answered your questions: "Which database?"="SQLite".`},
		{name: "declined", answer: schema.CreateElicitationResult{Action: "decline"}, want: "User declined to answer questions"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, nil, askTurns()...)
			var mu sync.Mutex
			var asked []schema.CreateElicitationParams
			e.editor.OnRequest(func(ctx context.Context, method string, params json.RawMessage) (any, error) {
				if method != schema.MethodElicitationCreate {
					return nil, jsonrpc2.ErrNotHandled
				}
				var p schema.CreateElicitationParams
				if err := json.Unmarshal(params, &p); err != nil {
					t.Errorf("bad elicitation/create params: %v", err)
				}
				mu.Lock()
				asked = append(asked, p)
				mu.Unlock()
				return tt.answer, nil
			})
			e.editor.Initialize(e.root, nil)
			sid := e.editor.NewSession(e.root)
			stop, err := e.editor.Prompt(sid, "set it up")
			if err != nil || stop != "end_turn" {
				t.Fatalf("prompt = %q, %v; want end_turn", stop, err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(asked) != 1 || asked[0].SessionID != sid || asked[0].ToolCallID != "toolu_ask" || asked[0].Mode != "form" {
				t.Fatalf("elicitations = %+v, want one form for toolu_ask", asked)
			}
			text, isErr := resultOf(t, e.toolResults(1))
			if isErr || !strings.Contains(text, tt.want) {
				t.Errorf("the model got (error %v) %q, want %q", isErr, text, tt.want)
			}
		})
	}
}

// TestAskUserQuestionACPDoor: an ACP client that announces form
// elicitation gets the questions as Claude Code's ACP adapter sends them
// (elicitation/create: question_<n> with oneOf or items.anyOf of
// {const, title, description}, titled with the header, and
// question_<n>_custom "Other"); a client that does not is not offered
// the tool, as the adapter disables it.
func TestAskUserQuestionACPDoor(t *testing.T) {
	for _, form := range []bool{true, false} {
		name := "without elicitation"
		if form {
			name = "with form elicitation"
		}
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			turns := askTurns()
			if !form {
				turns = []fake.Turn{{fake.Text("No tool to ask with.")}}
			}
			raw, model := startACP(t, root, nil, turns...)
			conn := jsonrpc2.NewConn(jsonrpc2.NewNDJSONStream(raw))
			peer := rpc.Peer{Conn: conn, CancelNotice: rpc.ACPCancelNotice}
			var mu sync.Mutex
			var asked []json.RawMessage
			conn.Go(context.Background(), func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
				if !req.IsCall() {
					return nil, nil
				}
				if req.Method() != schema.MethodElicitationCreate {
					return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "not handled: %s", req.Method())
				}
				mu.Lock()
				asked = append(asked, append(json.RawMessage(nil), req.Params()...))
				mu.Unlock()
				return rpc.Raw(map[string]any{"action": "accept", "content": map[string]any{"question_0": "Postgres", "question_1": []string{"Search"}}})
			})
			t.Cleanup(func() { conn.Close() })
			ctx := context.Background()
			caps := map[string]any{"fs": map[string]bool{"readTextFile": false, "writeTextFile": false}}
			if form {
				caps["elicitation"] = map[string]any{"form": map[string]any{}}
			}
			if err := peer.Call(ctx, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": caps}, nil); err != nil {
				t.Fatal(err)
			}
			var sess schema.NewSessionResult
			if err := peer.Call(ctx, "session/new", schema.NewSessionParams{Cwd: root, MCPServers: []schema.MCPServer{}}, &sess); err != nil {
				t.Fatal(err)
			}
			var res schema.PromptResult
			if err := peer.Call(ctx, "session/prompt", schema.PromptParams{SessionID: sess.SessionID, Prompt: []schema.ContentBlock{schema.TextBlock("set it up")}}, &res); err != nil || res.StopReason != "end_turn" {
				t.Fatalf("prompt = %+v, %v", res, err)
			}
			var first struct {
				Tools []struct {
					Name string `json:"name"`
				} `json:"tools"`
			}
			model.Requests()[0].Decode(&first)
			offered := false
			for _, tool := range first.Tools {
				offered = offered || tool.Name == "AskUserQuestion"
			}
			if offered != form {
				t.Fatalf("AskUserQuestion offered = %v, want %v", offered, form)
			}
			if !form {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if len(asked) != 1 {
				t.Fatalf("elicitations = %d, want 1", len(asked))
			}
			var got map[string]any
			json.Unmarshal(asked[0], &got)
			want := map[string]any{
				"sessionId": sess.SessionID, "toolCallId": "toolu_ask", "mode": "form", "message": "Please answer the following questions.",
				"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{
					"question_0": map[string]any{"type": "string", "title": "Database", "description": "Which database?", "oneOf": []any{
						map[string]any{"const": "Postgres", "title": "Postgres", "description": "Relational"},
						map[string]any{"const": "Redis", "title": "Redis", "description": "Key-value"}}},
					"question_0_custom": map[string]any{"type": "string", "title": "Other", "description": "Type your own answer, or add a note to the option you chose above (optional)."},
					"question_1": map[string]any{"type": "array", "title": "Features", "description": "Which features?", "items": map[string]any{"anyOf": []any{
						map[string]any{"const": "Auth", "title": "Auth", "description": "Log in"},
						map[string]any{"const": "Search", "title": "Search", "description": "Find things"},
						map[string]any{"const": "Export", "title": "Export", "description": "CSV"}}}},
					"question_1_custom": map[string]any{"type": "string", "title": "Other", "description": "Type your own answer to add to your selection above (optional)."},
				}},
			}
			gotJSON, _ := json.Marshal(got)
			wantJSON, _ := json.Marshal(want)
			if string(gotJSON) != string(wantJSON) {
				t.Errorf("elicitation/create =\n%s\nwant\n%s", gotJSON, wantJSON)
			}
			var second struct {
				Messages []struct {
					Content []map[string]any `json:"content"`
				} `json:"messages"`
			}
			model.Requests()[1].Decode(&second)
			last := second.Messages[len(second.Messages)-1].Content
			text, isErr := resultOf(t, last)
			if isErr || !strings.Contains(text, `"Which database?"="Postgres", "Which features?"="Search"`) {
				t.Errorf("the model got (error %v) %q", isErr, text)
			}
		})
	}
}

// TestAskUserQuestionPlainDoor: each question is a
// window/showMessageRequest with a button per option; a multiple choice
// asks again without the options picked until "Done"; dismissing one
// declines them all, and the turn goes on.
func TestAskUserQuestionPlainDoor(t *testing.T) {
	type request struct {
		Message string `json:"message"`
		Actions []struct {
			Title string `json:"title"`
		} `json:"actions"`
	}
	for _, tt := range []struct {
		name    string
		clicks  []string // "" dismisses
		want    string
		buttons []string // the buttons of each request, joined by |
	}{
		{name: "answered", clicks: []string{"Redis", "Auth", "Export", "Done"},
			want:    `User has answered your questions: "Which database?"="Redis", "Which features?"="Auth, Export".`,
			buttons: []string{"Postgres|Redis", "Auth|Search|Export|Done", "Search|Export|Done", "Search|Done"}},
		{name: "dismissed", clicks: []string{"Postgres", ""}, want: "User declined to answer questions",
			buttons: []string{"Postgres|Redis", "Auth|Search|Export|Done"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, nil, askTurns()...)
			var mu sync.Mutex
			var asked []request
			e.editor.OnRequest(func(ctx context.Context, method string, params json.RawMessage) (any, error) {
				switch method {
				case "window/showMessageRequest":
					var p request
					json.Unmarshal(params, &p)
					mu.Lock()
					defer mu.Unlock()
					asked = append(asked, p)
					if len(asked) > len(tt.clicks) || tt.clicks[len(asked)-1] == "" {
						return nil, nil
					}
					return map[string]string{"title": tt.clicks[len(asked)-1]}, nil
				case "window/workDoneProgress/create", "window/showDocument":
					return nil, nil
				}
				return nil, jsonrpc2.ErrNotHandled
			})
			plainEditor(e, false)
			e.editor.MustCall("workspace/executeCommand", map[string]any{"command": "agent.prompt", "arguments": []string{"set it up"}}, nil)
			e.editor.WaitFor("the final showMessage", func() bool { return noted(e, "window/showMessage", "agent: done (end_turn)") })
			mu.Lock()
			defer mu.Unlock()
			var buttons []string
			for _, r := range asked {
				var titles []string
				for _, a := range r.Actions {
					titles = append(titles, a.Title)
				}
				buttons = append(buttons, strings.Join(titles, "|"))
			}
			if strings.Join(buttons, " / ") != strings.Join(tt.buttons, " / ") {
				t.Errorf("buttons = %q, want %q", buttons, tt.buttons)
			}
			if len(asked) < 2 || !strings.Contains(asked[0].Message, "agent asks (Database): Which database?") || !strings.Contains(asked[0].Message, "Redis: Key-value") ||
				!strings.Contains(asked[1].Message, "agent asks (Features): Which features?") {
				t.Errorf("messages = %+v", asked)
			}
			text, isErr := resultOf(t, e.toolResults(1))
			if isErr || !strings.Contains(text, tt.want) {
				t.Errorf("the model got (error %v) %q, want %q", isErr, text, tt.want)
			}
		})
	}
}
