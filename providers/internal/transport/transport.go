// Package transport holds what the vendor providers share around one
// HTTP call: their own HTTP client, a watchdog for stalled streams, and a
// sleep that ends with its context.
package transport

import (
	"context"
	"net/http"
	"time"
)

// Client returns hc, or when it is nil a new client with its own clone of
// the default transport, so a provider's idle connections are its own and
// go away with it.
func Client(hc *http.Client) *http.Client {
	if hc != nil {
		return hc
	}
	return &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
}

// Sleep waits for d or until ctx ends, returning ctx.Err() then.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
