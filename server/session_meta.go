package server

import (
	"encoding/json"

	"go.lsp.dev/jsonrpc2"

	"github.com/agent-lsp/agent-lsp/engine"
)

// sessionMeta is the _meta of session/new, load and resume as
// claude-agent-acp reads it: _meta.systemPrompt (a string that replaces
// the system prompt, or {"append": text}) and the Claude Agent SDK's
// options in _meta.claudeCode.options (allowedTools, disallowedTools,
// maxTurns, systemPrompt, appendSystemPrompt).
type sessionMeta struct {
	Meta struct {
		SystemPrompt json.RawMessage `json:"systemPrompt"`
		ClaudeCode   struct {
			Options struct {
				AllowedTools       []string        `json:"allowedTools"`
				DisallowedTools    []string        `json:"disallowedTools"`
				MaxTurns           int             `json:"maxTurns"`
				SystemPrompt       json.RawMessage `json:"systemPrompt"`
				CustomSystemPrompt string          `json:"customSystemPrompt"`
				AppendSystemPrompt string          `json:"appendSystemPrompt"`
			} `json:"options"`
		} `json:"claudeCode"`
	} `json:"_meta"`
}

// sessionOverrides reads the session options a client passed in _meta.
// Options that do not parse are ignored, as ACP asks of _meta.
func sessionOverrides(req *jsonrpc2.Request) engine.Overrides {
	var m sessionMeta
	if json.Unmarshal(req.Params(), &m) != nil {
		// One malformed field must not drop the others.
		var loose struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		}
		json.Unmarshal(req.Params(), &loose)
		json.Unmarshal(loose.Meta["systemPrompt"], &m.Meta.SystemPrompt)
		var cc struct {
			Options map[string]json.RawMessage `json:"options"`
		}
		json.Unmarshal(loose.Meta["claudeCode"], &cc)
		o := &m.Meta.ClaudeCode.Options
		json.Unmarshal(cc.Options["allowedTools"], &o.AllowedTools)
		json.Unmarshal(cc.Options["disallowedTools"], &o.DisallowedTools)
		json.Unmarshal(cc.Options["maxTurns"], &o.MaxTurns)
		json.Unmarshal(cc.Options["systemPrompt"], &o.SystemPrompt)
		json.Unmarshal(cc.Options["customSystemPrompt"], &o.CustomSystemPrompt)
		json.Unmarshal(cc.Options["appendSystemPrompt"], &o.AppendSystemPrompt)
	}
	o := m.Meta.ClaudeCode.Options
	ov := engine.Overrides{
		AllowedTools:       o.AllowedTools,
		DisallowedTools:    o.DisallowedTools,
		MaxTurns:           o.MaxTurns,
		SystemPrompt:       o.CustomSystemPrompt,
		AppendSystemPrompt: o.AppendSystemPrompt,
	}
	// The options' systemPrompt wins over _meta.systemPrompt, as the
	// options are spread after it in claude-agent-acp.
	for _, raw := range []json.RawMessage{m.Meta.SystemPrompt, o.SystemPrompt} {
		var text string
		var preset struct {
			Append string `json:"append"`
		}
		switch {
		case json.Unmarshal(raw, &text) == nil && text != "":
			ov.SystemPrompt = text
		case json.Unmarshal(raw, &preset) == nil && preset.Append != "":
			ov.AppendSystemPrompt = preset.Append
		}
	}
	return ov
}
