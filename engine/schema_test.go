package engine

import (
	"bytes"
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
