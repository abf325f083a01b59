package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"go.lsp.dev/jsonrpc2"
)

// clientError is a request to the editor that it answered with an error:
// its refusal, carried to the model with the editor's own words.
type clientError struct {
	method string
	err    error
}

// newClientError returns the error of a request to the editor that
// failed: a *clientError when the editor answered, else err with the
// method named (the connection closed, the request timed out).
func newClientError(method string, err error) error {
	var e *jsonrpc2.Error
	if errors.As(err, &e) {
		return &clientError{method: method, err: err}
	}
	return fmt.Errorf("%s: %w", method, err)
}

func (e *clientError) Error() string {
	return fmt.Sprintf("the editor refused %s: %s", e.method, rpcErrorText(e.err))
}

func (e *clientError) Unwrap() error { return e.err }

// rpcErrorText describes an error answer of the editor with what it said:
// the message and, when there is one, the reason in its data. ACP clients
// often answer "Internal error" and put the reason in data (a string, or
// an object with details or message), so the message alone would tell
// nothing.
func rpcErrorText(err error) string {
	var e *jsonrpc2.Error
	if !errors.As(err, &e) {
		return err.Error()
	}
	text := e.Message
	if detail := errorData(e.Data); detail != "" && !strings.Contains(text, detail) {
		if text == "" {
			text = detail
		} else {
			text += ": " + detail
		}
	}
	return fmt.Sprintf("%s (code %d)", text, e.Code)
}

// errorData returns the reason an error's data gives, or "".
func errorData(data jsonrpc2.RawMessage) string {
	if len(data) == 0 || string(data) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(data, &s) == nil {
		return s
	}
	var fields map[string]any
	if json.Unmarshal(data, &fields) == nil {
		for _, k := range []string{"details", "message", "reason", "error"} {
			if v, ok := fields[k].(string); ok && v != "" {
				return v
			}
		}
	}
	const max = 500
	if len(data) > max {
		return string(data[:max]) + "…"
	}
	return string(data)
}
