package anthropic

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/agent-lsp/agent-lsp/providers"
)

// mapError turns an SDK or transport error into a *providers.Error.
func mapError(err error) error {
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) {
		// Transport failures and a connection dropped mid-stream.
		return &providers.Error{Type: "connection_error", Message: err.Error(), Retryable: true, Err: err}
	}
	var body struct {
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	_ = json.Unmarshal([]byte(apiErr.RawJSON()), &body)
	e := &providers.Error{
		Status:  apiErr.StatusCode,
		Type:    body.Error.Type,
		Message: body.Error.Message,
		Err:     err,
	}
	if e.Message == "" {
		e.Message = http.StatusText(e.Status)
	}
	if apiErr.Response != nil {
		e.RetryAfter = apiErr.Response.Header.Get("Retry-After")
	}
	if e.Status == http.StatusOK {
		// An error event inside a stream that began fine: its type says
		// what went wrong.
		e.Status = statusOfType(e.Type)
	}
	e.Retryable = providers.RetryableStatus(e.Status)
	if apiErr.Response != nil {
		// The API's explicit advice wins.
		switch apiErr.Response.Header.Get("X-Should-Retry") {
		case "true":
			e.Retryable = true
		case "false":
			e.Retryable = false
		}
	}
	e.ContextTooLong = contextTooLong(e.Status, e.Message)
	if e.ContextTooLong {
		e.Retryable = false
	}
	return e
}

// contextTooLong recognises the API's answers to a prompt over the model's
// window: "prompt is too long: N tokens > M maximum", "input length and
// max_tokens exceed context limit", and 413 request_too_large.
func contextTooLong(status int, msg string) bool {
	if status == http.StatusRequestEntityTooLarge {
		return true
	}
	if status != http.StatusBadRequest {
		return false
	}
	m := strings.ToLower(msg)
	return strings.Contains(m, "prompt is too long") ||
		strings.Contains(m, "exceed context limit") ||
		strings.Contains(m, "context window")
}

// statusOfType is the HTTP status an error type comes with, for errors
// sent as stream events.
func statusOfType(t string) int {
	switch t {
	case "overloaded_error":
		return 529
	case "rate_limit_error":
		return 429
	case "api_error":
		return 500
	case "invalid_request_error":
		return 400
	case "authentication_error":
		return 401
	case "permission_error":
		return 403
	case "not_found_error":
		return 404
	case "request_too_large":
		return 413
	default:
		return 500
	}
}
