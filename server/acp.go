package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
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
// the session methods with the LSP door; only initialize, authenticate,
// request cancellation, the way files are read and written, where Bash
// runs (the client's terminal, when it offers one) and the projects
// sessions run in (services.go) differ.

func init() {
	acpMethods.register("initialize", (*Server).acpInitialize)
	acpMethods.register("authenticate", (*Server).authenticate)
	acpMethods.register("$/cancel_request", cancelRequestHandler("requestId"))
}

// ServeACP serves the ACP door on rwc until the stream ends or ctx is
// cancelled, and returns the process exit code: 0, since ACP has no
// shutdown handshake and the end of the stream is a normal end. Every
// session is closed (and every process it started stopped) before
// ServeACP returns.
func ServeACP(ctx context.Context, rwc io.ReadWriteCloser, opts Options) int {
	s := New(opts)
	s.door, s.acp = acpMethods, true
	s.Run(ctx, jsonrpc2.NewConn(s.countAnswers(rpc.NewNDJSONStream(s.watchInput(rwc), s.logf))))
	return 0
}

// acpInitializeParams are ACP's InitializeRequest.
type acpInitializeParams struct {
	ProtocolVersion    *int                   `json:"protocolVersion"`
	ClientCapabilities json.RawMessage        `json:"clientCapabilities"`
	ClientInfo         *schema.Implementation `json:"clientInfo,omitempty"`
}

// acpInitializeResult is ACP's InitializeResponse.
type acpInitializeResult struct {
	ProtocolVersion   int                      `json:"protocolVersion"`
	AgentCapabilities schema.AgentCapabilities `json:"agentCapabilities"`
	AgentInfo         schema.Implementation    `json:"agentInfo"`
	AuthMethods       []schema.AuthMethod      `json:"authMethods"`
	Meta              map[string]any           `json:"_meta,omitempty"`
}

func (s *Server) acpInitialize(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p acpInitializeParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	if p.ProtocolVersion == nil {
		return nil, rpc.InvalidParams("initialize: field \"protocolVersion\" is required")
	}
	caps := acpClientCapabilities(p.ClientCapabilities)
	var meta struct {
		Meta struct {
			TerminalOutput bool `json:"terminal_output"`
		} `json:"_meta"`
	}
	json.Unmarshal(p.ClientCapabilities, &meta)
	// The agent's own working directory is the project of this first
	// service; sessions elsewhere get their own (see serviceFor).
	wd, err := os.Getwd()
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "initialize: the agent's working directory: %v", err)
	}
	svc, err := s.opts.NewService(InitOptions{Roots: []string{wd}})
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "initialize: %v", err)
	}
	s.mu.Lock()
	s.svc, s.svcRoot, s.acpCaps, s.state = svc, filepath.Clean(wd), caps, stateInitialized
	s.acpShowsTerminals = meta.Meta.TerminalOutput
	s.mu.Unlock()
	if p.ClientInfo != nil {
		s.logf("ACP client %s %s (protocol version %d; fs read %v, write %v; terminal %v)",
			p.ClientInfo.Name, p.ClientInfo.Version, *p.ProtocolVersion, caps.FS.ReadTextFile, caps.FS.WriteTextFile, caps.Terminal)
	}
	info := s.agentInfo(svc)
	// We speak version 1 only: a client asking for another gets ours and
	// decides whether to go on.
	return acpInitializeResult{
		ProtocolVersion:   schema.ProtocolVersion,
		AgentCapabilities: info.AgentCapabilities,
		AgentInfo:         info.AgentInfo,
		AuthMethods:       info.AuthMethods,
		Meta:              info.Meta,
	}, nil
}

// acpClientCapabilities decodes clientCapabilities the way ACP asks: a
// field that does not parse takes its default (false) instead of failing
// initialize.
func acpClientCapabilities(raw json.RawMessage) schema.ClientCapabilities {
	var caps schema.ClientCapabilities
	if json.Unmarshal(raw, &caps) == nil {
		return caps
	}
	var parts struct {
		FS       json.RawMessage `json:"fs"`
		Terminal json.RawMessage `json:"terminal"`
	}
	json.Unmarshal(raw, &parts)
	var fs struct {
		Read  json.RawMessage `json:"readTextFile"`
		Write json.RawMessage `json:"writeTextFile"`
	}
	json.Unmarshal(parts.FS, &fs)
	json.Unmarshal(fs.Read, &caps.FS.ReadTextFile)
	json.Unmarshal(fs.Write, &caps.FS.WriteTextFile)
	json.Unmarshal(parts.Terminal, &caps.Terminal)
	return caps
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

// acpClient is the editor over the ACP door: session/update and
// session/request_permission as on the LSP door, but no status
// notifications (it is not an engine.StatusClient, so the engine sends
// notices as agent_thought_chunk).
type acpClient struct{ s *Server }

var _ engine.Client = acpClient{}

// Update sends a session/update notification.
func (c acpClient) Update(ctx context.Context, sessionID string, u schema.Update) error {
	return client(c).Update(ctx, sessionID, u)
}

// RequestPermission sends session/request_permission and waits for the
// user's answer. When ctx ends first, the request is cancelled with
// $/cancel_request.
func (c acpClient) RequestPermission(ctx context.Context, p *schema.RequestPermissionParams) (*schema.RequestPermissionResult, error) {
	return client(c).RequestPermission(ctx, p)
}

// acpFS is the file system of a session on the ACP door. When the client
// offers fs/read_text_file, files are read through it (so the agent sees
// the editor's buffers, unsaved text included); when it offers
// fs/write_text_file, writes go through it. Without those capabilities it
// is the disk. The client decides: a file it refuses to read or write is
// never read or written on the disk instead. Only a client that turns out
// not to serve the method at all (-32601) is treated as one without the
// capability.
type acpFS struct {
	s     *Server
	read  bool // the client offers fs/read_text_file
	write bool // the client offers fs/write_text_file
	ref   *sessionRef
	// noRead and noWrite are set when the client answered -32601 to the
	// method it offered: the disk serves from then on.
	noRead, noWrite atomic.Bool
}

// sessionRef is the id of a session on the ACP door, known once the
// session exists; requests to the client carry it.
type sessionRef struct {
	mu sync.Mutex
	id string // guarded by mu
}

func (r *sessionRef) set(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.id = id
}

func (r *sessionRef) get() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.id
}

var (
	_ tools.FileSystem = (*acpFS)(nil)
	_ workspace.Editor = (*acpFS)(nil)
)

// acpIOTimeout bounds a file request to the client.
const acpIOTimeout = 30 * time.Second

func (f *acpFS) session() string { return f.ref.get() }

// diskOnly are the kinds of files read from the disk even when the client
// reads text files: fs/read_text_file carries text, and Read returns these
// as images.
var diskOnly = map[string]bool{".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".webp": true}

// ReadFile returns the client's text of path. A file missing from the
// disk, or a directory, is reported without asking the client (each
// question shows as an error in some clients, and Write asks whether the
// file it creates exists). A client error is the answer: it is returned
// with the client's message, and the disk is not read behind its back.
func (f *acpFS) ReadFile(path string) ([]byte, error) {
	sid := f.session()
	if !f.read || f.noRead.Load() || sid == "" || diskOnly[strings.ToLower(filepath.Ext(path))] {
		return tools.DiskFS{}.ReadFile(path)
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, err
	case err == nil && fi.IsDir():
		return nil, &os.PathError{Op: "read", Path: path, Err: syscall.EISDIR}
	}
	ctx, cancel := context.WithTimeout(context.Background(), acpIOTimeout)
	defer cancel()
	var res struct {
		Content string `json:"content"`
	}
	if err := f.s.peer.Call(ctx, "fs/read_text_file", map[string]any{"sessionId": sid, "path": path}, &res); err != nil {
		if errors.Is(err, jsonrpc2.ErrMethodNotFound) {
			f.noRead.Store(true)
			f.s.logf("the client offers fs/read_text_file but does not serve it; files are read from the disk")
			return tools.DiskFS{}.ReadFile(path)
		}
		return nil, newClientError("fs/read_text_file", err)
	}
	return []byte(res.Content), nil
}

// WriteFile writes through the client when it offers fs/write_text_file,
// else the disk.
func (f *acpFS) WriteFile(ctx context.Context, path string, before, content []byte) error {
	if !f.write || f.noWrite.Load() || f.session() == "" {
		return tools.WriteFileAtomic(path, content)
	}
	return f.ApplyEdit(ctx, workspace.FileChange{Path: path, Before: string(before), After: string(content), Create: before == nil})
}

// ApplyEdit writes a whole-file change with fs/write_text_file. A client
// error is a refusal: the tool call fails and the model is told the
// client's reason; the disk is not written instead.
func (f *acpFS) ApplyEdit(ctx context.Context, c workspace.FileChange) error {
	ctx, cancel := context.WithTimeout(ctx, acpIOTimeout)
	defer cancel()
	if err := f.s.peer.Call(ctx, "fs/write_text_file", map[string]any{"sessionId": f.session(), "path": c.Path, "content": c.After}, nil); err != nil {
		if errors.Is(err, jsonrpc2.ErrMethodNotFound) {
			f.noWrite.Store(true)
			f.s.logf("the client offers fs/write_text_file but does not serve it; files are written to the disk")
			return tools.WriteFileAtomic(c.Path, []byte(c.After))
		}
		return &workspace.EditRefusedError{Path: c.Path, Reason: rpcErrorText(err)}
	}
	return nil
}

// IsOpen reports false: ACP does not say which files the editor has open.
func (f *acpFS) IsOpen(string) bool { return false }

// acpSessionOptions returns the options of a session on the ACP door, and
// a function to call with the session's id once it is known.
func (s *Server) acpSessionOptions(cwd string, mcp []schema.MCPServer) (engine.SessionOptions, func(id string)) {
	s.mu.Lock()
	caps, shows := s.acpCaps, s.acpShowsTerminals
	s.mu.Unlock()
	ref := &sessionRef{}
	opts := engine.SessionOptions{Cwd: cwd, Client: acpClient{s}, MCPServers: mcp}
	opts.Files = &acpFS{s: s, read: caps.FS.ReadTextFile, write: caps.FS.WriteTextFile, ref: ref}
	if caps.Terminal {
		opts.Terminal = &acpTerminal{s: s, ref: ref, shows: shows}
	}
	return opts, ref.set
}
