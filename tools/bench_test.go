package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/internal/testenv"
)

// dispatcher looks tools up by name and runs them, as the engine does.
type dispatcher map[string]Tool

func newDispatcher(env *Env) dispatcher {
	d := dispatcher{}
	for _, t := range New(env) {
		d[t.Spec().Name] = t
	}
	return d
}

func (d dispatcher) call(ctx context.Context, name string, input json.RawMessage) *Result {
	t, ok := d[name]
	if !ok {
		return Errorf("unknown tool %q", name)
	}
	return t.Run(ctx, input)
}

// source2000 is a 2000-line Go file of about 30 KB (15 bytes a line:
// short functions with doc comments; net/http/server.go averages 31).
func source2000() string {
	var b strings.Builder
	b.WriteString("package bench\n")
	for i := 1; strings.Count(b.String(), "\n") < 1999; i++ {
		fmt.Fprintf(&b, "\n// f%d adds its arguments.\nfunc f%d(a, b int) int {\n\treturn a + b*%d\n}\n", i, i, i)
	}
	lines := strings.SplitAfter(b.String(), "\n")
	return strings.Join(lines[:2000], "")
}

func benchEnv(b *testing.B, root string) *Env {
	root = ResolveRoots(root)[0]
	env := &Env{Cwd: root, Roots: []string{root}}
	b.Cleanup(env.Close)
	return env
}

func BenchmarkRead2000Lines(b *testing.B) {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "big.go"), []byte(source2000()), 0o644); err != nil {
		b.Fatal(err)
	}
	env := benchEnv(b, dir)
	d := newDispatcher(env)
	input := json.RawMessage(`{"file_path":"` + filepath.Join(env.Cwd, "big.go") + `"}`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if res := d.call(ctx, "Read", input); res.IsError || !strings.Contains(res.Content, "  2000\t") {
			b.Fatal(res.Content)
		}
	}
}

func BenchmarkEdit2000Lines(b *testing.B) {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "big.go"), []byte(source2000()), 0o644); err != nil {
		b.Fatal(err)
	}
	env := benchEnv(b, dir)
	d := newDispatcher(env)
	path := filepath.Join(env.Cwd, "big.go")
	ctx := context.Background()
	d.call(ctx, "Read", json.RawMessage(`{"file_path":"`+path+`"}`))
	inputs := []json.RawMessage{
		json.RawMessage(`{"file_path":"` + path + `","old_string":"// f200 adds","new_string":"// f200 (edited) adds"}`),
		json.RawMessage(`{"file_path":"` + path + `","old_string":"// f200 (edited) adds","new_string":"// f200 adds"}`),
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if res := d.call(ctx, "Edit", inputs[i%2]); res.IsError {
			b.Fatal(res.Content)
		}
		i++
	}
}

// goSrc returns the source tree of the go command's GOROOT.
func goSrc() (string, error) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOROOT: %w", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "src")
	if _, err := os.Stat(dir); err != nil {
		return "", err
	}
	return dir, nil
}

// gorootSrc is the tree the search benchmarks run over.
func gorootSrc(b *testing.B) string {
	dir, err := goSrc()
	if err != nil {
		testenv.Missing(b, "no Go source tree to search: %v", err)
	}
	return dir
}

// grepBenchCases are the searches of BenchmarkGrep, also run with rg by
// bench/tools.sh.
var grepBenchCases = []struct {
	name  string
	input string
}{
	{"literal", `{"pattern":"ErrUnexpectedEOF"}`},
	{"word_regex", `{"pattern":"\\b\\w+Deadline\\b"}`},
	{"case_insensitive", `{"pattern":"unexpectedeof","-i":true}`},
}

func BenchmarkGrep(b *testing.B) {
	env := benchEnv(b, gorootSrc(b))
	ctx := context.Background()
	engines := []struct {
		name string
		rg   string
	}{{"inprocess", ""}}
	if rg := rgPath(); rg != "" {
		engines = append(engines, struct{ name, rg string }{"rg", rg})
	}
	New(env)
	for _, c := range grepBenchCases {
		for _, e := range engines {
			b.Run(c.name+"/"+e.name, func(b *testing.B) {
				tool := &grepTool{env: env, rg: e.rg}
				for b.Loop() {
					if res := tool.Run(ctx, json.RawMessage(c.input)); res.IsError || !strings.HasPrefix(res.Content, "Found") {
						b.Fatal(res.Content)
					}
				}
			})
		}
		if rg := rgPath(); rg != "" {
			// rg itself, with the arguments the Grep tool gives it, right
			// after the engines so all see the same machine load.
			b.Run(c.name+"/rg_cli", func(b *testing.B) {
				q, err := (&grepTool{env: env}).parse(json.RawMessage(c.input))
				if err != nil {
					b.Fatal(err)
				}
				benchCommand(b, rg, q.rgArgs()...)
			})
		}
	}
}

// benchCommand runs a command per iteration, discarding its output.
func benchCommand(b *testing.B, name string, args ...string) {
	for b.Loop() {
		cmd := exec.Command(name, args...)
		cmd.Stdout = io.Discard
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGlobGoFiles(b *testing.B) {
	env := benchEnv(b, gorootSrc(b))
	d := newDispatcher(env)
	ctx := context.Background()
	b.Run("glob", func(b *testing.B) {
		for b.Loop() {
			if res := d.call(ctx, "Glob", json.RawMessage(`{"pattern":"**/*.go"}`)); res.IsError || !strings.Contains(res.Content, "truncated") {
				b.Fatal(res.Content)
			}
		}
	})
	if rg := rgPath(); rg != "" {
		b.Run("rg_cli", func(b *testing.B) {
			benchCommand(b, rg, "--no-config", "--hidden", "--no-require-git", "--no-ignore-dot", "--no-ignore-exclude", "--no-ignore-global", "--glob", "!.git", "--files", "--glob", "*.go", env.Cwd)
		})
	}
}

// TestGrepBenchCasesAgreeWithRg checks, on the benchmark tree, that the
// in-process engine and ripgrep find the same files.
func TestGrepBenchCasesAgreeWithRg(t *testing.T) {
	if testing.Short() {
		t.Skip("searches the Go source tree: not in -short runs")
	}
	rg := testenv.NeedTool(t, "rg")
	dir, err := goSrc()
	if err != nil {
		testenv.Missing(t, "no Go source tree to search: %v", err)
	}
	root := ResolveRoots(dir)[0]
	env := &Env{Cwd: root, Roots: []string{root}, Files: DiskFS{}, Reads: NewReadTracker()}
	for _, c := range grepBenchCases {
		local := (&grepTool{env: env}).Run(context.Background(), json.RawMessage(c.input))
		viaRg := (&grepTool{env: env, rg: rg}).Run(context.Background(), json.RawMessage(c.input))
		if local.Content != viaRg.Content {
			t.Errorf("%s: engines disagree\nin-process:\n%.2000s\nripgrep:\n%.2000s", c.name, local.Content, viaRg.Content)
		}
	}
}
