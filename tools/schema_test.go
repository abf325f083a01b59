package tools

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
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

// TestSchemasMatchInputStructs checks that the schema the model sees names
// exactly the fields the tool decodes: a property the struct lacks would
// be silently ignored, a struct field the schema lacks is never sent.
func TestSchemasMatchInputStructs(t *testing.T) {
	inputs := map[string]any{
		"Bash":      bashInput{},
		"Edit":      editInput{},
		"Glob":      globInput{},
		"Grep":      grepInput{},
		"LS":        lsInput{},
		"MultiEdit": multiEditInput{},
		"Read":      readInput{},
		"Write":     writeInput{},
	}
	te := newTestEnv(t)
	for _, tool := range te.tools {
		name := tool.Spec().Name
		in, ok := inputs[name]
		if !ok {
			continue
		}
		delete(inputs, name)
		s := parseSchema(t, tool)
		var props []string
		for p := range s.Properties {
			props = append(props, p)
		}
		slices.Sort(props)
		fields := jsonFields(reflect.TypeOf(in))
		if !slices.Equal(props, fields) {
			t.Errorf("%s: schema properties %v, input struct fields %v", name, props, fields)
		}
	}
	for name := range inputs {
		t.Errorf("no tool named %s", name)
	}
}

// jsonFields returns the sorted JSON names of a struct's fields.
func jsonFields(typ reflect.Type) []string {
	var out []string
	for f := range typ.Fields() {
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, name)
	}
	slices.Sort(out)
	return out
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
