package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/agent-lsp/agent-lsp/internal/editortest"
	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/rpc"
	"github.com/agent-lsp/agent-lsp/schema"
)

// door is an editor connected to an agent-lsp process, over the LSP door
// or the ACP door.
type door interface {
	newSession(root string) string
	call(method string, params, result any)
	prompt(sid, text string)
	// answer sets the option the user picks in permission requests.
	answer(optionID string)
	// asked returns the permission requests so far.
	asked() []schema.RequestPermissionParams
	// kill ends the process with SIGKILL, as a crash or a killed editor
	// does: nothing is closed cleanly.
	kill()
}

// lspDoor is the LSP door through editortest's fake editor, without
// applyEdit so changes land on the disk.
type lspDoor struct {
	t    *testing.T
	ed   *editortest.Editor
	proc *editortest.Process
}

func startLSPDoor(t *testing.T, root string, env []string) door {
	ed, proc := editortest.NewProcess(t, binary, nil, env...)
	ed.InitializeWith(map[string]any{"rootUri": "file://" + root, "capabilities": map[string]any{}})
	return &lspDoor{t: t, ed: ed, proc: proc}
}

func (d *lspDoor) newSession(root string) string { return d.ed.NewSession(root) }
func (d *lspDoor) call(method string, params, result any) {
	d.ed.MustCall(method, params, result)
}
func (d *lspDoor) prompt(sid, text string) {
	d.t.Helper()
	if _, err := d.ed.Prompt(sid, text); err != nil {
		d.t.Fatal(err)
	}
}
func (d *lspDoor) answer(optionID string)                  { d.ed.OnPermission(editortest.Answer(optionID)) }
func (d *lspDoor) asked() []schema.RequestPermissionParams { return d.ed.Permissions() }
func (d *lspDoor) kill() {
	d.proc.Cmd.Process.Kill()
	<-d.proc.Exited
}

// acpDoor is a minimal ACP client over the process's stdin and stdout,
// without the fs and terminal capabilities.
type acpDoor struct {
	t    *testing.T
	cmd  *exec.Cmd
	peer rpc.Peer
	done chan struct{}

	mu     sync.Mutex
	perms  []schema.RequestPermissionParams // guarded by mu
	option string                           // guarded by mu
}

func startACPDoor(t *testing.T, root string, env []string) door {
	t.Helper()
	cmd := exec.Command(binary, "acp")
	// Started elsewhere, so the session's directory is a project of its
	// own (a per-project service), as when an editor opens several.
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d := &acpDoor{t: t, cmd: cmd, done: make(chan struct{}), option: "allow_once"}
	go func() { cmd.Wait(); close(d.done) }()
	conn := jsonrpc2.NewConn(jsonrpc2.NewNDJSONStream(struct {
		io.Reader
		io.WriteCloser
	}{stdout, stdin}))
	d.peer = rpc.Peer{Conn: conn, CancelNotice: rpc.ACPCancelNotice}
	conn.Go(context.Background(), d.handle)
	t.Cleanup(func() {
		conn.Close()
		stdin.Close()
		select {
		case <-d.done:
		case <-time.After(editortest.Timeout):
			cmd.Process.Kill()
			t.Errorf("agent-lsp acp did not exit; stderr:\n%s", stderr.String())
		}
	})
	d.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}}, nil)
	return d
}

func (d *acpDoor) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	if !req.IsCall() {
		return nil, nil
	}
	if req.Method() != "session/request_permission" {
		return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "not handled: %s", req.Method())
	}
	var p schema.RequestPermissionParams
	if err := json.Unmarshal(req.Params(), &p); err != nil {
		return nil, err
	}
	d.mu.Lock()
	d.perms = append(d.perms, p)
	option := d.option
	d.mu.Unlock()
	return rpc.Raw(schema.RequestPermissionResult{Outcome: schema.PermissionOutcome{Outcome: "selected", OptionID: option}})
}

func (d *acpDoor) newSession(root string) string {
	var res schema.NewSessionResult
	d.call("session/new", schema.NewSessionParams{Cwd: root, MCPServers: []schema.MCPServer{}}, &res)
	return res.SessionID
}

func (d *acpDoor) call(method string, params, result any) {
	d.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), editortest.Timeout)
	defer cancel()
	if err := d.peer.Call(ctx, method, params, result); err != nil {
		d.t.Fatalf("%s: %v", method, err)
	}
}

func (d *acpDoor) prompt(sid, text string) {
	d.t.Helper()
	var res schema.PromptResult
	d.call("session/prompt", schema.PromptParams{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock(text)}}, &res)
}

func (d *acpDoor) answer(optionID string) {
	d.mu.Lock()
	d.option = optionID
	d.mu.Unlock()
}

func (d *acpDoor) asked() []schema.RequestPermissionParams {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]schema.RequestPermissionParams(nil), d.perms...)
}

func (d *acpDoor) kill() {
	d.cmd.Process.Kill()
	<-d.done
}

// toolResults returns the tool results the model got in request n.
func toolResults(t *testing.T, model *fake.Server, n int) []string {
	t.Helper()
	reqs := model.Requests()
	if n >= len(reqs) {
		t.Fatalf("the model got %d requests, want more than %d", len(reqs), n)
	}
	var body struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := reqs[n].Decode(&body); err != nil {
		t.Fatal(err)
	}
	var blocks []struct {
		Type    string          `json:"type"`
		IsError bool            `json:"is_error"`
		Content json.RawMessage `json:"content"`
	}
	json.Unmarshal(body.Messages[len(body.Messages)-1].Content, &blocks)
	var out []string
	for _, b := range blocks {
		if b.Type == "tool_result" {
			s := string(b.Content)
			if b.IsError {
				s = "ERROR " + s
			}
			out = append(out, s)
		}
	}
	return out
}

// TestModesAndGrantsSurviveARestart puts a session in plan mode, with an
// "always allow" and an "always reject" answer, kills the process, and
// reopens the session in a new one: it is still in plan mode (its next
// edit is refused and nothing is applied), and once the user leaves plan
// mode the grant and the rejection still hold, with no question asked.
func TestModesAndGrantsSurviveARestart(t *testing.T) {
	doors := []struct {
		name   string
		start  func(t *testing.T, root string, env []string) door
		reopen string
	}{
		{"lsp", startLSPDoor, "session/load"},
		{"acp", startACPDoor, "session/resume"},
	}
	for _, dt := range doors {
		t.Run(dt.name, func(t *testing.T) {
			root, _ := filepath.EvalSymlinks(t.TempDir())
			home := t.TempDir()
			env := func(model *fake.Server) []string {
				return []string{"ANTHROPIC_API_KEY=test", "ANTHROPIC_BASE_URL=" + model.BaseURL(), "AGENT_LSP_HOME=" + home, "AGENT_LSP_NO_USER_SETTINGS=1", "HOME=" + home}
			}
			kept := filepath.Join(root, "kept.txt")
			marker := filepath.Join(root, "marker")

			// First process: allow a write always, reject a command
			// always, switch to plan mode, and die.
			model1 := fake.NewAnthropic(t,
				fake.Turn{fake.ToolUse("toolu_1", "Write", `{"file_path":"kept.txt","content":"v1\n"}`)},
				fake.Turn{fake.Text("written")},
				fake.Turn{fake.ToolUse("toolu_2", "Bash", `{"command":"touch marker"}`)},
				fake.Turn{fake.Text("not run")},
			)
			first := dt.start(t, root, env(model1))
			sid := first.newSession(root)
			first.answer("allow_always")
			first.prompt(sid, "write kept.txt")
			first.answer("reject_always")
			first.prompt(sid, "touch the marker")
			if got := len(first.asked()); got != 2 {
				t.Fatalf("the first process asked %d times, want 2", got)
			}
			first.call("session/set_mode", schema.SetModeParams{SessionID: sid, ModeID: "plan"}, nil)
			first.call("session/set_model", schema.SetModelParams{SessionID: sid, ModelID: "claude-restored"}, nil)
			first.kill()

			// Second process: the session comes back in plan mode.
			model2 := fake.NewAnthropic(t,
				fake.Turn{fake.ToolUse("toolu_3", "Read", `{"file_path":"kept.txt"}`)},
				fake.Turn{fake.ToolUse("toolu_4e", "Edit", `{"file_path":"kept.txt","old_string":"v1","new_string":"PLAN MODE BREACH"}`)},
				fake.Turn{fake.ToolUse("toolu_4", "Write", `{"file_path":"kept.txt","content":"PLAN MODE BREACH\n"}`)},
				fake.Turn{fake.ToolUse("toolu_5", "Bash", `{"command":"touch marker"}`)},
				fake.Turn{fake.Text("refused")},
				fake.Turn{fake.ToolUse("toolu_6", "Write", `{"file_path":"kept.txt","content":"v2\n"}`)},
				fake.Turn{fake.ToolUse("toolu_7", "Bash", `{"command":"touch marker"}`)},
				fake.Turn{fake.Text("done")},
			)
			second := dt.start(t, root, env(model2))
			second.answer("allow_once") // any question would be a failure
			var res schema.NewSessionResult
			second.call(dt.reopen, schema.LoadSessionParams{SessionID: sid, Cwd: root, MCPServers: []schema.MCPServer{}}, &res)
			if res.Modes == nil || res.Modes.CurrentModeID != "plan" {
				t.Errorf("%s reports modes %+v, want plan", dt.reopen, res.Modes)
			}
			second.prompt(sid, "change kept.txt")
			for n, tool := range map[int]string{2: "Edit", 3: "Write", 4: "Bash"} {
				if got := toolResults(t, model2, n); len(got) != 1 || !strings.HasPrefix(got[0], "ERROR") || !strings.Contains(got[0], "plan mode") {
					t.Errorf("%s in the restored plan mode: %q, want a refusal", tool, got)
				}
			}
			if b, _ := os.ReadFile(kept); string(b) != "v1\n" {
				t.Errorf("kept.txt = %q: the edit was applied in plan mode", b)
			}
			var body struct {
				Model string `json:"model"`
			}
			model2.Requests()[0].Decode(&body)
			if body.Model != "claude-restored" {
				t.Errorf("the restored session asked %q, want the model it was switched to", body.Model)
			}

			// Out of plan mode, the answers of the first process hold.
			second.call("session/set_mode", schema.SetModeParams{SessionID: sid, ModeID: "default"}, nil)
			second.prompt(sid, "now change it")
			if b, _ := os.ReadFile(kept); string(b) != "v2\n" {
				t.Errorf("kept.txt = %q, want v2 written under the restored grant", b)
			}
			if got := toolResults(t, model2, 7); len(got) != 1 || !strings.HasPrefix(got[0], "ERROR") || !strings.Contains(got[0], "rejected") {
				t.Errorf("Bash after a restored rejection: %q, want a refusal", got)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Error("a command the user rejected always ran after the restart")
			}
			if got := second.asked(); len(got) != 0 {
				t.Errorf("the second process asked %d times, want none: %+v", len(got), got)
			}
		})
	}
}
