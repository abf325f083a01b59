package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// DecodeInput decodes a tool's JSON input into v, which must point to
// its input struct, and checks it against the rules the struct's schema
// states (InputSchema): the input must be a JSON object; each field whose
// json tag lacks omitempty must be present and not null; each field must
// have its declared JSON type, and so must each field of the items of a
// slice of structs. The error names the offending field ("file_path:
// expected string, got number", "edits[2].old_string: required field is
// missing") so the model can correct its call. Unknown fields are ignored.
func DecodeInput(input json.RawMessage, v any) error {
	return decodeField("", input, v)
}

// decodeField is DecodeInput for a value nested under prefix (such as
// "edits[2]"), which is prepended to field names in errors.
func decodeField(prefix string, input json.RawMessage, v any) error {
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
	typ := reflect.TypeOf(v).Elem()
	for f := range typ.Fields() {
		tag, required := jsonName(f)
		if tag == "" {
			continue
		}
		raw, ok := fields[tag]
		if !ok || isNull(raw) {
			if required {
				return fmt.Errorf("%s: required field is missing", name(tag))
			}
			continue
		}
		// Items of a slice of structs are checked one by one, so that an
		// error names the item.
		if f.Type.Kind() != reflect.Slice || f.Type.Elem().Kind() != reflect.Struct {
			continue
		}
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return fmt.Errorf("%s: expected array, got %s", name(tag), jsonKind(bytes.TrimSpace(raw)))
		}
		for i, item := range items {
			elem := reflect.New(f.Type.Elem()).Interface()
			if err := decodeField(fmt.Sprintf("%s[%d]", name(tag), i), item, elem); err != nil {
				return err
			}
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

// jsonName returns the JSON name of a struct field, "" when JSON leaves
// it out, and whether the field is required: its tag lacks omitempty
// and omitzero, as jsonschema.For infers it.
func jsonName(f reflect.StructField) (name string, required bool) {
	if !f.IsExported() {
		return "", false
	}
	tag, opts, found := strings.Cut(f.Tag.Get("json"), ",")
	if tag == "-" && !found {
		return "", false
	}
	if tag == "" {
		tag = f.Name
	}
	for o := range strings.SplitSeq(opts, ",") {
		if o == "omitempty" || o == "omitzero" {
			return tag, false
		}
	}
	return tag, true
}

// isNull reports whether a raw JSON value is null.
func isNull(raw json.RawMessage) bool {
	return bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
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
