package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestResourcesPromptsReconnect runs a server with resources and prompts:
// its status counts them, the resource tools list and read them (text
// bounded, binary noted), a prompt runs with its arguments, and
// Reconnect starts a new process whose tools come back.
func TestResourcesPromptsReconnect(t *testing.T) {
	r := newRecorder()
	opts := r.options()
	opts.ResultBudget = 1000
	m := Start(context.Background(), []Server{testServer(t, "rich", "rich"), testServer(t, "plain", "tools")}, opts)
	defer m.Close()

	st := r.waitState(t, "rich", StateReady)
	if !st.HasResources || st.Resources != 3 || len(st.Prompts) != 2 || st.String() != `MCP server "rich" ready: 1 tools, 3 resources, 2 prompts` {
		t.Errorf("status = %+v (%s)", st, st)
	}
	var review Prompt
	for _, p := range st.Prompts {
		if p.Name == "review" {
			review = p
		}
	}
	if review.Description != "Review a file for a reader" || review.ArgumentHint() != "<file> [audience]" {
		t.Errorf("review = %+v, hint %q", review, review.ArgumentHint())
	}
	r.waitState(t, "plain", StateReady)
	if got := m.ResourceServers(); strings.Join(got, " ") != "rich" {
		t.Errorf("resource servers = %v", got)
	}

	tls := ResourceTools(func() []*Manager { return []*Manager{nil, m} })
	list, read := tls[0], tls[1]
	if list.Spec().Name != "ListMcpResourcesTool" || read.Spec().Name != "ReadMcpResourceTool" || !list.Spec().ReadOnly {
		t.Errorf("specs %+v %+v", list.Spec(), read.Spec())
	}
	res := call(t, list, `{}`)
	var listed []Resource
	if err := json.Unmarshal([]byte(res.Content), &listed); err != nil || res.IsError || len(listed) != 3 {
		t.Fatalf("list = %+v (%v)", res, err)
	}
	if l := listed[0]; l.Server != "rich" || !strings.HasPrefix(l.URI, "notes://team/") || l.Description == "" {
		t.Errorf("listed %+v", listed)
	}
	if res := call(t, list, `{"server":"plain"}`); !res.IsError || !strings.Contains(res.Content, "offers no resources") {
		t.Errorf("list of a server without resources = %+v", res)
	}
	if res := call(t, list, `{"server":"ghost"}`); !res.IsError || !strings.Contains(res.Content, `no MCP server named "ghost"`) {
		t.Errorf("list of an unknown server = %+v", res)
	}
	for input, want := range map[string]string{
		`{"server":"rich","uri":"notes://team/todo"}`: "ship the release",
		`{"server":"rich","uri":"notes://team/logo"}`: "[binary resource notes://team/logo (image/png): 70 bytes, not shown]",
	} {
		if res := call(t, read, input); res.IsError || res.Content != want {
			t.Errorf("read %s = %+v", input, res)
		}
	}
	if res := call(t, read, `{"server":"rich","uri":"notes://team/big"}`); res.IsError || len(res.Content) > 1500 || !strings.HasPrefix(res.Content, "yyyy") {
		t.Errorf("big resource: %d characters, error %v", len(res.Content), res.IsError)
	}
	for input, want := range map[string]string{
		`{"server":"rich","uri":"notes://team/none"}`: "reading notes://team/none",
		`{"server":"rich"}`:                           "uri is required",
		`{"uri":"x"}`:                                 "server is required",
	} {
		if res := call(t, read, input); !res.IsError || !strings.Contains(res.Content, want) {
			t.Errorf("read %s = %+v, want an error with %q", input, res, want)
		}
	}

	ctx := context.Background()
	text, err := m.GetPrompt(ctx, "rich", "review", "main.go  newcomers and more")
	if err != nil || text != "Review main.go for newcomers.\n\n[resource notes://team/todo (text/plain)]\nship the release" {
		t.Errorf("review = %q, %v", text, err)
	}
	if _, err := m.GetPrompt(ctx, "rich", "review", " "); err == nil || err.Error() != "missing required argument: file. Usage: /mcp__rich__review file audience" {
		t.Errorf("review without its file: %v", err)
	}
	if _, err := m.GetPrompt(ctx, "rich", "nope", ""); err == nil {
		t.Error("an unknown prompt ran")
	}

	pid := call(t, r.mustTool(t, "rich", "mcp__rich__pid"), `{}`).Content
	if err := m.Reconnect("rich"); err != nil {
		t.Fatal(err)
	}
	if st, _ := m.Status("rich"); st.State != StateStarting {
		t.Errorf("right after Reconnect: %s (a new process cannot be ready yet)", st.State)
	}
	var again string
	waitFor(t, "a new process", func() bool {
		tl := r.tool("rich", "mcp__rich__pid")
		if tl == nil {
			return false
		}
		again = call(t, tl, `{}`).Content
		return again != pid && !strings.Contains(again, "not running")
	})
	if st := r.waitState(t, "rich", StateReady); st.Resources != 3 {
		t.Errorf("after reconnect: %+v", st)
	}
	if err := m.Reconnect("ghost"); err == nil {
		t.Error("reconnected an unknown server")
	}
	m.Close()
	checkNoGoroutines(t)
}
