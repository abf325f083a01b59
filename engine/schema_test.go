package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"testing"

	"github.com/agent-lsp/agent-lsp/tools"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestInputSchemasGolden shows the input schemas of the engine's own tools,
// inferred from their input structs, in testdata/input_schemas.json, so
// that a change to a struct that changes a schema shows in review. Run
// with -update to rewrite the file after such a change.
func TestInputSchemasGolden(t *testing.T) {
	schemas := map[string]json.RawMessage{}
	for _, tool := range []interface{ Spec() tools.Spec }{&agentTool{}, &skillTool{}, &webSearchTool{}} {
		schemas[tool.Spec().Name] = tool.Spec().InputSchema
	}
	got, err := json.MarshalIndent(schemas, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	const golden = "testdata/input_schemas.json"
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to create it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("input schemas differ from %s (run go test -run %s -update to accept the change):\n%s", golden, t.Name(), got)
	}
}

// TestEngineToolsDecodeStrictly: the engine's tools decode their input
// by the rules their schemas state, with the messages of the built-in
// tools.
func TestEngineToolsDecodeStrictly(t *testing.T) {
	preview := func(tool interface {
		Preview(context.Context, json.RawMessage) (*tools.Preview, error)
	}) func(string) error {
		return func(input string) error {
			_, err := tool.Preview(context.Background(), json.RawMessage(input))
			return err
		}
	}
	agent, search := preview(&agentTool{}), preview(&webSearchTool{})
	for _, tt := range []struct {
		name  string
		call  func(string) error
		input string
		want  string // "" for no error
	}{
		{"agent", agent, `{"description":"d","prompt":"p"}`, ""},
		{"agent without description", agent, `{"prompt":"p"}`, "invalid input: description: required field is missing"},
		{"agent with a null prompt", agent, `{"description":"d","prompt":null}`, "invalid input: prompt: required field is missing"},
		{"agent with a numeric model", agent, `{"description":"d","prompt":"p","model":4}`, "invalid input: model: expected string, got number"},
		{"agent input not an object", agent, `[1]`, "invalid input: input: expected a JSON object, got array"},
		{"search", search, `{"query":"go generics"}`, ""},
		{"search without query", search, `{}`, "invalid input: query: required field is missing"},
		{"search with a short query", search, `{"query":"g"}`, "invalid input: query: must be at least 2 characters"},
		{"search with a string of domains", search, `{"query":"go","allowed_domains":"go.dev"}`, "invalid input: allowed_domains: expected array, got string"},
	} {
		err := tt.call(tt.input)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.want != "" && (err == nil || err.Error() != tt.want):
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
}
