package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// requireToken lets through only requests bearing the token.
func requireToken(token string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// TestHTTPServer talks to a streamable HTTP server from the SDK: headers
// sent, tools listed and called, a tool added while running picked up
// through the server's notifications; a wrong token fails.
func TestHTTPServer(t *testing.T) {
	srv := newToolServer()
	ts := httptest.NewServer(requireToken("secret", sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)))
	defer ts.Close()

	r := newRecorder()
	m := Start(context.Background(), []Server{
		{Name: "web", Type: TypeHTTP, URL: ts.URL, Headers: map[string]string{"Authorization": "Bearer secret"}},
		{Name: "denied", Type: TypeHTTP, URL: ts.URL, Headers: map[string]string{"Authorization": "Bearer wrong"}},
	}, r.options())
	defer m.Close()

	echo := r.mustTool(t, "web", "mcp__web__echo")
	if res := call(t, echo, `{"text":"over http"}`); res.IsError || res.Content != "echo: over http" {
		t.Errorf("echo = %+v", res)
	}
	if res := call(t, r.tool("web", "mcp__web__image"), `{}`); len(res.Images) != 1 {
		t.Errorf("image = %+v", res)
	}
	if res := call(t, r.tool("web", "mcp__web__add_tool"), `{"name":"later"}`); res.IsError {
		t.Fatalf("add_tool = %+v", res)
	}
	if res := call(t, r.mustTool(t, "web", "mcp__web__later"), `{}`); res.Content != "I am later" {
		t.Errorf("later = %+v", res)
	}

	st := r.waitState(t, "denied", StateFailed)
	if !strings.Contains(st.Err.Error(), "Unauthorized") && !strings.Contains(st.Err.Error(), "401") {
		t.Errorf("denied failure = %v", st.Err)
	}

	m.Close()
	ts.Close()
	checkNoGoroutines(t)
}

// TestSSEServer talks to a server over the older HTTP+SSE transport.
func TestSSEServer(t *testing.T) {
	srv := newToolServer()
	ts := httptest.NewServer(sdk.NewSSEHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	defer ts.Close()

	r := newRecorder()
	m := Start(context.Background(), []Server{{Name: "events", Type: TypeSSE, URL: ts.URL}}, r.options())
	defer m.Close()
	echo := r.mustTool(t, "events", "mcp__events__echo")
	if res := call(t, echo, `{"text":"over sse"}`); res.IsError || res.Content != "echo: over sse" {
		t.Errorf("echo = %+v", res)
	}
	m.Close()
	ts.Close()
	checkNoGoroutines(t)
}

// TestHTTPServerGoesAway: a server that goes away fails calls at once, and
// is reported, its tools removed, once the SDK gives up reconnecting.
func TestHTTPServerGoesAway(t *testing.T) {
	srv := newToolServer()
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	defer ts.Close()

	r := newRecorder()
	m := Start(context.Background(), []Server{{Name: "web", Type: TypeHTTP, URL: ts.URL}}, r.options())
	defer m.Close()
	echo := r.mustTool(t, "web", "mcp__web__echo")
	ts.CloseClientConnections()
	ts.Close()
	if res := call(t, echo, `{"text":"anyone?"}`); !res.IsError {
		t.Errorf("echo to a stopped server = %+v", res)
	}
	// The SDK reconnects five times, with backoff, before it gives up
	// (about 20 s).
	st := r.waitState(t, "web", StateFailed)
	if !strings.Contains(st.Err.Error(), "connection lost") {
		t.Errorf("failure = %v", st.Err)
	}
	if r.tool("web", "mcp__web__echo") != nil {
		t.Error("the tools of a lost server are still offered")
	}
	m.Close()
	checkNoGoroutines(t)
}
