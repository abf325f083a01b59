package langserver_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-lsp/agent-lsp/internal/langtest"
	"github.com/agent-lsp/agent-lsp/langserver"
)

const mainGo = `package main

import "fmt"

// Greet says hello.
func Greet(name string) string { return "hello " + name }

func main() {
	fmt.Println(Greet("you"))
}
`

func goplsManager(t *testing.T) (*langserver.Manager, string) { return goplsManagerTB(t) }

func goplsManagerTB(t testing.TB) (*langserver.Manager, string) {
	t.Helper()
	gopls := langtest.Require(t, "gopls")
	langtest.GoEnv(t)
	dir := langtest.GoModule(t, map[string]string{"main.go": mainGo})
	m := langserver.New(langserver.Config{
		Servers: []langserver.ServerConfig{{Name: "go", Command: []string{gopls}, Filetypes: []string{"go"}}},
		Logf:    t.Logf,
	})
	t.Cleanup(m.Close)
	return m, dir
}

// TestGoplsDiagnosticsOfUnsavedText: the diagnostics are those of the
// text given (the editor's buffer), not of the disk.
func TestGoplsDiagnosticsOfUnsavedText(t *testing.T) {
	m, dir := goplsManager(t)
	ctx := context.Background()
	path := filepath.Join(dir, "main.go")
	diags, ok, err := m.Diagnostics(ctx, dir, path, []byte(mainGo), 60*time.Second)
	if err != nil || !ok {
		t.Fatalf("diagnostics of the clean file: ok=%v err=%v", ok, err)
	}
	for _, d := range diags {
		if d.Severity == langserver.SeverityError {
			t.Errorf("unexpected error in the clean file: %+v", d)
		}
	}
	broken := strings.Replace(mainGo, `fmt.Println(Greet("you"))`, `var n int = Greet("you")
	fmt.Println(n)`, 1)
	diags, ok, err = m.Diagnostics(ctx, dir, path, []byte(broken), 30*time.Second)
	if err != nil || !ok {
		t.Fatalf("diagnostics of the broken buffer: ok=%v err=%v", ok, err)
	}
	found := false
	for _, d := range diags {
		if d.Severity == langserver.SeverityError && strings.Contains(d.Message, "cannot use") && d.Line == 9 {
			found = true
		}
	}
	if !found {
		t.Fatalf("no type error at line 9 in %+v", diags)
	}
	disk, _ := os.ReadFile(path)
	if string(disk) != mainGo {
		t.Fatal("the disk changed")
	}
	if got := m.Published(dir); len(got) == 0 {
		t.Error("Published is empty after an error was reported")
	}
	if m.Running() != 1 {
		t.Errorf("Running = %d, want 1", m.Running())
	}
}

func TestGoplsQueries(t *testing.T) {
	m, dir := goplsManager(t)
	ctx := context.Background()
	path := filepath.Join(dir, "main.go")
	// The buffer adds a function the disk does not have.
	text := mainGo + "\nfunc Extra() string { return Greet(\"x\") }\n"
	tests := []struct {
		q    langserver.Query
		want string
	}{
		{langserver.Query{Op: langserver.OpDefinition, Line: 9, Character: 14}, "main.go:6:6"},
		{langserver.Query{Op: langserver.OpReferences, Line: 6, Character: 6}, "main.go:12:30"},
		{langserver.Query{Op: langserver.OpHover, Line: 6, Character: 6}, "func Greet(name string) string"},
		{langserver.Query{Op: langserver.OpDocumentSymbol}, "Function Extra"},
		{langserver.Query{Op: langserver.OpWorkspaceSymbol, Symbol: "Extra"}, "Extra"},
	}
	for _, tt := range tests {
		t.Run(tt.q.Op, func(t *testing.T) {
			tt.q.Path, tt.q.Text = path, []byte(text)
			got, err := m.Ask(ctx, dir, tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(got, tt.want) {
				t.Errorf("%s = %q, want it to contain %q", tt.q.Op, got, tt.want)
			}
		})
	}
}

// TestNoServerStartsNothing: a file no server handles starts nothing.
func TestNoServerStartsNothing(t *testing.T) {
	m := langserver.New(langserver.Config{Servers: []langserver.ServerConfig{{Name: "go", Command: []string{"/nonexistent/gopls"}, Filetypes: []string{"go"}}}})
	defer m.Close()
	_, _, err := m.Diagnostics(context.Background(), t.TempDir(), "/x/readme.md", nil, time.Second)
	if err != langserver.ErrNoServer {
		t.Fatalf("err = %v, want ErrNoServer", err)
	}
	if m.Running() != 0 {
		t.Fatal("a server runs")
	}
	_, _, err = m.Diagnostics(context.Background(), t.TempDir(), "/x/a.go", nil, 5*time.Second)
	if err == nil || !strings.Contains(err.Error(), "starting language server go") {
		t.Fatalf("err = %v, want a start failure", err)
	}
}

func TestDetect(t *testing.T) {
	got := langserver.Detect(func(name string) (string, error) {
		if name == "gopls" || name == "clangd" {
			return "/usr/bin/" + name, nil
		}
		return "", os.ErrNotExist
	})
	if len(got) != 2 || got[0].Name != "go" || got[0].Command[0] != "/usr/bin/gopls" || got[1].Name != "c" {
		t.Fatalf("Detect = %+v", got)
	}
	if !got[1].Serves("/a/b.cpp") || got[1].Serves("/a/b.go") || got[0].Serves("/a/go") {
		t.Error("Serves is wrong")
	}
}

// TestPyrightDiagnostics: a server from npm, which publishes without
// waiting for a save.
func TestPyrightDiagnostics(t *testing.T) {
	pyright := langtest.Require(t, "pyright-langserver")
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	m := langserver.New(langserver.Config{
		Servers: []langserver.ServerConfig{{Name: "python", Command: []string{pyright, "--stdio"}, Filetypes: []string{"py"}}},
		Logf:    t.Logf,
	})
	t.Cleanup(m.Close)
	path := filepath.Join(dir, "calc.py")
	good := "def average(values: list[int]) -> float:\n    return sum(values) / len(values)\n"
	diags, ok, err := m.Diagnostics(context.Background(), dir, path, []byte(good), 60*time.Second)
	if err != nil || !ok {
		t.Fatalf("ok=%v err=%v", ok, err)
	}
	for _, d := range diags {
		if d.Severity == langserver.SeverityError {
			t.Errorf("error in the clean file: %+v", d)
		}
	}
	bad := good + "\naverage(3)\n"
	diags, ok, err = m.Diagnostics(context.Background(), dir, path, []byte(bad), 30*time.Second)
	if err != nil || !ok {
		t.Fatalf("ok=%v err=%v", ok, err)
	}
	found := false
	for _, d := range diags {
		if d.Severity == langserver.SeverityError && d.Line == 4 {
			found = true
		}
	}
	if !found {
		t.Fatalf("no error at line 4: %+v", diags)
	}
	got, err := m.Ask(context.Background(), dir, langserver.Query{Op: langserver.OpHover, Path: path, Text: []byte(bad), Line: 1, Character: 6})
	if err != nil || !strings.Contains(got, "average") {
		t.Errorf("hover = %q, %v", got, err)
	}
}
