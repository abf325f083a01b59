package providers

import (
	"errors"
	"fmt"
)

// Error is a failed model API call.
type Error struct {
	Status     int    // HTTP status, 0 for a transport failure
	Type       string // the API's error type, e.g. "overloaded_error"
	Message    string
	RetryAfter string // the Retry-After header, if any
	// Retryable is set when the same request may succeed later.
	Retryable bool
	// ContextTooLong is set when the request exceeded the model's window.
	ContextTooLong bool
	Err            error
}

func (e *Error) Error() string {
	switch {
	case e.Status != 0 && e.Type != "":
		return fmt.Sprintf("model API error %d (%s): %s", e.Status, e.Type, e.Message)
	case e.Status != 0:
		return fmt.Sprintf("model API error %d: %s", e.Status, e.Message)
	default:
		return fmt.Sprintf("model API: %s", e.Message)
	}
}

func (e *Error) Unwrap() error { return e.Err }

// IsContextTooLong reports whether err says the request exceeded the
// model's context window.
func IsContextTooLong(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.ContextTooLong
}

// RetryableStatus reports whether an HTTP status means the same request
// may succeed later: 408, 409, 429 and every 5xx, including Anthropic's
// 529 overloaded.
func RetryableStatus(status int) bool {
	return status == 408 || status == 409 || status == 429 || status >= 500
}
