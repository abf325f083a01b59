package server

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/rpc"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/tools"
	"github.com/agent-lsp/agent-lsp/workspace"
)

// The ACP door serves the Agent Client Protocol v1 (Zed, JetBrains,
// CodeCompanion, avante, ...) with newline-delimited JSON-RPC. It shares
// the session methods with the LSP door; only initialize, authenticate and
// the way files are read and written differ.

// acpMethods are the ACP door's own methods.
var acpMethods = map[string]method{
	"initialize":   {h: (*Server).acpInitialize},
	"authenticate": {h: (*Server).authenticate},
}

// lspOnly are LSP door methods the ACP door does not serve.
var lspOnly = map[string]bool{
	"initialized": true, "shutdown": true, "exit": true,
	"textDocument/didOpen": true, "textDocument/didChange": true, "textDocument/didClose": true, "textDocument/didSave": true,
	"textDocument/codeAction": true, "workspace/executeCommand": true, "window/workDoneProgress/cancel": true,
}

// ServeACP serves the ACP door on rwc until the stream ends or ctx is
// cancelled, and returns the process exit code.
func ServeACP(ctx context.Context, rwc io.ReadWriteCloser, opts Options) int {
	s := New(opts)
	s.acp = true
	conn := jsonrpc2.NewConn(rpc.NewNDJSONStream(rwc, s.logf))
	code := s.Run(ctx, conn)
	if code == 1 {
		// ACP has no shutdown/exit handshake: the end of the stream is a
		// normal end.
		code = 0
	}
	return code
}

// lookup returns the handler of a method on this connection's door.
func (s *Server) lookup(name string) (method, bool) {
	if s.acp {
		if m, ok := acpMethods[name]; ok {
			return m, true
		}
		if lspOnly[name] {
			return method{}, false
		}
	}
	m, ok := methods[name]
	return m, ok
}

type acpInitializeParams struct {
	ProtocolVersion    *int                      `json:"protocolVersion"`
	ClientCapabilities schema.ClientCapabilities `json:"clientCapabilities"`
	ClientInfo         *schema.Implementation    `json:"clientInfo,omitempty"`
}

type acpInitializeResult struct {
	ProtocolVersion   int                      `json:"protocolVersion"`
	AgentCapabilities schema.AgentCapabilities `json:"agentCapabilities"`
	AgentInfo         schema.Implementation    `json:"agentInfo"`
	AuthMethods       []schema.AuthMethod      `json:"authMethods"`
}

func (s *Server) acpInitialize(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p acpInitializeParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	if p.ProtocolVersion == nil {
		return nil, rpc.InvalidParams("initialize: field \"protocolVersion\" is required")
	}
	svc, err := s.opts.NewService(InitOptions{})
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "initialize: %v", err)
	}
	s.mu.Lock()
	s.svc, s.acpCaps, s.state = svc, p.ClientCapabilities, stateInitialized
	s.mu.Unlock()
	info := s.agentInfo()
	// We speak version 1: a client asking for a later one gets ours and
	// decides; an earlier one does not exist.
	return acpInitializeResult{
		ProtocolVersion:   schema.ProtocolVersion,
		AgentCapabilities: info.AgentCapabilities,
		AgentInfo:         info.AgentInfo,
		AuthMethods:       info.AuthMethods,
	}, nil
}

func (s *Server) authenticate(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p struct {
		MethodID string `json:"methodId"`
	}
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	for _, m := range authMethods {
		if m.ID != p.MethodID {
			continue
		}
		if err := s.service().CheckProvider(); err != nil {
			return nil, jsonrpc2.Errorf(codeAuthRequired, "authenticate: %s (%v)", m.Description, err)
		}
		return struct{}{}, nil
	}
	ids := make([]string, len(authMethods))
	for i, m := range authMethods {
		ids[i] = m.ID
	}
	return nil, rpc.InvalidParams("authenticate: unknown methodId %q (want one of %s)", p.MethodID, strings.Join(ids, ", "))
}

// acpClient is the editor over the ACP door: session updates and
// permission requests as on the LSP door, no status notifications (the
// engine sends notices as thought chunks), and files through fs/* when
// the client offers them.
type acpClient struct{ s *Server }

var _ engine.Client = acpClient{}

func (c acpClient) Update(ctx context.Context, sessionID string, u schema.Update) error {
	return client{c.s}.Update(ctx, sessionID, u)
}

func (c acpClient) RequestPermission(ctx context.Context, p *schema.RequestPermissionParams) (*schema.RequestPermissionResult, error) {
	return client{c.s}.RequestPermission(ctx, p)
}

// acpFS reads and writes files through the client's fs/read_text_file and
// fs/write_text_file (so the agent sees and edits the editor's buffers),
// falling back to the disk for what the client does not offer.
type acpFS struct {
	s     *Server
	read  bool
	write bool

	mu        sync.Mutex
	sessionID string // set once the session exists, guarded by mu
}

var (
	_ tools.FileSystem = (*acpFS)(nil)
	_ workspace.Editor = (*acpFS)(nil)
)

// acpIOTimeout bounds a file request to the client.
const acpIOTimeout = 30 * time.Second

func (f *acpFS) session() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sessionID
}

// ReadFile asks the client for the file's text (its buffer, unsaved
// changes included), or reads the disk.
func (f *acpFS) ReadFile(path string) ([]byte, error) {
	sid := f.session()
	if !f.read || sid == "" {
		return os.ReadFile(path)
	}
	ctx, cancel := context.WithTimeout(context.Background(), acpIOTimeout)
	defer cancel()
	var res struct {
		Content string `json:"content"`
	}
	if err := f.s.peer.Call(ctx, "fs/read_text_file", map[string]any{"sessionId": sid, "path": path}, &res); err != nil {
		// A file the client cannot read (binary, not found) is read
		// from the disk, which gives the precise error.
		if b, derr := os.ReadFile(path); derr == nil {
			return b, nil
		} else {
			return nil, fmt.Errorf("reading %s: %w", path, derr)
		}
	}
	return []byte(res.Content), nil
}

// WriteFile writes through the client when it offers fs/write_text_file.
func (f *acpFS) WriteFile(ctx context.Context, path string, before, content []byte) error {
	sid := f.session()
	if !f.write || sid == "" {
		return tools.WriteFileAtomic(path, content)
	}
	return f.ApplyEdit(ctx, workspace.FileChange{Path: path, Before: string(before), After: string(content), Create: before == nil})
}

// ApplyEdit writes a whole-file change with fs/write_text_file.
func (f *acpFS) ApplyEdit(ctx context.Context, c workspace.FileChange) error {
	ctx, cancel := context.WithTimeout(ctx, acpIOTimeout)
	defer cancel()
	if err := f.s.peer.Call(ctx, "fs/write_text_file", map[string]any{"sessionId": f.session(), "path": c.Path, "content": c.After}, nil); err != nil {
		return &workspace.EditRefusedError{Path: c.Path, Reason: err.Error()}
	}
	return nil
}

// IsOpen reports false: ACP does not tell which files are open.
func (f *acpFS) IsOpen(string) bool { return false }

// acpSessionOptions returns the options of a session on the ACP door, and
// a function to call with the session's id once it exists.
func (s *Server) acpSessionOptions(cwd string, mcp []schema.MCPServer) (engine.SessionOptions, func(id string)) {
	s.mu.Lock()
	caps := s.acpCaps
	s.mu.Unlock()
	fs := &acpFS{s: s, read: caps.FS.ReadTextFile, write: caps.FS.WriteTextFile}
	return engine.SessionOptions{Cwd: cwd, Client: acpClient{s}, Files: fs, MCPServers: mcp}, func(id string) {
		fs.mu.Lock()
		fs.sessionID = id
		fs.mu.Unlock()
	}
}
