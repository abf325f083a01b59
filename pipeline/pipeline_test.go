package pipeline

import (
	"context"
	"strings"
	"testing"

	"github.com/agent-lsp/agent-lsp/tools"
)

// trace is a middleware that notes its name on the way in and out, or
// answers without calling next when stop is set.
func trace(name string, log *[]string, stop bool) Middleware {
	return func(next Handler) Handler {
		return func(ctx context.Context, c *Call) *tools.Result {
			*log = append(*log, name+">")
			if stop {
				return tools.Errorf("%s refused", name)
			}
			res := next(ctx, c)
			*log = append(*log, "<"+name)
			return res
		}
	}
}

func TestChain(t *testing.T) {
	tests := []struct {
		name    string
		stopAt  string // the middleware that answers itself
		want    string
		wantRes string
	}{
		{name: "none", want: "run", wantRes: "ran"},
		{name: "order", want: "a> b> c> run <c <b <a", wantRes: "ran"},
		{name: "refusal", stopAt: "b", want: "a> b> <a", wantRes: "b refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log []string
			h := func(context.Context, *Call) *tools.Result {
				log = append(log, "run")
				return &tools.Result{Content: "ran"}
			}
			var mw []Middleware
			if tt.name != "none" {
				for _, n := range []string{"a", "b", "c"} {
					mw = append(mw, trace(n, &log, n == tt.stopAt))
				}
			}
			res := Chain(h, mw...)(context.Background(), &Call{ID: "toolu_1"})
			if got := strings.Join(log, " "); got != tt.want {
				t.Errorf("ran %q, want %q", got, tt.want)
			}
			if res.Content != tt.wantRes {
				t.Errorf("result %q, want %q", res.Content, tt.wantRes)
			}
		})
	}
}
