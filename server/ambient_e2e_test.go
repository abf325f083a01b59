package server_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/session"
	"github.com/agent-lsp/agent-lsp/settings"
)

// ambientBlock is a prompt block of the editor's own context, as the
// editors send it (docs/protocol.md, "Editor context").
func ambientBlock(kind, uri, text string) schema.ContentBlock {
	meta := map[string]any{"agent-lsp": map[string]any{"ambient": kind}}
	if text == "" {
		return schema.ContentBlock{Type: schema.BlockResourceLink, URI: uri, Name: filepath.Base(uri), Meta: meta}
	}
	return schema.ContentBlock{Type: schema.BlockResource, Resource: &schema.EmbeddedResource{URI: uri, Text: text}, Meta: meta}
}

// TestAmbientContext: the open file and the selection travel with a
// prompt in Claude Code's words; a file a Read deny rule covers, or one
// outside the workspace, does not, and the user is told; a session
// loaded later replays the user's words without the reminders.
func TestAmbientContext(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	files := map[string]string{"calc.go": "package calc\n\nx := 1\ny := 2\n", ".env": "TOKEN=secret-in-env\n"}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	store := session.NewStore(t.TempDir(), "-")
	configure := func(cfg *engine.Config) {
		cfg.Store = store
		cfg.Settings = &settings.Settings{Permissions: settings.Permissions{Deny: []settings.Rule{{Text: "Read(./.env)"}}}}
	}
	raw, model := startACP(t, root, configure, fake.Turn{fake.Text("It sets x.")})
	first := connectACP(t, raw, root, model)
	first.initialize(false)
	sid := first.newSession().SessionID
	calc := "file://" + filepath.Join(root, "calc.go")
	var res schema.PromptResult
	first.mustCall("session/prompt", schema.PromptParams{SessionID: sid, Prompt: []schema.ContentBlock{
		schema.TextBlock("what does this do?"),
		ambientBlock("open", calc, ""),
		ambientBlock("selection", calc+"#L3-L4", "x := 1\ny := 2"),
		ambientBlock("open", "file://"+filepath.Join(root, ".env"), ""),
		ambientBlock("selection", "file://"+filepath.Join(root, ".env")+"#L1-L1", "TOKEN=secret-in-env"),
		ambientBlock("open", "file:///etc/hostname", ""),
	}}, &res)
	var body struct {
		Messages []struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(model.Requests()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	var sent []string
	for _, c := range body.Messages[0].Content {
		sent = append(sent, c.Text)
	}
	got := strings.Join(sent, "\n---\n")
	for _, want := range []string{
		"<system-reminder>\nThe user opened the file " + filepath.Join(root, "calc.go") + " in the IDE. This may or may not be related to the current task.\n</system-reminder>",
		"The user selected the lines 3 to 4 from " + filepath.Join(root, "calc.go") + ":\nx := 1\ny := 2\n\nThis may or may not be related to the current task.",
		"what does this do?",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the model's first message lacks %q:\n%s", want, got)
		}
	}
	for _, never := range []string{".env", "secret-in-env", "/etc/hostname"} {
		if strings.Contains(got, never) {
			t.Errorf("the model was told of %q:\n%s", never, got)
		}
	}
	if !strings.HasSuffix(got, "what does this do?") {
		t.Errorf("the user's words should come last:\n%s", got)
	}
	warned := ""
	for _, u := range first.updates(sid) {
		if u.Content != nil {
			warned += u.Content.Text + "\n"
		}
	}
	for _, want := range []string{filepath.Join(root, ".env") + " was not sent", "/etc/hostname was not sent"} {
		if !strings.Contains(warned, want) {
			t.Errorf("the user was not told %q:\n%s", want, warned)
		}
	}
	first.mustCall("session/close", schema.SessionIDParams{SessionID: sid}, nil)

	raw2, model2 := startACP(t, root, configure)
	second := connectACP(t, raw2, root, model2)
	second.initialize(false)
	second.mustCall("session/load", schema.LoadSessionParams{SessionID: sid, Cwd: root, MCPServers: []schema.MCPServer{}}, nil)
	var typed []string
	for _, u := range second.updates(sid) {
		if u.SessionUpdate == schema.UpdateUserMessageChunk && u.Content != nil {
			typed = append(typed, u.Content.Text)
		}
	}
	if strings.Join(typed, "|") != "what does this do?" {
		t.Errorf("the replay shows the user typed %q", typed)
	}
}
