package openai

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/agent-lsp/agent-lsp/providers"
)

// mapError turns a transport error into a *providers.Error; errors that
// already are one pass through.
func mapError(err error) error {
	var e *providers.Error
	if errors.As(err, &e) {
		return e
	}
	return &providers.Error{Type: "connection_error", Message: err.Error(), Retryable: true, Err: err}
}

// apiError is the error object of an error response or of an error event
// inside a stream: {"error": {"message", "type", "code", "param"}}.
type apiError struct {
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"` // a string, a number or null
}

// code is the error's code when it is a string.
func (a apiError) code() string {
	var s string
	json.Unmarshal(a.Code, &s)
	return s
}

// statusError is the error of a response with an error status, from its
// body (raw) and headers.
func statusError(resp *http.Response, raw []byte) *providers.Error {
	var body struct {
		Error json.RawMessage `json:"error"`
	}
	var obj apiError
	if json.Unmarshal(raw, &body) == nil && len(body.Error) > 0 {
		json.Unmarshal(body.Error, &obj) // a string is read by rawMessage
	}
	e := &providers.Error{
		Status:  resp.StatusCode,
		Type:    obj.Type,
		Message: obj.Message,
		Err:     errors.New(strings.TrimSpace(string(raw))),
	}
	if e.Type == "" {
		e.Type = obj.code()
	}
	if e.Message == "" {
		e.Message = rawMessage(string(raw))
	}
	if e.Message == "" {
		e.Message = http.StatusText(e.Status)
	}
	e.RetryAfter = resp.Header.Get("Retry-After")
	if e.RetryAfter == "" {
		if ms, err := strconv.ParseFloat(resp.Header.Get("Retry-After-Ms"), 64); err == nil {
			e.RetryAfter = strconv.FormatFloat(ms/1000, 'f', -1, 64)
		}
	}
	e.Retryable = providers.RetryableStatus(e.Status)
	e.ContextTooLong = contextTooLong(e.Status, obj.code(), e.Type, e.Message)
	if e.ContextTooLong {
		e.Retryable = false
	}
	return e
}

// streamError is the error of an event inside a stream that began fine
// and then sent an error object instead of a chunk; nil when data is a
// chunk.
func streamError(data []byte) *providers.Error {
	var body struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(data, &body) != nil || len(body.Error) == 0 || string(body.Error) == "null" {
		return nil
	}
	var obj apiError
	json.Unmarshal(body.Error, &obj)
	e := &providers.Error{Type: obj.Type, Message: obj.Message, Err: errors.New("received error while streaming: " + string(body.Error))}
	if e.Message == "" {
		e.Message = "received error while streaming: " + string(body.Error)
	}
	e.ContextTooLong = contextTooLong(http.StatusBadRequest, obj.code(), e.Type, e.Message)
	e.Retryable = !e.ContextTooLong && e.Type != "invalid_request_error"
	return e
}

// contextTooLong recognises the ways compatible servers refuse a prompt
// over the model's window: OpenAI's context_length_exceeded, vLLM's
// "maximum context length", llama.cpp's exceed_context_size_error.
func contextTooLong(status int, code, typ, msg string) bool {
	if code == "context_length_exceeded" || typ == "exceed_context_size_error" {
		return true
	}
	if status != http.StatusBadRequest && status != http.StatusRequestEntityTooLarge {
		return false
	}
	m := strings.ToLower(msg)
	return strings.Contains(m, "maximum context length") ||
		strings.Contains(m, "context length") ||
		strings.Contains(m, "context size") ||
		strings.Contains(m, "context window") ||
		strings.Contains(m, "prompt is too long")
}

// rawMessage takes the message of an error body some servers send in
// other shapes ({"error":"..."} or {"message":"..."}).
func rawMessage(raw string) string {
	var body map[string]any
	if json.Unmarshal([]byte(raw), &body) != nil {
		return strings.TrimSpace(raw)
	}
	if s, ok := body["error"].(string); ok {
		return s
	}
	if s, ok := body["message"].(string); ok {
		return s
	}
	return ""
}
