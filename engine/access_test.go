package engine

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-lsp/agent-lsp/permission"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/settings"
	"github.com/agent-lsp/agent-lsp/tools"
)

// scratchTool is a tool defined only here, as a new tool would be: it
// reads or edits the file its input's "target" names, and records that
// it ran.
type scratchTool struct {
	spec tools.Spec
	ran  chan string
}

func (s *scratchTool) Spec() tools.Spec { return s.spec }

func (s *scratchTool) Run(_ context.Context, input json.RawMessage) *tools.Result {
	if s.ran != nil {
		s.ran <- s.spec.Name
	}
	return tools.Text("done")
}

// scratchTools are a new reading tool, a new editing tool, and a tool
// that declares nothing.
func scratchTools(ran chan string) []tools.Tool {
	schemaJSON := json.RawMessage(`{"type":"object","properties":{"target":{"type":"string"}}}`)
	return []tools.Tool{
		&scratchTool{ran: ran, spec: tools.Spec{Name: "ScratchRead", Description: "reads target", InputSchema: schemaJSON, Kind: schema.KindRead, ReadOnly: true, Access: tools.AccessRead, PathFields: []string{"target"}}},
		&scratchTool{ran: ran, spec: tools.Spec{Name: "ScratchEdit", Description: "edits target", InputSchema: schemaJSON, Kind: schema.KindEdit, Access: tools.AccessEdit, PathFields: []string{"target"}}},
		&scratchTool{ran: ran, spec: tools.Spec{Name: "ScratchUndeclared", Description: "does something", InputSchema: schemaJSON}},
	}
}

// fakeCode is language servers that are never asked: enough for the
// Diagnostics and LSP tools to be offered.
type fakeCode struct{ tools.CodeIntel }

// kvServer is a real MCP server, in process, with a read-only tool, a
// destructive one and one that says nothing of itself.
func kvServer(t *testing.T) string {
	t.Helper()
	srv := sdk.NewServer(&sdk.Implementation{Name: "kv", Version: "1"}, nil)
	type in struct {
		Key string `json:"key"`
	}
	handler := func(_ context.Context, _ *sdk.CallToolRequest, in in) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: in.Key}}}, nil, nil
	}
	destructive := true
	sdk.AddTool(srv, &sdk.Tool{Name: "get", Description: "Gets a key.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}}, handler)
	sdk.AddTool(srv, &sdk.Tool{Name: "drop", Description: "Drops a key.", Annotations: &sdk.ToolAnnotations{DestructiveHint: &destructive}}, handler)
	sdk.AddTool(srv, &sdk.Tool{Name: "touch", Description: "Touches a key."}, handler)
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	return hs.URL
}

// registeredTools returns every tool a session can offer: the built-in
// ones (the language server tools too), the subagent and skill tools, an
// MCP server's tools, and the scratch tools.
func registeredTools(t *testing.T) (dir string, all []tools.Tool) {
	t.Helper()
	url := kvServer(t)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	svc := NewService(Config{Provider: newScript(t), Model: "test-model", Home: t.TempDir(), Logf: t.Logf, Settings: &settings.Settings{Project: dir}})
	t.Cleanup(svc.Close)
	sess, err := svc.NewSession(context.Background(), SessionOptions{Cwd: dir, Client: &recordingClient{t: t}, MCPServers: []schema.MCPServer{{Type: "http", Name: "kv", URL: url}}})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, ok := sess.tools.lookup("mcp__kv__touch"); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the MCP server's tools never joined the session")
		}
		time.Sleep(10 * time.Millisecond)
	}
	all = sess.tools.all()
	for _, c := range tools.New(&tools.Env{Code: fakeCode{}}) {
		if name := c.Spec().Name; name == "Diagnostics" || name == "LSP" {
			all = append(all, c)
		}
	}
	all = append(all, scratchTools(nil)...)
	return dir, all
}

// TestDenyRulesCoverEveryTool walks every registered tool: a Read deny
// rule covers each tool that reads files, an Edit deny rule each tool
// that edits them, on a denied path named in the input fields its spec
// declares (or, for an MCP tool, which cannot tell its paths, and a tool
// that declares nothing, as a bare rule), and a tool whose spec declares nothing is never allowed
// unasked. A new tool that reads or edits files fails here until its
// spec says what it touches.
func TestDenyRulesCoverEveryTool(t *testing.T) {
	dir, all := registeredTools(t)
	secret := filepath.Join(dir, "secret", "key.txt")
	decide := func(mode permission.Mode, deny []string, spec tools.Spec, input json.RawMessage) permission.Decision {
		st := &settings.Settings{Home: t.TempDir()}
		for _, r := range deny {
			st.Permissions.Deny = append(st.Permissions.Deny, settings.Rule{Text: r})
		}
		return permission.NewPolicy(dir, st, mode).Decide(permissionCall(spec, input, nil, dir))
	}
	seen := map[string]bool{}
	for _, tool := range all {
		spec := tool.Spec()
		seen[spec.Name] = true
		reads := spec.Access == tools.AccessRead || spec.Access == tools.AccessUndeclared
		edits := spec.Access == tools.AccessEdit || spec.Access == tools.AccessUndeclared
		input := json.RawMessage(`{}`)
		if len(spec.PathFields) > 0 {
			fields := map[string]string{}
			for _, f := range spec.PathFields {
				fields[f] = secret
			}
			input, _ = json.Marshal(fields)
		}
		for _, fam := range []struct {
			name   string
			covers bool
		}{{"Read", reads}, {"Edit", edits}} {
			if !fam.covers {
				continue
			}
			rule := fam.name + "(secret/**)"
			if len(spec.PathFields) == 0 {
				// An MCP tool cannot tell its paths, and an undeclared
				// tool said nothing: bare rules must cover them.
				if !strings.HasPrefix(spec.Name, "mcp__") && spec.Access != tools.AccessUndeclared {
					t.Errorf("%s (%v access) declares no PathFields: an %s rule on a path cannot cover it", spec.Name, spec.Access, fam.name)
					continue
				}
				rule = fam.name
			}
			for _, mode := range []permission.Mode{permission.Default, permission.AcceptEdits, permission.BypassPermissions} {
				if d := decide(mode, []string{rule}, spec, input); d.Verdict != permission.Deny {
					t.Errorf("%s in %s mode, deny %s: %v (%s), want deny", spec.Name, mode, rule, d.Verdict, d.Reason)
				}
			}
		}
		if spec.Access == tools.AccessUndeclared && !spec.ReadOnly {
			inside, _ := json.Marshal(map[string]string{"target": filepath.Join(dir, "a.txt")})
			for _, mode := range []permission.Mode{permission.Default, permission.AcceptEdits, permission.DontAsk, permission.Plan} {
				if d := decide(mode, nil, spec, inside); d.Verdict == permission.Allow {
					t.Errorf("%s declares nothing, yet in %s mode it runs unasked (%s)", spec.Name, mode, d.Reason)
				}
			}
		}
	}
	for _, name := range []string{"Read", "Write", "Edit", "MultiEdit", "Glob", "Grep", "LS", "NotebookEdit", "Diagnostics", "LSP", "Agent", "mcp__kv__get", "mcp__kv__drop", "mcp__kv__touch", "ScratchRead", "ScratchEdit", "ScratchUndeclared"} {
		if !seen[name] {
			t.Errorf("%s was not walked", name)
		}
	}
}

// TestNewToolsRefusedOnDeniedPaths runs the scratch tools through a
// session in acceptEdits mode: a new editing tool may not change, nor a
// new reading tool read, a file the deny rules cover, and neither runs.
func TestNewToolsRefusedOnDeniedPaths(t *testing.T) {
	ran := make(chan string, 4)
	model := newScript(t)
	h := newHarness(t, model, nil, func(c *Config) {
		c.Settings.Permissions.DefaultMode = string(permission.AcceptEdits)
		c.Settings.Permissions.Deny = []settings.Rule{{Text: "Read(secret/**)"}, {Text: "Edit(secret/**)"}}
	})
	h.sess.SetTools("scratch", scratchTools(ran))
	secret := filepath.Join(h.dir, "secret", "key.txt")
	model.steps = append(model.steps,
		calls(call{"toolu_1", "ScratchRead", map[string]string{"target": secret}}),
		calls(call{"toolu_2", "ScratchEdit", map[string]string{"target": "secret/key.txt"}}),
		say("done"),
	)
	h.prompt(t, "go")
	for _, id := range []string{"toolu_1", "toolu_2"} {
		if r := h.toolResult(t, id); !r.IsError || !strings.Contains(resultText(r), "denied") {
			t.Errorf("%s: %s, want a denial", id, resultText(r))
		}
	}
	select {
	case name := <-ran:
		t.Errorf("%s ran on a denied path", name)
	default:
	}
}
