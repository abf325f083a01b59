package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/internal/testenv"
)

// The ACP conformance test drives the built `agent-lsp acp` with the
// official TypeScript SDK (@agentclientprotocol/sdk, pinned in
// testdata/acp-sdk/package-lock.json) running under the machine's node,
// against internal/cmd/fakemodel. testdata/acp-sdk/client.mjs holds the
// scenarios; this test builds the binaries, gives each scenario a
// workspace and a model script, and checks the disk and what the model
// was sent.
//
// It needs node and the SDK installed by scripts/install-acp-sdk.sh (in
// ${AGENT_LSP_CACHE:-~/.cache/agent-lsp}/acp-sdk, or at
// $AGENT_LSP_ACP_SDK). Without them it is skipped, unless
// AGENT_LSP_REQUIRE_EDITORS is set (as `make test` does), which makes it
// fail.

// acpSDK returns node and the SDK's install prefix, or skips the test.
func acpSDK(t *testing.T) (node, prefix string) {
	t.Helper()
	missing := func(format string, args ...any) {
		t.Helper()
		testenv.Missing(t, format, args...)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node not found: the ACP SDK conformance test runs @agentclientprotocol/sdk with the machine's node")
	}
	prefix = os.Getenv("AGENT_LSP_ACP_SDK")
	if prefix == "" {
		cache := os.Getenv("AGENT_LSP_CACHE")
		if cache == "" {
			home, _ := os.UserHomeDir()
			cache = filepath.Join(home, ".cache", "agent-lsp")
		}
		prefix = filepath.Join(cache, "acp-sdk")
	}
	if _, err := os.Stat(filepath.Join(prefix, "node_modules", "@agentclientprotocol", "sdk", "package.json")); err != nil {
		missing("@agentclientprotocol/sdk is not installed in %s: run scripts/install-acp-sdk.sh (or set AGENT_LSP_ACP_SDK)", prefix)
	}
	return node, prefix
}

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
)

// buildBinaries builds agent-lsp and fakemodel once per test process.
func buildBinaries(t *testing.T) (agent, fakemodel string) {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "agent-lsp-acp-sdk-")
		if buildErr != nil {
			return
		}
		for _, pkg := range []string{"./cmd/agent-lsp", "./internal/cmd/fakemodel"} {
			cmd := exec.Command("go", "build", "-o", buildDir, pkg)
			cmd.Dir = ".."
			if out, err := cmd.CombinedOutput(); err != nil {
				buildErr = fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(buildDir, "agent-lsp"), filepath.Join(buildDir, "fakemodel")
}

// fakeModel runs fakemodel with a script; it returns the base URL and a
// function that stops it and returns the request bodies it logged.
func fakeModel(t *testing.T, binary, script string) (url string, stop func() []string) {
	t.Helper()
	dir := t.TempDir()
	scriptPath, logPath := filepath.Join(dir, "script.json"), filepath.Join(dir, "requests.jsonl")
	if err := os.WriteFile(scriptPath, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "-script", scriptPath, "-log", logPath)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if !strings.HasPrefix(line, "URL=") {
		cmd.Process.Kill()
		t.Fatalf("fakemodel printed %q (%v); stderr:\n%s", line, err, stderr.String())
	}
	stopped := false
	stop = func() []string {
		if !stopped {
			stopped = true
			stdin.Close()
			cmd.Wait()
			if s := strings.TrimSpace(stderr.String()); s != "" {
				t.Errorf("fakemodel: %s", s)
			}
		}
		b, _ := os.ReadFile(logPath)
		return strings.Split(strings.TrimSpace(string(b)), "\n")
	}
	t.Cleanup(func() { stop() })
	return strings.TrimSpace(strings.TrimPrefix(line, "URL=")), stop
}

func TestACPConformanceSDK(t *testing.T) {
	node, prefix := acpSDK(t)
	agent, fakemodel := buildBinaries(t)
	client, err := filepath.Abs("testdata/acp-sdk/client.mjs")
	if err != nil {
		t.Fatal(err)
	}
	const readEdit = `[
		[{"tool_use": {"id": "toolu_1", "name": "Read", "input": {"file_path": "calc.py"}}}],
		[{"tool_use": {"id": "toolu_2", "name": "Edit", "input": {"file_path": "calc.py", "old_string": "x = 1", "new_string": "x = 2"}}}],
		[{"text": "Done."}]]`
	tests := []struct {
		scenario string
		script   string
		// check looks at the scenario's result, the workspace and the
		// bodies of the model requests.
		check func(t *testing.T, result map[string]any, root string, requests []string)
	}{
		{
			scenario: "permission",
			script: `[
				[{"text": "I'll write it."}, {"tool_use": {"id": "toolu_1", "name": "Write", "input": {"file_path": "hello.txt", "content": "hello\n"}}}],
				[{"text": "Written."}]]`,
			check: func(t *testing.T, result map[string]any, root string, requests []string) {
				if b, _ := os.ReadFile(filepath.Join(root, "hello.txt")); string(b) != "hello\n" {
					t.Errorf("hello.txt = %q after the user allowed the write", b)
				}
				if result["answer"] != "I'll write it.Written." {
					t.Errorf("agent_message_chunk text = %q", result["answer"])
				}
				for _, want := range []string{"NOTE-CONTENT", "calc.py", `"type":"image"`} {
					if len(requests) == 0 || !strings.Contains(requests[0], want) {
						t.Errorf("the model was not sent the prompt's %s", want)
					}
				}
			},
		},
		{
			scenario: "fs",
			script:   readEdit,
			check: func(t *testing.T, result map[string]any, root string, requests []string) {
				if b, _ := os.ReadFile(filepath.Join(root, "calc.py")); string(b) != "x = 1\n" {
					t.Errorf("calc.py on disk = %q: the edit must go through fs/write_text_file", b)
				}
				if len(requests) < 2 || !strings.Contains(requests[1], "unsaved") {
					t.Errorf("the model did not see the editor's unsaved buffer")
				}
			},
		},
		{
			scenario: "nofs",
			script:   readEdit,
			check: func(t *testing.T, result map[string]any, root string, requests []string) {
				if b, _ := os.ReadFile(filepath.Join(root, "calc.py")); string(b) != "x = 2\n" {
					t.Errorf("calc.py on disk = %q, want the edit", b)
				}
				if r, w := result["reads"].([]any), result["writes"].(map[string]any); len(r) != 0 || len(w) != 0 {
					t.Errorf("fs methods used without the capability: reads %v, writes %v", r, w)
				}
			},
		},
		{
			scenario: "cancel",
			script: `[
				[{"text": ["Working", " on it"]}, {"hang": true}],
				[{"text": "Fine."}],
				[{"text": ["Working", " again"]}, {"hang": true}],
				[{"text": "Fine again."}]]`,
			check: func(t *testing.T, result map[string]any, root string, requests []string) {
				if len(requests) != 4 {
					t.Fatalf("the model got %d requests, want 4", len(requests))
				}
				if !strings.Contains(requests[1], "Working on it") {
					t.Errorf("the interrupted answer is not in the next request's history")
				}
			},
		},
		{
			scenario: "terminal",
			script: `[
				[{"tool_use": {"id": "toolu_1", "name": "Bash", "input": {"command": "echo from-the-editor-terminal; exit 3"}}}],
				[{"text": "It exited 3."}],
				[{"tool_use": {"id": "toolu_2", "name": "Bash", "input": {"command": "sleep 30", "timeout": 500}}}],
				[{"text": "Too slow."}]]`,
			check: func(t *testing.T, result map[string]any, root string, requests []string) {
				if len(requests) != 4 || !strings.Contains(requests[1], `from-the-editor-terminal\n[exit code 3]`) || !strings.Contains(requests[3], "timed out after 500ms") {
					t.Errorf("the model did not get the terminal's output, exit code and timeout: %v", requests)
				}
				var got []string
				for _, r := range result["requests"].([]any) {
					got = append(got, r.(string))
				}
				// Both commands run without a question (read-only), so
				// confined: with an environment of their own (env -i).
				want := []string{
					"terminal/create /usr/bin/env", "terminal/wait_for_exit term_1", "terminal/output term_1", "terminal/release term_1",
					"terminal/create /usr/bin/env", "terminal/wait_for_exit term_2", "terminal/kill term_2", "terminal/output term_2", "terminal/release term_2",
				}
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("terminal requests:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
			},
		},
		{
			scenario: "load",
			script:   `[[{"text": "I will remember 42."}], [{"text": "It was 42."}]]`,
			check: func(t *testing.T, result map[string]any, root string, requests []string) {
				if len(requests) != 2 || !strings.Contains(requests[1], "remember the number 42") || !strings.Contains(requests[1], "I will remember 42.") {
					t.Errorf("the loaded session's prompt did not carry its history: %v", requests)
				}
			},
		},
	}
	tests = append(tests, struct {
		scenario string
		script   string
		check    func(t *testing.T, result map[string]any, root string, requests []string)
	}{
		scenario: "loadfs",
		script: `[
			[{"tool_use": {"id": "toolu_1", "name": "Read", "input": {"file_path": "calc.py"}}}],
			[{"tool_use": {"id": "toolu_2", "name": "Edit", "input": {"file_path": "calc.py", "old_string": "x = 1", "new_string": "x = 2"}}}],
			[{"tool_use": {"id": "toolu_3", "name": "Bash", "input": {"command": "echo checked"}}}],
			[{"text": "Done."}],
			[{"text": "Still here."}]]`,
		check: func(t *testing.T, result map[string]any, root string, requests []string) {
			if len(requests) != 5 || !strings.Contains(requests[4], "still there?") {
				t.Errorf("the model got %d requests, want 5 (the last after the load): %v", len(requests), requests)
			}
			if b, _ := os.ReadFile(filepath.Join(root, "calc.py")); string(b) != "x = 1\n" {
				t.Errorf("calc.py on disk = %q: the edit must have gone through fs/write_text_file only", b)
			}
		},
	})
	for _, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			root, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(root, "calc.py"), []byte("x = 1\n"), 0o644)
			url, stopModel := fakeModel(t, fakemodel, tt.script)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, client, tt.scenario)
			cmd.Dir = root
			cmd.Env = append(os.Environ(),
				"ACP_SDK="+prefix, "AGENT_LSP="+agent, "WORKSPACE="+root,
				"ANTHROPIC_API_KEY=test", "ANTHROPIC_BASE_URL="+url, "ANTHROPIC_MODEL=",
				"AGENT_LSP_HOME="+t.TempDir(), "AGENT_LSP_NO_USER_SETTINGS=1")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err = cmd.Run()
			if testing.Verbose() || err != nil {
				t.Logf("client and agent stderr:\n%s", stderr.String())
			}
			if err != nil {
				var exit *exec.ExitError
				if errors.As(err, &exit) {
					t.Fatalf("scenario %s failed (%v)", tt.scenario, err)
				}
				t.Fatal(err)
			}
			var result map[string]any
			if err := json.Unmarshal(stdout.Bytes(), &result); err != nil {
				t.Fatalf("client printed %q: %v", stdout.String(), err)
			}
			tt.check(t, result, root, stopModel())
		})
	}
}
