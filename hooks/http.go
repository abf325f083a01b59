package hooks

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"

	"github.com/agent-lsp/agent-lsp/settings"
)

// post runs an http hook: the event's JSON is POSTed to the hook's URL.
// A 2xx answer's body is read as a command hook's stdout (exit status 0);
// any other status, or no answer within the timeout, is an error that
// blocks nothing. Header values expand $VAR and ${VAR} only for the
// variables the hook's allowedEnvVars names (from the settings' env, else
// the process's); others become empty, so a header cannot leak a secret
// the user did not name.
func (r *Runner) post(ctx context.Context, h settings.Hook, payload []byte, env map[string]string) result {
	timeout := hookTimeout(h)
	hctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(hctx, http.MethodPost, h.URL, bytes.NewReader(payload))
	if err != nil {
		return result{err: fmt.Sprintf("bad url: %v", err)}
	}
	req.Header.Set("Content-Type", "application/json")
	lookup := func(name string) string {
		if !slices.Contains(h.AllowedEnvVars, name) {
			return ""
		}
		if v, ok := env[name]; ok {
			return v
		}
		return os.Getenv(name)
	}
	for k, v := range h.Headers {
		req.Header.Set(k, os.Expand(v, lookup))
	}
	resp, err := http.DefaultClient.Do(req)
	switch {
	case ctx.Err() != nil:
		return result{err: "cancelled"}
	case hctx.Err() != nil:
		return result{err: fmt.Sprintf("no answer within %s", timeout)}
	case err != nil:
		return result{err: err.Error()}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxOutput))
	if err != nil {
		return result{err: fmt.Sprintf("reading the answer: %v", err)}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return result{err: fmt.Sprintf("answered %s", resp.Status)}
	}
	return result{stdout: string(body)}
}
