package server_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/session"
)

// rewindFiles are the workspace of the rewind scenario: run.sh is made
// executable before the turns.
var rewindFiles = map[string]string{
	"a.txt":  "alpha\n",
	"b.txt":  "bravo\n",
	"c.txt":  "charlie\n",
	"run.sh": "#!/bin/sh\necho run\n",
}

// rewindTurns: prompt 1 reads and edits a.txt with Edit; prompt 2 runs one Bash
// command that edits b.txt with sed -i, removes c.txt, creates d.txt
// and takes run.sh's executable bit; prompt 3 (after the rewind) just
// answers.
func rewindTurns() []fake.Turn {
	return []fake.Turn{
		{fake.ToolUse("toolu_read", "Read", `{"file_path":"a.txt"}`)},
		{fake.ToolUse("toolu_edit", "Edit", `{"file_path":"a.txt","old_string":"alpha","new_string":"ALPHA"}`)},
		{fake.Text("Edited.")},
		{fake.ToolUse("toolu_bash", "Bash", `{"command":"sed -i s/bravo/BRAVO/ b.txt && rm c.txt && printf 'new\\n' > d.txt && chmod -x run.sh"}`)},
		{fake.Text("Shell done.")},
		{fake.Text("Fresh start.")},
	}
}

// checkShellTurnUndone: every file is as before the Bash turn.
func checkShellTurnUndone(t *testing.T, root string) {
	t.Helper()
	for name, want := range map[string]string{"b.txt": "bravo\n", "c.txt": "charlie\n", "run.sh": "#!/bin/sh\necho run\n"} {
		if got, err := os.ReadFile(filepath.Join(root, name)); err != nil || string(got) != want {
			t.Errorf("%s after the rewind = %q, %v; want %q", name, got, err, want)
		}
	}
	if fi, err := os.Stat(filepath.Join(root, "run.sh")); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("run.sh's mode after the rewind = %v, %v; want 0755", fi.Mode(), err)
	}
	if _, err := os.Stat(filepath.Join(root, "d.txt")); !os.IsNotExist(err) {
		t.Errorf("d.txt, created by the rewound turn, is still there (%v)", err)
	}
}

// requestText is the whole of the messages the model got in request n.
func requestText(t *testing.T, model *fake.Server, n int) string {
	t.Helper()
	reqs := model.Requests()
	if n >= len(reqs) {
		t.Fatalf("the model got %d requests, want at least %d", len(reqs), n+1)
	}
	var body struct {
		Messages json.RawMessage `json:"messages"`
	}
	if err := reqs[n].Decode(&body); err != nil {
		t.Fatal(err)
	}
	return string(body.Messages)
}

// checkRewoundContext: the model's request after the rewind holds the
// first turn and the new prompt, and nothing of the rewound turn.
func checkRewoundContext(t *testing.T, model *fake.Server) {
	t.Helper()
	got := requestText(t, model, 5)
	for _, want := range []string{"edit a", "toolu_edit", "and now?"} {
		if !strings.Contains(got, want) {
			t.Errorf("the request after the rewind lacks %q:\n%s", want, got)
		}
	}
	for _, gone := range []string{"run the shell", "toolu_bash", "sed -i", "Shell done."} {
		if strings.Contains(got, gone) {
			t.Errorf("the request after the rewind still holds %q of the rewound turn:\n%s", gone, got)
		}
	}
}

// TestRewindLSP is issue 31's scenario on the LSP door: a turn edits a
// file with Edit (in the editor's buffer), the next changes others with
// Bash; rewinding code and conversation to before the Bash turn gives
// every file back exactly and the model never sees the turn again; a
// code rewind to before the Edit goes through the editor.
func TestRewindLSP(t *testing.T) {
	store := session.NewStore(t.TempDir(), "-")
	e := newEnvWith(t, rewindFiles, func(cfg *engine.Config) { cfg.Store = store }, rewindTurns()...)
	os.Chmod(e.path("run.sh"), 0o755)
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	if _, err := e.editor.Prompt(sid, "edit a"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.editor.Prompt(sid, "run the shell"); err != nil {
		t.Fatal(err)
	}
	if e.disk("b.txt") != "BRAVO\n" {
		t.Fatalf("the Bash turn did not run: b.txt = %q", e.disk("b.txt"))
	}
	var points schema.CheckpointsResult
	e.editor.MustCall("session/checkpoints", schema.CheckpointsParams{SessionID: sid}, &points)
	if len(points.Checkpoints) != 2 || points.Checkpoints[1].Prompt != "run the shell" {
		t.Fatalf("checkpoints = %+v, want one per prompt", points.Checkpoints)
	}

	// A preview changes nothing.
	var res schema.RewindResult
	e.editor.MustCall("session/rewind", schema.RewindParams{SessionID: sid, Checkpoint: 2, Restore: schema.RestoreBoth, Preview: true}, &res)
	if res.Applied || len(res.Changes) != 4 || e.disk("b.txt") != "BRAVO\n" {
		t.Fatalf("preview = %+v (b.txt %q), want 4 changes and nothing applied", res, e.disk("b.txt"))
	}
	e.editor.MustCall("session/rewind", schema.RewindParams{SessionID: sid, Checkpoint: 2, Restore: schema.RestoreBoth}, &res)
	if !res.Applied || len(res.Conflicts) > 0 {
		t.Fatalf("rewind = %+v, want applied", res)
	}
	checkShellTurnUndone(t, e.root)
	if buf, ok := e.editor.Buffer(e.path("a.txt")); !ok || buf.Text != "ALPHA\n" {
		t.Errorf("a.txt's buffer = %q, want the Edit of the turn kept", buf.Text)
	}
	if _, err := e.editor.Prompt(sid, "and now?"); err != nil {
		t.Fatal(err)
	}
	checkRewoundContext(t, e.model)
	checkLeafChain(t, store, e.root, sid)

	// The code before the first prompt: a.txt's buffer is restored by
	// a workspace edit, so it is not stale.
	edits := len(e.editor.Edits())
	e.editor.MustCall("session/rewind", schema.RewindParams{SessionID: sid, Checkpoint: 1, Restore: schema.RestoreCode}, &res)
	if !res.Applied {
		t.Fatalf("rewind to 1 = %+v", res)
	}
	if buf, _ := e.editor.Buffer(e.path("a.txt")); buf.Text != "alpha\n" || len(e.editor.Edits()) != edits+1 {
		t.Errorf("a.txt's buffer = %q after %d edits, want the original through one workspace edit", buf.Text, len(e.editor.Edits())-edits)
	}
	if e.disk("a.txt") != "alpha\n" {
		t.Errorf("a.txt on disk = %q", e.disk("a.txt"))
	}
}

// TestRewindConflictsAndBadInputLSP: a file the user changed since is a
// conflict that stops the rewind until forced; bad input is an error
// naming what was wrong, and the door goes on.
func TestRewindConflictsAndBadInputLSP(t *testing.T) {
	store := session.NewStore(t.TempDir(), "-")
	e := newEnvWith(t, rewindFiles, func(cfg *engine.Config) { cfg.Store = store }, rewindTurns()...)
	os.Chmod(e.path("run.sh"), 0o755)
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	for _, p := range []string{"edit a", "run the shell"} {
		if _, err := e.editor.Prompt(sid, p); err != nil {
			t.Fatal(err)
		}
	}
	// The user edits b.txt after the turn.
	os.WriteFile(e.path("b.txt"), []byte("mine\n"), 0o644)
	var res schema.RewindResult
	e.editor.MustCall("session/rewind", schema.RewindParams{SessionID: sid, Checkpoint: 2, Restore: schema.RestoreBoth}, &res)
	if res.Applied || len(res.Conflicts) != 1 || res.Conflicts[0] != e.path("b.txt") {
		t.Fatalf("rewind over the user's change = %+v, want b.txt as the conflict", res)
	}
	if e.disk("b.txt") != "mine\n" || e.disk("d.txt") != "new\n" {
		t.Fatalf("a refused rewind changed files")
	}
	for _, bad := range []struct {
		params schema.RewindParams
		want   string
	}{
		{schema.RewindParams{SessionID: sid, Checkpoint: 9, Restore: schema.RestoreCode}, "has no checkpoint 9: it has 1, 2"},
		{schema.RewindParams{SessionID: sid, Checkpoint: 1}, `"restore"`},
		{schema.RewindParams{SessionID: sid, Checkpoint: 1, Restore: "everything"}, `restore "everything"`},
		{schema.RewindParams{SessionID: sid, Restore: schema.RestoreCode}, `"checkpoint"`},
		{schema.RewindParams{SessionID: "nope", Checkpoint: 1, Restore: schema.RestoreCode}, "nope"},
	} {
		err := e.editor.Call("session/rewind", bad.params, &res)
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("rewind %+v = %v, want an error saying %s", bad.params, err, bad.want)
		}
	}
	e.editor.MustCall("session/rewind", schema.RewindParams{SessionID: sid, Checkpoint: 2, Restore: schema.RestoreCode, Force: true}, &res)
	if !res.Applied {
		t.Fatalf("forced rewind = %+v", res)
	}
	checkShellTurnUndone(t, e.root)
}

// TestRewindACP is the scenario on the ACP door through its /rewind
// command: without an argument it lists the points, with one it rewinds.
func TestRewindACP(t *testing.T) {
	store := session.NewStore(t.TempDir(), "-")
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t, root, rewindFiles)
	os.Chmod(filepath.Join(root, "run.sh"), 0o755)
	raw, model := startACP(t, root, func(cfg *engine.Config) { cfg.Store = store }, rewindTurns()...)
	c := connectACP(t, raw, root, model)
	c.initialize(false)
	sid := c.newSession().SessionID
	c.prompt(sid, "edit a")
	c.prompt(sid, "run the shell")
	if got, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(got) != "ALPHA\n" {
		t.Fatalf("a.txt after the Edit = %q", got)
	}
	c.prompt(sid, "/rewind")
	if said := agentText(c.updates(sid)); !strings.Contains(said, "1. edit a\n2. run the shell") {
		t.Fatalf("/rewind listed:\n%s", said)
	}
	c.prompt(sid, "/rewind 2")
	if said := agentText(c.updates(sid)); !strings.Contains(said, "Rewound to before prompt 2 (both): 4 files restored.") {
		t.Fatalf("/rewind 2 said:\n%s", said)
	}
	checkShellTurnUndone(t, root)
	if got, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(got) != "ALPHA\n" {
		t.Errorf("a.txt after the rewind = %q, want the Edit kept", got)
	}
	c.prompt(sid, "and now?")
	checkRewoundContext(t, model)
	var points schema.CheckpointsResult
	c.mustCall("session/checkpoints", schema.CheckpointsParams{SessionID: sid}, &points)
	if len(points.Checkpoints) != 2 || points.Checkpoints[1].Prompt != "and now?" {
		t.Errorf("checkpoints after the rewind = %+v, want the new prompt in the rewound one's place", points.Checkpoints)
	}
}

// checkLeafChain: in the session file, the chain Claude Code resumes
// (parentUuid back from the last message, tombstones unknown to it)
// holds the first turn and the new prompt, not the rewound turn.
func checkLeafChain(t *testing.T, store *session.Store, root, sid string) {
	t.Helper()
	infos, _, err := store.List(root, "", 10)
	if err != nil || len(infos) == 0 {
		t.Fatalf("listing sessions: %v, %d", err, len(infos))
	}
	data, err := os.ReadFile(infos[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	type line struct {
		Type       string          `json:"type"`
		UUID       string          `json:"uuid"`
		ParentUUID *string         `json:"parentUuid"`
		Message    json.RawMessage `json:"message"`
	}
	byID := map[string]line{}
	var last line
	for _, raw := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var l line
		if json.Unmarshal([]byte(raw), &l) != nil || (l.Type != "user" && l.Type != "assistant") {
			continue
		}
		byID[l.UUID] = l
		last = l
	}
	var chain []string
	for l, ok := last, true; ok; {
		chain = append(chain, string(l.Message))
		if l.ParentUUID == nil {
			break
		}
		l, ok = byID[*l.ParentUUID]
	}
	all := strings.Join(chain, "\n")
	if !strings.Contains(all, "edit a") || !strings.Contains(all, "and now?") || strings.Contains(all, "run the shell") || strings.Contains(all, "toolu_bash") {
		t.Errorf("the session file's leaf chain:\n%s\nwant the first turn and the new prompt, without the rewound turn", all)
	}
}

// agentText joins the agent's message chunks.
func agentText(us []schema.Update) string {
	var b strings.Builder
	for _, u := range us {
		if u.SessionUpdate == schema.UpdateAgentMessageChunk && u.Content != nil {
			b.WriteString(u.Content.Text)
		}
	}
	return b.String()
}

// TestRewindSurvivesLoadAndForks: the checkpoints of a session closed
// and loaded again are still there and still rewind; session/fork with
// _meta checkpoint starts a new session from before that prompt, whose
// model context lacks the later turns.
func TestRewindSurvivesLoadAndForks(t *testing.T) {
	store := session.NewStore(t.TempDir(), "-")
	turns := append(rewindTurns()[:5], fake.Turn{fake.Text("Forked.")})
	e := newEnvWith(t, rewindFiles, func(cfg *engine.Config) { cfg.Store = store }, turns...)
	os.Chmod(e.path("run.sh"), 0o755)
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	for _, p := range []string{"edit a", "run the shell"} {
		if _, err := e.editor.Prompt(sid, p); err != nil {
			t.Fatal(err)
		}
	}
	e.editor.MustCall("session/close", schema.SessionIDParams{SessionID: sid}, nil)
	load := schema.LoadSessionParams{SessionID: sid, Cwd: e.root, MCPServers: []schema.MCPServer{}}
	e.editor.MustCall("session/load", load, nil)
	var points schema.CheckpointsResult
	e.editor.MustCall("session/checkpoints", schema.CheckpointsParams{SessionID: sid}, &points)
	if len(points.Checkpoints) != 2 {
		t.Fatalf("checkpoints after session/load = %+v, want 2", points.Checkpoints)
	}

	fork := load
	fork.Meta = &schema.LoadMeta{}
	fork.Meta.AgentLSP.Checkpoint = 2
	var forked schema.NewSessionResult
	e.editor.MustCall("session/fork", fork, &forked)
	if forked.SessionID == "" || forked.SessionID == sid {
		t.Fatalf("fork = %+v", forked)
	}
	e.editor.MustCall("session/checkpoints", schema.CheckpointsParams{SessionID: forked.SessionID}, &points)
	if len(points.Checkpoints) != 1 || points.Checkpoints[0].Prompt != "edit a" {
		t.Errorf("the fork's checkpoints = %+v, want prompt 1's", points.Checkpoints)
	}
	if _, err := e.editor.Prompt(forked.SessionID, "and now?"); err != nil {
		t.Fatal(err)
	}
	checkRewoundContext(t, e.model)

	// The loaded original still rewinds its code.
	var res schema.RewindResult
	e.editor.MustCall("session/rewind", schema.RewindParams{SessionID: sid, Checkpoint: 2, Restore: schema.RestoreCode}, &res)
	if !res.Applied {
		t.Fatalf("rewind after load = %+v", res)
	}
	checkShellTurnUndone(t, e.root)

	fork.Meta.AgentLSP.Checkpoint = 5
	if err := e.editor.Call("session/fork", fork, &forked); err == nil || !strings.Contains(err.Error(), "has no checkpoint 5") {
		t.Errorf("fork at an unknown checkpoint = %v, want an error naming it", err)
	}
}

// TestRewindPlainDoor: an editor without the agent plugin rewinds with
// agent.prompt "/rewind N", the command every door has.
func TestRewindPlainDoor(t *testing.T) {
	store := session.NewStore(t.TempDir(), "-")
	// The test's transcripts are written in the workspace (the real
	// ones are in the state directory): the folder ignores them, else
	// the rewind would rightly take a new transcript for the user's
	// file.
	files := map[string]string{".gitignore": ".transcripts/\n"}
	for name, text := range rewindFiles {
		files[name] = text
	}
	e := newEnvWith(t, files, func(cfg *engine.Config) { cfg.Store = store },
		fake.Turn{fake.ToolUse("toolu_bash", "Bash", `{"command":"rm c.txt && printf 'new\\n' > d.txt"}`)},
		fake.Turn{fake.Text("Shell done.")},
	)
	e.editor.OnRequest(func(ctx context.Context, method string, params json.RawMessage) (any, error) {
		switch method {
		case "window/showMessageRequest":
			return map[string]string{"title": "Allow"}, nil
		case "window/workDoneProgress/create":
			return nil, nil
		case "window/showDocument":
			return map[string]bool{"success": true}, nil
		}
		return nil, jsonrpc2.ErrNotHandled
	})
	e.editor.InitializeWith(map[string]any{
		"rootUri":      string(uri.File(e.root)),
		"capabilities": map[string]any{"window": map[string]any{"workDoneProgress": true}},
	})
	ends := func() int {
		n := 0
		for _, m := range e.editor.Notifications() {
			if m.Method == "$/progress" && strings.Contains(string(m.Params), `"kind":"end"`) {
				n++
			}
		}
		return n
	}
	for i, prompt := range []string{"run the shell", "/rewind 1"} {
		e.editor.MustCall("workspace/executeCommand", map[string]any{"command": "agent.prompt", "arguments": []string{prompt}}, nil)
		e.editor.WaitFor(prompt+" to end", func() bool { return ends() > i })
		if i == 0 {
			if _, err := os.Stat(e.path("d.txt")); err != nil {
				t.Fatalf("the Bash turn did not run: %v", err)
			}
		}
	}
	if e.disk("c.txt") != "charlie\n" {
		t.Errorf("c.txt after /rewind 1 = %q", e.disk("c.txt"))
	}
	if _, err := os.Stat(e.path("d.txt")); !os.IsNotExist(err) {
		t.Errorf("d.txt after /rewind 1: %v, want it gone", err)
	}
}

// TestCheckpointsRunNothingOfTheRepository: a repository whose config
// names an fsmonitor, hooks and a clean filter that .gitattributes
// applies to every file: checkpoints and a rewind run none of them, and
// the repository's index, HEAD and refs are as they were.
func TestCheckpointsRunNothingOfTheRepository(t *testing.T) {
	store := session.NewStore(t.TempDir(), "-")
	e := newEnvWith(t, rewindFiles, func(cfg *engine.Config) { cfg.Store = store }, rewindTurns()...)
	os.Chmod(e.path("run.sh"), 0o755)
	canary := filepath.Join(t.TempDir(), "ran")
	hooks := filepath.Join(t.TempDir(), "hooks")
	os.MkdirAll(hooks, 0o755)
	for _, h := range []string{"reference-transaction", "post-index-change", "pre-commit", "post-checkout"} {
		os.WriteFile(filepath.Join(hooks, h), []byte("#!/bin/sh\ntouch "+canary+"-"+h+"\n"), 0o755)
	}
	gitRun := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = e.root
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	gitRun("init", "-q", ".")
	gitRun("add", "-A")
	gitRun("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init")
	f, err := os.OpenFile(e.path(".git/config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("[core]\n\tfsmonitor = \"touch " + canary + "-fsmonitor\"\n\thooksPath = " + hooks + "\n[filter \"evil\"]\n\tclean = \"touch " + canary + "-clean; cat\"\n\tsmudge = \"touch " + canary + "-smudge; cat\"\n")
	f.Close()
	os.WriteFile(e.path(".gitattributes"), []byte("* filter=evil\n"), 0o644)
	state := func() string {
		index, _ := os.ReadFile(e.path(".git/index"))
		return gitRun("-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "for-each-ref") + string(index)
	}
	before := state()

	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	for _, p := range []string{"edit a", "run the shell"} {
		if _, err := e.editor.Prompt(sid, p); err != nil {
			t.Fatal(err)
		}
	}
	var res schema.RewindResult
	e.editor.MustCall("session/rewind", schema.RewindParams{SessionID: sid, Checkpoint: 2, Restore: schema.RestoreCode}, &res)
	if !res.Applied {
		t.Fatalf("rewind = %+v", res)
	}
	checkShellTurnUndone(t, e.root)
	if ran, _ := filepath.Glob(canary + "*"); len(ran) > 0 {
		t.Errorf("the repository's programs ran: %v", ran)
	}
	if state() != before {
		t.Error("the user's index or refs changed")
	}
}

// TestRewindRefusedWhileATurnRuns: a rewind waits for no turn; it is
// refused, and the turn goes on.
func TestRewindRefusedWhileATurnRuns(t *testing.T) {
	store := session.NewStore(t.TempDir(), "-")
	release := make(chan struct{})
	e := newEnvWith(t, rewindFiles, func(cfg *engine.Config) { cfg.Store = store },
		fake.Turn{fake.Text("Thinking it over."), fake.Hold{After: 1, Release: release}},
	)
	e.editor.Initialize(e.root, nil)
	sid := e.editor.NewSession(e.root)
	var pr schema.PromptResult
	wait := e.editor.Go("session/prompt", schema.PromptParams{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock("think")}}, &pr)
	e.editor.WaitFor("the model call", func() bool { return len(e.model.Requests()) == 1 })
	var res schema.RewindResult
	err := e.editor.Call("session/rewind", schema.RewindParams{SessionID: sid, Checkpoint: 1, Restore: schema.RestoreBoth}, &res)
	if err == nil || !strings.Contains(err.Error(), "a prompt is running") {
		t.Errorf("rewind during a turn = %v, want it refused", err)
	}
	close(release)
	if err := wait(); err != nil || pr.StopReason != schema.StopEndTurn {
		t.Fatalf("the turn = %+v, %v; want it to end normally", pr, err)
	}
}
