package tools

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// InputSchema returns a function that gives the JSON schema of the tool
// input struct T, inferred on first use the way the MCP go-sdk infers the
// schema of a typed tool (jsonschema.For). The struct is the one source of
// the schema and of the decoding rules (DecodeInput):
//   - each exported field is a property named by its json tag and
//     described by its jsonschema tag;
//   - a field is required unless its json tag says omitempty;
//   - a struct allows no other property; a slice of structs describes its
//     items the same way.
//
// Optional fields are not nullable in the schema (the model is told to
// omit them), though decoding takes null as absent. refine, when not nil,
// adds what a tag cannot say: enums, bounds, defaults, formats. A struct
// the inference refuses is a programming error and panics on first use,
// which the schema tests catch.
func InputSchema[T any](refine func(*jsonschema.Schema)) func() json.RawMessage {
	return sync.OnceValue(func() json.RawMessage {
		s, err := jsonschema.For[T](nil)
		if err != nil {
			panic(fmt.Sprintf("tool input schema: %v", err))
		}
		dropNull(s)
		if refine != nil {
			refine(s)
		}
		b, err := json.Marshal(s)
		if err != nil {
			panic(fmt.Sprintf("tool input schema: %v", err))
		}
		return b
	})
}

// dropNull makes the types inferred for pointers and slices, ["null", T],
// plain T in s and the schemas below it.
func dropNull(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && s.Types[0] == "null" {
		s.Type, s.Types = s.Types[1], nil
	}
	dropNull(s.Items)
	for _, p := range s.Properties {
		dropNull(p)
	}
}

// Property returns the schema of the property name of s; it panics when s
// has none, so that a refinement naming a renamed field fails loudly.
func Property(s *jsonschema.Schema, name string) *jsonschema.Schema {
	p := s.Properties[name]
	if p == nil {
		panic(fmt.Sprintf("tool input schema: no property %q in %v", name, slices.Sorted(maps.Keys(s.Properties))))
	}
	return p
}

// Enum returns vals as the values of a JSON schema enum.
func Enum[S ~[]E, E any](vals S) []any {
	out := make([]any, len(vals))
	for i, v := range vals {
		out[i] = v
	}
	return out
}
