package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/internal/testenv"
	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/schema"
)

// claudeCode is the real Claude Code binary, driven offline: each run is
// inside its own network namespace (unshare -n, loopback only) with
// internal/cmd/fakemodel as the Anthropic API, a HOME and
// CLAUDE_CONFIG_DIR of its own.
type claudeCode struct {
	t         *testing.T
	bin       string // the claude binary
	fakemodel string // the built internal/cmd/fakemodel
	home      string // HOME; CLAUDE_CONFIG_DIR is home/.claude
	proj      string // the project directory (symlink-free)
	// cwd, when set, is where claude runs instead of proj: a link to it.
	cwd string
}

// newClaudeCode finds the binary that scripts/install-claude-code.sh
// installs (or $AGENT_LSP_CLAUDE_CODE) and a working unshare -n. Without
// them the test is skipped, unless AGENT_LSP_REQUIRE_EDITORS is set (as
// `make test` does), which makes it fail.
func newClaudeCode(t *testing.T) *claudeCode {
	t.Helper()
	missing := func(format string, args ...any) {
		t.Helper()
		testenv.Missing(t, format, args...)
	}
	bin := os.Getenv("AGENT_LSP_CLAUDE_CODE")
	if bin == "" {
		cache := os.Getenv("AGENT_LSP_CACHE")
		if cache == "" {
			home, _ := os.UserHomeDir()
			cache = filepath.Join(home, ".cache", "agent-lsp")
		}
		bin = filepath.Join(cache, "claude-code", "node_modules", ".bin", "claude")
	}
	if _, err := os.Stat(bin); err != nil {
		missing("Claude Code is not installed (%v): run scripts/install-claude-code.sh (or set AGENT_LSP_CLAUDE_CODE)", err)
	}
	if out, err := exec.Command("unshare", "-n", "true").CombinedOutput(); err != nil {
		missing("unshare -n does not work here, and Claude Code must run without network: %v %s", err, out)
	}
	if _, err := exec.LookPath("ip"); err != nil {
		missing("ip (iproute2) is needed to bring up loopback in the test's network namespace")
	}
	work := t.TempDir()
	fm := filepath.Join(work, "fakemodel")
	if out, err := exec.Command("go", "build", "-o", fm, "../internal/cmd/fakemodel").CombinedOutput(); err != nil {
		t.Fatalf("building fakemodel: %v\n%s", err, out)
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c := &claudeCode{t: t, bin: bin, fakemodel: fm, home: filepath.Join(root, "home"), proj: filepath.Join(root, "proj")}
	for _, d := range []string{c.home, c.proj} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// configDir is Claude Code's CLAUDE_CONFIG_DIR.
func (c *claudeCode) configDir() string { return filepath.Join(c.home, ".claude") }

// runScript runs claude with args in the project, its model playing
// turns (fakemodel's JSON script), inside a network namespace with
// loopback only.
const runScript = `set -eu
ip link set lo up
cd "$WORK"
mkfifo in.fifo
"$FAKEMODEL" -script turns.json -log requests.jsonl < in.fifo > url.txt &
fm=$!
exec 4> in.fifo
for i in $(seq 100); do grep -q '^URL=' url.txt 2>/dev/null && break; sleep 0.05; done
url=$(sed -n 's/^URL=//p' url.txt)
cd "$PROJ"
rc=0
env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$CC_HOME" CLAUDE_CONFIG_DIR="$CC_HOME/.claude" \
  ANTHROPIC_BASE_URL="$url" ANTHROPIC_API_KEY=test-key \
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 DISABLE_TELEMETRY=1 \
  "$CLAUDE" "$@" > "$WORK/out.jsonl" 2> "$WORK/err.txt" || rc=$?
exec 4>&-
wait $fm
exit $rc
`

// run runs `claude -p prompt` with the extra args, the model playing
// turns, and returns the session id it used and the bodies of the
// requests the model received.
func (c *claudeCode) run(turns string, prompt string, args ...string) (string, []json.RawMessage) {
	c.t.Helper()
	work := c.t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "turns.json"), []byte(turns), 0o644); err != nil {
		c.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "run.sh"), []byte(runScript), 0o755); err != nil {
		c.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	all := append([]string{"-n", "bash", filepath.Join(work, "run.sh"), "-p", prompt,
		"--output-format", "stream-json", "--verbose", "--model", "claude-sonnet-4-5",
		"--allowedTools", "Read", "Edit", "Grep", "Glob", "Write"}, args...)
	cmd := exec.CommandContext(ctx, "unshare", all...)
	dir := c.proj
	if c.cwd != "" {
		dir = c.cwd
	}
	cmd.Env = append(os.Environ(), "WORK="+work, "FAKEMODEL="+c.fakemodel, "PROJ="+dir, "CC_HOME="+c.home, "CLAUDE="+c.bin)
	out, err := cmd.CombinedOutput()
	stderr, _ := os.ReadFile(filepath.Join(work, "err.txt"))
	stdout, _ := os.ReadFile(filepath.Join(work, "out.jsonl"))
	if err != nil {
		c.t.Fatalf("claude %s: %v\n%s\nstderr: %s\nstdout: %s", strings.Join(args, " "), err, out, stderr, stdout)
	}
	var id string
	for _, line := range bytes.Split(stdout, []byte("\n")) {
		var ev struct {
			SessionID string `json:"session_id"`
		}
		if json.Unmarshal(line, &ev) == nil && ev.SessionID != "" {
			id = ev.SessionID
			break
		}
	}
	if id == "" {
		c.t.Fatalf("claude printed no session id:\n%s\nstderr: %s", stdout, stderr)
	}
	var reqs []json.RawMessage
	f, err := os.Open(filepath.Join(work, "requests.jsonl"))
	if err != nil {
		c.t.Fatalf("the model got no request: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		reqs = append(reqs, append(json.RawMessage(nil), sc.Bytes()...))
	}
	return id, reqs
}

// sessionFile is where Claude Code keeps session id of the project.
func (c *claudeCode) sessionFile(id string) string {
	slug := regexp.MustCompile(`[^A-Za-z0-9]`).ReplaceAllString(c.proj, "-")
	return filepath.Join(c.configDir(), "projects", slug, id+".jsonl")
}

// conversation is the text of every message of the last request that
// carried a conversation (Claude Code also asks for titles and such).
func conversation(t *testing.T, reqs []json.RawMessage) string {
	t.Helper()
	best := ""
	for _, r := range reqs {
		var body struct {
			Messages json.RawMessage `json:"messages"`
			Tools    []any           `json:"tools"`
		}
		if json.Unmarshal(r, &body) == nil && len(body.Tools) > 0 {
			best = string(body.Messages)
		}
	}
	if best == "" {
		t.Fatalf("no request with tools among %d", len(reqs))
	}
	return best
}

// TestRealClaudeCodeSessions: the real Claude Code binary makes a session
// with parallel Read and Grep and an Edit; agent-lsp loads it (replay
// shows the edit's diff and ends both parallel calls) and continues it,
// appending to Claude Code's own file; Claude Code then resumes that one
// history and sends the model the whole conversation, agent-lsp's turn
// included.
func TestRealClaudeCodeSessions(t *testing.T) {
	c := newClaudeCode(t)
	file := filepath.Join(c.proj, "a.txt")
	if err := os.WriteFile(file, []byte("x = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "init", "-q", "-b", "trunk", c.proj).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	in := func(v any) string {
		b, _ := json.Marshal(v)
		return string(b)
	}
	turns := `[
 [{"text": "Reading."}, {"tool_use": {"id": "toolu_r1", "name": "Read", "input": ` + in(map[string]string{"file_path": file}) + `}},
  {"tool_use": {"id": "toolu_g1", "name": "Grep", "input": ` + in(map[string]string{"pattern": "x", "path": c.proj}) + `}}],
 [{"tool_use": {"id": "toolu_e1", "name": "Edit", "input": ` + in(map[string]string{"file_path": file, "old_string": "x = 1", "new_string": "x = 2"}) + `}}],
 [{"text": "Done: x is 2."}],
 [{"text": "spare"}], [{"text": "spare"}], [{"text": "spare"}]
]`
	id, _ := c.run(turns, "set x to 2")
	ccFile := c.sessionFile(id)
	made, err := os.ReadFile(ccFile)
	if err != nil {
		t.Fatalf("Claude Code's session file: %v", err)
	}

	// agent-lsp loads and continues it.
	d := serveDoor(t, true, c.proj, c.configDir(), fake.Turn{fake.Text("Continued by agent-lsp.")})
	if err := d.ed.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}}, nil); err != nil {
		t.Fatal(err)
	}
	var res schema.NewSessionResult
	err = d.ed.call("session/load", schema.LoadSessionParams{SessionID: id, Cwd: c.proj, MCPServers: []schema.MCPServer{}}, &res)
	checkReplay(func(*doorEnv) string { return id }, []replayedEdit{{id: "toolu_e1", old: "x = 1\n", new: "x = 2\n"}},
		[]string{"toolu_r1", "toolu_g1", "toolu_e1"})(d, nil, err)
	for _, u := range d.ed.updates(id) {
		if tc := u.ToolCall; tc != nil && tc.ToolCallID == "toolu_e1" && u.SessionUpdate == schema.UpdateToolCall {
			if !strings.Contains(tc.Title, "a.txt") || len(tc.Locations) == 0 || tc.Locations[0].Path != file {
				t.Errorf("the replayed Edit is titled %q at %+v, want its path", tc.Title, tc.Locations)
			}
		}
	}
	if err := d.ed.call("session/prompt", schema.PromptParams{SessionID: id, Prompt: []schema.ContentBlock{schema.TextBlock("Now from agent-lsp.")}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := d.ed.call("session/close", schema.SessionIDParams{SessionID: id}, nil); err != nil {
		t.Fatal(err)
	}
	sent := d.model.Requests()
	if len(sent) != 1 {
		t.Fatalf("agent-lsp sent %d requests, want 1", len(sent))
	}
	for _, want := range []string{"set x to 2", "toolu_r1", "toolu_g1", "x = 1", "Found 1 file", "toolu_e1", "Done: x is 2.", "Now from agent-lsp.",
		`"model":"claude-sonnet-4-5"`} { // the session's model, not agent-lsp's default
		if !bytes.Contains(sent[0].Body, []byte(want)) {
			t.Errorf("agent-lsp's request to the model lacks %q", want)
		}
	}
	continued, err := os.ReadFile(ccFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(continued, made) || !bytes.Contains(continued[len(made):], []byte("Continued by agent-lsp.")) {
		t.Fatalf("agent-lsp did not append to Claude Code's file")
	}
	filepath.WalkDir(d.storeDir, func(path string, e fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".jsonl") {
			t.Errorf("agent-lsp wrote a second history: %s", path)
		}
		return nil
	})
	checkOurLines(t, continued[len(made):], "trunk")

	// Claude Code resumes the one history.
	again, reqs := c.run(`[[{"text": "Resumed in Claude Code."}], [{"text": "spare"}], [{"text": "spare"}]]`, "What happened so far?", "--resume", id)
	if again != id {
		t.Errorf("claude --resume continued as %s, want %s", again, id)
	}
	conv := conversation(t, reqs)
	for _, want := range []string{"set x to 2", "toolu_r1", "toolu_g1", "toolu_e1", "Done: x is 2.", "Now from agent-lsp.", "Continued by agent-lsp.", "What happened so far?"} {
		if !strings.Contains(conv, want) {
			t.Errorf("Claude Code resumed without %q; it sent:\n%s", want, conv)
		}
	}
	final, _ := os.ReadFile(ccFile)
	if !bytes.HasPrefix(final, continued) || !bytes.Contains(final[len(continued):], []byte("Resumed in Claude Code.")) {
		t.Errorf("Claude Code did not append its turn to the same file")
	}
}

// checkOurLines checks that the user and assistant lines agent-lsp wrote
// carry what Claude Code's resume screen reads: gitBranch, a prompt's
// content as a string, and an assistant message's id, model, usage and
// stop_reason.
func checkOurLines(t *testing.T, lines []byte, branch string) {
	t.Helper()
	prompts, responses := 0, 0
	for _, raw := range bytes.Split(bytes.TrimSpace(lines), []byte("\n")) {
		var l struct {
			Type      string `json:"type"`
			GitBranch string `json:"gitBranch"`
			Message   struct {
				ID         string          `json:"id"`
				Model      string          `json:"model"`
				StopReason *string         `json:"stop_reason"`
				Usage      json.RawMessage `json:"usage"`
				Content    json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if err := json.Unmarshal(raw, &l); err != nil {
			t.Fatalf("a line agent-lsp wrote does not decode: %v\n%s", err, raw)
		}
		if l.Type != "user" && l.Type != "assistant" {
			continue
		}
		if l.GitBranch != branch {
			t.Errorf("gitBranch %q, want %q: %s", l.GitBranch, branch, raw)
		}
		switch {
		case l.Type == "assistant":
			responses++
			if !strings.HasPrefix(l.Message.ID, "msg_") || l.Message.Model == "" || l.Message.StopReason == nil || len(l.Message.Usage) == 0 {
				t.Errorf("an assistant line lacks message id, model, stop_reason or usage: %s", raw)
			}
		case bytes.HasPrefix(l.Message.Content, []byte(`"`)):
			prompts++
		}
	}
	if prompts == 0 || responses == 0 {
		t.Errorf("agent-lsp wrote %d prompts as strings and %d responses", prompts, responses)
	}
}

// TestRealClaudeCodeResumesOurs: a session agent-lsp wrote (a prompt,
// parallel Read and Bash, an Edit), put where Claude Code keeps its own,
// is resumed by the real Claude Code, which sends the model the whole
// conversation: agent-lsp's lines are lines Claude Code reads.
func TestRealClaudeCodeResumesOurs(t *testing.T) {
	c := newClaudeCode(t)
	file := filepath.Join(c.proj, "b.txt")
	if err := os.WriteFile(file, []byte("y = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	in := func(v any) string {
		b, _ := json.Marshal(v)
		return string(b)
	}
	d := serveDoor(t, true, c.proj, c.configDir(),
		fake.Turn{fake.Text("Looking."), fake.ToolUse("toolu_or", "Read", in(map[string]string{"file_path": file})), fake.ToolUse("toolu_ob", "Bash", in(map[string]string{"command": "echo from-bash"}))},
		fake.Turn{fake.ToolUse("toolu_oe", "Edit", in(map[string]string{"file_path": file, "old_string": "y = 1", "new_string": "y = 3"}))},
		fake.Turn{fake.Text("Our work is done.")},
	)
	if err := d.ed.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}}, nil); err != nil {
		t.Fatal(err)
	}
	var res schema.NewSessionResult
	if err := d.ed.call("session/new", schema.NewSessionParams{Cwd: c.proj, MCPServers: []schema.MCPServer{}}, &res); err != nil {
		t.Fatal(err)
	}
	if err := d.ed.call("session/set_mode", schema.SetModeParams{SessionID: res.SessionID, ModeID: "acceptEdits"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := d.ed.call("session/prompt", schema.PromptParams{SessionID: res.SessionID, Prompt: []schema.ContentBlock{schema.TextBlock("Set y to 3.")}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := d.ed.call("session/close", schema.SessionIDParams{SessionID: res.SessionID}, nil); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(file); string(b) != "y = 3\n" {
		t.Fatalf("the edit did not happen: %q", b)
	}
	var ours []byte
	filepath.WalkDir(d.storeDir, func(path string, e fs.DirEntry, err error) error {
		if err == nil && filepath.Base(path) == res.SessionID+".jsonl" {
			ours, _ = os.ReadFile(path)
		}
		return nil
	})
	if ours == nil {
		t.Fatal("agent-lsp saved no session file")
	}
	dst := c.sessionFile(res.SessionID)
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, ours, 0o600); err != nil {
		t.Fatal(err)
	}
	id, reqs := c.run(`[[{"text": "Resumed yours."}], [{"text": "spare"}], [{"text": "spare"}]]`, "And now?", "--resume", res.SessionID)
	if id != res.SessionID {
		t.Errorf("claude --resume continued as %s, want %s", id, res.SessionID)
	}
	conv := conversation(t, reqs)
	for _, want := range []string{"Set y to 3.", "toolu_or", "y = 1", "toolu_ob", "from-bash", "toolu_oe", "Our work is done.", "And now?"} {
		if !strings.Contains(conv, want) {
			t.Errorf("Claude Code resumed our session without %q; it sent:\n%s", want, conv)
		}
	}
}

// TestRealClaudeCodeSessionsThroughLinks: a project reached through a
// symbolic link. Claude Code starts a session from the folder or the
// link, agent-lsp continues it from the folder or the link, and Claude
// Code, resumed from the link or the folder, sends its model the whole
// history, agent-lsp's turn included. Claude Code names its folder after
// the resolved cwd, and the session here is one text answer outside a
// git repository, after which Claude Code writes an attachment that its
// last-prompt line names as the leaf to resume from: agent-lsp's lines
// must chain to it (they were a branch Claude Code never read).
func TestRealClaudeCodeSessionsThroughLinks(t *testing.T) {
	tests := []struct {
		name                   string
		ccStart, alsp, ccAgain bool // through the link
	}{
		{name: "claude code from the link", ccStart: true, ccAgain: true},
		{name: "agent-lsp from the link", alsp: true},
		{name: "all from the link", ccStart: true, alsp: true, ccAgain: true},
		{name: "started from the link, resumed from the folder", ccStart: true, alsp: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newClaudeCode(t)
			link := filepath.Join(filepath.Dir(c.proj), "link")
			if err := os.Symlink(c.proj, link); err != nil {
				t.Fatal(err)
			}
			at := func(viaLink bool) string {
				if viaLink {
					return link
				}
				return c.proj
			}
			c.cwd = at(tc.ccStart)
			id, _ := c.run(`[[{"text": "Started in Claude Code."}], [{"text": "spare"}], [{"text": "spare"}]]`, "first prompt")
			ccFile := c.sessionFile(id)
			if _, err := os.Stat(ccFile); err != nil {
				t.Fatalf("Claude Code's session file: %v", err)
			}

			d := serveDoor(t, true, at(tc.alsp), c.configDir(), fake.Turn{fake.Text("Continued by agent-lsp.")})
			if err := d.ed.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}}, nil); err != nil {
				t.Fatal(err)
			}
			var res schema.NewSessionResult
			if err := d.ed.call("session/load", schema.LoadSessionParams{SessionID: id, Cwd: at(tc.alsp), MCPServers: []schema.MCPServer{}}, &res); err != nil {
				t.Fatal(err)
			}
			if err := d.ed.call("session/prompt", schema.PromptParams{SessionID: id, Prompt: []schema.ContentBlock{schema.TextBlock("Now from agent-lsp.")}}, nil); err != nil {
				t.Fatal(err)
			}
			if err := d.ed.call("session/close", schema.SessionIDParams{SessionID: id}, nil); err != nil {
				t.Fatal(err)
			}
			if sent := d.model.Requests(); len(sent) != 1 || !bytes.Contains(sent[0].Body, []byte("Started in Claude Code.")) {
				t.Fatalf("agent-lsp did not continue Claude Code's history (%d requests)", len(sent))
			}
			continued, _ := os.ReadFile(ccFile)
			if !bytes.Contains(continued, []byte("Continued by agent-lsp.")) {
				t.Fatalf("agent-lsp did not append to Claude Code's file %s", ccFile)
			}

			c.cwd = at(tc.ccAgain)
			again, reqs := c.run(`[[{"text": "Resumed in Claude Code."}], [{"text": "spare"}], [{"text": "spare"}]]`, "What happened so far?", "--resume", id)
			if again != id {
				t.Errorf("claude --resume continued as %s, want %s", again, id)
			}
			conv := conversation(t, reqs)
			for _, want := range []string{"first prompt", "Started in Claude Code.", "Now from agent-lsp.", "Continued by agent-lsp.", "What happened so far?"} {
				if !strings.Contains(conv, want) {
					t.Errorf("Claude Code resumed without %q; it sent:\n%.300s", want, conv)
				}
			}
		})
	}
}
