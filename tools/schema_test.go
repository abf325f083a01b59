package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// toolSchema is the part of a tool's input schema these tests check.
type toolSchema struct {
	Type       string                     `json:"type"`
	Properties map[string]json.RawMessage `json:"properties"`
	Required   []string                   `json:"required"`
}

func parseSchema(t *testing.T, tool Tool) toolSchema {
	t.Helper()
	var s toolSchema
	if err := json.Unmarshal(tool.Spec().InputSchema, &s); err != nil {
		t.Fatalf("%s: input schema is not JSON: %v", tool.Spec().Name, err)
	}
	if s.Type != "object" {
		t.Errorf("%s: schema type %q, want object", tool.Spec().Name, s.Type)
	}
	return s
}

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestInputSchemasGolden shows the input schemas the model sees, inferred
// from the input structs, in testdata/input_schemas.json, so that a change
// to a struct that changes a schema shows in review. Run with -update to
// rewrite the file after such a change.
func TestInputSchemasGolden(t *testing.T) {
	env := newTestEnv(t).Env
	env.Code = &fakeCode{} // the language-server tools too
	schemas := map[string]json.RawMessage{}
	for _, tool := range New(env) {
		schemas[tool.Spec().Name] = tool.Spec().InputSchema
	}
	checkGolden(t, "testdata/input_schemas.json", schemas)
}

// TestSchemasRequireWhatToolsRequire checks the required list of every
// built-in tool against what its decoding enforces: leaving out any field
// the schema marks required fails with the message the model relies on
// ("file_path: required field is missing"), and a call with every
// required field and nothing else is not refused for a missing field.
func TestSchemasRequireWhatToolsRequire(t *testing.T) {
	te := newTestEnv(t)
	for _, tool := range te.tools {
		name := tool.Spec().Name
		s := parseSchema(t, tool)
		full := map[string]any{}
		for _, r := range s.Required {
			var p struct {
				Type string `json:"type"`
			}
			json.Unmarshal(s.Properties[r], &p)
			full[r] = dummy(p.Type)
			if _, ok := s.Properties[r]; !ok {
				t.Errorf("%s: required %q is not a property", name, r)
			}
		}
		for _, r := range s.Required {
			in := map[string]any{}
			for k, v := range full {
				if k != r {
					in[k] = v
				}
			}
			res := tool.Run(context.Background(), rawInput(t, in))
			if want := r + ": required field is missing"; !res.IsError || !strings.Contains(res.Content, want) {
				t.Errorf("%s without %s: %q, want an error saying %q", name, r, res.Content, want)
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // a command the call would start stops at once
		res := tool.Run(ctx, rawInput(t, full))
		if strings.Contains(res.Content, "required field is missing") {
			t.Errorf("%s with every field its schema requires: %q", name, res.Content)
		}
	}
}

// dummy is a value of a JSON schema type.
func dummy(typ string) any {
	switch typ {
	case "boolean":
		return false
	case "number", "integer":
		return 1
	case "array":
		return []any{}
	case "object":
		return map[string]any{}
	}
	return "x"
}

// checkGolden compares schemas, indented, with the file golden, or
// rewrites it under -update.
func checkGolden(t *testing.T, golden string, schemas map[string]json.RawMessage) {
	t.Helper()
	got, err := json.MarshalIndent(schemas, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	if *update {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
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
