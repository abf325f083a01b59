package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// testEnv is a session over a fresh temporary workspace.
type testEnv struct {
	*Env
	root  string
	tools []Tool
}

func newTestEnv(t *testing.T) *testEnv {
	t.Helper()
	root := ResolveRoots(t.TempDir())[0]
	env := &Env{Cwd: root, Roots: []string{root}, Files: DiskFS{}, Reads: NewReadTracker()}
	te := &testEnv{Env: env, root: root, tools: New(env)}
	t.Cleanup(func() { env.Close() })
	return te
}

// write creates files (relative path -> content) under the root.
func (te *testEnv) write(t testing.TB, files map[string]string) {
	if err := writeFiles(te.root, files); err != nil {
		t.Fatal(err)
	}
}

func writeFiles(root string, files map[string]string) error {
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func (te *testEnv) path(name string) string { return filepath.Join(te.root, name) }

func (te *testEnv) read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(te.path(name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// run calls the tool named name with input, which is marshalled unless it
// is already a string of raw JSON.
func (te *testEnv) run(t *testing.T, name string, input any) *Result {
	t.Helper()
	tool := Find(te.tools, name)
	if tool == nil {
		t.Fatalf("no tool %s", name)
	}
	return tool.Run(context.Background(), rawInput(t, input))
}

func rawInput(t *testing.T, input any) json.RawMessage {
	t.Helper()
	if s, ok := input.(string); ok {
		return json.RawMessage(s)
	}
	b, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type obj = map[string]any

// wantResult checks a result's error flag and that its content holds
// every one of want.
func wantResult(t *testing.T, res *Result, isErr bool, want ...string) {
	t.Helper()
	if res.IsError != isErr {
		t.Fatalf("IsError = %v, want %v; content:\n%s", res.IsError, isErr, res.Content)
	}
	for _, w := range want {
		if !strings.Contains(res.Content, w) {
			t.Errorf("content does not contain %q:\n%s", w, res.Content)
		}
	}
}

// overlayFS is a FileSystem with editor buffers over the disk.
type overlayFS struct {
	DiskFS
	mu      sync.Mutex
	buffers map[string]string // guarded by mu
}

func (o *overlayFS) open(path, text string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.buffers == nil {
		o.buffers = map[string]string{}
	}
	o.buffers[path] = text
}

func (o *overlayFS) ReadFile(path string) ([]byte, error) {
	o.mu.Lock()
	text, ok := o.buffers[path]
	o.mu.Unlock()
	if ok {
		return []byte(text), nil
	}
	return o.DiskFS.ReadFile(path)
}

func (o *overlayFS) WriteFile(ctx context.Context, path string, before, content []byte) error {
	o.mu.Lock()
	_, ok := o.buffers[path]
	if ok {
		o.buffers[path] = string(content)
	}
	o.mu.Unlock()
	if ok {
		return nil
	}
	return o.DiskFS.WriteFile(ctx, path, before, content)
}

func (o *overlayFS) IsOpen(path string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	_, ok := o.buffers[path]
	return ok
}

func (o *overlayFS) OpenFiles() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []string
	for p := range o.buffers {
		out = append(out, p)
	}
	return out
}
