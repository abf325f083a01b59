package mcp

import (
	"context"
	"encoding/base64"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/schema"
)

// TestStdioServer runs a server built from the SDK as a separate process:
// tools listed with their schema and annotations, results of each kind
// mapped, a tool added while running, and Close ending the process group.
func TestStdioServer(t *testing.T) {
	r := newRecorder()
	opts := r.options()
	opts.ResultBudget = 300
	opts.Roots = []string{t.TempDir()}
	m := Start(context.Background(), []Server{testServer(t, "test", "tools")}, opts)
	defer m.Close()

	st := r.waitState(t, "test", StateReady)
	want := []string{"mcp__test__add_tool", "mcp__test__big", "mcp__test__block", "mcp__test__crash", "mcp__test__echo", "mcp__test__fail", "mcp__test__image", "mcp__test__pid", "mcp__test__resources"}
	if got := r.names("test"); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("tools = %v, want %v", got, want)
	}
	if st.Tools != len(want) || st.String() != `MCP server "test" ready: 9 tools` {
		t.Errorf("status = %+v (%s)", st, st)
	}

	echo := r.tool("test", "mcp__test__echo")
	spec := echo.Spec()
	if !spec.ReadOnly || spec.Kind != schema.KindOther || spec.Description != "Echoes its text." {
		t.Errorf("echo spec = %+v", spec)
	}
	if !strings.Contains(string(spec.InputSchema), `"text"`) || !strings.Contains(string(spec.InputSchema), `"object"`) {
		t.Errorf("echo schema = %s", spec.InputSchema)
	}
	if r.tool("test", "mcp__test__image").Spec().ReadOnly {
		t.Error("image is read-only without a readOnlyHint")
	}

	if res := call(t, echo, `{"text":"hi"}`); res.IsError || res.Content != "echo: hi" {
		t.Errorf("echo = %+v", res)
	}
	if res := call(t, echo, `[1]`); !res.IsError || !strings.Contains(res.Content, "JSON object") {
		t.Errorf("echo with an array = %+v", res)
	}
	if res := call(t, echo, `{"text":3}`); !res.IsError {
		t.Errorf("echo with a number (the server validates) = %+v", res)
	}

	res := call(t, r.tool("test", "mcp__test__image"), ``)
	if res.IsError || res.Content != "a pixel:" || len(res.Images) != 1 {
		t.Fatalf("image = %+v", res)
	}
	if img := res.Images[0]; img.MediaType != "image/png" || img.Data != base64.StdEncoding.EncodeToString(pixelPNG) {
		t.Errorf("image = %+v", img)
	}

	res = call(t, r.tool("test", "mcp__test__big"), `{"size":5000}`)
	if res.IsError || len(res.Content) > 1000 || !strings.Contains(res.Content, "characters omitted") {
		t.Errorf("big result not cut to the budget: %d characters: %.200q", len(res.Content), res.Content)
	}

	res = call(t, r.tool("test", "mcp__test__fail"), `{}`)
	if !res.IsError || !strings.Contains(res.Content, "the tool failed on purpose") {
		t.Errorf("fail = %+v", res)
	}

	res = call(t, r.tool("test", "mcp__test__resources"), `{}`)
	for _, want := range []string{
		"[resource file:///notes.txt (text/plain)]\nthe notes",
		"[resource file:///data.bin (application/octet-stream): 3 bytes of binary data omitted]",
		"[resource link] doc: https://example.com/doc (text/html) - the docs",
	} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("resources result lacks %q:\n%s", want, res.Content)
		}
	}

	// A tool added while running shows after notifications/tools/list_changed.
	if res := call(t, r.tool("test", "mcp__test__add_tool"), `{"name":"later"}`); res.IsError {
		t.Fatalf("add_tool = %+v", res)
	}
	later := r.mustTool(t, "test", "mcp__test__later")
	if res := call(t, later, `{}`); res.Content != "I am later" {
		t.Errorf("later = %+v", res)
	}
	r.waitState(t, "test", StateReady)
	if st, _ := r.status("test"); st.Tools != len(want)+1 {
		t.Errorf("status after the change = %s", st)
	}

	// Close ends the server and the child it started.
	res = call(t, r.tool("test", "mcp__test__pid"), `{}`)
	f := strings.Fields(res.Content)
	if len(f) != 2 {
		t.Fatalf("pid = %+v", res)
	}
	server, _ := strconv.Atoi(f[0])
	child, _ := strconv.Atoi(f[1])
	if !alive(server) || !alive(child) {
		t.Fatalf("server %d or child %d not running before Close", server, child)
	}
	n := len(r.statuses)
	m.Close()
	checkGone(t, server, child)
	checkNoGoroutines(t)
	if len(r.statuses) != n {
		t.Errorf("statuses reported during Close: %v", r.statuses[n:])
	}
	if res := call(t, echo, `{"text":"hi"}`); !res.IsError || res.Content != `MCP server "test" is not running` {
		t.Errorf("call after Close = %+v", res)
	}
}

// TestServerCrashesWhileRunning: a server that exits in the middle of a
// call fails the call, is reported with its exit status and stderr, and
// its tools are removed.
func TestServerCrashesWhileRunning(t *testing.T) {
	r := newRecorder()
	m := Start(context.Background(), []Server{testServer(t, "test", "tools")}, r.options())
	defer m.Close()
	crash := r.mustTool(t, "test", "mcp__test__crash")
	if res := call(t, crash, `{}`); !res.IsError {
		t.Errorf("crash = %+v", res)
	}
	st := r.waitState(t, "test", StateFailed)
	if msg := st.Err.Error(); !strings.Contains(msg, "exit status 3") || !strings.Contains(msg, "crashing now") {
		t.Errorf("failure = %v", msg)
	}
	waitFor(t, "tools removed", func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.removed["test"] && r.tools["test"] == nil
	})
	if !strings.Contains(r.log(), `MCP server "test" failed: exited: exit status 3`) {
		t.Errorf("failure not logged:\n%s", r.log())
	}
	m.Close()
	checkNoGoroutines(t)
}

// TestBrokenServersDoNotBlock: a server that crashes at start and one that
// never answers initialize delay neither Start nor the good server; both
// are reported with their errors, and the hanging one's process group
// (which ignores SIGTERM) is killed.
func TestBrokenServersDoNotBlock(t *testing.T) {
	r := newRecorder()
	opts := r.options()
	opts.StartTimeout = 3 * time.Second
	opts.Grace = 200 * time.Millisecond
	begin := time.Now()
	m := Start(context.Background(), []Server{
		testServer(t, "crash", "crash"),
		testServer(t, "hang", "hang"),
		testServer(t, "good", "tools"),
	}, opts)
	defer m.Close()
	if d := time.Since(begin); d > 500*time.Millisecond {
		t.Errorf("Start took %v", d)
	}

	r.waitState(t, "good", StateReady)
	if st, _ := r.status("hang"); st.State != StateStarting {
		t.Errorf("hang is %s when good is ready", st.State)
	}
	st := r.waitState(t, "crash", StateFailed)
	if msg := st.Err.Error(); !strings.Contains(msg, "exit status 2") || !strings.Contains(msg, "boom: no configuration found") {
		t.Errorf("crash failure = %v", msg)
	}
	child := childPid(t, r)
	st = r.waitState(t, "hang", StateFailed)
	if msg := st.Err.Error(); !strings.Contains(msg, "no answer to initialize within 3s") {
		t.Errorf("hang failure = %v", msg)
	}
	if res := call(t, r.tool("good", "mcp__good__echo"), `{"text":"still here"}`); res.Content != "echo: still here" {
		t.Errorf("good server after the others failed = %+v", res)
	}
	// The hanging server's group was stopped when it failed.
	waitFor(t, "the hanging server's child to end", func() bool { return !alive(child) })
	m.Close()
	checkGone(t, child)
	checkNoGoroutines(t)
}

// TestCloseDuringCall: a call in progress returns an error result when the
// Manager closes, and Close does not wait for the server to answer it.
func TestCloseDuringCall(t *testing.T) {
	r := newRecorder()
	m := Start(context.Background(), []Server{testServer(t, "test", "tools")}, r.options())
	block := r.mustTool(t, "test", "mcp__test__block")
	done := make(chan string)
	go func() { done <- call(t, block, `{}`).Content }()
	time.Sleep(200 * time.Millisecond)
	begin := time.Now()
	m.Close()
	if d := time.Since(begin); d > 3*time.Second {
		t.Errorf("Close took %v", d)
	}
	select {
	case got := <-done:
		if !strings.Contains(got, "stopped before block returned") {
			t.Errorf("blocked call = %q", got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the blocked call did not return after Close")
	}
	checkNoGoroutines(t)
}

// TestCallTimeout bounds a call with Options.CallTimeout.
func TestCallTimeout(t *testing.T) {
	r := newRecorder()
	opts := r.options()
	opts.CallTimeout = 300 * time.Millisecond
	m := Start(context.Background(), []Server{testServer(t, "test", "tools")}, opts)
	defer m.Close()
	res := call(t, r.mustTool(t, "test", "mcp__test__block"), `{}`)
	if !res.IsError || !strings.Contains(res.Content, "did not return within 300ms") {
		t.Errorf("block = %+v", res)
	}
	// The server still works.
	if res := call(t, r.tool("test", "mcp__test__echo"), `{"text":"ok"}`); res.Content != "echo: ok" {
		t.Errorf("echo after a timeout = %+v", res)
	}
}

// TestStartContext: the servers stop when Start's context ends.
func TestStartContext(t *testing.T) {
	r := newRecorder()
	ctx, cancel := context.WithCancel(context.Background())
	m := Start(ctx, []Server{testServer(t, "test", "tools")}, r.options())
	res := call(t, r.mustTool(t, "test", "mcp__test__pid"), `{}`)
	f := strings.Fields(res.Content)
	server, _ := strconv.Atoi(f[0])
	cancel()
	waitFor(t, "the server to stop", func() bool { return !alive(server) })
	m.Close()
	checkNoGoroutines(t)
}

// TestNotStarted: servers that need approval or are disabled are reported
// and not started; a command that does not exist fails.
func TestNotStarted(t *testing.T) {
	r := newRecorder()
	m := Start(context.Background(), []Server{
		{Name: "new", Scope: ScopeProject, Type: TypeStdio, Command: "/bin/false", NeedsApproval: true},
		{Name: "off", Scope: ScopeProject, Type: TypeStdio, Command: "/bin/false", Disabled: true},
		{Name: "missing", Type: TypeStdio, Command: "agent-lsp-no-such-command"},
		{Name: "missing", Type: TypeStdio, Command: "/bin/true"},
	}, r.options())
	defer m.Close()
	st := r.waitState(t, "new", StateNeedsApproval)
	if !strings.Contains(st.String(), "enabledMcpjsonServers") {
		t.Errorf("needs approval message = %s", st)
	}
	r.waitState(t, "off", StateDisabled)
	st = r.waitState(t, "missing", StateFailed)
	if !strings.Contains(st.Err.Error(), "executable file not found") {
		t.Errorf("missing command = %v", st.Err)
	}
	if !strings.Contains(r.log(), `MCP server "missing" is configured twice`) {
		t.Errorf("duplicate not logged:\n%s", r.log())
	}
	m.Close()
	got := m.Statuses()
	if len(got) != 3 || got[0].Server != "missing" || got[1].State != StateNeedsApproval || got[2].State != StateDisabled {
		t.Errorf("Statuses = %v", got)
	}
}
