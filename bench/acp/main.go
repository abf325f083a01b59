// Command acp measures the ACP door of the built agent-lsp binary from the
// outside, the way an ACP editor meets it: spawn to initialize answered,
// session/new, prompt to the first agent_message_chunk, and the process's
// peak memory, against an in-process fake model. It prints a markdown
// table of medians (and the spread) over -runs fresh processes.
//
// Usage (bench/acp.sh builds the binary and runs both clients):
//
//	go run ./bench/acp -bin bin/agent-lsp [-runs 30] [-sdk server/testdata/acp-sdk/client.mjs]
//
// With -sdk, the same figures are also measured by the official ACP
// TypeScript SDK (the conformance client's "bench" scenario, run with the
// machine's node and the SDK that scripts/install-acp-sdk.sh installed):
// one node process, warmed by an agent it does not measure, starts the
// -runs agents one after another, as a running editor would.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/agent-lsp/agent-lsp/providers/fake"
)

// sample is one run's figures.
type sample struct {
	InitializeMs float64 `json:"initializeMs"` // spawn -> initialize answered
	SessionNewMs float64 `json:"sessionNewMs"` // session/new sent -> answered
	FirstChunkMs float64 `json:"firstChunkMs"` // session/prompt sent -> first agent_message_chunk
	PeakRSSKB    float64 `json:"peakRssKb"`    // VmHWM at the end of the run
}

func main() {
	bin := flag.String("bin", "bin/agent-lsp", "agent-lsp binary")
	runs := flag.Int("runs", 30, "fresh processes to measure")
	sdk := flag.String("sdk", "", "conformance client (client.mjs) to measure with the ACP TypeScript SDK as well")
	sdkPrefix := flag.String("sdk-prefix", "", "install prefix of @agentclientprotocol/sdk (default: the cache of scripts/install-acp-sdk.sh)")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("bench/acp: ")
	abs, err := filepath.Abs(*bin)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := os.Stat(abs); err != nil {
		log.Fatalf("%v (build it first: go build -o %s ./cmd/agent-lsp)", err, *bin)
	}

	turns := make([]fake.Turn, 0, 2**runs+1)
	for range 2**runs + 1 { // the SDK client warms up with one more
		turns = append(turns, fake.Turn{fake.Text("Hello", " from the fake model.")})
	}
	model := fake.NewAnthropic(nil, turns...)
	defer model.Close()

	work, err := os.MkdirTemp("", "agent-lsp-acp-bench-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(work)
	// The agent runs as for a user: a home of its own with a ~/.claude
	// directory (no settings in it), the default managed settings path,
	// and a small workspace. (AGENT_LSP_NO_USER_SETTINGS, as the tests
	// use, points the home at a directory in /tmp, and watching /tmp for
	// settings costs 20 ms here: adding an inotify watch walks the
	// directory's cached entries, of which a shared /tmp has many.)
	home, ws := filepath.Join(work, "home"), filepath.Join(work, "ws")
	for _, d := range []string{filepath.Join(home, ".claude"), ws} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			log.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		log.Fatal(err)
	}
	env := append(os.Environ(),
		"HOME="+home, "ANTHROPIC_API_KEY=test", "ANTHROPIC_BASE_URL="+model.BaseURL(), "ANTHROPIC_MODEL=",
		"AGENT_LSP_HOME="+filepath.Join(work, "state"), "AGENT_LSP_NO_USER_SETTINGS=")

	// For scale: what starting any process costs here, and what starting
	// this binary costs before the door does anything.
	spawn := func(name string, args ...string) []float64 {
		var out []float64
		for range *runs {
			t0 := time.Now()
			if err := exec.Command(name, args...).Run(); err != nil {
				log.Fatalf("%s: %v", name, err)
			}
			out = append(out, ms(time.Since(t0)))
		}
		return out
	}
	floor := [][]float64{spawn("true"), spawn(abs, "version")}
	var direct []sample
	for i := range *runs {
		s, err := measure(abs, ws, env)
		if err != nil {
			log.Fatalf("run %d: %v", i, err)
		}
		direct = append(direct, s)
	}
	var viaSDK []sample
	if *sdk != "" {
		client, err := filepath.Abs(*sdk)
		if err != nil {
			log.Fatal(err)
		}
		prefix := *sdkPrefix
		if prefix == "" {
			prefix = defaultSDKPrefix()
		}
		if viaSDK, err = measureSDK(client, prefix, abs, ws, env, *runs); err != nil {
			log.Fatalf("SDK runs: %v", err)
		}
	}
	report(*runs, floor, direct, viaSDK)
}

// measure spawns the binary and times the three steps with a minimal
// newline-delimited JSON-RPC client.
func measure(bin, cwd string, env []string) (sample, error) {
	var s sample
	cmd := exec.Command(bin, "acp")
	cmd.Dir, cmd.Env = cwd, env
	cmd.Stderr = io.Discard
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return s, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return s, err
	}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return s, err
	}
	defer func() {
		stdin.Close()
		cmd.Wait()
	}()
	r := bufio.NewReaderSize(stdout, 1<<20)
	send := func(id int, method string, params any) error {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		_, err := stdin.Write(append(b, '\n'))
		return err
	}
	// until reads messages until match returns true.
	until := func(match func(m message) bool) error {
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				return fmt.Errorf("reading the agent's output: %w", err)
			}
			var m message
			if err := json.Unmarshal(line, &m); err != nil {
				return fmt.Errorf("the agent wrote a line that is not JSON: %q", line)
			}
			if m.Error != nil {
				return fmt.Errorf("error response: %s", m.Error)
			}
			if m.Method == "session/request_permission" {
				return fmt.Errorf("unexpected permission request")
			}
			if match(m) {
				return nil
			}
		}
	}
	isResponse := func(id int) func(message) bool {
		return func(m message) bool { return m.Method == "" && string(m.ID) == strconv.Itoa(id) }
	}

	if err := send(1, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}}); err != nil {
		return s, err
	}
	if err := until(isResponse(1)); err != nil {
		return s, err
	}
	s.InitializeMs = ms(time.Since(t0))

	t := time.Now()
	send(2, "session/new", map[string]any{"cwd": cwd, "mcpServers": []any{}})
	var sid string
	if err := until(func(m message) bool {
		if !isResponse(2)(m) {
			return false
		}
		var res struct {
			SessionID string `json:"sessionId"`
		}
		json.Unmarshal(m.Result, &res)
		sid = res.SessionID
		return true
	}); err != nil {
		return s, err
	}
	s.SessionNewMs = ms(time.Since(t))

	t = time.Now()
	send(3, "session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]string{"type": "text", "text": "hello"}}})
	if err := until(func(m message) bool {
		return m.Method == "session/update" && strings.Contains(string(m.Params), `"agent_message_chunk"`)
	}); err != nil {
		return s, err
	}
	s.FirstChunkMs = ms(time.Since(t))
	if err := until(isResponse(3)); err != nil {
		return s, err
	}
	s.PeakRSSKB = peakRSS(cmd.Process.Pid)
	return s, nil
}

// message is any JSON-RPC message.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// measureSDK runs the conformance client's bench scenario: one node
// process, already warm from a first agent it does not measure, starts
// runs agents one after another, as a running editor would.
func measureSDK(client, prefix, bin, cwd string, env []string, runs int) ([]sample, error) {
	cmd := exec.Command("node", client, "bench")
	cmd.Dir = cwd
	cmd.Env = append(env, "ACP_SDK="+prefix, "AGENT_LSP="+bin, "WORKSPACE="+cwd, "BENCH_RUNS="+strconv.Itoa(runs))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("node %s bench: %v\n%s", client, err, stderr.String())
	}
	var samples []sample
	if err := json.Unmarshal(out, &samples); err != nil {
		return nil, fmt.Errorf("node %s bench printed %q: %v", client, out, err)
	}
	if len(samples) != runs {
		return nil, fmt.Errorf("node %s bench measured %d runs, want %d", client, len(samples), runs)
	}
	return samples, nil
}

func defaultSDKPrefix() string {
	if p := os.Getenv("AGENT_LSP_ACP_SDK"); p != "" {
		return p
	}
	cache := os.Getenv("AGENT_LSP_CACHE")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache", "agent-lsp")
	}
	return filepath.Join(cache, "acp-sdk")
}

// peakRSS returns the process's peak resident set (VmHWM) in KB.
func peakRSS(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			n, _ := strconv.ParseFloat(f[1], 64)
			return n
		}
	}
	return 0
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// stats returns the median, the minimum and the maximum.
func stats(xs []float64) (med, lo, hi float64) {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n == 0 {
		return 0, 0, 0
	}
	med = s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return med, s[0], s[n-1]
}

func column(samples []sample, f func(sample) float64) []float64 {
	out := make([]float64, len(samples))
	for i, s := range samples {
		out[i] = f(s)
	}
	return out
}

func report(runs int, floor [][]float64, direct, viaSDK []sample) {
	fmt.Printf("Machine: %d cores (nproc), %s; %s; load average after the runs: %s.\n", runtime.NumCPU(), cpuModel(), runtime.Version(), loadavg())
	fmt.Printf("Medians of %d fresh agent processes per client (min-max in brackets); the SDK client is one warm node process that starts them one after another.\n\n", runs)
	fmt.Println("| measure | Go NDJSON client | ACP TypeScript SDK | target |")
	fmt.Println("|---|---|---|---|")
	rows := []struct {
		name, unit, target string
		f                  func(sample) float64
	}{
		{"spawn -> initialize answered", "ms", "<= 15 ms", func(s sample) float64 { return s.InitializeMs }},
		{"session/new", "ms", "<= 5 ms", func(s sample) float64 { return s.SessionNewMs }},
		{"prompt -> first agent_message_chunk", "ms", "-", func(s sample) float64 { return s.FirstChunkMs }},
		{"peak RSS (VmHWM)", "MB", "<= 30 MB", func(s sample) float64 { return s.PeakRSSKB / 1024 }},
	}
	cell := func(samples []sample, f func(sample) float64, unit string) string {
		if len(samples) == 0 {
			return "-"
		}
		med, lo, hi := stats(column(samples, f))
		return fmt.Sprintf("%.1f %s (%.1f-%.1f)", med, unit, lo, hi)
	}
	for _, r := range rows {
		fmt.Printf("| %s | %s | %s | %s |\n", r.name, cell(direct, r.f, r.unit), cell(viaSDK, r.f, r.unit), r.target)
	}
	for i, name := range []string{"`true`", "`agent-lsp version`"} {
		med, lo, hi := stats(floor[i])
		fmt.Printf("| for scale: spawn -> %s exited | %.1f ms (%.1f-%.1f) | - | - |\n", name, med, lo, hi)
	}
}

func cpuModel() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}
