package engine

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agent-lsp/agent-lsp/sandbox"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/tools"
)

// TestPermissionLabels: a permission request names the action in the
// user's words (the verb and the path relative to the session's folder,
// or the command itself), the model's description is secondary text, and
// the options say their scope in words with the rule as _meta.
func TestPermissionLabels(t *testing.T) {
	tests := []struct {
		name        string
		steps       func(dir string) []step
		title       string
		description string
		options     []string
		rule        string // of the allow_always option; "" when there is none
	}{
		{
			name: "Edit",
			steps: func(dir string) []step {
				p := filepath.Join(dir, "calc.go")
				return []step{use("r", "Read", map[string]any{"file_path": p}), use("t", "Edit", map[string]any{"file_path": p, "old_string": "x / 3", "new_string": "x / 2"})}
			},
			title:   "Edit calc.go",
			options: []string{"Allow", "Always allow edits to calc.go", "Reject", "Always reject edits to calc.go"},
			rule:    "Edit(/calc.go)",
		},
		{
			name: "Write in a folder",
			steps: func(dir string) []step {
				return []step{use("t", "Write", map[string]any{"file_path": filepath.Join(dir, "docs", "notes.md"), "content": "hi\n"})}
			},
			title:   "Write docs/notes.md",
			options: []string{"Allow", "Always allow edits in docs/", "Reject", "Always reject edits in docs/"},
			rule:    "Edit(docs/**)",
		},
		{
			name: "Bash",
			steps: func(dir string) []step {
				return []step{use("t", "Bash", map[string]any{"command": "go test ./...", "description": "Run the tests"})}
			},
			title:       "Run `go test ./...`",
			description: "Run the tests",
			options:     []string{"Allow", "Always allow `go test …` commands", "Reject", "Always reject `go test …` commands"},
			rule:        "Bash(go test:*)",
		},
		{
			name: "WebFetch",
			steps: func(dir string) []step {
				return []step{use("t", "WebFetch", map[string]any{"url": "https://example.com/page", "prompt": "summarize"})}
			},
			title:   "Fetch example.com/page",
			options: []string{"Allow", "Always allow fetches from example.com", "Reject", "Always reject fetches from example.com"},
			rule:    "WebFetch(domain:example.com)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := newScript(t)
			client := &recordingClient{answers: []answer{pick(optRejectOnce)}}
			h := newHarness(t, model, client, nil)
			os.WriteFile(filepath.Join(h.dir, "calc.go"), []byte("package calc\n\nfunc Half(x int) int { return x / 3 }\n"), 0o644)
			model.steps = append(tt.steps(h.dir), say("ok"))
			h.prompt(t, "go")
			asked := client.permissionRequests()
			if len(asked) != 1 {
				t.Fatalf("%d permission requests, want 1; result %q", len(asked), resultText(h.toolResult(t, "t")))
			}
			p := asked[0]
			if p.ToolCall.Title != tt.title {
				t.Errorf("title %q, want %q", p.ToolCall.Title, tt.title)
			}
			ours, _ := p.ToolCall.Meta[metaKey].(map[string]any)
			desc, _ := ours["description"].(string)
			if desc != tt.description {
				t.Errorf("description %q, want %q", desc, tt.description)
			}
			var names []string
			rule := ""
			for _, o := range p.Options {
				names = append(names, o.Name)
				if o.Kind == schema.AllowAlways {
					m, _ := o.Meta[metaKey].(map[string]any)
					rule, _ = m["rule"].(string)
				}
			}
			want := tt.options
			if bwrap, _ := sandbox.Probe(); bwrap != "" && tt.name == "Bash" {
				// A command that "Allow" runs in the write sandbox may be run outside it.
				want = slices.Insert(slices.Clone(want), 2, "Run outside the sandbox")
			}
			if !slices.Equal(names, want) {
				t.Errorf("options %q, want %q", names, want)
			}
			if tt.rule != "" && rule != tt.rule {
				t.Errorf("allow_always rule %q, want %q", rule, tt.rule)
			}
			// The answer is reported on the tool call, by the option's name.
			var perm map[string]any
			for _, u := range client.all() {
				if u.ToolCall != nil && u.ToolCall.ToolCallID == "t" {
					ours, _ := u.ToolCall.Meta[metaKey].(map[string]any)
					if m, ok := ours["permission"].(map[string]any); ok {
						perm = m
					}
				}
			}
			if perm["outcome"] != "rejected" || perm["optionId"] != optRejectOnce || perm["name"] != "Reject" {
				t.Errorf("permission update %v, want rejected by Reject", perm)
			}
		})
	}
}

// TestCallTitle: paths in titles are relative to the session's folder,
// outside it too; an MCP tool's call is named by its tool and server.
func TestCallTitle(t *testing.T) {
	h := newHarness(t, newScript(t), nil, nil)
	if got := h.sess.callTitle("mcp__github__create_issue", nil); got != "Use create_issue (MCP server github)" {
		t.Errorf("callTitle = %q", got)
	}
	if got := h.sess.callTitle("Edit", &tools.Preview{Title: "Edit " + h.dir + "/a/b.go", Paths: []string{h.dir + "/a/b.go"}}); got != "Edit a/b.go" {
		t.Errorf("callTitle = %q", got)
	}
	outside := filepath.Join(filepath.Dir(h.dir), "x.txt")
	if got := h.sess.callTitle("Read", &tools.Preview{Title: "Read " + outside, Paths: []string{outside}}); got != "Read ../x.txt" {
		t.Errorf("callTitle = %q", got)
	}
}

// all returns every update the client was sent.
func (c *recordingClient) all() []schema.Update {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]schema.Update(nil), c.updates...)
}
