// Command fakemodel serves a scripted fake model API (Anthropic Messages or
// OpenAI Chat Completions, streaming the real SSE wire format) for editor
// end-to-end tests written in other languages (Lua, TypeScript).
//
// Usage:
//
//	fakemodel -script turns.json [-openai] [-log requests.jsonl]
//
// It prints "URL=<base url>" on its first line of stdout, then serves until
// stdin is closed or it is killed. The script is a JSON array of turns; each
// turn is an array of parts answering one model request, in order:
//
//	[
//	  [{"text": "I'll read it."}, {"tool_use": {"id": "toolu_1", "name": "Read", "input": {"file_path": "calc.py"}}}],
//	  [{"thinking": "hmm", "signature": "s1"}, {"text": ["Done", " now."]}],
//	  [{"error": 429, "retry_after": "1"}],
//	  [{"delay_ms": 200}, {"text": "slow"}],
//	  [{"between_ms": 100}, {"text": ["one ", "word ", "at ", "a ", "time"]}],
//	  [{"text": "waiting..."}, {"hang": true}]
//	]
//
// A "text" is a string or a list of fragments streamed one by one;
// "between_ms" waits that long after each streamed event. "hang"
// holds the stream until the client cancels (to test cancel). Requests are
// appended to the -log file as JSON lines, so tests can check what the
// model was sent.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/agent-lsp/agent-lsp/providers/fake"
)

type part struct {
	Text       json.RawMessage `json:"text"`
	Thinking   string          `json:"thinking"`
	Signature  string          `json:"signature"`
	ToolUse    *toolUse        `json:"tool_use"`
	Error      int             `json:"error"`
	RetryAfter string          `json:"retry_after"`
	DelayMs    int             `json:"delay_ms"`
	BetweenMs  int             `json:"between_ms"`
	Hang       bool            `json:"hang"`
	Stop       string          `json:"stop_reason"`
}

type toolUse struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// openaiWire selects the OpenAI wire format.
var openaiWire *bool

func main() {
	script := flag.String("script", "", "JSON file with the turns to play")
	openaiWire = flag.Bool("openai", false, "speak the OpenAI Chat Completions API instead of Anthropic's")
	logPath := flag.String("log", "", "append each request received as a JSON line to this file")
	flag.Parse()
	if *script == "" {
		fmt.Fprintln(os.Stderr, "fakemodel: -script is required")
		os.Exit(2)
	}
	turns, err := load(*script)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakemodel:", err)
		os.Exit(1)
	}
	var srv *fake.Server
	if *openaiWire {
		srv = fake.NewOpenAI(nil, turns...)
	} else {
		srv = fake.NewAnthropic(nil, turns...)
	}
	srv.SetHoldTimeout(10 * time.Minute)
	defer srv.Close()
	fmt.Printf("URL=%s\n", srv.BaseURL())
	os.Stdout.Sync()

	var mu sync.Mutex
	logged := 0
	flush := func() {
		if *logPath == "" {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		reqs := srv.Requests()
		if len(reqs) == logged {
			return
		}
		f, err := os.OpenFile(*logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fakemodel:", err)
			return
		}
		defer f.Close()
		for _, r := range reqs[logged:] {
			f.Write(append(append([]byte(nil), r.Body...), '\n'))
		}
		logged = len(reqs)
	}
	done := make(chan struct{})
	go func() {
		io.Copy(io.Discard, bufio.NewReader(os.Stdin))
		close(done)
	}()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-done:
			flush()
			for _, e := range srv.Errors() {
				fmt.Fprintln(os.Stderr, "fakemodel:", e)
			}
			return
		case <-tick.C:
			flush()
		}
	}
}

// load reads a script file into turns.
func load(path string) ([]fake.Turn, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	var raw [][]part
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("parsing %s: %w", path, err)
	}
	turns := make([]fake.Turn, len(raw))
	for i, parts := range raw {
		for j, p := range parts {
			where := fmt.Sprintf("%s: turn %d part %d", path, i, j)
			switch {
			case len(p.Text) > 0:
				var one string
				var many []string
				if json.Unmarshal(p.Text, &one) == nil {
					many = []string{one}
				} else if err := json.Unmarshal(p.Text, &many); err != nil {
					return nil, fmt.Errorf("%s: text must be a string or a list of strings", where)
				}
				turns[i] = append(turns[i], fake.Text(many...))
			case p.Thinking != "":
				turns[i] = append(turns[i], fake.Thinking(p.Thinking, p.Signature))
			case p.ToolUse != nil:
				input := string(p.ToolUse.Input)
				if input == "" {
					input = "{}"
				}
				turns[i] = append(turns[i], fake.ToolUse(p.ToolUse.ID, p.ToolUse.Name, input))
			case p.Error != 0:
				turns[i] = append(turns[i], fake.HTTPError{Status: p.Error, RetryAfter: p.RetryAfter})
			case p.DelayMs != 0 || p.BetweenMs != 0:
				turns[i] = append(turns[i], fake.Delay{
					FirstByte: time.Duration(p.DelayMs) * time.Millisecond,
					Between:   time.Duration(p.BetweenMs) * time.Millisecond,
				})
			case p.Hang:
				if *openaiWire {
					turns[i] = append(turns[i], fake.Hold{Event: "usage"})
				} else {
					turns[i] = append(turns[i], fake.Hold{Event: "content_block_stop"})
				}
			case p.Stop != "":
				turns[i] = append(turns[i], fake.StopReason(p.Stop))
			default:
				return nil, fmt.Errorf("%s: empty part (want text, thinking, tool_use, error, delay_ms, between_ms, hang or stop_reason)", where)
			}
		}
	}
	return turns, nil
}
