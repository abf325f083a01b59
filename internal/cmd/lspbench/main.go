// Command lspbench measures the built agent-lsp binary from the outside,
// the way an editor meets it: cold start, memory over long sessions, and
// streaming latency and throughput from the model's SSE events to the
// editor's session/update notifications. It prints a markdown table.
//
// Usage:
//
//	lspbench -bin bin/agent-lsp [-trivial bin/trivial] [-before bin/old] [-startonly] [-runs 50] [-turns 20] [-toolcalls 2000] [-events 2000] [-burst 20000]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
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
	trivial := flag.String("trivial", "", "the trivial Go stdio program (bench/trivial) to compare start-up with")
	before := flag.String("before", "", "an earlier agent-lsp build whose start-up is timed in the same runs (with -trivial)")
	startOnly := flag.Bool("startonly", false, "measure only start-up (with -trivial)")
	runs := flag.Int("runs", 50, "cold starts to time")
	turns := flag.Int("turns", 20, "turns of the scripted session")
	toolCalls := flag.Int("toolcalls", 2000, "tool calls of the long session")
	events := flag.Int("events", 2000, "paced SSE events for the latency measure")
	burst := flag.Int("burst", 20000, "SSE events sent at once for the throughput measure")
	flag.Parse()
	log.SetFlags(0)

	abs, err := filepath.Abs(*bin)
	if err != nil {
		log.Fatal(err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		log.Fatalf("lspbench: %v (build it first: make build)", err)
	}
	rows := [][2]string{{"binary size", fmt.Sprintf("%.1f MB", float64(fi.Size())/1e6)}}

	if *trivial != "" {
		rows = append(rows, startupRows(abs, *before, *trivial, *runs)...)
	}
	if *startOnly {
		printRows(rows)
		return
	}
	starts := coldStarts(abs, *runs)
	rows = append(rows, [2]string{fmt.Sprintf("cold start: spawn → initialize answered (%d runs)", *runs), fmt.Sprintf("median %s, p95 %s", ms(pct(starts, 50)), ms(pct(starts, 95)))})

	rows = append(rows, memory(abs, *turns, *toolCalls)...)
	rows = append(rows, streaming(abs, *events, *burst)...)

	printRows(rows)
}

func printRows(rows [][2]string) {
	fmt.Println("| measure | result |")
	fmt.Println("|---|---|")
	for _, r := range rows {
		fmt.Printf("| %s | %s |\n", r[0], r[1])
	}
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

func pct(ds []time.Duration, p int) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := (len(s)*p + 99) / 100
	return s[max(0, min(len(s)-1, i-1))]
}

// agent is a running agent-lsp with a minimal editor attached.
type agent struct {
	cmd     *exec.Cmd
	conn    jsonrpc2.Conn
	peer    rpc.Peer
	onNote  func(method string, params json.RawMessage)
	stdin   io.Closer
	workdir string
}

func start(bin string, env []string, onNote func(string, json.RawMessage)) *agent {
	wd, err := os.MkdirTemp("", "lspbench-")
	if err != nil {
		log.Fatal(err)
	}
	wd, _ = filepath.EvalSymlinks(wd)
	cmd := exec.Command(bin, "--stdio")
	cmd.Dir = wd
	cmd.Env = append(os.Environ(), append([]string{"AGENT_LSP_HOME=" + filepath.Join(wd, ".home"), "AGENT_LSP_NO_USER_SETTINGS=1"}, env...)...)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	a := &agent{cmd: cmd, onNote: onNote, stdin: stdin, workdir: wd}
	a.conn = jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(struct {
		io.Reader
		io.WriteCloser
	}{stdout, stdin}))
	a.peer = rpc.Peer{Conn: a.conn}
	a.conn.Go(context.Background(), func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if !req.IsCall() {
			if a.onNote != nil {
				a.onNote(req.Method(), json.RawMessage(req.Params()))
			}
			return nil, nil
		}
		if req.Method() == "session/request_permission" {
			return rpc.Raw(schema.RequestPermissionResult{Outcome: schema.PermissionOutcome{Outcome: "selected", OptionID: "allow_always"}})
		}
		return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "not handled")
	})
	return a
}

func (a *agent) initialize(opts map[string]any) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var res json.RawMessage
	err := a.peer.Call(ctx, "initialize", map[string]any{
		"processId":             os.Getpid(),
		"rootUri":               string(uri.File(a.workdir)),
		"capabilities":          map[string]any{"experimental": map[string]any{"agent": map[string]any{}}},
		"initializationOptions": opts,
	}, &res)
	if err != nil {
		log.Fatalf("initialize: %v", err)
	}
	a.peer.Notify(ctx, "initialized", map[string]any{})
}

func (a *agent) newSession() string {
	var res schema.NewSessionResult
	if err := a.peer.Call(context.Background(), "session/new", schema.NewSessionParams{Cwd: a.workdir, MCPServers: []schema.MCPServer{}}, &res); err != nil {
		log.Fatalf("session/new: %v", err)
	}
	return res.SessionID
}

func (a *agent) prompt(sid, text string) {
	var res schema.PromptResult
	if err := a.peer.Call(context.Background(), "session/prompt", schema.PromptParams{SessionID: sid, Prompt: []schema.ContentBlock{schema.TextBlock(text)}}, &res); err != nil {
		log.Fatalf("session/prompt: %v", err)
	}
}

func (a *agent) close(sid string) {
	if err := a.peer.Call(context.Background(), "session/close", schema.SessionIDParams{SessionID: sid}, nil); err != nil {
		log.Fatalf("session/close: %v", err)
	}
}

func (a *agent) rssKB() int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", a.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.Fields(rest)[0])
			return n
		}
	}
	return 0
}

func (a *agent) stop() {
	a.stdin.Close()
	done := make(chan struct{})
	go func() { a.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		a.cmd.Process.Kill()
		<-done
	}
	a.conn.Close()
	os.RemoveAll(a.workdir)
}

// coldStarts times spawn -> initialize answered.
func coldStarts(bin string, runs int) []time.Duration {
	var out []time.Duration
	for range runs {
		t0 := time.Now()
		a := start(bin, []string{"ANTHROPIC_API_KEY=bench"}, nil)
		a.initialize(nil)
		out = append(out, time.Since(t0))
		a.stop()
	}
	return out
}

// memory reads RSS after initialize, after a scripted session and along a
// long run of tool calls.
func memory(bin string, turns, toolCalls int) [][2]string {
	var script []fake.Turn
	for i := range turns {
		script = append(script, fake.Turn{fake.Text(fmt.Sprintf("Answer %d: ", i), strings.Repeat("words and more words ", 50))})
	}
	script = append(script, toolScript(toolCalls)...)
	model := fake.NewAnthropic(nil, script...)
	defer model.Close()
	a := start(bin, []string{"ANTHROPIC_API_KEY=bench", "ANTHROPIC_BASE_URL=" + model.BaseURL()}, nil)
	defer a.stop()
	os.WriteFile(filepath.Join(a.workdir, "small.txt"), []byte(strings.Repeat("a line of text\n", 50)), 0o644)
	a.initialize(map[string]any{"maxTurns": toolCalls + 10})
	afterInit := a.rssKB()
	sid := a.newSession()
	for i := range turns {
		a.prompt(sid, fmt.Sprintf("question %d", i))
	}
	afterTurns := a.rssKB()
	// The tool calls run in two sessions of half each, closed after
	// their turn: a leak per call shows as growth between the two.
	a.close(sid)
	sid = a.newSession()
	a.prompt(sid, "read small.txt many times")
	a.close(sid)
	mid := a.rssKB()
	sid = a.newSession()
	a.prompt(sid, "once more")
	a.close(sid)
	end := a.rssKB()
	flat := 100 * float64(end-mid) / float64(mid)
	return [][2]string{
		{"RSS after initialize", fmt.Sprintf("%.1f MB", float64(afterInit)/1024)},
		{fmt.Sprintf("RSS after a %d-turn session", turns), fmt.Sprintf("%.1f MB", float64(afterTurns)/1024)},
		{fmt.Sprintf("RSS after %d / %d tool calls", toolCalls/2, toolCalls), fmt.Sprintf("%.1f MB / %.1f MB (%+.1f%%)", float64(mid)/1024, float64(end)/1024, flat)},
	}
}

// toolScript is two prompts of toolCalls/2 Read calls each, then a final
// answer each.
func toolScript(toolCalls int) []fake.Turn {
	var out []fake.Turn
	for half := range 2 {
		for i := range toolCalls / 2 {
			out = append(out, fake.Turn{fake.ToolUse(fmt.Sprintf("toolu_%d_%d", half, i), "Read", `{"file_path":"small.txt"}`)})
		}
		out = append(out, fake.Turn{fake.Text("done")})
	}
	return out
}

// streaming measures the delay from the model server writing an SSE event
// to the editor receiving its session/update, and the rate of a burst.
func streaming(bin string, events, burst int) [][2]string {
	var mu sync.Mutex
	var latencies []time.Duration
	var seen []int
	var lastAt time.Time
	srv := httptest.NewServer(sseServer(events, burst))
	defer srv.Close()
	a := start(bin, []string{"ANTHROPIC_API_KEY=bench", "ANTHROPIC_BASE_URL=" + srv.URL}, func(method string, params json.RawMessage) {
		if method != "session/update" {
			return
		}
		now := time.Now()
		var n schema.SessionNotification
		if json.Unmarshal(params, &n) != nil || n.Update.SessionUpdate != schema.UpdateAgentMessageChunk || n.Update.Content == nil {
			return
		}
		seq, sent, ok := parseChunk(n.Update.Content.Text)
		if !ok {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if seq < events {
			latencies = append(latencies, now.Sub(time.Unix(0, sent)))
		} else {
			seen = append(seen, seq-events)
			lastAt = now
		}
	})
	defer a.stop()
	a.initialize(nil)
	sid := a.newSession()
	a.prompt(sid, "paced")
	t0 := time.Now()
	a.prompt(sid, "burst")
	mu.Lock()
	defer mu.Unlock()
	inOrder := len(seen) == burst
	for i, s := range seen {
		if s != i {
			inOrder = false
		}
	}
	rate := float64(len(seen)) / lastAt.Sub(t0).Seconds()
	return [][2]string{
		{fmt.Sprintf("added latency, SSE event → session/update (%d events)", len(latencies)), fmt.Sprintf("p50 %s, p99 %s", ms(pct(latencies, 50)), ms(pct(latencies, 99)))},
		{fmt.Sprintf("throughput, burst of %d deltas", burst), fmt.Sprintf("%.0f notifications/s; %d of %d received, in order: %v", rate, len(seen), burst, inOrder)},
	}
}

func parseChunk(s string) (seq int, sentNanos int64, ok bool) {
	a, b, found := strings.Cut(strings.TrimSpace(s), "@")
	if !found {
		return 0, 0, false
	}
	seq, err1 := strconv.Atoi(a)
	sentNanos, err2 := strconv.ParseInt(b, 10, 64)
	return seq, sentNanos, err1 == nil && err2 == nil
}

// sseServer answers the first request with events paced 0.5 ms apart and
// the second with a burst, each delta carrying its sequence number and the
// time it was written.
func sseServer(events, burst int) http.HandlerFunc {
	var mu sync.Mutex
	calls := 0
	return func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		call := calls
		calls++
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		send := func(name string, v any) {
			b, _ := json.Marshal(v)
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
		}
		send("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": "msg_bench", "type": "message", "role": "assistant", "model": "claude-bench", "content": []any{}, "stop_reason": nil, "usage": map[string]any{"input_tokens": 10, "output_tokens": 1}}})
		send("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		fl.Flush()
		n, base := events, 0
		if call > 0 {
			n, base = burst, events
		}
		for i := range n {
			send("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": fmt.Sprintf("%d@%d ", base+i, time.Now().UnixNano())}})
			if call == 0 {
				fl.Flush()
				time.Sleep(500 * time.Microsecond)
			}
		}
		send("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
		send("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": "end_turn"}, "usage": map[string]any{"output_tokens": n}})
		send("message_stop", map[string]any{"type": "message_stop"})
		fl.Flush()
	}
}
