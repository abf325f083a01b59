package reliability_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/internal/editortest"
	"github.com/agent-lsp/agent-lsp/internal/proctest"
	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/session"
)

// TestEditorQuitsMidTurn closes the sidecar's stdin, as an editor that
// quits or crashes does, in the middle of a turn: the process exits and
// nothing it started is left running.
func TestEditorQuitsMidTurn(t *testing.T) {
	proctest.Reaped(t)
	tests := []struct {
		name string
		turn func(m string) fake.Turn
		// busy waits until the turn is where the test wants it.
		busy func(t *testing.T, s *sidecar, sid, m string)
	}{
		{
			name: "model streaming",
			turn: func(string) fake.Turn {
				return fake.Turn{fake.Text("Thinking about it "), fake.Hold{Event: "content_block_stop"}}
			},
			busy: func(t *testing.T, s *sidecar, sid, _ string) {
				s.ed.WaitFor("streamed text", func() bool { return strings.Contains(s.ed.Transcript(sid), "Thinking") })
			},
		},
		{
			name: "command running",
			turn: func(m string) fake.Turn {
				return fake.Turn{fake.ToolUse("toolu_1", "Bash", fmt.Sprintf(`{"command":"sleep %s"}`, m))}
			},
			busy: func(t *testing.T, _ *sidecar, _, m string) { waitProcs(t, m, 1) },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := marker()
			w := newWorld(t, nil)
			s := w.start(t, fake.NewAnthropic(t, tt.turn(m)))
			sid := s.ed.NewSession(w.root)
			wait := s.promptAsync(sid, "do something long")
			tt.busy(t, s, sid, m)
			if err := s.proc.CloseStdin(); err != nil {
				t.Fatal(err)
			}
			if code := s.waitExit(t, 10*time.Second); code < 0 {
				t.Errorf("the sidecar died of a signal; stderr:\n%s", s.stderr())
			}
			if _, err := wait(); err == nil {
				t.Error("the prompt was answered although the editor had quit")
			}
			waitGone(t, m, 3*time.Second)
		})
	}
}

// TestPermissionNeverAnswered has an editor that never answers a
// permission request: session/cancel still ends the turn at once, the
// tool does not run, not even when a late "allow" arrives, and the
// session goes on.
func TestPermissionNeverAnswered(t *testing.T) {
	proctest.Reaped(t)
	w := newWorld(t, nil)
	model := fake.NewAnthropic(t,
		fake.Turn{fake.ToolUse("toolu_1", "Write", `{"file_path":"x.txt","content":"x"}`)},
		fake.Turn{fake.Text("ok")},
	)
	s := w.start(t, model)
	release := make(chan struct{})
	var once sync.Once
	answerLate := func() { once.Do(func() { close(release) }) }
	t.Cleanup(answerLate)
	s.ed.OnPermission(func(*schema.RequestPermissionParams) schema.RequestPermissionResult {
		<-release
		return schema.RequestPermissionResult{Outcome: schema.PermissionOutcome{Outcome: "selected", OptionID: "allow_once"}}
	})
	sid := s.ed.NewSession(w.root)
	wait := s.promptAsync(sid, "write x.txt")
	s.ed.WaitFor("a permission request", func() bool { return len(s.ed.Permissions()) == 1 })

	start := time.Now()
	s.ed.Notify("session/cancel", schema.SessionIDParams{SessionID: sid})
	res, err := wait()
	if err != nil || res.StopReason != schema.StopCancelled {
		t.Fatalf("prompt = %q, %v; want cancelled", res.StopReason, err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("cancel took %s with the permission request unanswered", d)
	}
	s.ed.WaitFor("$/cancelRequest for the permission request", func() bool {
		for _, n := range s.ed.Notifications() {
			if n.Method == "$/cancelRequest" {
				return true
			}
		}
		return false
	})
	answerLate()
	s.ed.OnPermission(editortest.Answer("allow_once"))
	// The session goes on; the model sees the call answered.
	if stop, err := s.ed.Prompt(sid, "never mind"); err != nil || stop != schema.StopEndTurn {
		t.Fatalf("next prompt = %q, %v", stop, err)
	}
	checkConversation(t, messages(t, model.Requests()[1]))
	if _, err := os.Stat(filepath.Join(w.root, "x.txt")); err == nil || len(s.ed.Edits()) > 0 {
		t.Error("the write ran although its prompt was cancelled")
	}
}

// TestModelHangsAfterHeaders has a model server that sends its response
// headers and then nothing.
func TestModelHangsAfterHeaders(t *testing.T) {
	proctest.Reaped(t)
	t.Run("cancel", func(t *testing.T) {
		w := newWorld(t, nil)
		model := fake.NewAnthropic(t, fake.Turn{fake.Hang(0)}, fake.Turn{fake.Text("ok")})
		s := w.start(t, model)
		sid := s.ed.NewSession(w.root)
		wait := s.promptAsync(sid, "hello?")
		s.ed.WaitFor("the model request", func() bool { return len(model.Requests()) == 1 })
		time.Sleep(100 * time.Millisecond) // let the headers reach the sidecar
		start := time.Now()
		s.ed.Notify("session/cancel", schema.SessionIDParams{SessionID: sid})
		if res, err := wait(); err != nil || res.StopReason != schema.StopCancelled {
			t.Fatalf("prompt = %q, %v; want cancelled", res.StopReason, err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("cancel took %s", d)
		}
		if stop, err := s.ed.Prompt(sid, "again"); err != nil || stop != schema.StopEndTurn {
			t.Fatalf("next prompt = %q, %v", stop, err)
		}
		checkConversation(t, messages(t, model.Requests()[1]))
	})
	// The binary's idle timeout (3 minutes) is not configurable: this
	// runs in process with a short one.
	t.Run("stall", func(t *testing.T) {
		root, _ := filepath.EvalSymlinks(t.TempDir())
		model := fake.NewAnthropic(t, fake.Turn{fake.Hang(0)}, fake.Turn{fake.Hang(0)}, fake.Turn{fake.Text("ok")})
		const idle = 300 * time.Millisecond
		p := startInProcess(t, root, anthropicFor(model, idle, 2), nil)
		sid := p.ed.NewSession(root)
		start := time.Now()
		_, err := p.ed.Prompt(sid, "hello?")
		d := time.Since(start)
		if err == nil || !strings.Contains(err.Error(), "no data from the API for "+idle.String()) {
			t.Errorf("prompt error = %v; want one saying the API sent nothing for %s", err, idle)
		}
		if d > 5*time.Second {
			t.Errorf("two stalled attempts of %s took %s", idle, d)
		}
		retried := false
		for _, n := range p.ed.Notifications() {
			if n.Method == "agent/status" && strings.Contains(string(n.Params), `"retry"`) {
				retried = true
			}
		}
		if !retried {
			t.Error("no agent/status retry notice before the second attempt")
		}
		if stop, err := p.ed.Prompt(sid, "again"); err != nil || stop != schema.StopEndTurn {
			t.Fatalf("next prompt = %q, %v", stop, err)
		}
	})
}

// groupIgnoringTERM is a shell command whose process group ignores
// SIGTERM: the shell, a forked subshell and the grandchild sleeps in it.
func groupIgnoringTERM(m string) string {
	return fmt.Sprintf("trap '' TERM; (sleep %s; true) & sleep %s; wait", m, m)
}

func bashInput(t *testing.T, fields map[string]any) string {
	b, err := json.Marshal(fields)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSIGTERMMidTurn sends SIGTERM to the sidecar while a command whose
// process group ignores SIGTERM runs: the sidecar exits promptly with a
// normal exit code, the whole group is gone, what the turn said so far is
// in the session file, and the session resumes in a new sidecar.
func TestSIGTERMMidTurn(t *testing.T) {
	proctest.Reaped(t)
	m := marker()
	w := newWorld(t, nil)
	model := fake.NewAnthropic(t,
		fake.Turn{fake.Text("Starting the build."), fake.ToolUse("toolu_1", "Bash", bashInput(t, map[string]any{"command": groupIgnoringTERM(m)}))},
		fake.Turn{fake.Text("Resumed.")},
	)
	s := w.start(t, model)
	sid := s.ed.NewSession(w.root)
	wait := s.promptAsync(sid, "run the build")
	waitProcs(t, m, 3)
	if err := s.proc.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := s.waitExit(t, 5*time.Second); code != 0 && code != 1 {
		t.Errorf("exit code %d after SIGTERM, want 0 or 1; stderr:\n%s", code, s.stderr())
	}
	wait()
	waitGone(t, m, 3*time.Second)

	h, err := session.NewStore(w.home, "-").Load(w.root, sid)
	if err != nil {
		t.Fatalf("loading the session after SIGTERM: %v", err)
	}
	if len(h.Warnings) > 0 {
		t.Errorf("the session file is damaged: %v", h.Warnings)
	}
	b, _ := json.Marshal(h.Messages)
	if !strings.Contains(string(b), "run the build") || !strings.Contains(string(b), "Starting the build.") || !strings.Contains(string(b), "toolu_1") {
		t.Errorf("the session file lacks the turn so far: %s", b)
	}
	// The interrupted call's result is flushed too.
	if !strings.Contains(string(b), `"tool_use_id":"toolu_1"`) {
		t.Errorf("the session file lacks the result of the interrupted tool call: %s\nstderr:\n%s", b, s.stderr())
	}

	s2 := w.start(t, model)
	s2.ed.MustCall("session/resume", map[string]any{"sessionId": sid, "cwd": w.root, "mcpServers": []any{}}, nil)
	if stop, err := s2.ed.Prompt(sid, "go on"); err != nil || stop != schema.StopEndTurn {
		t.Fatalf("prompt after resume = %q, %v", stop, err)
	}
	msgs := messages(t, model.Requests()[1])
	checkConversation(t, msgs)
	if !strings.Contains(text(msgs), "Starting the build.") {
		t.Errorf("the resumed session lost the interrupted turn: %s", text(msgs))
	}
}

// TestKillDashNineThenResume kills the sidecar with SIGKILL in the middle
// of its second turn; a new sidecar resumes the session with everything
// the first acknowledged, and sends the model a conversation the API
// accepts.
func TestKillDashNineThenResume(t *testing.T) {
	proctest.Reaped(t)
	tests := []struct {
		name string
		turn fake.Turn // the second turn, interrupted
		busy func(s *sidecar, sid string)
	}{
		{
			name: "model streaming",
			turn: fake.Turn{fake.Text("Partial answer "), fake.Hold{Event: "content_block_stop"}},
			busy: func(s *sidecar, sid string) {
				s.ed.WaitFor("the second answer streaming", func() bool { return strings.Contains(s.ed.Transcript(sid), "Partial answer") })
			},
		},
		{
			name: "permission pending",
			turn: fake.Turn{fake.Text("Writing it down."), fake.ToolUse("toolu_2", "Write", `{"file_path":"b.txt","content":"b"}`)},
			busy: func(s *sidecar, sid string) {
				block := make(chan struct{})
				s.ed.OnPermission(func(*schema.RequestPermissionParams) schema.RequestPermissionResult {
					<-block // never answered: the sidecar dies first
					return schema.RequestPermissionResult{Outcome: schema.PermissionOutcome{Outcome: "cancelled"}}
				})
				s.ed.WaitFor("a permission request", func() bool { return len(s.ed.Permissions()) == 1 })
				go func() { <-s.proc.Exited; close(block) }()
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, map[string]string{"a.txt": "hello from a.txt\n"})
			model := fake.NewAnthropic(t,
				fake.Turn{fake.Text("Reading."), fake.ToolUse("toolu_1", "Read", `{"file_path":"a.txt"}`)},
				fake.Turn{fake.Text("The file says hello.")},
				tt.turn,
				fake.Turn{fake.Text("Resumed fine.")},
			)
			s := w.start(t, model)
			sid := s.ed.NewSession(w.root)
			if stop, err := s.ed.Prompt(sid, "what does a.txt say?"); err != nil || stop != schema.StopEndTurn {
				t.Fatalf("first prompt = %q, %v", stop, err)
			}
			wait := s.promptAsync(sid, "and then?")
			tt.busy(s, sid)
			if err := s.proc.Cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			s.waitExit(t, 5*time.Second)
			wait()

			s2 := w.start(t, model)
			var list schema.ListSessionsResult
			s2.ed.MustCall("session/list", map[string]any{"cwd": w.root}, &list)
			if len(list.Sessions) != 1 || list.Sessions[0].SessionID != sid {
				t.Errorf("session/list after kill -9 = %+v, want the session", list.Sessions)
			}
			s2.ed.MustCall("session/resume", map[string]any{"sessionId": sid, "cwd": w.root, "mcpServers": []any{}}, nil)
			if stop, err := s2.ed.Prompt(sid, "are you there?"); err != nil || stop != schema.StopEndTurn {
				t.Fatalf("prompt after resume = %q, %v", stop, err)
			}
			msgs := messages(t, model.Requests()[3])
			checkConversation(t, msgs)
			all := text(msgs)
			for _, want := range []string{"what does a.txt say?", "toolu_1", "hello from a.txt", "The file says hello.", "and then?", "are you there?"} {
				if !strings.Contains(all, want) {
					t.Errorf("the resumed conversation lacks %q: %s", want, all)
				}
			}
		})
	}
}

// TestBashGroupIgnoringSIGTERM runs a command that forks a grandchild,
// with SIGTERM ignored throughout its process group: the whole group is
// gone after the command's timeout, after session/cancel and, run in the
// background, after session/close.
func TestBashGroupIgnoringSIGTERM(t *testing.T) {
	proctest.Reaped(t)
	tests := []struct {
		name  string
		input func(m string) map[string]any
		// stop ends the command and returns how the prompt ended.
		stop func(t *testing.T, p *inProcess, sid string, m string) string
		// result is in the tool result the model gets, "" to skip.
		result string
	}{
		{
			name:  "timeout",
			input: func(m string) map[string]any { return map[string]any{"command": groupIgnoringTERM(m), "timeout": 300} },
			stop: func(t *testing.T, p *inProcess, sid, _ string) string {
				stop, err := p.ed.Prompt(sid, "run it")
				if err != nil {
					t.Fatal(err)
				}
				return stop
			},
			result: "timed out",
		},
		{
			name:  "cancel",
			input: func(m string) map[string]any { return map[string]any{"command": groupIgnoringTERM(m)} },
			stop: func(t *testing.T, p *inProcess, sid, m string) string {
				var res schema.PromptResult
				wait := p.ed.Go("session/prompt", schema.PromptParams{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock("run it")}}, &res)
				waitProcs(t, m, 3)
				p.ed.Notify("session/cancel", schema.SessionIDParams{SessionID: sid})
				if err := wait(); err != nil {
					t.Fatal(err)
				}
				return res.StopReason
			},
		},
		{
			name: "close",
			input: func(m string) map[string]any {
				return map[string]any{"command": groupIgnoringTERM(m), "run_in_background": true}
			},
			stop: func(t *testing.T, p *inProcess, sid, m string) string {
				stop, err := p.ed.Prompt(sid, "run it")
				if err != nil {
					t.Fatal(err)
				}
				waitProcs(t, m, 3)
				p.ed.MustCall("session/close", schema.SessionIDParams{SessionID: sid}, nil)
				return stop
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := marker()
			root, _ := filepath.EvalSymlinks(t.TempDir())
			model := fake.NewAnthropic(t,
				fake.Turn{fake.ToolUse("toolu_1", "Bash", bashInput(t, tt.input(m)))},
				fake.Turn{fake.Text("done")},
			)
			p := startInProcess(t, root, anthropicFor(model, time.Minute, 1), nil)
			sid := p.ed.NewSession(root)
			start := time.Now()
			stop := tt.stop(t, p, sid, m)
			if tt.name == "cancel" && stop != schema.StopCancelled || tt.name != "cancel" && stop != schema.StopEndTurn {
				t.Errorf("stop reason %q", stop)
			}
			// SIGTERM, a second's grace, SIGKILL.
			waitGone(t, m, 3*time.Second)
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %s", d)
			}
			if tt.result != "" {
				msgs := messages(t, model.Requests()[1])
				if got := text(msgs[len(msgs)-1:]); !strings.Contains(got, tt.result) {
					t.Errorf("tool result %s; want it to say %q", got, tt.result)
				}
			}
		})
	}
}

// TestDiskFull fills the disk (a small tmpfs, or the file size limit
// where mounting is not allowed) while the sidecar writes a session: the
// failure is reported clearly, the file is not corrupted, and the
// session keeps working and resumes.
func TestDiskFull(t *testing.T) {
	proctest.Reaped(t)
	tests := []struct {
		name string
		// wrap returns the command line that runs the binary (appended
		// to it) with the limit, and the directory the session files
		// are in once it has exited.
		wrap func(t *testing.T, home string) ([]string, string)
		// errno is what the failed write says.
		errno string
	}{
		{
			name: "tmpfs",
			wrap: func(t *testing.T, home string) ([]string, string) {
				probe := exec.Command("unshare", "--mount", "--propagation", "private", "--", "sh", "-c", `mount -t tmpfs -o size=4k tmpfs "$1"`, "sh", t.TempDir())
				if out, err := probe.CombinedOutput(); err != nil {
					t.Skipf("cannot mount a tmpfs in a mount namespace (%v: %s); the file size limit case covers this", err, out)
				}
				out := t.TempDir()
				// The tmpfs lives in a private mount namespace: the
				// session files are copied out when the sidecar exits.
				script := `mount -t tmpfs -o size=64k tmpfs "$1" || exit 97; h=$1; o=$2; shift 2; "$@"; rc=$?; cp -a "$h"/. "$o"/; exit $rc`
				return []string{"unshare", "--mount", "--propagation", "private", "--", "sh", "-c", script, "sh", home, out}, out
			},
			errno: "no space left on device",
		},
		{
			name: "file size limit",
			wrap: func(t *testing.T, home string) ([]string, string) {
				// 64 KiB per file (bash counts ulimit -f in KiB).
				return []string{"bash", "-c", `ulimit -f 64 && exec "$@"`, "bash"}, home
			},
			errno: "file too large",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, nil)
			wrap, stored := tt.wrap(t, w.home)
			big := make([]string, 10)
			for i := range big {
				big[i] = strings.Repeat(fmt.Sprintf("line %d of a long answer. ", i), 400) // 10 KB each
			}
			model := fake.NewAnthropic(t,
				fake.Turn{fake.Text("Short answer.")},
				fake.Turn{fake.Text(big...)},
				fake.Turn{fake.Text("Still here.")},
				fake.Turn{fake.Text("Resumed.")},
			)
			s := w.start(t, model, wrap...)
			sid := s.ed.NewSession(w.root)
			for _, p := range []string{"first question", "second question, long answer", "third question"} {
				if stop, err := s.ed.Prompt(sid, p); err != nil || stop != schema.StopEndTurn {
					t.Fatalf("prompt %q = %q, %v; stderr:\n%s", p, stop, err, s.stderr())
				}
			}
			// The editor is told that the session is no longer saved.
			warned := false
			for _, n := range s.ed.Notifications() {
				if n.Method == "agent/status" && strings.Contains(string(n.Params), tt.errno) {
					warned = true
				}
			}
			s.proc.CloseStdin()
			s.waitExit(t, 10*time.Second)
			if !warned {
				t.Errorf("no agent/status notice told the editor that saving the session failed (%s); stderr:\n%s", tt.errno, s.stderr())
			}
			if !strings.Contains(s.stderr(), tt.errno) || !strings.Contains(s.stderr(), sid+".jsonl") {
				t.Errorf("stderr does not name the session file and %q:\n%s", tt.errno, s.stderr())
			}

			checkJSONL(t, stored, sid)
			h, err := session.NewStore(stored, "-").Load(w.root, sid)
			if err != nil {
				t.Fatal(err)
			}
			if len(h.Warnings) > 0 {
				t.Errorf("loading the session: %v", h.Warnings)
			}
			b, _ := json.Marshal(h.Messages)
			for _, want := range []string{"first question", "Short answer.", "second question"} {
				if !strings.Contains(string(b), want) {
					t.Errorf("the session file lacks %q, written before the disk filled: %s", want, b)
				}
			}
			// A new sidecar, without the limit, resumes what was saved.
			if stored != w.home {
				copyTree(t, stored, w.home)
			}
			s2 := w.start(t, model)
			s2.ed.MustCall("session/resume", map[string]any{"sessionId": sid, "cwd": w.root, "mcpServers": []any{}}, nil)
			if stop, err := s2.ed.Prompt(sid, "still there?"); err != nil || stop != schema.StopEndTurn {
				t.Fatalf("prompt after resume = %q, %v", stop, err)
			}
			checkConversation(t, messages(t, model.Requests()[3]))
		})
	}
}

// checkJSONL checks that the session file under dir holds only whole
// JSON lines.
func checkJSONL(t *testing.T, dir, sid string) {
	t.Helper()
	var found []string
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == sid+".jsonl" {
			found = append(found, path)
		}
		return nil
	})
	if len(found) != 1 {
		t.Fatalf("found %v, want one session file %s.jsonl under %s", found, sid, dir)
	}
	b, err := os.ReadFile(found[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(b) == 0 || b[len(b)-1] != '\n' {
		t.Errorf("%s does not end with a whole line", found[0])
	}
	for i, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("%s line %d is not JSON: %.200s", found[0], i+1, line)
		}
	}
}

// copyTree copies the files under src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
}
