package config

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/providers/retry"
)

// ModelAllowed reports whether the settings' availableModels let the user
// pick model: nil allows every model; an entry matches the same ID, an ID
// it is a dated or platform form of (claude-sonnet-4-5 allows
// claude-sonnet-4-5-20250929 and us.anthropic.claude-sonnet-4-5-…), or, for
// an alias such as "sonnet" or "opus", any Claude ID of that family.
func ModelAllowed(available []string, model string) bool {
	if available == nil {
		return true
	}
	base := FirstPartyModel(model)
	for _, a := range available {
		a = strings.TrimSpace(a)
		switch {
		case a == "":
		case strings.EqualFold(a, model), a == base:
			return true
		case strings.HasPrefix(base, a+"-"):
			return true
		case !strings.Contains(a, "-") && strings.HasPrefix(base, "claude-") && strings.Contains(base, "-"+strings.ToLower(a)):
			return true // "sonnet" allows claude-sonnet-4-5
		}
	}
	return false
}

// AllowModel is ModelAllowed as an error for the user: it names the
// models they may pick.
func AllowModel(available []string, model string) error {
	if ModelAllowed(available, model) {
		return nil
	}
	return fmt.Errorf("model %q is not available: the settings' availableModels allow only %s", model, strings.Join(available, ", "))
}

// fallback answers with another model when the model is overloaded or
// failing with a server error after the retries (settings
// "fallbackModel"). The switch is announced as an EventRetry whose Reason
// names the fallback model, so the user sees it as a status.
type fallback struct {
	p     retry.Streamer
	model string
}

func (f fallback) Stream(ctx context.Context, req *providers.Request, emit func(providers.Event)) (*providers.Response, error) {
	resp, err := f.p.Stream(ctx, req, emit)
	var pe *providers.Error
	if err == nil || !errors.As(err, &pe) || !overloaded(pe) || req.Model == f.model {
		return resp, err
	}
	emit(providers.Event{Kind: providers.EventRetry, Retry: &providers.RetryInfo{
		Attempt: 1,
		Reason:  fmt.Sprintf("%s; the fallback model %s answers instead", pe.Error(), f.model),
		Reset:   true,
	}})
	r := *req
	r.Model = f.model
	return f.p.Stream(ctx, &r, emit)
}

// overloaded reports whether an error is the model's capacity or server
// failing (529, overloaded_error, 5xx) rather than the request's.
func overloaded(e *providers.Error) bool {
	return e.Type == "overloaded_error" || e.Status >= 500
}
