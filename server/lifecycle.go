package server

import (
	"context"
	"encoding/json"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/tools"
)

// clientCapabilities are the parts of the editor's capabilities the server
// acts on.
type clientCapabilities struct {
	applyEdit          bool
	documentChanges    bool
	resourceOps        bool
	showDocument       bool
	workDoneProgress   bool
	showMessageActions bool
	// agent is set when the client announced experimental.agent: it
	// speaks the session methods.
	agent bool
	// diagnostics is set when the client announced
	// experimental.agent.diagnostics: it answers agent/diagnostics.
	diagnostics bool
}

// initializeResult is the result of initialize: a copy of the parts of
// protocol.InitializeResult the server sends, on purpose (doc.go, Wire
// types).
type initializeResult struct {
	Capabilities serverCapabilities `json:"capabilities"`
	ServerInfo   serverInfo         `json:"serverInfo"`
	Meta         map[string]any     `json:"_meta,omitempty"` // engine.Service.Meta
}

type serverInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type serverCapabilities struct {
	TextDocumentSync textDocumentSync `json:"textDocumentSync"`
	Experimental     experimental     `json:"experimental"`
	// The plain-LSP door, for clients without the agent extension.
	CodeActionProvider     *codeActionOptions     `json:"codeActionProvider,omitempty"`
	ExecuteCommandProvider *executeCommandOptions `json:"executeCommandProvider,omitempty"`
}

type textDocumentSync struct {
	OpenClose bool        `json:"openClose"`
	Change    int         `json:"change"` // 2: incremental
	Save      saveOptions `json:"save"`
}

type saveOptions struct {
	IncludeText bool `json:"includeText"`
}

// experimental announces the agent: ACP's initialize result, inside the
// LSP one.
type experimental struct {
	Agent acpInitializeResult `json:"agent"`
}

func (d *lspDoor) initialize(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p initializeParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	var init InitOptions
	if raw := p.InitializationOptions; len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &init); err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "initialize: initializationOptions: %v", err)
		}
		init.Raw = raw
	}
	var roots []string
	for _, f := range p.WorkspaceFolders {
		roots = append(roots, uri.URI(f.URI).FsPath())
	}
	if len(roots) == 0 && p.RootURI != "" {
		roots = append(roots, uri.URI(p.RootURI).FsPath())
	}
	ws := p.Capabilities.Workspace
	agent, _ := p.Capabilities.Experimental["agent"]
	caps := clientCapabilities{
		applyEdit:          ws.ApplyEdit,
		documentChanges:    ws.WorkspaceEdit.DocumentChanges,
		resourceOps:        len(ws.WorkspaceEdit.ResourceOperations) > 0,
		showDocument:       p.Capabilities.Window.ShowDocument.Support,
		workDoneProgress:   p.Capabilities.Window.WorkDoneProgress,
		showMessageActions: p.Capabilities.Window.ShowMessage != nil,
		agent:              len(agent) > 0 && string(agent) != "null" && string(agent) != "false",
		diagnostics:        announcesDiagnostics(agent) || len(p.Capabilities.Experimental[plainDiagnosticsCapability]) > 0,
	}
	init.Roots = tools.ResolveRoots(roots...)
	svc, err := d.c.opts.NewService(init)
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "initialize: %v", err)
	}
	d.mu.Lock()
	d.roots, d.caps = init.Roots, caps
	d.mu.Unlock()
	d.c.initialized(svc, "")

	announced := agentDescription(d.c.opts.Version)
	announced.Meta = svc.Meta()
	res := initializeResult{
		Capabilities: serverCapabilities{
			TextDocumentSync: textDocumentSync{OpenClose: true, Change: 2, Save: saveOptions{IncludeText: true}},
			Experimental:     experimental{Agent: announced},
		},
		ServerInfo: serverInfo{Name: "agent-lsp", Version: d.c.opts.Version},
		Meta:       announced.Meta,
	}
	if !caps.agent {
		// No agent plugin: offer the agent through standard features.
		d.plain.announce(&res.Capabilities)
	}
	return res, nil
}

// acpInitializeResult is ACP's initialize result (schema.InitializeResult):
// the ACP door's answer to initialize, and what the LSP door announces in
// experimental.agent.
type acpInitializeResult = schema.InitializeResult

// agentDescription describes the agent of this version: its protocol
// version and capabilities. We speak ACP version 1 only: a client asking
// for another gets ours and decides whether to go on.
func agentDescription(version string) acpInitializeResult {
	return acpInitializeResult{
		ProtocolVersion: schema.ProtocolVersion,
		AgentCapabilities: schema.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: schema.PromptCapabilities{Image: true, EmbeddedContext: true},
			MCPCapabilities:    schema.MCPCapabilities{HTTP: true, SSE: true},
			SessionCapabilities: &schema.SessionCapabilities{
				List: &struct{}{}, Resume: &struct{}{}, Close: &struct{}{}, Fork: &struct{}{},
			},
		},
		AgentInfo:   schema.Implementation{Name: "agent-lsp", Title: "agent-lsp", Version: version},
		AuthMethods: authMethods,
	}
}

// authMethods tell the user how to give the agent a key.
var authMethods = []schema.AuthMethod{
	{ID: "anthropic-api-key", Name: "Anthropic API key", Description: "Set ANTHROPIC_API_KEY in the environment the editor starts agent-lsp with."},
	{ID: "openai-api-key", Name: "OpenAI-compatible API key", Description: "Set OPENAI_API_KEY (and OPENAI_BASE_URL for other servers, such as Ollama at http://localhost:11434/v1)."},
}

// initializeParams are the parts of LSP's InitializeParams the server
// reads: a copy on purpose, as protocol's decoder refuses initialize over
// fields the server never reads (doc.go, Wire types).
type initializeParams struct {
	ProcessID        *int   `json:"processId"`
	RootURI          string `json:"rootUri"`
	WorkspaceFolders []struct {
		URI  string `json:"uri"`
		Name string `json:"name"`
	} `json:"workspaceFolders"`
	Capabilities struct {
		Workspace struct {
			ApplyEdit     bool `json:"applyEdit"`
			WorkspaceEdit struct {
				DocumentChanges    bool     `json:"documentChanges"`
				ResourceOperations []string `json:"resourceOperations"`
			} `json:"workspaceEdit"`
		} `json:"workspace"`
		Window struct {
			WorkDoneProgress bool `json:"workDoneProgress"`
			ShowDocument     struct {
				Support bool `json:"support"`
			} `json:"showDocument"`
			ShowMessage *json.RawMessage `json:"showMessage"`
		} `json:"window"`
		Experimental map[string]json.RawMessage `json:"experimental"`
	} `json:"capabilities"`
	InitializationOptions json.RawMessage `json:"initializationOptions"`
}

// shutdown closes the sessions; exit (core.exit) then ends the
// connection with exit code 0.
func (d *lspDoor) shutdown(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	d.c.closeServices()
	return nil, nil
}

// announcesDiagnostics reports whether experimental.agent holds a
// diagnostics capability (true or an object).
func announcesDiagnostics(agent json.RawMessage) bool {
	var a struct {
		Diagnostics json.RawMessage `json:"diagnostics"`
	}
	if json.Unmarshal(agent, &a) != nil {
		return false
	}
	d := strings.TrimSpace(string(a.Diagnostics))
	return d != "" && d != "null" && d != "false"
}
