package openai

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/agent-lsp/agent-lsp/providers"
)

// mapError turns an SDK or transport error into a *providers.Error.
func mapError(err error) error {
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		e := &providers.Error{
			Status:  apiErr.StatusCode,
			Type:    apiErr.Type,
			Message: apiErr.Message,
			Err:     err,
		}
		if e.Type == "" {
			e.Type = apiErr.Code
		}
		if e.Message == "" {
			e.Message = rawMessage(apiErr.RawJSON())
		}
		if e.Message == "" {
			e.Message = http.StatusText(e.Status)
		}
		if resp := apiErr.Response; resp != nil {
			e.RetryAfter = resp.Header.Get("Retry-After")
			if e.RetryAfter == "" {
				if ms, err := strconv.ParseFloat(resp.Header.Get("Retry-After-Ms"), 64); err == nil {
					e.RetryAfter = strconv.FormatFloat(ms/1000, 'f', -1, 64)
				}
			}
		}
		e.Retryable = providers.RetryableStatus(e.Status)
		e.ContextTooLong = contextTooLong(e.Status, apiErr.Code, e.Type, e.Message)
		if e.ContextTooLong {
			e.Retryable = false
		}
		return e
	}
	var se *ssestream.StreamError
	if errors.As(err, &se) {
		// An error object sent inside a stream that began fine.
		var body struct {
			Error struct {
				Message string `json:"message"`
				Type    string `json:"type"`
				Code    any    `json:"code"`
			} `json:"error"`
		}
		_ = json.Unmarshal(se.Event.Data, &body)
		e := &providers.Error{Type: body.Error.Type, Message: body.Error.Message, Err: err}
		if e.Message == "" {
			e.Message = se.Message
		}
		code, _ := body.Error.Code.(string)
		e.ContextTooLong = contextTooLong(http.StatusBadRequest, code, e.Type, e.Message)
		e.Retryable = !e.ContextTooLong && e.Type != "invalid_request_error"
		return e
	}
	return &providers.Error{Type: "connection_error", Message: err.Error(), Retryable: true, Err: err}
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
