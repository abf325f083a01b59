package server_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/internal/editortest"
	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/schema"
)

// outsideDir is a folder outside the workspace that no sandbox makes
// private (the sandboxes have their own /tmp).
func outsideDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/var/tmp", "agent-lsp-question-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// jsonString is s as a JSON string.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// questionText is the text of a question's content blocks, joined.
func questionText(p schema.RequestPermissionParams) string {
	var b strings.Builder
	for _, c := range p.ToolCall.Content {
		if c.Content != nil {
			b.WriteString(c.Content.Text + "\n")
		}
	}
	return b.String()
}

// checkQuestion checks that a command's question shows every line of the
// command with its escape written out, says where the command will run,
// and offers to run it outside the sandbox after "Allow".
func checkQuestion(t *testing.T, p schema.RequestPermissionParams, lines ...string) {
	t.Helper()
	text := questionText(p)
	for _, l := range lines {
		if !strings.Contains(text, l) {
			t.Errorf("the question's content does not show %q:\n%s", l, text)
		}
	}
	for _, w := range []string{"write sandbox", "Run outside the sandbox"} {
		if !strings.Contains(text, w) {
			t.Errorf("the question's content does not say %q:\n%s", w, text)
		}
	}
	if strings.Contains(text, "\x1b") {
		t.Errorf("the question's content holds a raw escape:\n%q", text)
	}
	allow := slices.IndexFunc(p.Options, func(o schema.PermissionOption) bool { return o.OptionID == "allow_once" })
	outside := slices.IndexFunc(p.Options, func(o schema.PermissionOption) bool { return o.OptionID == "allow_outside" })
	if allow < 0 || outside < allow || p.Options[outside].Kind != schema.AllowOnce {
		t.Errorf("options %+v, want allow_outside (allow_once) after allow_once", p.Options)
	}
}

// TestQuestionIsTheConsent drives the LSP door: a multi-line command's
// question shows all of it and where it will run; "Allow" runs it in the
// write sandbox, where it writes the workspace but nothing outside and
// does not see the sidecar's secrets; "Run outside the sandbox" runs it
// with the user's rights.
func TestQuestionIsTheConsent(t *testing.T) {
	requireBwrap(t)
	t.Setenv("AGENT_LSP_TEST_SECRET", "sk-test-secret")
	outside := outsideDir(t)
	escaped := filepath.Join(outside, "escaped.txt")
	command := "echo inside > in.txt\necho \"secret=$AGENT_LSP_TEST_SECRET\"\nprintf 'ok\\n' # \x1b[2K\necho escaped > " + escaped
	input := `{"command":` + jsonString(command) + `,"description":"Write files"}`
	e := newEnv(t, nil,
		fake.Turn{fake.ToolUse("toolu_1", "Bash", input)},
		fake.Turn{fake.Text("done")},
		fake.Turn{fake.ToolUse("toolu_2", "Bash", input)},
		fake.Turn{fake.Text("done")},
	)
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	e.editor.OnPermission(editortest.Answer("allow_once"))
	if _, err := e.editor.Prompt(sid, "write"); err != nil {
		t.Fatal(err)
	}
	perms := e.editor.Permissions()
	if len(perms) != 1 {
		t.Fatalf("%d permission requests, want 1", len(perms))
	}
	checkQuestion(t, perms[0], "echo inside > in.txt\n", "printf 'ok\\n' # \\x1b[2K\n", "echo escaped > "+escaped+"\n")
	if !strings.Contains(perms[0].ToolCall.Title, "(+3 lines)") {
		t.Errorf("title %q does not say the command has 3 more lines", perms[0].ToolCall.Title)
	}
	out := resultText(e.toolResults(1)[0])
	if _, err := os.Stat(escaped); err == nil {
		t.Errorf("an approved command wrote outside the workspace:\n%s", out)
	}
	if strings.Contains(out, "sk-test-secret") {
		t.Errorf("an approved command saw the sidecar's secret:\n%s", out)
	}
	if got := e.disk("in.txt"); got != "inside\n" {
		t.Errorf("an approved command could not write the workspace: in.txt = %q\n%s", got, out)
	}
	if !strings.Contains(out, "dangerouslyDisableSandbox") {
		t.Errorf("the failed command's result does not say how to leave the sandbox:\n%s", out)
	}

	e.editor.OnPermission(editortest.Answer("allow_outside"))
	if _, err := e.editor.Prompt(sid, "write again"); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(escaped); err != nil || string(b) != "escaped\n" {
		t.Errorf("a command run outside the sandbox did not write outside: %q, %v\n%s", b, err, resultText(e.toolResults(3)[0]))
	}
	if out := resultText(e.toolResults(3)[0]); !strings.Contains(out, "secret=sk-test-secret") {
		t.Errorf("a command run outside the sandbox did not run with the user's environment:\n%s", out)
	}
}

// TestSwappedFolderWhileQuestionWaits: a workspace folder replaced by a
// link to an outside folder while the question waits does not take the
// approved command outside: it runs in the write sandbox.
func TestSwappedFolderWhileQuestionWaits(t *testing.T) {
	requireBwrap(t)
	outside := outsideDir(t)
	e := newEnv(t, map[string]string{"sub/keep.txt": "keep\n"},
		fake.Turn{fake.ToolUse("toolu_1", "Bash", `{"command":"echo pwned > sub/x.txt"}`)},
		fake.Turn{fake.Text("done")},
	)
	e.editor.OnPermission(func(*schema.RequestPermissionParams) schema.RequestPermissionResult {
		// The repository's background job, say, while the user reads.
		if err := os.RemoveAll(e.path("sub")); err != nil {
			t.Error(err)
		}
		if err := os.Symlink(outside, e.path("sub")); err != nil {
			t.Error(err)
		}
		return schema.RequestPermissionResult{Outcome: schema.PermissionOutcome{Outcome: "selected", OptionID: "allow_once"}}
	})
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	if _, err := e.editor.Prompt(sid, "write"); err != nil {
		t.Fatal(err)
	}
	if n := len(e.editor.Permissions()); n != 1 {
		t.Fatalf("%d permission requests, want 1", n)
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 0 {
		t.Errorf("the approved command wrote outside through the swapped folder: %v\n%s", entries, resultText(e.toolResults(1)[0]))
	}
}

// TestACPQuestionIsTheConsent: the same on the ACP door, whose clients
// (Zed, JetBrains, ...) show a question's title and content.
func TestACPQuestionIsTheConsent(t *testing.T) {
	requireBwrap(t)
	outside := outsideDir(t)
	escaped := filepath.Join(outside, "escaped.txt")
	command := "echo inside > in.txt" + strings.Repeat(" ", 120) + "\necho escaped > " + escaped + " # \u202etxt.exe"
	input := `{"command":` + jsonString(command) + `}`
	c := newACP(t, nil,
		fake.Turn{fake.ToolUse("toolu_1", "Bash", input)},
		fake.Turn{fake.Text("done")},
		fake.Turn{fake.ToolUse("toolu_2", "Bash", input)},
		fake.Turn{fake.Text("done")},
	)
	c.initialize(false)
	sid := c.newSession().SessionID
	c.prompt(sid, "write")
	c.mu.Lock()
	perms := slices.Clone(c.perms)
	c.mu.Unlock()
	if len(perms) != 1 {
		t.Fatalf("%d permission requests, want 1", len(perms))
	}
	checkQuestion(t, perms[0], "echo inside > in.txt⟨120 spaces⟩\n", "echo escaped > "+escaped+` # \u202etxt.exe`+"\n")
	if strings.Contains(questionText(perms[0]), "\u202e") {
		t.Errorf("the question's content holds a raw bidi override")
	}
	if _, err := os.Stat(escaped); err == nil {
		t.Error("an approved command wrote outside the workspace")
	}
	if b, _ := os.ReadFile(filepath.Join(c.root, "in.txt")); string(b) != "inside\n" {
		t.Errorf("an approved command could not write the workspace: in.txt = %q", b)
	}

	c.mu.Lock()
	c.answer = editortest.Answer("allow_outside")
	c.mu.Unlock()
	c.prompt(sid, "write again")
	if b, err := os.ReadFile(escaped); err != nil || string(b) != "escaped\n" {
		t.Errorf("a command run outside the sandbox did not write outside: %q, %v", b, err)
	}
}
