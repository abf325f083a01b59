package reliability_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/internal/editortest"
	"github.com/agent-lsp/agent-lsp/internal/proctest"
	"github.com/agent-lsp/agent-lsp/internal/testenv"
	"github.com/agent-lsp/agent-lsp/providers/anthropic"
	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/providers/retry"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/server"
	"github.com/agent-lsp/agent-lsp/session"
)

// binary is the agent-lsp under test: AGENT_LSP_BIN, else built once for
// the package.
var binary string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	bin, cleanup, err := testenv.BuildAgent("reliability")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer cleanup()
	binary = bin
	return proctest.RunReaped(m)
}

// sidecar is the built binary with a fake editor on its stdio.
type sidecar struct {
	ed   *editortest.Editor
	proc *editortest.Process
	root string // the workspace
	home string // AGENT_LSP_HOME: where sessions are stored
}

// world is a workspace and a session store that outlive one sidecar,
// so a test can start another on them.
type world struct {
	root, home string
}

func newWorld(t *testing.T, files map[string]string) world {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return world{root: root, home: t.TempDir()}
}

// start runs the binary (through wrap, a command line that ends with the
// binary's path, when given) on w with model, and initializes it.
func (w world) start(t *testing.T, model *fake.Server, wrap ...string) *sidecar {
	t.Helper()
	env := []string{"ANTHROPIC_API_KEY=test", "ANTHROPIC_BASE_URL=" + model.BaseURL(),
		"AGENT_LSP_HOME=" + w.home, "AGENT_LSP_NO_USER_SETTINGS=1"}
	bin, args := binary, []string{"--stdio"}
	if len(wrap) > 0 {
		bin, args = wrap[0], append(wrap[1:], binary, "--stdio")
	}
	ed, proc := editortest.NewProcess(t, bin, args, env...)
	ed.Initialize(w.root, nil)
	return &sidecar{ed: ed, proc: proc, root: w.root, home: w.home}
}

// promptAsync starts a prompt; the returned function waits for its
// result.
func (s *sidecar) promptAsync(sid, text string) func() (schema.PromptResult, error) {
	var res schema.PromptResult
	wait := s.ed.Go("session/prompt", schema.PromptParams{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock(text)}}, &res)
	return func() (schema.PromptResult, error) {
		err := wait()
		return res, err
	}
}

// waitExit waits for the sidecar to exit and returns its exit code (-1
// when a signal killed it).
func (s *sidecar) waitExit(t *testing.T, within time.Duration) int {
	t.Helper()
	select {
	case <-s.proc.Exited:
		return s.proc.Cmd.ProcessState.ExitCode()
	case <-time.After(within):
		t.Fatalf("the sidecar still runs %s later", within)
		return 0
	}
}

// stderr returns what the sidecar logged, once it has exited: until then
// editortest's builder is being written without a lock the test can
// take.
func (s *sidecar) stderr() string {
	select {
	case <-s.proc.Exited:
		return s.proc.Stderr.String()
	default:
		return "(the sidecar still runs: its stderr is not read until it exits)"
	}
}

// inProcess is a server running in the test binary (under the race
// detector when the tests are), on a workspace, with a provider the test
// configures.
type inProcess struct {
	ed   *editortest.Editor
	root string
	home string // the engine's home and session store
}

// startInProcess serves a fake editor in process with provider as the
// model, adjusted by configure.
func startInProcess(t *testing.T, root string, provider engine.Provider, configure func(*engine.Config)) *inProcess {
	t.Helper()
	home := t.TempDir()
	ed := editortest.New(t, server.Options{
		Version:       "test",
		Logf:          t.Logf,
		TranscriptDir: filepath.Join(home, "transcripts"),
		NewService: func(server.InitOptions) (*engine.Service, error) {
			cfg := engine.Config{Provider: provider, Model: "claude-test", Logf: t.Logf, Home: home,
				Store: session.NewStore(home, "-")}
			if configure != nil {
				configure(&cfg)
			}
			return engine.NewService(cfg), nil
		},
	})
	ed.Initialize(root, nil)
	return &inProcess{ed: ed, root: root, home: home}
}

// anthropicFor is a provider for the fake server, retrying like the
// binary's (with short waits), and failing a stream idle for idle.
func anthropicFor(model *fake.Server, idle time.Duration, attempts int) engine.Provider {
	p := anthropic.New(anthropic.Options{APIKey: "test", BaseURL: model.BaseURL(), IdleTimeout: idle})
	return retry.Wrap(p, retry.Policy{MaxAttempts: attempts, Base: 10 * time.Millisecond, Cap: 50 * time.Millisecond})
}

// marker returns a number unique to this run to put in a command line
// (as a sleep duration) so the test can find the process.
func marker() string {
	return fmt.Sprintf("%d.%06d", 7000+rand.IntN(1000), rand.IntN(1000000))
}

// procs returns the live descendants of the test binary whose command
// line contains marker.
func procs(marker string) []proctest.Proc {
	var out []proctest.Proc
	for _, p := range proctest.Descendants() {
		if strings.Contains(p.Cmdline, marker) {
			out = append(out, p)
		}
	}
	return out
}

// waitProcs waits until n processes with marker are alive.
func waitProcs(t *testing.T, marker string, n int) []proctest.Proc {
	t.Helper()
	deadline := time.Now().Add(editortest.Timeout)
	for {
		ps := procs(marker)
		if len(ps) >= n {
			return ps
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %d processes running %q; found %v", editortest.Timeout, n, marker, ps)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitGone waits until no process with marker is alive, and marks the
// test failed, naming those left, after within.
func waitGone(t *testing.T, marker string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		ps := procs(marker)
		if len(ps) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("%d process(es) running %q are alive %s later: %+v", len(ps), marker, within, ps)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// wireMessage is a message of a request as the model API received it.
type wireMessage struct {
	Role   string
	Blocks []map[string]any
}

// messages decodes the messages of a model request.
func messages(t *testing.T, r fake.Request) []wireMessage {
	t.Helper()
	var body struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := r.Decode(&body); err != nil {
		t.Fatal(err)
	}
	var out []wireMessage
	for _, m := range body.Messages {
		wm := wireMessage{Role: m.Role}
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			wm.Blocks = []map[string]any{{"type": "text", "text": s}}
		} else if err := json.Unmarshal(m.Content, &wm.Blocks); err != nil {
			t.Fatalf("message content %s: %v", m.Content, err)
		}
		out = append(out, wm)
	}
	return out
}

// text joins the text and tool result text of a conversation, for
// searching.
func text(msgs []wireMessage) string {
	b, _ := json.Marshal(msgs)
	return string(b)
}

// checkConversation checks what the Messages API demands of a request:
// roles alternate from user, and every tool_use is answered by a
// tool_result in the next message.
func checkConversation(t *testing.T, msgs []wireMessage) {
	t.Helper()
	for i, m := range msgs {
		want := "user"
		if i%2 == 1 {
			want = "assistant"
		}
		if m.Role != want {
			t.Errorf("message %d has role %s, want %s: roles must alternate from user\n%s", i, m.Role, want, text(msgs))
			return
		}
		if m.Role != "assistant" {
			continue
		}
		for _, b := range m.Blocks {
			if b["type"] != "tool_use" {
				continue
			}
			answered := false
			if i+1 < len(msgs) {
				for _, r := range msgs[i+1].Blocks {
					if r["type"] == "tool_result" && r["tool_use_id"] == b["id"] {
						answered = true
					}
				}
			}
			if !answered {
				t.Errorf("tool_use %v of message %d has no tool_result in the next message (the API refuses such a request)\n%s", b["id"], i, text(msgs))
			}
		}
	}
}
