package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/internal/testenv"
	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/schema"
)

// writeTree writes files (relative path -> text) under root.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

const greetCommand = `---
description: Greet someone
argument-hint: <name> <language>
allowed-tools: Read, Bash(touch:*)
---
Say hello to $1 in $2. All arguments: $ARGUMENTS.
Status: !` + "`touch made-by-command && echo from-bash`" + `
Notes are in @notes.txt, keys in @.env
`

// findCommand returns the command named name of the last
// available_commands_update in us.
func findCommand(us []schema.Update, name string) (schema.Command, bool) {
	for i := len(us) - 1; i >= 0; i-- {
		if us[i].SessionUpdate != schema.UpdateAvailableCommands {
			continue
		}
		for _, c := range us[i].AvailableCommands {
			if c.Name == name {
				return c, true
			}
		}
		return schema.Command{}, false
	}
	return schema.Command{}, false
}

// checkGreet checks what a /greet Bob French prompt did, on any door.
func checkGreet(t *testing.T, root string, us []schema.Update, perms []schema.RequestPermissionParams, firstMessage string, denied bool) {
	t.Helper()
	c, ok := findCommand(us, "greet")
	if !ok || c.Description != "Greet someone (project:frontend)" || c.Input == nil || c.Input.Hint != "<name> <language>" {
		t.Errorf("greet announced as %+v (found %v)", c, ok)
	}
	var m struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal([]byte(firstMessage), &m); err != nil || len(m.Content) == 0 {
		t.Fatalf("first message %s: %v", firstMessage, err)
	}
	firstMessage = m.Content[0].Text
	if _, ok := findCommand(us, "compact"); !ok {
		t.Error("the built-in commands are not announced beside the custom ones")
	}
	wants := []string{
		"<command-name>/frontend:greet</command-name>",
		"Say hello to Bob in French. All arguments: Bob French.",
		"Status: from-bash",
		"NOTES-CONTENT",
	}
	if denied {
		wants = append(wants, `<file path=".env">(not included`)
	}
	for _, want := range wants {
		if !strings.Contains(firstMessage, want) {
			t.Errorf("the model's prompt lacks %q:\n%s", want, firstMessage)
		}
	}
	if strings.Contains(firstMessage, "SECRET") {
		t.Errorf("a Read-denied @file reached the model:\n%s", firstMessage)
	}
	if _, err := os.Stat(filepath.Join(root, "made-by-command")); err != nil {
		t.Errorf("the !command did not run: %v", err)
	}
	// The !command was asked about as a Bash call.
	if !slices.ContainsFunc(perms, func(p schema.RequestPermissionParams) bool {
		raw, _ := json.Marshal(p.ToolCall.RawInput)
		return strings.Contains(string(raw), "touch made-by-command")
	}) {
		t.Errorf("no permission request for the !command; got %+v", perms)
	}
}

// TestCustomCommandLSP: a project command in a subfolder, with arguments,
// a !command and an @file, is announced next to the built-in commands,
// expanded, and announced again when a command file is added.
func TestCustomCommandLSP(t *testing.T) {
	var e *env
	e = newEnvWith(t, map[string]string{
		".claude/commands/frontend/greet.md": greetCommand,
		"notes.txt":                          "NOTES-CONTENT\n",
		".env":                               "TOKEN=SECRET\n",
	}, func(cfg *engine.Config) { cfg.Settings = denySettings(e.root) }, fake.Turn{fake.Text("Bonjour Bob")})
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	e.editor.WaitFor("commands announced", func() bool {
		_, ok := findCommand(e.editor.Updates(sid), "greet")
		return ok
	})
	if _, err := e.editor.Prompt(sid, "/greet Bob French"); err != nil {
		t.Fatal(err)
	}
	checkGreet(t, e.root, e.editor.Updates(sid), e.editor.Permissions(), lastMessage(t, e.model, 0), true)

	// A command added while the session runs is announced.
	n := 0
	e.editor.WaitFor("the new command to be announced", func() bool {
		if n++; n%20 == 1 { // the watcher may start after the first write
			writeTree(t, e.root, map[string]string{".claude/commands/later.md": fmt.Sprintf("---\ndescription: Added later %d\n---\nbody\n", n)})
		}
		_, ok := findCommand(e.editor.Updates(sid), "later")
		return ok
	})
}

// TestCustomCommandACP is TestCustomCommandLSP's command on the ACP door.
func TestCustomCommandACP(t *testing.T) {
	c := newACP(t, nil, fake.Turn{fake.Text("Bonjour Bob")})
	writeTree(t, c.root, map[string]string{
		".claude/commands/frontend/greet.md": greetCommand,
		"notes.txt":                          "NOTES-CONTENT\n",
	})
	c.initialize(false)
	sid := c.newSession().SessionID
	c.waitFor("commands announced", func() bool {
		_, ok := findCommand(c.updatesLocked(sid), "greet")
		return ok
	})
	if res := c.prompt(sid, "/greet Bob French"); res.StopReason != schema.StopEndTurn {
		t.Fatalf("stop = %q", res.StopReason)
	}
	c.mu.Lock()
	perms := slices.Clone(c.perms)
	c.mu.Unlock()
	checkGreet(t, c.root, c.updates(sid), perms, lastMessage(t, c.model, 0), false)
}

// TestCustomCommandAllowedToolsRestricts: a command's allowed-tools
// narrows the turn's tools (Write is not in greet's list) and never
// skips a permission question (the Bash call above was asked).
func TestCustomCommandAllowedToolsRestricts(t *testing.T) {
	e := newEnvWith(t, map[string]string{
		".claude/commands/frontend/greet.md": greetCommand,
		"notes.txt":                          "NOTES-CONTENT\n",
	}, nil,
		fake.Turn{fake.ToolUse("toolu_1", "Write", `{"file_path":"x.txt","content":"x"}`)},
		fake.Turn{fake.Text("ok")},
		fake.Turn{fake.ToolUse("toolu_2", "Write", `{"file_path":"y.txt","content":"y"}`)},
		fake.Turn{fake.Text("written")},
	)
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	if _, err := e.editor.Prompt(sid, "/frontend:greet Bob French"); err != nil {
		t.Fatal(err)
	}
	res := e.toolResults(1)
	if len(res) != 1 || res[0]["is_error"] != true || !strings.Contains(resultText(res[0]), "/frontend:greet allows only these tools in this turn: Bash, Read") {
		t.Errorf("Write in a restricted turn = %v", res)
	}
	// The restriction ends with the turn.
	if _, err := e.editor.Prompt(sid, "now write y"); err != nil {
		t.Fatal(err)
	}
	if res := e.toolResults(3); len(res) != 1 || res[0]["is_error"] == true {
		t.Errorf("Write in the next turn = %v", res)
	}
}

// TestSkillLoadedBySkillTool: a user skill (outside the workspace) is
// listed in the system prompt, loaded by the Skill tool, its reference
// file read with Read without a permission question, and its
// allowed-tools narrows the turn's tools.
func TestSkillLoadedBySkillTool(t *testing.T) {
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t, home, map[string]string{
		".claude/skills/deploy/SKILL.md":     "---\nname: deploy\ndescription: Deploys the service to staging\nallowed-tools: Read, Grep\n---\n# Deploying\nRead reference.md first.\n",
		".claude/skills/deploy/reference.md": "REFERENCE-CONTENT\n",
	})
	ref := filepath.Join(home, ".claude/skills/deploy/reference.md")
	e := newEnvWith(t, nil, func(c *engine.Config) { c.Home = home },
		fake.Turn{fake.ToolUse("toolu_1", "Skill", `{"skill":"deploy"}`)},
		fake.Turn{fake.ToolUse("toolu_2", "Read", fmt.Sprintf(`{"file_path":%q}`, ref))},
		fake.Turn{fake.ToolUse("toolu_3", "Bash", `{"command":"echo hi"}`)},
		fake.Turn{fake.Text("deployed")},
	)
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	if _, err := e.editor.Prompt(sid, "deploy it"); err != nil {
		t.Fatal(err)
	}
	if body := e.requestText(0); !strings.Contains(body, "- deploy: Deploys the service to staging (user)") {
		t.Errorf("the system prompt does not list the skill:\n%.3000s", body)
	}
	if res := e.toolResults(1); len(res) != 1 || !strings.Contains(resultText(res[0]), "Base directory for this skill: "+filepath.Dir(ref)) || !strings.Contains(resultText(res[0]), "Read reference.md first.") {
		t.Errorf("Skill result = %v", res)
	}
	if res := e.toolResults(2); len(res) != 1 || res[0]["is_error"] == true || !strings.Contains(resultText(res[0]), "REFERENCE-CONTENT") {
		t.Errorf("Read of the skill's file = %v", res)
	}
	if res := e.toolResults(3); len(res) != 1 || !strings.Contains(resultText(res[0]), "the skill deploy allows only these tools") {
		t.Errorf("Bash under the skill = %v", res)
	}
	if perms := e.editor.Permissions(); len(perms) != 0 {
		t.Errorf("permission asked: %+v", perms)
	}
}

// TestWebFetchDoor: WebFetch against a local server: the first fetch of
// a domain asks (allowed always here), the next of the same domain does
// not; HTML comes to the small model as markdown, cut to the cap; a
// redirect to another host is not followed but reported, and fetching
// that host asks again.
func TestWebFetchDoor(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><body><h1>Release notes</h1><p>Version <b>2.0</b> is out.</p></body></html>`)
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<p>"+strings.Repeat("lorem ipsum ", 30_000)+"</p>")
	})
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, strings.Replace("http://"+r.Host, "127.0.0.1", "localhost", 1)+"/page", http.StatusFound)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	localhost := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	fetch := func(id, url string) fake.Turn {
		return fake.Turn{fake.ToolUse(id, "WebFetch", fmt.Sprintf(`{"url":%q,"prompt":"what is new?"}`, url))}
	}
	e := newEnv(t, nil,
		fetch("toolu_1", srv.URL+"/page"),
		fake.Turn{fake.Text("Version 2.0 is out.")}, // the small model's answer
		fetch("toolu_2", srv.URL+"/big"),
		fake.Turn{fake.Text("Lorem ipsum.")},
		fetch("toolu_3", srv.URL+"/away"),
		fetch("toolu_4", localhost+"/page"),
		fake.Turn{fake.Text("done")},
	)
	e.editor.OnPermission(func(p *schema.RequestPermissionParams) schema.RequestPermissionResult {
		for _, o := range p.Options {
			if o.Kind == schema.AllowAlways && strings.Contains(p.ToolCall.Title, "127.0.0.1") {
				return schema.RequestPermissionResult{Outcome: schema.PermissionOutcome{Outcome: "selected", OptionID: o.OptionID}}
			}
		}
		return schema.RequestPermissionResult{Outcome: schema.PermissionOutcome{Outcome: "selected", OptionID: "reject_once"}}
	})
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	if _, err := e.editor.Prompt(sid, "what is new?"); err != nil {
		t.Fatal(err)
	}
	perms := e.editor.Permissions()
	if len(perms) != 2 {
		t.Fatalf("got %d permission requests, want 2 (127.0.0.1 once, localhost once): %+v", len(perms), perms)
	}
	if !slices.ContainsFunc(perms[0].Options, func(o schema.PermissionOption) bool {
		m, _ := o.Meta["agent-lsp"].(map[string]any)
		rule, _ := m["rule"].(string)
		return o.Name == "Always allow fetches from 127.0.0.1" && rule == "WebFetch(domain:127.0.0.1)"
	}) {
		t.Errorf("first request's options = %+v", perms[0].Options)
	}
	if !strings.Contains(perms[1].ToolCall.Title, "localhost") {
		t.Errorf("second request = %+v", perms[1].ToolCall)
	}
	// The small model got the page as markdown, then the big page cut.
	if ask := lastMessage(t, e.model, 1); !strings.Contains(ask, "# Release notes") || !strings.Contains(ask, "Version **2.0** is out.") || !strings.Contains(ask, "what is new?") {
		t.Errorf("small model's request = %s", ask)
	}
	if ask := lastMessage(t, e.model, 3); len(ask) > 110_000 || !strings.Contains(ask, "lorem ipsum") {
		t.Errorf("small model's request for the big page is %d bytes", len(ask))
	}
	if res := e.toolResults(2); len(res) != 1 || resultText(res[0]) != "Version 2.0 is out." {
		t.Errorf("first WebFetch = %v", res)
	}
	if res := e.toolResults(5); len(res) != 1 || !strings.Contains(resultText(res[0]), "REDIRECT DETECTED") || !strings.Contains(resultText(res[0]), localhost+"/page") {
		t.Errorf("redirect result = %v", res)
	}
	if res := e.toolResults(6); len(res) != 1 || res[0]["is_error"] != true || !strings.Contains(resultText(res[0]), "rejected") {
		t.Errorf("fetch of the other host = %v", res)
	}
}

// TestNotebookEditDoor: NotebookEdit on a real notebook goes through the
// permission prompt (with the notebook's diff) and workspace/applyEdit,
// and the result is a valid nbformat 4 notebook.
func TestNotebookEditDoor(t *testing.T) {
	const nb = `{
 "cells": [
  {
   "cell_type": "code",
   "execution_count": 1,
   "id": "c1",
   "metadata": {},
   "outputs": [
    {
     "name": "stdout",
     "output_type": "stream",
     "text": [
      "1\n"
     ]
    }
   ],
   "source": [
    "print(1)"
   ]
  }
 ],
 "metadata": {},
 "nbformat": 4,
 "nbformat_minor": 5
}
`
	e := newEnv(t, map[string]string{"nb.ipynb": nb},
		fake.Turn{fake.ToolUse("toolu_1", "Read", `{"file_path":"nb.ipynb"}`)},
		fake.Turn{fake.ToolUse("toolu_2", "NotebookEdit", `{"notebook_path":"nb.ipynb","cell_id":"c1","new_source":"print(2)"}`)},
		fake.Turn{fake.ToolUse("toolu_3", "NotebookEdit", `{"notebook_path":"nb.ipynb","cell_id":"c1","new_source":"# Notes","cell_type":"markdown","edit_mode":"insert"}`)},
		fake.Turn{fake.Text("done")},
	)
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	if _, err := e.editor.Prompt(sid, "edit the notebook"); err != nil {
		t.Fatal(err)
	}
	if res := e.toolResults(1); len(res) != 1 || !strings.Contains(resultText(res[0]), `<cell id="c1" execution_count=1>`) || !strings.Contains(resultText(res[0]), "<output cell=\"c1\">\n1\n</output>") {
		t.Errorf("Read of the notebook = %v", res)
	}
	perms := e.editor.Permissions()
	if len(perms) != 2 || len(perms[0].ToolCall.Content) != 1 || perms[0].ToolCall.Content[0].Type != "diff" || !strings.Contains(perms[0].ToolCall.Content[0].NewText, `"print(2)"`) {
		t.Fatalf("permission requests = %+v", perms)
	}
	if n := len(e.editor.Edits()); n != 2 {
		t.Errorf("got %d applyEdit requests, want 2", n)
	}
	buf, ok := e.editor.Buffer(e.path("nb.ipynb"))
	if !ok {
		t.Fatal("the notebook is not in the editor's buffers")
	}
	var doc struct {
		Cells    []map[string]any `json:"cells"`
		NBFormat int              `json:"nbformat"`
	}
	if err := json.Unmarshal([]byte(buf.Text), &doc); err != nil || doc.NBFormat != 4 || len(doc.Cells) != 2 {
		t.Fatalf("notebook after the edits (%v):\n%s", err, buf.Text)
	}
	if c := doc.Cells[0]; c["execution_count"] != nil || len(c["outputs"].([]any)) != 0 || c["source"].([]any)[0] != "print(2)" {
		t.Errorf("edited cell = %v", c)
	}
	if c := doc.Cells[1]; c["cell_type"] != "markdown" || c["source"].([]any)[0] != "# Notes" {
		t.Errorf("inserted cell = %v", c)
	}
	if !strings.HasPrefix(buf.Text, "{\n \"cells\": [\n  {\n   \"cell_type\": \"code\",") {
		t.Errorf("the notebook lost Jupyter's layout:\n%s", buf.Text)
	}
	validateNBFormat(t, buf.Text)
}

// validateNBFormat checks a notebook with Python's nbformat (make deps
// installs Debian's python3-nbformat). Without it the test ends through
// testenv.Missing: call it after the checks in Go.
func validateNBFormat(t *testing.T, text string) {
	t.Helper()
	py := testenv.NeedPython(t, "nbformat", "python3-nbformat")
	f := filepath.Join(t.TempDir(), "nb.ipynb")
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py, "-c", "import sys, nbformat; nbformat.validate(nbformat.read(sys.argv[1], as_version=4))", f).CombinedOutput()
	if err != nil {
		t.Fatalf("nbformat rejects the notebook: %v\n%s", err, out)
	}
}

// TestWebSearchDoor: with a provider that has server-side web search,
// WebSearch runs a separate request offering Anthropic's web_search tool
// and returns the summary with the pages found; without one, the tool is
// not offered.
func TestWebSearchDoor(t *testing.T) {
	e := newEnvWith(t, nil, func(c *engine.Config) { c.WebSearch = true },
		fake.Turn{fake.ToolUse("toolu_1", "WebSearch", `{"query":"go release notes","allowed_domains":["go.dev"]}`)},
		fake.Turn{fake.WebSearch("srvtoolu_1", "go release notes", fake.SearchResult{Title: "Go 1.26 Release Notes", URL: "https://go.dev/doc/go1.26"}), fake.Text("Go 1.26 is out.")},
		fake.Turn{fake.Text("done")},
	)
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	if _, err := e.editor.Prompt(sid, "what is new in Go?"); err != nil {
		t.Fatal(err)
	}
	var search struct {
		Tools []map[string]any `json:"tools"`
	}
	if err := e.model.Requests()[1].Decode(&search); err != nil {
		t.Fatal(err)
	}
	if len(search.Tools) != 1 || search.Tools[0]["type"] != "web_search_20250305" || fmt.Sprint(search.Tools[0]["allowed_domains"]) != "[go.dev]" {
		t.Errorf("the search request's tools = %v", search.Tools)
	}
	res := e.toolResults(2)
	if len(res) != 1 || !strings.Contains(resultText(res[0]), "- [Go 1.26 Release Notes](https://go.dev/doc/go1.26)") || !strings.Contains(resultText(res[0]), "Go 1.26 is out.") {
		t.Errorf("WebSearch result = %v", res)
	}

	// Without a server-side search, no WebSearch tool.
	plain := newEnv(t, nil, fake.Turn{fake.Text("ok")})
	plain.editor.Initialize(plain.root, nil)
	psid := plain.editor.NewSession(plain.root)
	if _, err := plain.editor.Prompt(psid, "hi"); err != nil {
		t.Fatal(err)
	}
	if body := plain.requestText(0); strings.Contains(body, `"name":"WebSearch"`) || !strings.Contains(body, `"name":"WebFetch"`) {
		t.Error("WebSearch is offered without a provider that searches (or WebFetch is missing)")
	}
}

// TestCustomCommandPlainDoor: the plain LSP door runs a custom command
// typed as agent.prompt's text.
func TestCustomCommandPlainDoor(t *testing.T) {
	e := newEnv(t, map[string]string{
		".claude/commands/frontend/greet.md": greetCommand,
		"notes.txt":                          "NOTES-CONTENT\n",
	}, fake.Turn{fake.Text("Bonjour Bob")})
	e.editor.OnRequest(func(ctx context.Context, method string, params json.RawMessage) (any, error) {
		switch method {
		case "window/showMessageRequest":
			return map[string]string{"title": "Allow"}, nil
		case "window/workDoneProgress/create":
			return nil, nil
		}
		return nil, jsonrpc2.ErrNotHandled
	})
	e.editor.InitializeWith(map[string]any{
		"rootUri":      string(uri.File(e.root)),
		"capabilities": map[string]any{"window": map[string]any{"workDoneProgress": true}},
	})
	e.editor.MustCall("workspace/executeCommand", map[string]any{"command": "agent.prompt", "arguments": []any{"/greet Bob French"}}, nil)
	e.editor.WaitFor("the turn's end", func() bool { return progressEnded(e) })
	msg := lastMessage(t, e.model, 0)
	for _, want := range []string{"Say hello to Bob in French.", "from-bash", "NOTES-CONTENT"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the model's prompt lacks %q: %s", want, msg)
		}
	}
}

func progressEnded(e *env) bool {
	for _, n := range e.editor.Notifications() {
		if n.Method == "$/progress" && strings.Contains(string(n.Params), `"kind":"end"`) {
			return true
		}
	}
	return false
}

// TestParityToolsACP runs the skill, WebFetch and NotebookEdit on the ACP
// door (files on the disk, the editor offering no fs methods): a skill
// loaded and its file read without a question, two fetches of one domain
// asked about once, and a notebook edited into valid nbformat.
func TestParityToolsACP(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<h2>Changelog</h2><ul><li>fixed</li></ul>")
	}))
	defer srv.Close()
	fetch := func(id, path string) fake.Part {
		return fake.ToolUse(id, "WebFetch", fmt.Sprintf(`{"url":%q,"prompt":"what changed?"}`, srv.URL+path))
	}
	c := newACP(t, nil,
		fake.Turn{fake.ToolUse("toolu_1", "Skill", `{"skill":"notes"}`)},
		fake.Turn{fake.ToolUse("toolu_2", "Read", `{"file_path":"nb.ipynb"}`)},
		fake.Turn{fake.ToolUse("toolu_3", "NotebookEdit", `{"notebook_path":"nb.ipynb","cell_id":"cell-0","new_source":"x = 2"}`)},
		fake.Turn{fetch("toolu_4", "/a")},
		fake.Turn{fake.Text("Fixed things.")}, // the small model
		fake.Turn{fetch("toolu_5", "/b")},
		fake.Turn{fake.Text("Fixed things.")},
		fake.Turn{fake.Text("done")},
	)
	writeTree(t, c.root, map[string]string{
		".claude/skills/notes/SKILL.md": "---\ndescription: Edits notebooks\n---\nKeep cells short.\n",
		// nbformat 4.4: no cell ids, one-space indent.
		"nb.ipynb": "{\n \"cells\": [\n  {\n   \"cell_type\": \"code\",\n   \"execution_count\": null,\n   \"metadata\": {},\n   \"outputs\": [],\n   \"source\": [\n    \"x = 1\"\n   ]\n  }\n ],\n \"metadata\": {},\n \"nbformat\": 4,\n \"nbformat_minor\": 4\n}\n",
	})
	c.answer = func(p *schema.RequestPermissionParams) schema.RequestPermissionResult {
		for _, o := range p.Options {
			if o.Kind == schema.AllowAlways {
				return schema.RequestPermissionResult{Outcome: schema.PermissionOutcome{Outcome: "selected", OptionID: o.OptionID}}
			}
		}
		return schema.RequestPermissionResult{Outcome: schema.PermissionOutcome{Outcome: "selected", OptionID: "allow_once"}}
	}
	c.initialize(false)
	sid := c.newSession().SessionID
	if res := c.prompt(sid, "tidy the notebook"); res.StopReason != schema.StopEndTurn {
		t.Fatalf("stop = %q", res.StopReason)
	}
	if m := lastMessage(t, c.model, 1); !strings.Contains(m, "Keep cells short.") {
		t.Errorf("Skill result = %s", m)
	}
	text, err := os.ReadFile(filepath.Join(c.root, "nb.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), "\"source\": [\n    \"x = 2\"\n   ]") {
		t.Errorf("notebook after the edit:\n%s", text)
	}
	c.mu.Lock()
	perms := slices.Clone(c.perms)
	c.mu.Unlock()
	var titles []string
	for _, p := range perms {
		titles = append(titles, p.ToolCall.Title)
	}
	// The edit, then the first fetch only: the second is allowed by the
	// domain rule the first added.
	if len(perms) != 2 || perms[0].ToolCall.Kind != schema.KindEdit || perms[1].ToolCall.Kind != schema.KindFetch {
		t.Errorf("permission requests = %q", titles)
	}
	if m := lastMessage(t, c.model, 4); !strings.Contains(m, "## Changelog") || !strings.Contains(m, "- fixed") {
		t.Errorf("small model's request = %s", m)
	}
	validateNBFormat(t, string(text))
}

// TestUserCommandsLive: the user's commands (~/.claude/commands, outside
// the workspace) are announced, and announced again when one is added.
func TestUserCommandsLive(t *testing.T) {
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t, home, map[string]string{".claude/commands/mine.md": "---\ndescription: My command\n---\nDo mine.\n"})
	e := newEnvWith(t, nil, func(c *engine.Config) { c.Home = home })
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	e.editor.WaitFor("the user's command announced", func() bool {
		c, ok := findCommand(e.editor.Updates(sid), "mine")
		return ok && c.Description == "My command (user)"
	})
	n := 0
	e.editor.WaitFor("the added user command announced", func() bool {
		if n++; n%20 == 1 { // the watcher may start after the first write
			writeTree(t, home, map[string]string{".claude/commands/tools/added.md": fmt.Sprintf("Added %d\n", n)})
		}
		c, ok := findCommand(e.editor.Updates(sid), "added")
		return ok && strings.HasSuffix(c.Description, "(user:tools)")
	})
}
