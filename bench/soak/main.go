// Command soak runs the built agent-lsp for a long time against a local
// fake model and reports, over time, the sidecar's resident memory, its
// threads, its open files and the processes it has left running, read
// from /proc. A leak shows as a column that keeps growing; the last line
// compares the end with the first sample taken after the warm-up.
//
// Each prompt is one scripted turn of four model calls: a Read, an Edit
// and a Bash command (both asked and allowed once), then a streamed
// answer of about 2 KB. Sessions are closed and replaced every few
// prompts, so what a session keeps must be freed when it closes.
//
// Usage (scripts/soak.sh, make soak):
//
//	soak -bin bin/agent-lsp [-duration 10m] [-interval 10s] [-session-prompts 10]
//
// It exits 1 when a column grew beyond its allowance (see leaked).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/rpc"
	"github.com/agent-lsp/agent-lsp/schema"
)

func main() {
	bin := flag.String("bin", "bin/agent-lsp", "agent-lsp binary")
	duration := flag.Duration("duration", 10*time.Minute, "how long to run")
	interval := flag.Duration("interval", 10*time.Second, "time between samples")
	perSession := flag.Int("session-prompts", 10, "prompts before a session is closed and replaced")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("soak: ")
	if err := run(*bin, *duration, *interval, *perSession); err != nil {
		log.Fatal(err)
	}
}

// sample is what /proc says of the sidecar at one time.
type sample struct {
	at       time.Duration
	prompts  int
	rssKB    int
	threads  int
	fds      int
	children int // processes whose parent is the sidecar
}

func run(bin string, duration, interval time.Duration, perSession int) error {
	bin, err := filepath.Abs(bin)
	if err != nil {
		return err
	}
	ws, err := os.MkdirTemp("", "agent-lsp-soak-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(ws)
	ws, _ = filepath.EvalSymlinks(ws)
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte(strings.Repeat("a line of notes\n", 40)+"state: alpha\n"), 0o644); err != nil {
		return err
	}

	model := fake.NewAnthropic(nil)
	defer model.Close()
	sc, err := startSidecar(bin, ws, model.BaseURL())
	if err != nil {
		return err
	}
	defer sc.stop()
	if err := sc.initialize(ws); err != nil {
		return err
	}

	var (
		mu      sync.Mutex
		prompts int // guarded by mu
		samples []sample
	)
	start := time.Now()
	stopSampling := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(interval)
		defer t.Stop()
		fmt.Println("| elapsed | prompts | RSS | threads | open files | children |")
		fmt.Println("|---|---|---|---|---|---|")
		for {
			mu.Lock()
			s := sc.sample(time.Since(start), prompts)
			mu.Unlock()
			samples = append(samples, s)
			fmt.Printf("| %s | %d | %.1f MB | %d | %d | %d |\n", s.at.Round(time.Second), s.prompts, float64(s.rssKB)/1024, s.threads, s.fds, s.children)
			select {
			case <-stopSampling:
				return
			case <-t.C:
			}
		}
	}()

	var sid string
	for i := 0; time.Since(start) < duration; i++ {
		if i%perSession == 0 {
			if sid != "" {
				if err := sc.call("session/close", schema.SessionIDParams{SessionID: sid}, nil); err != nil {
					return err
				}
			}
			var res schema.NewSessionResult
			if err := sc.call("session/new", schema.NewSessionParams{Cwd: ws, MCPServers: []schema.MCPServer{}}, &res); err != nil {
				return err
			}
			sid = res.SessionID
		}
		model.Add(cycle(i)...)
		var res schema.PromptResult
		if err := sc.call("session/prompt", schema.PromptParams{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock(fmt.Sprintf("soak prompt %d", i))}}, &res); err != nil {
			return fmt.Errorf("prompt %d: %w", i, err)
		}
		if res.StopReason != schema.StopEndTurn {
			return fmt.Errorf("prompt %d ended with %q", i, res.StopReason)
		}
		if errs := model.Errors(); len(errs) > 0 {
			return fmt.Errorf("the fake model: %s", strings.Join(errs, "; "))
		}
		mu.Lock()
		prompts++
		mu.Unlock()
	}
	close(stopSampling)
	<-sampled
	mu.Lock()
	samples = append(samples, sc.sample(time.Since(start), prompts))
	mu.Unlock()
	return report(samples)
}

// cycle is the model's side of prompt i: Read, Edit (alpha and beta in
// turn), Bash, and a streamed answer.
func cycle(i int) []fake.Turn {
	from, to := "alpha", "beta"
	if i%2 == 1 {
		from, to = to, from
	}
	answer := make([]string, 20)
	for k := range answer {
		answer[k] = fmt.Sprintf("Part %d of the answer to prompt %d, long enough to stream as its own delta. ", k, i) + strings.Repeat("word ", 12)
	}
	return []fake.Turn{
		{fake.Text("Let me look at the notes."), fake.ToolUse(fmt.Sprintf("toolu_%d_read", i), "Read", `{"file_path":"notes.txt"}`)},
		{fake.ToolUse(fmt.Sprintf("toolu_%d_edit", i), "Edit", fmt.Sprintf(`{"file_path":"notes.txt","old_string":"state: %s","new_string":"state: %s"}`, from, to))},
		{fake.ToolUse(fmt.Sprintf("toolu_%d_bash", i), "Bash", fmt.Sprintf(`{"command":"grep -c line notes.txt && echo soak %d"}`, i))},
		{fake.Text(answer...)},
	}
}

// leaked compares the end with the first sample after the warm-up (a
// fifth of the run) and describes what grew beyond its allowance: RSS by
// more than 25%, threads by more than 10, open files by more than 10,
// and any process left running.
func leaked(samples []sample) []string {
	if len(samples) < 3 {
		return nil
	}
	base := samples[max(1, len(samples)/5)]
	last := samples[len(samples)-1]
	var out []string
	if last.rssKB > base.rssKB*5/4 {
		out = append(out, fmt.Sprintf("RSS grew from %.1f MB to %.1f MB", float64(base.rssKB)/1024, float64(last.rssKB)/1024))
	}
	if last.threads > base.threads+10 {
		out = append(out, fmt.Sprintf("threads grew from %d to %d", base.threads, last.threads))
	}
	if last.fds > base.fds+10 {
		out = append(out, fmt.Sprintf("open files grew from %d to %d", base.fds, last.fds))
	}
	if last.children > 0 {
		out = append(out, fmt.Sprintf("%d child processes are left running between prompts", last.children))
	}
	return out
}

func report(samples []sample) error {
	base := samples[max(1, len(samples)/5)]
	last := samples[len(samples)-1]
	rate := float64(last.prompts) / last.at.Seconds()
	fmt.Printf("\n%d prompts (%d model calls, %d tool calls) in %s, %.1f prompts/s. From %s (after the warm-up) to the end: RSS %.1f → %.1f MB (%+.1f%%), threads %d → %d, open files %d → %d.\n",
		last.prompts, 4*last.prompts, 3*last.prompts, last.at.Round(time.Second), rate, base.at.Round(time.Second),
		float64(base.rssKB)/1024, float64(last.rssKB)/1024, 100*float64(last.rssKB-base.rssKB)/float64(max(base.rssKB, 1)),
		base.threads, last.threads, base.fds, last.fds)
	if l := leaked(samples); len(l) > 0 {
		return fmt.Errorf("possible leak: %s", strings.Join(l, "; "))
	}
	fmt.Println("No growth beyond the allowances (RSS 25%, threads 10, open files 10, no process left).")
	return nil
}

// sidecar is the running binary with a minimal editor on its stdio that
// allows every permission request once.
type sidecar struct {
	cmd   *exec.Cmd
	conn  jsonrpc2.Conn
	peer  rpc.Peer
	stdin io.Closer
	home  string
}

func startSidecar(bin, ws, baseURL string) (*sidecar, error) {
	home, err := os.MkdirTemp("", "agent-lsp-soak-home-")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "--stdio")
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "ANTHROPIC_API_KEY=soak", "ANTHROPIC_BASE_URL="+baseURL, "AGENT_LSP_HOME="+home, "AGENT_LSP_NO_USER_SETTINGS=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &sidecar{cmd: cmd, stdin: stdin, home: home}
	s.conn = jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(struct {
		io.Reader
		io.WriteCloser
	}{stdout, stdin}))
	s.peer = rpc.Peer{Conn: s.conn}
	s.conn.Go(context.Background(), func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if !req.IsCall() {
			return nil, nil
		}
		if req.Method() == "session/request_permission" {
			return rpc.Raw(schema.RequestPermissionResult{Outcome: schema.PermissionOutcome{Outcome: "selected", OptionID: "allow_once"}})
		}
		return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "soak: %s is not handled", req.Method())
	})
	return s, nil
}

func (s *sidecar) call(method string, params, result any) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := s.peer.Call(ctx, method, params, result); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

func (s *sidecar) initialize(ws string) error {
	var res json.RawMessage
	if err := s.call("initialize", map[string]any{
		"processId":             os.Getpid(),
		"rootUri":               string(uri.File(ws)),
		"capabilities":          map[string]any{"experimental": map[string]any{"agent": map[string]any{}}},
		"initializationOptions": map[string]any{"maxTurns": 10},
	}, &res); err != nil {
		return err
	}
	return s.peer.Notify(context.Background(), "initialized", map[string]any{})
}

// sample reads the sidecar's /proc entries.
func (s *sidecar) sample(at time.Duration, prompts int) sample {
	pid := s.cmd.Process.Pid
	out := sample{at: at, prompts: prompts}
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			k, v, _ := strings.Cut(line, ":")
			f := strings.Fields(v)
			if len(f) == 0 {
				continue
			}
			switch k {
			case "VmRSS":
				out.rssKB, _ = strconv.Atoi(f[0])
			case "Threads":
				out.threads, _ = strconv.Atoi(f[0])
			}
		}
	}
	if fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid)); err == nil {
		out.fds = len(fds)
	}
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid)); err == nil {
		out.children = len(strings.Fields(string(b)))
	}
	return out
}

// stop closes the sidecar's stdin and waits for it to exit.
func (s *sidecar) stop() {
	s.stdin.Close()
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
	s.conn.Close()
	os.RemoveAll(s.home)
}
