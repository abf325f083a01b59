package server

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/engine"
)

// TestToleratesFieldsItNeverReads: the hand-written copies of LSP's
// initialize and codeAction params (doc.go, Wire types) exist so that a
// client's quirk in a field the server does not read never costs it the
// request. go.lsp.dev/protocol's decoder refuses each of these.
func TestToleratesFieldsItNeverReads(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	rootURI := string(uri.File(root))
	file := string(uri.File(filepath.Join(root, "a.go")))
	line := `{"start":{"line":1,"character":0},"end":{"line":1,"character":3}}`
	for _, tc := range []struct {
		name     string
		caps     string // initialize's capabilities
		messages []string
	}{
		{
			name: "an empty Lua table for a list in a capability",
			caps: `{"textDocument":{"completion":{"completionItem":{"tagSupport":{"valueSet":{}}}}},"workspace":{"symbol":{"symbolKind":{"valueSet":{}}}}}`,
		},
		{
			name: "code action diagnostics with nulls and empty tables",
			caps: `{}`,
			messages: []string{
				`{"jsonrpc":"2.0","id":2,"method":"textDocument/codeAction","params":{"textDocument":{"uri":"` + file + `"},"range":` + line + `,"context":{"triggerKind":1,"only":{},"diagnostics":[{"range":` + line + `,"message":"undefined: x","severity":null,"code":null,"tags":{},"relatedInformation":{}}]}}}`,
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msgs := append([]string{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":"` + rootURI + `","capabilities":` + tc.caps + `}}`}, tc.messages...)
			var input strings.Builder
			for _, m := range msgs {
				fmt.Fprintf(&input, "Content-Length: %d\r\n\r\n%s", len(m), m)
			}
			out := &bytes.Buffer{}
			opts := Options{Logf: t.Logf, TranscriptDir: t.TempDir(), NewService: func(InitOptions) (*engine.Service, error) {
				return engine.NewService(engine.Config{Logf: t.Logf, Home: root}), nil
			}}
			Serve(context.Background(), scriptedInput{strings.NewReader(input.String()), out}, opts)
			for id := range msgs {
				if want := fmt.Sprintf(`"id":%d,"result"`, id+1); !strings.Contains(out.String(), want) {
					t.Errorf("request %d was not answered with a result:\n%s", id+1, out.String())
				}
			}
		})
	}
}
