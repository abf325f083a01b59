package tools

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/schema"
)

// fuzzTimeout bounds one tool call on fuzzed input; a call still running
// after it is a hang.
const fuzzTimeout = 10 * time.Second

// errNoCommands keeps the fuzzer from running the shell commands it
// invents: Bash decodes and checks its input, then its sandbox refuses.
var errNoCommands = errors.New("fuzzing: commands are not run")

// FuzzToolInput gives every built-in tool random JSON input, as a model
// can, on a small temporary workspace: Preview (when the tool has one)
// and Run must return, without panicking, within fuzzTimeout, and a
// failure must be an error result the model can read.
func FuzzToolInput(f *testing.F) {
	seeds := map[string][]string{
		"Read":         {`{"file_path":"a.txt"}`, `{"file_path":"a.txt","offset":2,"limit":1}`, `{"file_path":"dir"}`, `{"file_path":"../../etc/passwd"}`, `{"file_path":"a.txt","offset":-1}`, `{"file_path":null}`},
		"Write":        {`{"file_path":"new.txt","content":"x\n"}`, `{"file_path":"dir/b.go","content":""}`, `{"file_path":"/","content":"x"}`},
		"Edit":         {`{"file_path":"a.txt","old_string":"two","new_string":"2"}`, `{"file_path":"a.txt","old_string":"","new_string":"x","replace_all":true}`},
		"MultiEdit":    {`{"file_path":"a.txt","edits":[{"old_string":"one","new_string":"1"},{"old_string":"1","new_string":"uno"}]}`, `{"file_path":"a.txt","edits":[]}`},
		"Glob":         {`{"pattern":"**/*.go"}`, `{"pattern":"[","path":"dir"}`, `{"pattern":"**/**/**/*"}`},
		"Grep":         {`{"pattern":"two"}`, `{"pattern":"(","output_mode":"content","-n":true}`, `{"pattern":"o","glob":"*.txt","-C":3,"head_limit":1}`, `{"pattern":"x","type":"go","multiline":true}`},
		"LS":           {`{"path":"dir"}`, `{"path":"","ignore":["*.go"]}`},
		"Bash":         {`{"command":"echo hi"}`, `{"command":"sleep 1","timeout":-5}`, `{"command":"","run_in_background":true}`, `{"command":"x","timeout":600001}`},
		"BashOutput":   {`{"bash_id":"bash_1"}`, `{"bash_id":"bash_1","filter":"("}`},
		"KillBash":     {`{"shell_id":"bash_1"}`},
		"WebFetch":     {`{"url":"https://example.com/","prompt":"p"}`, `{"url":"http://127.0.0.1:1/","prompt":""}`, `{"url":"ftp://x","prompt":"p"}`},
		"NotebookEdit": {`{"notebook_path":"nb.ipynb","cell_id":"cell-0","new_source":"x"}`, `{"notebook_path":"a.txt","new_source":"x","edit_mode":"insert","cell_type":"code"}`},
		"TodoWrite":    {`{"todos":[{"content":"a","status":"pending","activeForm":"doing a"}]}`, `{"todos":[{"content":"","status":"nope"}]}`},
	}
	names := toolNames()
	for i, name := range names {
		for _, s := range seeds[name] {
			f.Add(uint8(i), []byte(s))
		}
		for _, s := range []string{``, `{}`, `null`, `[]`, `"x"`, `{"a":`, `{"file_path":{"x":1}}`, "{\"file_path\":\"\x00\"}"} {
			f.Add(uint8(i), []byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, input []byte) {
		root := ResolveRoots(t.TempDir())[0]
		if err := writeFiles(root, map[string]string{"a.txt": "one\ntwo\nthree\n", "dir/b.go": "package b\n", "nb.ipynb": sampleNotebook}); err != nil {
			t.Fatal(err)
		}
		env := &Env{
			Cwd: root, Roots: []string{root}, Files: DiskFS{}, Reads: NewReadTracker(),
			OnPlan:      func([]schema.PlanEntry) {},
			WrapCommand: func(context.Context, []string) ([]string, func(), error) { return nil, nil, errNoCommands },
			// WebFetch never reaches the network.
			HTTP: &http.Client{Transport: roundTripFunc(func(*http.Request) (*http.Response, error) { return nil, errNoCommands })},
		}
		all := New(env)
		defer env.Close()
		tool := all[int(which)%len(all)]
		name := tool.Spec().Name
		done := make(chan *Result, 1)
		ctx, cancel := context.WithTimeout(context.Background(), fuzzTimeout)
		defer cancel()
		go func() {
			if p, ok := tool.(Previewer); ok {
				p.Preview(ctx, json.RawMessage(input))
			}
			done <- tool.Run(ctx, json.RawMessage(input))
		}()
		select {
		case res := <-done:
			if res == nil {
				t.Fatalf("%s returned no result for %q", name, input)
			}
			if res.IsError && res.Content == "" {
				t.Errorf("%s failed on %q with an empty error", name, input)
			}
		case <-time.After(fuzzTimeout + 5*time.Second):
			t.Fatalf("%s did not return within %s on %q", name, fuzzTimeout, input)
		}
	})
}

// toolNames lists the built-in tools in New's order, which FuzzToolInput
// indexes.
func toolNames() []string {
	var names []string
	for _, t := range New(&Env{}) {
		names = append(names, t.Spec().Name)
	}
	return names
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
