package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
)

// decodeInput decodes a tool's JSON input into v, which must point to a
// struct. The input must be a JSON object; each name in required must be
// present and not null; each field must have its declared JSON type. The
// error names the offending field ("file_path: expected string, got
// number") so the model can correct its call. Unknown fields are ignored.
func decodeInput(input json.RawMessage, v any, required ...string) error {
	return decodeField("", input, v, required...)
}

// decodeField is decodeInput for a value nested under prefix (such as
// "edits[2]"), which is prepended to field names in errors.
func decodeField(prefix string, input json.RawMessage, v any, required ...string) error {
	name := func(field string) string {
		switch {
		case prefix == "":
			return field
		case field == "":
			return prefix
		}
		return prefix + "." + field
	}
	data := bytes.TrimSpace(input)
	if len(data) == 0 || bytes.Equal(data, []byte("null")) {
		data = []byte("{}")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		what := "input"
		if prefix != "" {
			what = prefix
		}
		return fmt.Errorf("%s: expected a JSON object, got %s", what, jsonKind(data))
	}
	for _, f := range required {
		raw, ok := fields[f]
		if !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
			return fmt.Errorf("%s: required field is missing", name(f))
		}
	}
	if err := json.Unmarshal(data, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return fmt.Errorf("%s: expected %s, got %s", name(te.Field), typeName(te.Type), te.Value)
		}
		return fmt.Errorf("%s: %v", name(""), err)
	}
	return nil
}

// jsonKind names the JSON type of a value for error messages.
func jsonKind(data []byte) string {
	if len(data) == 0 {
		return "nothing"
	}
	switch data[0] {
	case '"':
		return "string"
	case '[':
		return "array"
	case '{':
		return "object"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	if json.Valid(data) {
		return "number"
	}
	return "invalid JSON"
}

// typeName names a Go type as its JSON type.
func typeName(t reflect.Type) string {
	if t == nil {
		return "a value"
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Struct, reflect.Map:
		return "object"
	case reflect.Pointer:
		return typeName(t.Elem())
	}
	return t.String()
}

// inputError returns the error result for a bad input.
func inputError(err error) *Result {
	return Errorf("invalid input: %v", err)
}
