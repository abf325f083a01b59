package server_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/internal/editortest"
	"github.com/agent-lsp/agent-lsp/langserver"
	"github.com/agent-lsp/agent-lsp/providers/anthropic"
	"github.com/agent-lsp/agent-lsp/providers/config"
	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/server"
)

// env is one test's world: a workspace, a fake model and a fake editor
// connected to an in-process server.
type env struct {
	t      *testing.T
	root   string
	model  *fake.Server
	editor *editortest.Editor
	// configure, when set, adjusts the engine's configuration at
	// initialize, after the test's own hook.
	more func(*engine.Config)
	// svc is the service made at initialize.
	svc atomic.Pointer[engine.Service]
}

// service returns the service made at initialize.
func (e *env) service() *engine.Service {
	e.t.Helper()
	svc := e.svc.Load()
	if svc == nil {
		e.t.Fatal("no service: initialize first")
	}
	return svc
}

// configure adds an adjustment of the engine's configuration; it applies
// at the next initialize.
func (e *env) configure(f func(*engine.Config)) { e.more = f }

// newEnv starts a server whose model plays turns.
func newEnv(t *testing.T, files map[string]string, turns ...fake.Turn) *env {
	t.Helper()
	return newEnvWith(t, files, nil, turns...)
}

// newEnvWith is newEnv with a hook to adjust the engine's configuration.
func newEnvWith(t *testing.T, files map[string]string, configure func(*engine.Config), turns ...fake.Turn) *env {
	t.Helper()
	return newEnvThrough(t, files, configure, nil, turns...)
}

// newEnvThrough is newEnvWith with the server's end of the pipe passed
// through wrap (editortest.NewThrough).
func newEnvThrough(t *testing.T, files map[string]string, configure func(*engine.Config), wrap func(net.Conn) net.Conn, turns ...fake.Turn) *env {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	model := fake.NewAnthropic(t, turns...)
	provider := anthropic.New(anthropic.Options{APIKey: "test-key", BaseURL: model.BaseURL()})
	e := &env{t: t, root: root, model: model}
	e.editor = editortest.NewThrough(t, server.Options{
		Version:       "test",
		Logf:          t.Logf,
		TranscriptDir: filepath.Join(root, ".transcripts"),
		NewService: func(init server.InitOptions) (*engine.Service, error) {
			// No language servers from PATH: tests that want one say so.
			cfg := engine.Config{Provider: provider, Model: "claude-test", Logf: t.Logf, Home: root, LangServers: []langserver.ServerConfig{}}
			if configure != nil {
				configure(&cfg)
			}
			if e.more != nil {
				e.more(&cfg)
			}
			svc := engine.NewService(cfg)
			e.svc.Store(svc)
			return svc, nil
		},
	}, wrap)
	return e
}

func (e *env) path(name string) string { return filepath.Join(e.root, name) }

func (e *env) disk(name string) string {
	b, err := os.ReadFile(e.path(name))
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

// toolResults returns the tool_result blocks the model received in
// request n (0-based).
func (e *env) toolResults(n int) []map[string]any {
	e.t.Helper()
	reqs := e.model.Requests()
	if n >= len(reqs) {
		e.t.Fatalf("the model got %d requests, want at least %d", len(reqs), n+1)
	}
	var body struct {
		Messages []struct {
			Role    string           `json:"role"`
			Content []map[string]any `json:"content"`
		} `json:"messages"`
	}
	if err := reqs[n].Decode(&body); err != nil {
		e.t.Fatal(err)
	}
	last := body.Messages[len(body.Messages)-1]
	var out []map[string]any
	for _, c := range last.Content {
		if c["type"] == "tool_result" {
			out = append(out, c)
		}
	}
	return out
}

// resultText flattens a tool_result's content.
func resultText(r map[string]any) string {
	switch c := r["content"].(type) {
	case string:
		return c
	case []any:
		var b strings.Builder
		for _, x := range c {
			if m, ok := x.(map[string]any); ok {
				fmt.Fprint(&b, m["text"])
			}
		}
		return b.String()
	}
	return ""
}

const calc = "def average(values):\n    return sum(values) / 2\n"

func TestReadEditEndTurn(t *testing.T) {
	e := newEnv(t, map[string]string{"calc.py": calc},
		fake.Turn{fake.Text("Let me ", "read it."), fake.ToolUse("toolu_1", "Read", `{"file_path":"calc.py"}`)},
		fake.Turn{fake.Text("Fixing."), fake.ToolUse("toolu_2", "Edit", `{"file_path":"calc.py","old_string":"/ 2","new_string":"/ len(values)"}`)},
		fake.Turn{fake.Text("Done.")},
	)
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	stop, err := e.editor.Prompt(sid, "fix average")
	if err != nil || stop != schema.StopEndTurn {
		t.Fatalf("prompt = %q, %v; want end_turn", stop, err)
	}

	// The model saw the file with cat -n numbering.
	read := e.toolResults(1)
	if len(read) != 1 || !strings.Contains(resultText(read[0]), "     2\t    return sum(values) / 2") {
		t.Fatalf("Read result = %v", read)
	}
	// One permission prompt, for the edit, with its diff.
	perms := e.editor.Permissions()
	if len(perms) != 1 {
		t.Fatalf("got %d permission requests, want 1 (for Edit only)", len(perms))
	}
	tc := perms[0].ToolCall
	if tc.Kind != schema.KindEdit || len(tc.Content) != 1 || tc.Content[0].Type != "diff" || !strings.Contains(tc.Content[0].NewText, "/ len(values)") {
		t.Errorf("permission tool call = %+v, want an edit with a diff", tc)
	}
	// The edit landed in the editor's buffer through applyEdit; the disk
	// is the user's to save.
	if n := len(e.editor.Edits()); n != 1 {
		t.Fatalf("got %d applyEdit requests, want 1", n)
	}
	buf, ok := e.editor.Buffer(e.path("calc.py"))
	if !ok || buf.Text != strings.Replace(calc, "/ 2", "/ len(values)", 1) {
		t.Errorf("buffer = %q, want the edited text", buf.Text)
	}
	if e.disk("calc.py") != calc {
		t.Errorf("disk changed behind the editor's back")
	}
	if res := e.toolResults(2); len(res) != 1 || res[0]["is_error"] == true {
		t.Errorf("Edit result = %v, want success", res)
	}
	// The editor saw it all stream.
	tr := e.editor.Transcript(sid)
	for _, want := range []string{"[agent_message_chunk] Let me read it.", "[tool_call] toolu_2 title=\"Edit\" kind=edit status=pending", "status=completed diff=" + e.path("calc.py"), "Done."} {
		if !strings.Contains(tr, want) {
			t.Errorf("transcript lacks %q:\n%s", want, tr)
		}
	}
}

func TestReadSeesUnsavedBuffer(t *testing.T) {
	e := newEnv(t, map[string]string{"calc.py": calc},
		fake.Turn{fake.ToolUse("toolu_1", "Read", `{"file_path":"calc.py"}`)},
		fake.Turn{fake.Text("ok")},
	)
	e.editor.Initialize(e.root, nil)
	e.editor.Open(e.path("calc.py"), "# typed but not saved\n"+calc)
	sid := e.editor.NewSession(e.root)
	if _, err := e.editor.Prompt(sid, "read it"); err != nil {
		t.Fatal(err)
	}
	if got := resultText(e.toolResults(1)[0]); !strings.Contains(got, "typed but not saved") {
		t.Errorf("Read returned the disk, not the buffer:\n%s", got)
	}
}

func TestRejectedEditGoesBackToModel(t *testing.T) {
	e := newEnv(t, map[string]string{"calc.py": calc},
		fake.Turn{fake.ToolUse("toolu_1", "Read", `{"file_path":"calc.py"}`)},
		fake.Turn{fake.ToolUse("toolu_2", "Edit", `{"file_path":"calc.py","old_string":"/ 2","new_string":"/ 3"}`)},
		fake.Turn{fake.Text("Understood, I won't change it.")},
	)
	e.editor.Initialize(e.root, nil)
	e.editor.OnPermission(editortest.Answer("reject_once"))
	sid := e.editor.NewSession(e.root)
	stop, err := e.editor.Prompt(sid, "change it")
	if err != nil || stop != schema.StopEndTurn {
		t.Fatalf("prompt = %q, %v", stop, err)
	}
	res := e.toolResults(2)
	if len(res) != 1 || res[0]["is_error"] != true || !strings.Contains(resultText(res[0]), "rejected") {
		t.Errorf("model got %v, want an error result saying the user rejected it", res)
	}
	if len(e.editor.Edits()) != 0 || e.disk("calc.py") != calc {
		t.Error("a rejected edit was applied")
	}
}

func TestApplyEditRefusedByEditor(t *testing.T) {
	e := newEnv(t, map[string]string{"calc.py": calc},
		fake.Turn{fake.ToolUse("toolu_1", "Read", `{"file_path":"calc.py"}`)},
		fake.Turn{fake.ToolUse("toolu_2", "Edit", `{"file_path":"calc.py","old_string":"/ 2","new_string":"/ 3"}`)},
		fake.Turn{fake.Text("It did not apply.")},
	)
	e.editor.Initialize(e.root, nil)
	e.editor.OnApplyEdit(func(json.RawMessage) (bool, string) { return false, "document is read-only" })
	sid := e.editor.NewSession(e.root)
	if _, err := e.editor.Prompt(sid, "change it"); err != nil {
		t.Fatal(err)
	}
	res := e.toolResults(2)
	if len(res) != 1 || res[0]["is_error"] != true || !strings.Contains(resultText(res[0]), "read-only") {
		t.Errorf("model got %v, want an error result with the editor's reason", res)
	}
	if e.disk("calc.py") != calc {
		t.Error("the disk was written although the editor refused the edit")
	}
}

// TestApplyEditFailedByEditor: an editor that answers applyEdit with an
// error has refused the edit; the disk is not written behind its back and
// the model gets the editor's reason. Only an editor that does not serve
// applyEdit at all (-32601) gets the disk written, as one without the
// capability does.
func TestApplyEditFailedByEditor(t *testing.T) {
	tests := []struct {
		name   string
		err    *jsonrpc2.Error
		want   string
		onDisk bool
	}{
		{"internal error", &jsonrpc2.Error{Code: jsonrpc2.InternalError, Message: "Internal error", Data: jsonrpc2.RawMessage(`{"details":"the file is locked by another user"}`)}, "the file is locked by another user", false},
		{"request failed", &jsonrpc2.Error{Code: -32803, Message: "workspace edits are disabled here"}, "workspace edits are disabled here", false},
		{"method not found", &jsonrpc2.Error{Code: jsonrpc2.MethodNotFound, Message: "Unhandled method workspace/applyEdit"}, "has been updated", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, map[string]string{"calc.py": calc},
				fake.Turn{fake.ToolUse("toolu_1", "Read", `{"file_path":"calc.py"}`)},
				fake.Turn{fake.ToolUse("toolu_2", "Edit", `{"file_path":"calc.py","old_string":"/ 2","new_string":"/ 3"}`)},
				fake.Turn{fake.Text("ok")},
			)
			e.editor.Initialize(e.root, nil)
			e.editor.FailApplyEdit(tt.err)
			sid := e.editor.NewSession(e.root)
			if _, err := e.editor.Prompt(sid, "change it"); err != nil {
				t.Fatal(err)
			}
			res := e.toolResults(2)
			if len(res) != 1 || (res[0]["is_error"] == true) == tt.onDisk || !strings.Contains(resultText(res[0]), tt.want) {
				t.Errorf("model got %v, want %q in it", res, tt.want)
			}
			if got := e.disk("calc.py") != calc; got != tt.onDisk {
				t.Errorf("disk written = %v, want %v", got, tt.onDisk)
			}
		})
	}
}

func TestWithoutApplyEditTheServerWritesTheDisk(t *testing.T) {
	e := newEnv(t, map[string]string{"calc.py": calc},
		fake.Turn{fake.ToolUse("toolu_1", "Read", `{"file_path":"calc.py"}`)},
		fake.Turn{fake.ToolUse("toolu_2", "Edit", `{"file_path":"calc.py","old_string":"/ 2","new_string":"/ len(values)"}`)},
		fake.Turn{fake.ToolUse("toolu_3", "Write", `{"file_path":"new/notes.txt","content":"hello\n"}`)},
		fake.Turn{fake.Text("Done.")},
	)
	e.editor.InitializeWith(map[string]any{"rootUri": "file://" + e.root, "capabilities": map[string]any{}})
	sid := e.editor.NewSession(e.root)
	if _, err := e.editor.Prompt(sid, "fix"); err != nil {
		t.Fatal(err)
	}
	if got := e.disk("calc.py"); !strings.Contains(got, "/ len(values)") {
		t.Errorf("disk = %q, want the edit", got)
	}
	if got := e.disk("new/notes.txt"); got != "hello\n" {
		t.Errorf("new file = %q", got)
	}
	if n := len(e.editor.Edits()); n != 0 {
		t.Errorf("sent %d applyEdit requests to an editor without the capability", n)
	}
}

func TestCancelMidStream(t *testing.T) {
	for _, how := range []string{"session/cancel", "$/cancelRequest"} {
		t.Run(how, func(t *testing.T) {
			e := newEnv(t, nil,
				fake.Turn{fake.Text("I am thinking about this for a long ", "time"), fake.Hold{Event: "content_block_stop"}},
				fake.Turn{fake.Text("after cancel")},
			)
			e.editor.Initialize(e.root, nil)
			sid := e.editor.NewSession(e.root)
			var res schema.PromptResult
			wait := e.editor.Go("session/prompt", schema.PromptParams{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock("go")}}, &res)
			e.editor.WaitFor("streamed text", func() bool { return strings.Contains(e.editor.Transcript(sid), "long time") })
			if how == "session/cancel" {
				e.editor.Notify("session/cancel", schema.SessionIDParams{SessionID: sid})
			} else {
				// The prompt is the second request this editor sent
				// (after initialize and session/new): id 3.
				e.editor.Notify("$/cancelRequest", map[string]any{"id": 3})
			}
			err := wait()
			if how == "session/cancel" {
				if err != nil || res.StopReason != schema.StopCancelled {
					t.Fatalf("prompt = %q, %v; want cancelled", res.StopReason, err)
				}
			} else if err == nil && res.StopReason != schema.StopCancelled {
				t.Fatalf("prompt = %q; want cancelled", res.StopReason)
			}
			// The session is usable again, and the interrupted text is
			// in the history the model sees next.
			stop, err := e.editor.Prompt(sid, "again")
			if err != nil || stop != schema.StopEndTurn {
				t.Fatalf("prompt after cancel = %q, %v", stop, err)
			}
			var body struct {
				Messages []json.RawMessage `json:"messages"`
			}
			e.model.Requests()[1].Decode(&body)
			if !strings.Contains(string(body.Messages[1]), "long time") {
				t.Errorf("second request lost the interrupted answer: %s", body.Messages)
			}
		})
	}
}

func TestPermissionCancelledWithPrompt(t *testing.T) {
	e := newEnv(t, map[string]string{"calc.py": calc},
		fake.Turn{fake.ToolUse("toolu_1", "Write", `{"file_path":"x.txt","content":"x"}`)},
	)
	e.editor.Initialize(e.root, nil)
	block := make(chan struct{})
	defer close(block)
	e.editor.OnPermission(func(*schema.RequestPermissionParams) schema.RequestPermissionResult {
		<-block // the user never answers
		return schema.RequestPermissionResult{Outcome: schema.PermissionOutcome{Outcome: "cancelled"}}
	})
	sid := e.editor.NewSession(e.root)
	var res schema.PromptResult
	wait := e.editor.Go("session/prompt", schema.PromptParams{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock("go")}}, &res)
	e.editor.WaitFor("permission request", func() bool { return len(e.editor.Permissions()) == 1 })
	e.editor.Notify("session/cancel", schema.SessionIDParams{SessionID: sid})
	if err := wait(); err != nil || res.StopReason != schema.StopCancelled {
		t.Fatalf("prompt = %q, %v; want cancelled", res.StopReason, err)
	}
	if _, err := os.Stat(e.path("x.txt")); err == nil {
		t.Error("the write ran although the prompt was cancelled")
	}
	e.editor.WaitFor("$/cancelRequest for the permission request", func() bool {
		for _, n := range e.editor.Notifications() {
			if n.Method == "$/cancelRequest" {
				return true
			}
		}
		return false
	})
}

func TestPathsOutsideWorkspaceAreRefused(t *testing.T) {
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret"), []byte("s3cret"), 0o644)
	e := newEnv(t, nil,
		fake.Turn{fake.ToolUse("toolu_1", "Read", fmt.Sprintf(`{"file_path":%q}`, filepath.Join(outside, "secret")))},
		fake.Turn{fake.ToolUse("toolu_2", "Read", `{"file_path":"../../../../../../etc/passwd"}`)},
		fake.Turn{fake.Text("ok")},
	)
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	if _, err := e.editor.Prompt(sid, "read"); err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 2; n++ {
		res := e.toolResults(n)
		if len(res) != 1 || res[0]["is_error"] != true || !strings.Contains(resultText(res[0]), "outside the workspace") {
			t.Errorf("request %d: got %v, want a refusal", n, res)
		}
	}
}

func TestBadInput(t *testing.T) {
	e := newEnv(t, nil, fake.Turn{fake.Text("slow"), fake.Hold{Event: "content_block_stop"}})

	// A request before initialize.
	err := e.editor.Call("session/new", schema.NewSessionParams{Cwd: e.root}, nil)
	wantCode(t, err, -32002, "before initialize")

	// Malformed JSON: a parse error, and the server keeps serving.
	body := `{"jsonrpc":"2.0","id":77,"method":`
	fmt.Fprintf(e.editor.Raw, "Content-Length: %d\r\n\r\n%s", len(body), body)
	e.editor.WaitFor("nothing", func() bool { return true })
	e.editor.Initialize(e.root, nil)

	err = e.editor.Call("no/such/method", map[string]any{}, nil)
	wantCode(t, err, -32601, "no/such/method")

	err = e.editor.Call("session/new", map[string]any{"mcpServers": []any{}}, nil)
	wantCode(t, err, -32602, `"cwd" is required`)
	err = e.editor.Call("session/new", map[string]any{"cwd": 42}, nil)
	wantCode(t, err, -32602, `"cwd"`)
	err = e.editor.Call("session/new", map[string]any{"cwd": "relative/dir"}, nil)
	wantCode(t, err, -32602, "absolute")

	err = e.editor.Call("session/prompt", schema.PromptParams{SessionID: "nope", Prompt: []schema.ContentBlock{schema.TextBlock("x")}}, nil)
	wantCode(t, err, -32602, "unknown session")

	sid := e.editor.NewSession(e.root)
	err = e.editor.Call("session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "video"}}}, nil)
	wantCode(t, err, 0, "unsupported content block")

	// A slash command while a prompt runs (other prompts steer it).
	var res schema.PromptResult
	wait := e.editor.Go("session/prompt", schema.PromptParams{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock("go")}}, &res)
	e.editor.WaitFor("streamed text", func() bool { return strings.Contains(e.editor.Transcript(sid), "slow") })
	_, err = e.editor.Prompt(sid, "/compact")
	wantCode(t, err, -32600, "already running")
	e.editor.Notify("session/cancel", schema.SessionIDParams{SessionID: sid})
	if err := wait(); err != nil || res.StopReason != schema.StopCancelled {
		t.Fatalf("prompt = %q, %v", res.StopReason, err)
	}
	// The parse error was answered with a null id.
	_ = time.Second
}

func TestNoAPIKey(t *testing.T) {
	root := t.TempDir()
	ed := editortest.New(t, server.Options{NewService: func(server.InitOptions) (*engine.Service, error) {
		return engine.NewService(engine.Config{ProviderError: fmt.Errorf("no API key for anthropic: %w", config.ErrNoAPIKey)}), nil
	}})
	// The editor learns at start that no model is configured: from the
	// initialize result and the session/new result.
	var init struct {
		Meta         map[string]map[string]string `json:"_meta"`
		Capabilities struct {
			Experimental struct {
				Agent struct {
					Meta map[string]map[string]string `json:"_meta"`
				} `json:"agent"`
			} `json:"experimental"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(ed.Initialize(root, nil), &init); err != nil {
		t.Fatal(err)
	}
	if got := init.Meta["agent-lsp"]["providerProblem"]; got != engine.NoProviderMessage {
		t.Errorf("initialize _meta providerProblem = %q, want %q", got, engine.NoProviderMessage)
	}
	if got := init.Capabilities.Experimental.Agent.Meta["agent-lsp"]["providerProblem"]; got != engine.NoProviderMessage {
		t.Errorf("initialize capabilities.experimental.agent._meta providerProblem = %q", got)
	}
	var res struct {
		SessionID string                       `json:"sessionId"`
		Meta      map[string]map[string]string `json:"_meta"`
	}
	ed.MustCall("session/new", schema.NewSessionParams{Cwd: root, MCPServers: []schema.MCPServer{}}, &res)
	if got := res.Meta["agent-lsp"]["providerProblem"]; got != engine.NoProviderMessage {
		t.Errorf("session/new _meta providerProblem = %q", got)
	}
	// The prompt's error is the same words, with no method name before them.
	_, err := ed.Prompt(res.SessionID, "hi")
	wantCode(t, err, -32000, engine.NoProviderMessage)
	if rpcErr := new(jsonrpc2.Error); errors.As(err, &rpcErr) && rpcErr.Message != engine.NoProviderMessage {
		t.Errorf("error message %q, want exactly %q", rpcErr.Message, engine.NoProviderMessage)
	}
}

// TestProviderConfiguredHasNoProblem: with a provider, initialize and
// session/new carry no providerProblem.
func TestProviderConfiguredHasNoProblem(t *testing.T) {
	e := newEnv(t, nil)
	raw := e.editor.Initialize(e.root, nil)
	if strings.Contains(string(raw), "providerProblem") {
		t.Errorf("initialize result names a provider problem: %s", raw)
	}
	var res json.RawMessage
	e.editor.MustCall("session/new", schema.NewSessionParams{Cwd: e.root, MCPServers: []schema.MCPServer{}}, &res)
	if strings.Contains(string(res), "providerProblem") {
		t.Errorf("session/new result names a provider problem: %s", res)
	}
}

// wantCode checks a JSON-RPC error's code (0: any) and message.
func wantCode(t *testing.T, err error, code int, msg string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want code %d (%s)", code, msg)
	}
	s := err.Error()
	if code != 0 && !strings.Contains(s, fmt.Sprint(code)) && !hasCode(err, code) {
		t.Errorf("error %q: want code %d", s, code)
	}
	if !strings.Contains(s, msg) {
		t.Errorf("error %q does not mention %q", s, msg)
	}
}

func TestIncrementalChangesReachTheOverlay(t *testing.T) {
	e := newEnv(t, map[string]string{"calc.py": calc},
		fake.Turn{fake.ToolUse("toolu_1", "Read", `{"file_path":"calc.py"}`)},
		fake.Turn{fake.Text("ok")},
	)
	e.editor.Initialize(e.root, nil)
	path := e.path("calc.py")
	e.editor.Open(path, calc)
	// Replace "average" on line 0 with "mean", then insert a line, as
	// an editor sends keystrokes: ranges in UTF-16 positions.
	e.editor.Notify("textDocument/didChange", map[string]any{
		"textDocument": map[string]any{"uri": "file://" + path, "version": 2},
		"contentChanges": []map[string]any{
			{"range": map[string]any{"start": map[string]int{"line": 0, "character": 4}, "end": map[string]int{"line": 0, "character": 11}}, "text": "mean"},
			{"range": map[string]any{"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 0, "character": 0}}, "text": "# 😀 stats\n"},
		},
	})
	sid := e.editor.NewSession(e.root)
	if _, err := e.editor.Prompt(sid, "read"); err != nil {
		t.Fatal(err)
	}
	got := resultText(e.toolResults(1)[0])
	if !strings.Contains(got, "1\t# 😀 stats") || !strings.Contains(got, "2\tdef mean(values):") {
		t.Errorf("Read after incremental changes:\n%s", got)
	}
}

// TestEditRefusedWhenTypedDuringApproval: the user types in the buffer
// while the approval of an Edit waits, and the didChange reaches the
// agent before the edit runs. The edit is refused, the model is told the
// file changed, and the typed text stays. (A didChange that comes in
// later still, between the edit's reading and its sending, is covered
// by TestApplyEditRefusesAChangedDocument; one later than that, by the
// editor's version check.)
func TestEditRefusedWhenTypedDuringApproval(t *testing.T) {
	e := newEnv(t, map[string]string{"calc.py": calc},
		fake.Turn{fake.ToolUse("toolu_1", "Read", `{"file_path":"calc.py"}`)},
		fake.Turn{fake.ToolUse("toolu_2", "Edit", `{"file_path":"calc.py","old_string":"/ 2","new_string":"/ len(values)"}`)},
		fake.Turn{fake.Text("I will read it again.")},
	)
	e.editor.Initialize(e.root, nil)
	path := e.path("calc.py")
	e.editor.Open(path, calc)
	typed := "# typed while the approval waited\n" + calc
	e.editor.OnPermission(func(*schema.RequestPermissionParams) schema.RequestPermissionResult {
		e.editor.Type(path, typed)
		// Let the agent apply the didChange before it reads the answer
		// (were it later, the editor's version check refuses the edit).
		time.Sleep(300 * time.Millisecond)
		return schema.RequestPermissionResult{Outcome: schema.PermissionOutcome{Outcome: "selected", OptionID: "allow_once"}}
	})
	sid := e.editor.NewSession(e.root)
	if _, err := e.editor.Prompt(sid, "fix it"); err != nil {
		t.Fatal(err)
	}
	res := e.toolResults(2)
	if len(res) != 1 || res[0]["is_error"] != true || !strings.Contains(resultText(res[0]), "changed") {
		t.Errorf("the model got %v, want an error saying the file changed", res)
	}
	if b, _ := e.editor.Buffer(path); b.Text != typed {
		t.Errorf("the buffer is %q, want the typed text untouched", b.Text)
	}
	if e.disk("calc.py") != calc {
		t.Error("the disk was written")
	}
}
