package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agent-lsp/agent-lsp/diffs"
	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/schema"
)

// demoFiles is the sample workspace of the demo.
var demoFiles = map[string]string{
	"calc.py": `"""Small statistics helpers."""


def total(values):
    return sum(values)


def average(values):
    if not values:
        return 0
    return total(values) / 2


if __name__ == "__main__":
    print(average([2, 4, 6]))
`,
	"README.md": "# calc\n\nStatistics helpers. `average([2, 4, 6])` should print 4.0.\n",
}

// demoScript is the scripted model stream the demo replays: the model
// reads the file, finds the bug, edits it and reports.
func demoScript() []fake.Turn {
	return []fake.Turn{
		{
			fake.Thinking("The user says average is wrong. I should read calc.py.", "sig-demo-1"),
			fake.Text("I'll start by ", "reading `calc.py` ", "to see how `average` works."),
			fake.ToolUse("toolu_demo_read", "Read", `{"file_path":"calc.py"}`),
		},
		{
			fake.Text("Found it: `average` divides the total by a hard-coded `2` ", "instead of by the number of values. ", "I'll fix that."),
			fake.ToolUse("toolu_demo_edit", "Edit", `{"file_path":"calc.py","old_string":"    return total(values) / 2","new_string":"    return total(values) / len(values)"}`),
		},
		{
			fake.Text("Fixed. `average` now divides by `len(values)`, ", "so `average([2, 4, 6])` returns 4.0 as the README says. ", "The empty-list guard is unchanged."),
		},
	}
}

// demo runs a scripted session offline through the real stdio protocol:
// a fake Anthropic API replays a scripted stream, the real agent-lsp binary
// runs as a child process, and this process plays the editor.
func demo(ctx context.Context, args []string, out io.Writer) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	keep := fs.Bool("keep", false, "keep the sample workspace")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	root, err := os.MkdirTemp("", "agent-lsp-demo-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "agent-lsp demo:", err)
		return 1
	}
	root, _ = filepath.EvalSymlinks(root)
	if !*keep {
		defer os.RemoveAll(root)
	}
	for name, text := range demoFiles {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "agent-lsp demo:", err)
			return 1
		}
	}
	srv := fake.NewAnthropic(nil, demoScript()...)
	defer srv.Close()

	fmt.Fprintf(out, "agent-lsp demo: a scripted session, offline. The real agent-lsp runs as a child\nprocess speaking its stdio protocol; a local fake Anthropic API replays a scripted\nstream; this terminal plays the editor. Sample workspace: %s\n\n", root)
	t, err := startTerminal(ctx, out, root, []string{
		"ANTHROPIC_API_KEY=demo-key-not-a-secret",
		"ANTHROPIC_BASE_URL=" + srv.URL,
		"ANTHROPIC_MODEL=claude-sonnet-4-5",
		"OPENAI_API_KEY=",
		"AGENT_LSP_HOME=" + filepath.Join(root, ".agent-lsp"),
		"AGENT_LSP_NO_USER_SETTINGS=1",
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "agent-lsp demo:", err)
		return 1
	}
	t.approve = func(p *schema.RequestPermissionParams) schema.PermissionOutcome {
		if engine.IsTrustRequest(p) {
			// A language server on the user's PATH would start for
			// calc.py once the folder is trusted: the demo keeps it off.
			return schema.PermissionOutcome{Outcome: "selected", OptionID: optionOfKind(p, schema.RejectOnce)}
		}
		return schema.PermissionOutcome{Outcome: "selected", OptionID: optionOfKind(p, schema.AllowOnce)}
	}
	stop, err := t.session(ctx, "`average` in calc.py gives the wrong answer. Please fix it.")
	closeErr := t.close()
	if err != nil {
		fmt.Fprintln(os.Stderr, "agent-lsp demo:", err)
		return 1
	}
	fmt.Fprintf(out, "stop reason: %s\n", stop)
	if n := len(srv.Errors()); n > 0 {
		fmt.Fprintf(os.Stderr, "agent-lsp demo: the fake model saw unexpected requests: %v\n", srv.Errors())
		return 1
	}
	if closeErr != nil {
		fmt.Fprintln(os.Stderr, "agent-lsp demo:", closeErr)
		return 1
	}
	return t.report(out)
}

// report prints the changes the session made, and fails when the demo's
// edit did not land.
func (t *terminal) report(out io.Writer) int {
	t.mu.Lock()
	paths := make([]string, 0, len(t.edited))
	for p := range t.edited {
		paths = append(paths, p)
	}
	t.mu.Unlock()
	sort.Strings(paths)
	if len(paths) == 0 {
		fmt.Fprintln(os.Stderr, "agent-lsp demo: the session changed no file")
		return 1
	}
	fmt.Fprintln(out, t.style("1", "\nchanges made in the workspace:"))
	for _, p := range paths {
		now, err := os.ReadFile(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, "agent-lsp demo:", err)
			return 1
		}
		t.mu.Lock()
		before := t.edited[p]
		t.mu.Unlock()
		fmt.Fprint(out, diffs.Unified(relPath(t.root, p), before, string(now)))
	}
	if b, _ := os.ReadFile(filepath.Join(t.root, "calc.py")); !strings.Contains(string(b), "/ len(values)") {
		fmt.Fprintln(os.Stderr, "agent-lsp demo: calc.py was not fixed")
		return 1
	}
	return 0
}

// optionOfKind returns the id of the first option of kind.
func optionOfKind(p *schema.RequestPermissionParams, kind string) string {
	for _, o := range p.Options {
		if o.Kind == kind {
			return o.OptionID
		}
	}
	return ""
}
