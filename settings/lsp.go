package settings

import (
	"encoding/json"
	"fmt"
)

// LSP is the merged "lsp" block: the language servers agent-lsp may
// start itself, and how edits use their diagnostics.
//
//	"lsp": {
//	  "go": {"command": ["gopls"], "filetypes": ["go"]},
//	  "diagnosticsTimeoutMs": 1500,
//	  "checkOnStop": true
//	}
//
// A key whose value is an object names a server; the others are options.
type LSP struct {
	// Servers are the configured servers by name. When none is
	// configured, the known servers found on PATH are used.
	Servers map[string]LSPServer
	// Disabled turns language servers off ("enabled": false).
	Disabled bool
	// CheckOnStop tells the model, once, when its turn ends with new
	// errors in files it edited.
	CheckOnStop bool
	// DiagnosticsTimeoutMs bounds the wait for an edit's diagnostics;
	// 0 means the default.
	DiagnosticsTimeoutMs int
}

// LSPServer is one configured language server.
type LSPServer struct {
	Command   []string        `json:"command"`
	Filetypes []string        `json:"filetypes"`
	Options   json.RawMessage `json:"initializationOptions"`
	// Disabled turns a detected server off ("go": {"enabled": false}).
	Disabled bool `json:"-"`
}

// parseLSP reads a layer's "lsp" object. report is called with a key
// path and message for what is wrong.
func parseLSP(raw map[string]json.RawMessage, report func(path, msg string)) rawLSP {
	var out rawLSP
	for _, k := range sortedKeys(raw) {
		v := raw[k]
		path := "lsp." + k
		switch k {
		case "enabled", "checkOnStop":
			var b bool
			if err := json.Unmarshal(v, &b); err != nil {
				report(path, path+": expected a boolean")
				continue
			}
			if k == "enabled" {
				out.enabled = &b
			} else {
				out.checkOnStop = &b
			}
			continue
		case "diagnosticsTimeoutMs":
			var n int
			if err := json.Unmarshal(v, &n); err != nil || n < 0 {
				report(path, path+": expected a number of milliseconds")
				continue
			}
			out.timeoutMs = &n
			continue
		}
		var srv struct {
			LSPServer
			Enabled *bool `json:"enabled"`
		}
		if err := json.Unmarshal(v, &srv); err != nil {
			report(path, fmt.Sprintf("%s: expected an object with command and filetypes: %v", path, err))
			continue
		}
		srv.LSPServer.Disabled = srv.Enabled != nil && !*srv.Enabled
		if out.servers == nil {
			out.servers = map[string]LSPServer{}
		}
		out.servers[k] = srv.LSPServer
	}
	return out
}

// rawLSP is one layer's "lsp" block.
type rawLSP struct {
	servers     map[string]LSPServer
	enabled     *bool
	checkOnStop *bool
	timeoutMs   *int
}

// mergeLSP merges the layers' blocks, highest priority first. An
// untrusted project's layers come without commands (restrict).
func mergeLSP(layers []*layer) LSP {
	var out LSP
	for i := len(layers) - 1; i >= 0; i-- {
		l := layers[i]
		for name, srv := range l.lsp.servers {
			if out.Servers == nil {
				out.Servers = map[string]LSPServer{}
			}
			if prev, ok := out.Servers[name]; ok && len(srv.Command) == 0 {
				srv.Command = prev.Command
			}
			out.Servers[name] = srv
		}
		if l.lsp.enabled != nil {
			out.Disabled = !*l.lsp.enabled
		}
		if l.lsp.checkOnStop != nil {
			out.CheckOnStop = *l.lsp.checkOnStop
		}
		if l.lsp.timeoutMs != nil {
			out.DiagnosticsTimeoutMs = *l.lsp.timeoutMs
		}
	}
	return out
}
