package engine

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/session"
)

// toolRow is a tool call as the editor shows it once every update about
// it has been applied: later fields win, empty fields keep earlier ones.
type toolRow struct {
	Title, Kind, Status string
	Locations           string // JSON
	RawInput            string // JSON
	Content             string // JSON
	Description         string
	Permission          string // JSON of _meta["agent-lsp"].permission
}

// toolRows folds the tool_call and tool_call_update updates into rows.
func toolRows(t *testing.T, updates []schema.Update) map[string]*toolRow {
	t.Helper()
	rows := map[string]*toolRow{}
	js := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, u := range updates {
		tc := u.ToolCall
		if tc == nil {
			continue
		}
		r := rows[tc.ToolCallID]
		if r == nil {
			r = &toolRow{}
			rows[tc.ToolCallID] = r
		}
		set := func(dst *string, v string) {
			if v != "" && v != "null" {
				*dst = v
			}
		}
		set(&r.Title, tc.Title)
		set(&r.Kind, tc.Kind)
		set(&r.Status, tc.Status)
		if len(tc.Locations) > 0 {
			r.Locations = js(tc.Locations)
		}
		if tc.RawInput != nil {
			var v any
			raw, _ := json.Marshal(tc.RawInput)
			json.Unmarshal(raw, &v)
			r.RawInput = js(v)
		}
		if len(tc.Content) > 0 {
			r.Content = js(tc.Content)
		}
		if m, ok := tc.Meta[metaKey].(map[string]any); ok {
			if d, ok := m["description"].(string); ok {
				r.Description = d
			}
			if p, ok := m["permission"]; ok {
				r.Permission = js(p)
			}
		}
	}
	return rows
}

// TestReplayShowsWhatTheLiveTurnShowed: a session with a Read, an
// approved Edit, an approved Bash command whose output holds a code
// fence, and a rejected Write is reloaded into another service; each tool
// row of the replay (title, kind, status, locations, input, content,
// description, the permission answer) equals the row the live turn left,
// and a usage_update follows the replay.
func TestReplayShowsWhatTheLiveTurnShowed(t *testing.T) {
	store := session.NewStore(t.TempDir(), "-")
	withStore := func(c *Config) {
		c.Store = store
		c.Price = func(u Usage) float64 { return float64(u.InputTokens) / 1e6 }
	}
	model := newScript(t)
	client := &recordingClient{answers: []answer{pick(optAllowOnce), pick(optAllowOnce), pick(optRejectOnce)}}
	h := newHarness(t, model, client, withStore)
	calc := filepath.Join(h.dir, "calc.go")
	if err := os.WriteFile(calc, []byte("package calc\n\nfunc Half(x int) int { return x / 3 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const bashCmd = `python3 -c "print('` + "```go\\nx\\n```" + `'); raise SystemExit(3)"`
	model.steps = []step{
		use("r1", "Read", map[string]any{"file_path": calc}),
		use("e1", "Edit", map[string]any{"file_path": calc, "old_string": "x / 3", "new_string": "x / 2"}),
		use("b1", "Bash", map[string]any{"command": bashCmd, "description": "Print a fence"}),
		use("w1", "Write", map[string]any{"file_path": filepath.Join(h.dir, "notes.md"), "content": "hi\n"}),
		say("done"),
	}
	h.prompt(t, "fix calc")
	live := toolRows(t, client.all())
	if err := h.svc.CloseSession(h.sess.ID); err != nil {
		t.Fatal(err)
	}

	client2 := &recordingClient{}
	client2.t = t
	cfg := Config{Provider: model, Model: "test-model", Home: t.TempDir(), Logf: t.Logf}
	withStore(&cfg)
	svc2 := NewService(cfg)
	t.Cleanup(svc2.Close)
	if _, err := svc2.ResumeSession(context.Background(), h.sess.ID, SessionOptions{Cwd: h.dir, Client: client2}, true); err != nil {
		t.Fatal(err)
	}
	replayed := toolRows(t, client2.all())

	for _, id := range []string{"r1", "e1", "b1", "w1"} {
		l, r := live[id], replayed[id]
		if l == nil || r == nil {
			t.Fatalf("%s: live row %+v, replayed row %+v", id, l, r)
		}
		if *l != *r {
			t.Errorf("%s: replayed row differs from the live one\nlive:     %+v\nreplayed: %+v", id, *l, *r)
		}
	}
	want := map[string]struct{ title, status, content, permission string }{
		"e1": {"Edit calc.go", schema.StatusCompleted, `"type":"diff"`, `{"name":"Allow","optionId":"allow_once","outcome":"allowed"}`},
		"b1": {"Run ````" + bashCmd + "````", schema.StatusFailed, "````console\\n$ python3", `{"name":"Allow","optionId":"allow_once","outcome":"allowed"}`},
		"w1": {"Write notes.md", schema.StatusFailed, "the user rejected", `{"name":"Reject","optionId":"reject_once","outcome":"rejected"}`},
	}
	for id, w := range want {
		r := replayed[id]
		if r.Title != w.title || r.Status != w.status || !strings.Contains(r.Content, w.content) || r.Permission != w.permission {
			t.Errorf("%s: replayed row %+v, want title %q, status %q, content with %q, permission with %q", id, *r, w.title, w.status, w.content, w.permission)
		}
	}
	if replayed["b1"].Description != "Print a fence" {
		t.Errorf("b1 description = %q, want the model's", replayed["b1"].Description)
	}
	if strings.Contains(replayed["e1"].Content, "has been updated") {
		t.Errorf("the replayed edit shows the model-facing text: %s", replayed["e1"].Content)
	}

	all := client2.all()
	last := all[len(all)-1]
	if last.SessionUpdate != schema.UpdateUsage || last.Used == nil || *last.Used != 15 || last.Size == nil || last.Cost == nil || math.Abs(last.Cost.Amount-50e-6) > 1e-12 {
		t.Errorf("last replayed update = %+v, want a usage_update (used 15, cost of 5 calls)", last)
	}
}

// TestReplayOfClaudeCodeFiles: a Claude Code session's Edit, with its
// toolUseResult, replays as its diff, and a Bash call as its console
// block, never as the model-facing text.
func TestReplayOfClaudeCodeFiles(t *testing.T) {
	h := newHarness(t, newScript(t), nil, nil)
	calc := filepath.Join(h.dir, "calc.go")
	editIn := json.RawMessage(`{"file_path":"` + calc + `","old_string":"x / 3","new_string":"x / 2"}`)
	stored := map[string]json.RawMessage{
		"e1": json.RawMessage(`{"filePath":"` + calc + `","oldString":"x / 3","newString":"x / 2","originalFile":"package calc\n\nfunc Half(x int) int { return x / 3 }\n","structuredPatch":[{"oldStart":3,"oldLines":1,"newStart":3,"newLines":1,"lines":["-func Half(x int) int { return x / 3 }","+func Half(x int) int { return x / 2 }"]}]}`),
	}
	msgs := []providers.Message{
		{Role: providers.RoleUser, Content: []providers.Block{providers.TextBlock("fix")}},
		{Role: providers.RoleAssistant, Content: []providers.Block{
			{Type: providers.BlockToolUse, ID: "e1", Name: "Edit", Input: editIn},
			{Type: providers.BlockToolUse, ID: "b1", Name: "Bash", Input: json.RawMessage(`{"command":"go test ./...","description":"Run the tests"}`)},
		}},
		{Role: providers.RoleUser, Content: []providers.Block{
			providers.ToolResultBlock("e1", "The file "+calc+" has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n     3\tfunc Half(x int) int { return x / 2 }", false),
			providers.ToolResultBlock("b1", "ok  \tcalc\t0.01s", false),
		}},
	}
	client := &recordingClient{t: t}
	h.sess.client.Client = client
	h.sess.replay(context.Background(), msgs, &session.History{ToolUseResults: stored, Usage: []session.ResponseUsage{{Usage: providers.Usage{InputTokens: 100, OutputTokens: 20}}}})
	rows := toolRows(t, client.all())
	e, b := rows["e1"], rows["b1"]
	if e.Title != "Edit calc.go" || !strings.Contains(e.Content, `"newText":"package calc\n\nfunc Half(x int) int { return x / 2 }\n"`) || strings.Contains(e.Content, "has been updated") || !strings.Contains(e.Locations, `"line":2`) {
		t.Errorf("edit row %+v", *e)
	}
	if b.Title != "Run `go test ./...`" || b.Description != "Run the tests" || !strings.Contains(b.Content, "```console\\n$ go test ./...\\nok  \\tcalc\\t0.01s\\n```") {
		t.Errorf("bash row %+v", *b)
	}
	all := client.all()
	if last := all[len(all)-1]; last.SessionUpdate != schema.UpdateUsage || *last.Used != 120 {
		t.Errorf("last update %+v, want usage_update with used 120", last)
	}
}

// TestResumeSendsUsage: session/resume replays nothing, but gives the
// editor its context meter back with a usage_update (no cost: Resume
// reads only the turns since the last compaction).
func TestResumeSendsUsage(t *testing.T) {
	store := session.NewStore(t.TempDir(), "-")
	price := func(u Usage) float64 { return float64(u.InputTokens) / 1e6 }
	model := newScript(t, say("hello"))
	h := newHarness(t, model, nil, func(c *Config) { c.Store, c.Price = store, price })
	h.prompt(t, "hi")
	if err := h.svc.CloseSession(h.sess.ID); err != nil {
		t.Fatal(err)
	}
	client := &recordingClient{t: t}
	svc2 := NewService(Config{Provider: model, Model: "test-model", Home: t.TempDir(), Logf: t.Logf, Store: store, Price: price})
	t.Cleanup(svc2.Close)
	if _, err := svc2.ResumeSession(context.Background(), h.sess.ID, SessionOptions{Cwd: h.dir, Client: client}, false); err != nil {
		t.Fatal(err)
	}
	all := client.all()
	if len(all) != 1 || all[0].SessionUpdate != schema.UpdateUsage || *all[0].Used != 15 || all[0].Cost != nil {
		t.Errorf("resume sent %+v, want one usage_update with used 15 and no cost", all)
	}
}

// TestReplayOfClaudeCodeFixture: a session file Claude Code wrote
// (session/testdata) replays its Bash call as a console block and ends
// with its usage.
func TestReplayOfClaudeCodeFixture(t *testing.T) {
	data, err := os.ReadFile("../session/testdata/claude_session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	claude := t.TempDir()
	const id = "5b0c7e52-94d3-4f6a-8b1e-0c2d3e4f5a6b"
	path := filepath.Join(claude, "projects", "-home-dev-proj", id+".jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	hist, err := session.NewStore(t.TempDir(), claude).Load("/home/dev/proj", id)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, newScript(t), nil, nil)
	client := &recordingClient{t: t}
	h.sess.client.Client = client
	h.sess.replay(context.Background(), hist.Messages, hist)
	rows := toolRows(t, client.all())
	b := rows["toolu_02Ab"]
	if b == nil || b.Title != "Run `go test ./parser/`" || b.Description != "Run the parser tests" || b.Status != schema.StatusCompleted ||
		!strings.Contains(b.Content, "```console\\n$ go test ./parser/\\nok  \\texample.com/proj/parser\\t0.012s\\n```") {
		t.Errorf("Bash row %+v", b)
	}
	all := client.all()
	if last := all[len(all)-1]; last.SessionUpdate != schema.UpdateUsage || last.Used == nil || *last.Used == 0 {
		t.Errorf("last update %+v, want a usage_update", last)
	}
}
