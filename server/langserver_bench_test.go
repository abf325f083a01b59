package server_test

import (
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/internal/editortest"
	"github.com/agent-lsp/agent-lsp/internal/langtest"
	"github.com/agent-lsp/agent-lsp/langserver"
	"github.com/agent-lsp/agent-lsp/providers/anthropic"
	"github.com/agent-lsp/agent-lsp/providers/fake"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/server"
)

const (
	breakGreet = `{"file_path":"main.go","old_string":"fmt.Println(Greet(\"you\"))","new_string":"var n int = Greet(\"you\")\n\tfmt.Println(n)"}`
	fixGreet   = `{"file_path":"main.go","old_string":"var n int = Greet","new_string":"var n string = Greet"}`
)

// BenchmarkFixTypeError compares the model input of two scripted
// sessions that make the same change, which introduces a type error, and
// fix it: one learns of the error from the Edit's diagnostics (gopls),
// the other from a Bash `go build` before and after the fix, as a model
// without diagnostics must. Reported per session: the model calls and the
// input tokens they carry (request bytes / 4; the tools' schemas, the
// same in both, included).
func BenchmarkFixTypeError(b *testing.B) {
	gopls := langtest.Require(b, "gopls")
	langtest.GoEnv(b)
	build := `{"command":"go build ./...","description":"check that it builds"}`
	for _, c := range []struct {
		name    string
		servers []langserver.ServerConfig
		turns   []fake.Turn
	}{
		{"edit-diagnostics", []langserver.ServerConfig{{Name: "go", Command: []string{gopls}, Filetypes: []string{"go"}}}, []fake.Turn{
			{fake.ToolUse("t1", "Read", `{"file_path":"main.go"}`)},
			{fake.ToolUse("t2", "Edit", breakGreet)},
			{fake.ToolUse("t3", "Edit", fixGreet)},
			{fake.Text("Done: n is a string.")},
		}},
		{"bash-go-build", []langserver.ServerConfig{}, []fake.Turn{
			{fake.ToolUse("t1", "Read", `{"file_path":"main.go"}`)},
			{fake.ToolUse("t2", "Edit", breakGreet)},
			{fake.ToolUse("t3", "Bash", build)},
			{fake.ToolUse("t4", "Edit", fixGreet)},
			{fake.ToolUse("t5", "Bash", build)},
			{fake.Text("Done: n is a string.")},
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var bytes, calls int
			for b.Loop() {
				root := langtest.GoModule(b, map[string]string{"main.go": goMain})
				model := fake.NewAnthropic(b, c.turns...)
				provider := anthropic.New(anthropic.Options{APIKey: "k", BaseURL: model.BaseURL()})
				ed := editortest.New(b, server.Options{Version: "bench", TranscriptDir: filepath.Join(root, ".t"),
					NewService: func(server.InitOptions) (*engine.Service, error) {
						return engine.NewService(engine.Config{Provider: provider, Model: "claude-test", Home: root, Logf: func(string, ...any) {}, LangServers: c.servers}), nil
					}})
				// Without applyEdit the agent writes the disk, which go build
				// reads (an editor plugin saves a clean buffer it edited).
				ed.InitializeWith(map[string]any{"rootUri": string(uri.File(root)),
					"capabilities": map[string]any{"experimental": map[string]any{"agent": map[string]any{}}}})
				sid := ed.NewSession(root)
				if stop, err := ed.Prompt(sid, "make n an int"); err != nil || stop != schema.StopEndTurn {
					b.Fatalf("prompt: %q, %v", stop, err)
				}
				bytes, calls = 0, 0
				sawError := false
				for _, r := range model.Requests() {
					bytes += len(r.Body)
					calls++
					sawError = sawError || strings.Contains(string(r.Body), "cannot use Greet")
				}
				if !sawError {
					b.Fatalf("the model never saw the type error: %s", lastMessage(b, model, 3))
				}
			}
			b.ReportMetric(float64(calls), "model-calls/session")
			b.ReportMetric(float64(bytes)/4, "input-tokens/session")
		})
	}
}
