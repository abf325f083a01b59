package server

import (
	"context"
	"encoding/json"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/tools"
)

func init() {
	lspMethods.register("initialize", (*Server).initialize)
	lspMethods.register("initialized", func(*Server, context.Context, *jsonrpc2.Request) (any, error) { return nil, nil })
	lspMethods.register("shutdown", (*Server).shutdown)
	lspMethods.register("exit", (*Server).exit)
}

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

// initializeResult is the result of initialize.
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

type codeActionOptions struct {
	CodeActionKinds []string `json:"codeActionKinds"`
}

type executeCommandOptions struct {
	Commands []string `json:"commands"`
}

type textDocumentSync struct {
	OpenClose bool        `json:"openClose"`
	Change    int         `json:"change"` // 2: incremental
	Save      saveOptions `json:"save"`
}

type saveOptions struct {
	IncludeText bool `json:"includeText"`
}

type experimental struct {
	Agent agentInfo `json:"agent"`
}

// agentInfo is what initialize announces of the agent: ACP's initialize
// result, inside the LSP one.
type agentInfo struct {
	ProtocolVersion   int                      `json:"protocolVersion"`
	AgentCapabilities schema.AgentCapabilities `json:"agentCapabilities"`
	AgentInfo         schema.Implementation    `json:"agentInfo"`
	AuthMethods       []schema.AuthMethod      `json:"authMethods"`
	Meta              map[string]any           `json:"_meta,omitempty"` // engine.Service.Meta
}

func (s *Server) initialize(ctx context.Context, req *jsonrpc2.Request) (any, error) {
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
	svc, err := s.opts.NewService(init)
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "initialize: %v", err)
	}
	s.mu.Lock()
	s.svc, s.roots, s.caps, s.state = svc, tools.ResolveRoots(roots...), caps, stateInitialized
	s.mu.Unlock()

	res := initializeResult{
		Capabilities: serverCapabilities{
			TextDocumentSync: textDocumentSync{OpenClose: true, Change: 2, Save: saveOptions{IncludeText: true}},
			Experimental:     experimental{Agent: s.agentInfo(svc)},
		},
		ServerInfo: serverInfo{Name: "agent-lsp", Version: s.opts.Version},
		Meta:       svc.Meta(),
	}
	if !caps.agent {
		// No agent plugin: offer the agent through standard features.
		res.Capabilities.CodeActionProvider = &codeActionOptions{CodeActionKinds: []string{"quickfix", "refactor", "refactor.rewrite"}}
		res.Capabilities.ExecuteCommandProvider = &executeCommandOptions{Commands: plainCommands}
	}
	return res, nil
}

// agentInfo describes the agent's capabilities.
func (s *Server) agentInfo(svc *engine.Service) agentInfo {
	return agentInfo{
		ProtocolVersion: schema.ProtocolVersion,
		AgentCapabilities: schema.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: schema.PromptCapabilities{Image: true, EmbeddedContext: true},
			MCPCapabilities:    schema.MCPCapabilities{HTTP: true, SSE: true},
			SessionCapabilities: &schema.SessionCapabilities{
				List: &struct{}{}, Resume: &struct{}{}, Close: &struct{}{}, Fork: &struct{}{},
			},
		},
		AgentInfo:   schema.Implementation{Name: "agent-lsp", Title: "agent-lsp", Version: s.opts.Version},
		AuthMethods: authMethods,
		Meta:        svc.Meta(),
	}
}

// authMethods tell the user how to give the agent a key.
var authMethods = []schema.AuthMethod{
	{ID: "anthropic-api-key", Name: "Anthropic API key", Description: "Set ANTHROPIC_API_KEY in the environment the editor starts agent-lsp with."},
	{ID: "openai-api-key", Name: "OpenAI-compatible API key", Description: "Set OPENAI_API_KEY (and OPENAI_BASE_URL for other servers, such as Ollama at http://localhost:11434/v1)."},
}

// initializeParams are the parts of LSP's InitializeParams the server
// reads.
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

func (s *Server) shutdown(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	s.closeServices()
	return nil, nil
}

func (s *Server) exit(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	s.mu.Lock()
	if s.state == stateShutdown {
		s.exitCode = 0
	}
	s.mu.Unlock()
	select {
	case <-s.exited:
	default:
		close(s.exited)
	}
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
