package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/agent-lsp/agent-lsp/settings"
)

// defaultPromptTimeout is how long a prompt hook's model call may take
// when the hook gives no timeout.
const defaultPromptTimeout = 30 * time.Second

// PromptSystem is the system prompt of a prompt hook's model call.
const PromptSystem = `You evaluate a hook of a coding agent. You are given the hook's instructions and the event's JSON input. Decide whether what the event describes may go on. Answer with a JSON object only: {"ok": true} to let it go on, or {"ok": false, "reason": "why, in words the agent and the user can act on"} to stop it.`

// askModel runs a prompt hook: the hook's prompt, with $ARGUMENTS
// replaced by the event's JSON (or the JSON appended when the prompt has
// no $ARGUMENTS), goes to the model, whose {"ok": false, "reason": ...}
// answer blocks as a command hook's {"decision": "block"} would. An
// answer that is not such an object is an error that blocks nothing.
func askModel(ctx context.Context, h settings.Hook, payload []byte, ask func(context.Context, string) (string, error)) result {
	if ask == nil {
		return result{err: "prompt hooks need a model, and none is configured"}
	}
	timeout := defaultPromptTimeout
	if h.Timeout > 0 {
		timeout = time.Duration(h.Timeout * float64(time.Second))
	}
	hctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	prompt := h.Prompt
	if strings.Contains(prompt, "$ARGUMENTS") {
		prompt = strings.ReplaceAll(prompt, "$ARGUMENTS", string(payload))
	} else {
		prompt += "\n\n" + string(payload)
	}
	answer, err := ask(hctx, prompt)
	switch {
	case ctx.Err() != nil:
		return result{err: "cancelled"}
	case hctx.Err() != nil:
		return result{err: fmt.Sprintf("the model did not answer within %s", timeout)}
	case err != nil:
		return result{err: "asking the model: " + err.Error()}
	}
	var verdict struct {
		OK     *bool  `json:"ok"`
		Reason string `json:"reason"`
	}
	start, end := strings.Index(answer, "{"), strings.LastIndex(answer, "}")
	if start < 0 || end < start || json.Unmarshal([]byte(answer[start:end+1]), &verdict) != nil || verdict.OK == nil {
		return result{err: fmt.Sprintf("the model's answer is not {\"ok\": ...}: %.200q", answer)}
	}
	if *verdict.OK {
		return result{}
	}
	out, _ := json.Marshal(map[string]string{"decision": "block", "reason": verdict.Reason})
	return result{stdout: string(out)}
}
