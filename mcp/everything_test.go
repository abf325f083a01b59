package mcp

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/internal/testenv"
)

// everythingEntry returns the entry point of the reference server that
// scripts/install-mcp-everything.sh installs, skipping the test when it
// is not installed.
func everythingEntry(t *testing.T) string {
	t.Helper()
	path := os.Getenv("AGENT_LSP_MCP_EVERYTHING")
	if path == "" {
		path = filepath.Join(testenv.CacheDir(), "mcp-everything", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	}
	return testenv.NeedFile(t, path, "@modelcontextprotocol/server-everything", "run scripts/install-mcp-everything.sh")
}

// TestEverythingServer runs the MCP reference server from npm with the
// machine's node: its tools listed with their annotations, text, image,
// embedded resource and resource link results mapped, the tool it adds
// after initialize (it needs roots) picked up, and its process group gone
// after Close.
func TestEverythingServer(t *testing.T) {
	entry := everythingEntry(t)
	node := testenv.NeedTool(t, "node")
	root := t.TempDir()
	r := newRecorder()
	opts := r.options()
	opts.Roots = []string{root}
	m := Start(context.Background(), []Server{{Name: "everything", Type: TypeStdio, Command: node, Args: []string{entry, "stdio"}}}, opts)
	defer m.Close()

	echo := r.mustTool(t, "everything", "mcp__everything__echo")
	spec := echo.Spec()
	if !spec.ReadOnly || spec.Description != "Echoes back the input string" || !strings.Contains(string(spec.InputSchema), `"message"`) {
		t.Errorf("echo spec = %+v, schema %s", spec, spec.InputSchema)
	}
	if res := call(t, echo, `{"message":"hello"}`); res.IsError || res.Content != "Echo: hello" {
		t.Errorf("echo = %+v", res)
	}
	if res := call(t, echo, `{}`); !res.IsError {
		t.Errorf("echo without its message = %+v", res)
	}

	res := call(t, r.mustTool(t, "everything", "mcp__everything__get-tiny-image"), `{}`)
	if res.IsError || len(res.Images) != 1 || res.Images[0].MediaType != "image/png" || !strings.HasPrefix(res.Images[0].Data, "iVBORw0KGgo") {
		t.Errorf("get-tiny-image = %+v", res)
	}
	if !strings.Contains(res.Content, "Here's the image you requested:") {
		t.Errorf("get-tiny-image text = %q", res.Content)
	}

	res = call(t, r.mustTool(t, "everything", "mcp__everything__get-resource-reference"), `{"resourceType":"Text","resourceId":2}`)
	if res.IsError || !regexp.MustCompile(`\[resource \S+/2 \(text/plain\)\]\n.+`).MatchString(res.Content) {
		t.Errorf("get-resource-reference = %+v", res)
	}

	res = call(t, r.mustTool(t, "everything", "mcp__everything__get-resource-links"), `{"count":2}`)
	if res.IsError || strings.Count(res.Content, "[resource link] ") != 2 {
		t.Errorf("get-resource-links = %+v", res)
	}

	// Registered once the server knows the client offers roots.
	res = call(t, r.mustTool(t, "everything", "mcp__everything__get-roots-list"), `{}`)
	if res.IsError || !strings.Contains(res.Content, root) {
		t.Errorf("get-roots-list = %+v", res)
	}

	// Its resources and prompts, as the resource tools and the prompt
	// commands use them.
	st := r.waitState(t, "everything", StateReady)
	if !st.HasResources || st.Resources == 0 || len(st.Prompts) == 0 {
		t.Errorf("status = %+v", st)
	}
	ctx := context.Background()
	resources, err := m.ListResources(ctx, "everything")
	if err != nil || len(resources) == 0 {
		t.Fatalf("resources = %v, %v", resources, err)
	}
	var doc string
	for _, res := range resources {
		if strings.HasPrefix(res.URI, "demo://resource/static/document/") && res.MIMEType == "text/markdown" {
			doc = res.URI
		}
	}
	if text, err := m.ReadResource(ctx, "everything", doc); err != nil || strings.TrimSpace(text) == "" {
		t.Errorf("reading %s = %q, %v", doc, text, err)
	}
	if text, err := m.GetPrompt(ctx, "everything", "args-prompt", "Paris France"); err != nil || text != "What's weather in Paris, France?" {
		t.Errorf("args-prompt = %q, %v", text, err)
	}
	if text, err := m.GetPrompt(ctx, "everything", "simple-prompt", ""); err != nil || text != "This is a simple prompt without arguments." {
		t.Errorf("simple-prompt = %q, %v", text, err)
	}

	pid := echo.(*tool).c.proc.pgid()
	if !alive(pid) {
		t.Fatalf("server process %d not running before Close", pid)
	}
	m.Close()
	checkGone(t, pid)
	checkNoGoroutines(t)
}
