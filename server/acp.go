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
	"github.com/agent-lsp/agent-lsp/pathres"
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

// acpDoor is the ACP door of one connection.
type acpDoor struct {
	c *core

	mu   sync.Mutex                // guards the fields below
	caps schema.ClientCapabilities // what the client announced
	// showsTerminals is set when the client renders embedded terminals
	// (clientCapabilities._meta.terminal_output).
	showsTerminals bool
}

// ServeACP serves the ACP door on rwc until the stream ends or ctx is
// cancelled, and returns the process exit code: 0, since ACP has no
// shutdown handshake and the end of the stream is a normal end. Every
// session is closed (and every process it started stopped) before
// ServeACP returns.
func ServeACP(ctx context.Context, rwc io.ReadWriteCloser, opts Options) int {
	newACPDoor(opts).c.serveStream(ctx, rwc, rpc.NewNDJSONStream)
	return 0
}

// newACPDoor returns the ACP door of a connection, with its method table:
// initialize, authenticate, $/cancel_request and the session methods
// (sessions.go). ACP's -32002 is "resource not found": a request before
// initialize is an invalid request, and a request naming an unknown
// session gets -32002.
func newACPDoor(opts Options) *acpDoor {
	c := newCore(opts, errorCodes{notInitialized: jsonrpc2.InvalidRequest, unknownSessionNotFound: true})
	c.cancelNotice = rpc.ACPCancelNotice
	d := &acpDoor{c: c}
	c.methods = methodTable{
		"initialize":                d.initialize,
		"authenticate":              d.authenticate,
		"$/cancel_request":          c.cancelRequest("requestId"),
		schema.MethodAgentThumbnail: thumbnailOf,
	}
	sessionMethods{c: c, door: d}.addTo(c.methods)
	return d
}

// acpInitializeParams are ACP's InitializeRequest.
type acpInitializeParams struct {
	ProtocolVersion    *int                   `json:"protocolVersion"`
	ClientCapabilities json.RawMessage        `json:"clientCapabilities"`
	ClientInfo         *schema.Implementation `json:"clientInfo,omitempty"`
}

func (d *acpDoor) initialize(ctx context.Context, req *jsonrpc2.Request) (any, error) {
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
	svc, err := d.c.opts.NewService(InitOptions{Roots: []string{wd}})
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "initialize: %v", err)
	}
	d.mu.Lock()
	d.caps, d.showsTerminals = caps, meta.Meta.TerminalOutput
	d.mu.Unlock()
	d.c.initialized(svc, filepath.Clean(wd))
	if p.ClientInfo != nil {
		d.c.logf("ACP client %s %s (protocol version %d; fs read %v, write %v; terminal %v)",
			p.ClientInfo.Name, p.ClientInfo.Version, *p.ProtocolVersion, caps.FS.ReadTextFile, caps.FS.WriteTextFile, caps.Terminal)
	}
	res := agentDescription(d.c.opts.Version)
	res.Meta = svc.Meta()
	return res, nil
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
		FS          json.RawMessage `json:"fs"`
		Terminal    json.RawMessage `json:"terminal"`
		Elicitation json.RawMessage `json:"elicitation"`
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
	json.Unmarshal(parts.Elicitation, &caps.Elicitation)
	return caps
}

func (d *acpDoor) authenticate(ctx context.Context, req *jsonrpc2.Request) (any, error) {
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
		if err := d.c.service().CheckProvider(); err != nil {
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

// acpFS is the file system of a session on the ACP door. When the client
// offers fs/read_text_file, files are read through it (so the agent sees
// the editor's buffers, unsaved text included); when it offers
// fs/write_text_file, writes go through it. Without those capabilities it
// is the disk. The client decides: a file it refuses to read or write is
// never read or written on the disk instead. Only a client that turns out
// not to serve the method at all (-32601) is treated as one without the
// capability.
type acpFS struct {
	c     *core
	read  bool // the client offers fs/read_text_file
	write bool // the client offers fs/write_text_file
	ref   *sessionRef
	// noRead and noWrite are set when the client answered -32601 to the
	// method it offered: the disk serves from then on.
	noRead, noWrite atomic.Bool

	mu      sync.Mutex
	refused map[string]error // files the client refused to serve, guarded by mu
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
	_ tools.DiskReader = (*acpFS)(nil)
	_ tools.Refuser    = (*acpFS)(nil)
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
	if err := f.refusal(path); err != nil {
		return nil, err
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, err
	case err == nil && fi.IsDir():
		return nil, &os.PathError{Op: "read", Path: path, Err: syscall.EISDIR}
	case err == nil && !fi.Mode().IsRegular():
		return nil, &pathres.NotRegularError{Path: path, Mode: fi.Mode()}
	case err == nil && fi.Size() > tools.MaxFileBytes:
		return nil, &pathres.TooLargeError{Path: path, Size: fi.Size(), Max: tools.MaxFileBytes}
	}
	ctx, cancel := context.WithTimeout(context.Background(), acpIOTimeout)
	defer cancel()
	var res struct {
		Content string `json:"content"`
	}
	if err := f.c.peer.Call(ctx, "fs/read_text_file", map[string]any{"sessionId": sid, "path": path}, &res); err != nil {
		if errors.Is(err, jsonrpc2.ErrMethodNotFound) {
			f.noRead.Store(true)
			f.c.logf("the client offers fs/read_text_file but does not serve it; files are read from the disk")
			return tools.DiskFS{}.ReadFile(path)
		}
		cerr := newClientError("fs/read_text_file", err)
		f.refuse(path, cerr)
		return nil, cerr
	}
	return []byte(res.Content), nil
}

// refuse records that the client refused to serve path: the refusal
// holds for the rest of the session, for every tool.
func (f *acpFS) refuse(path string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.refused == nil {
		f.refused = make(map[string]error)
	}
	f.refused[path] = err
}

// refusal returns the client's refusal of path, or nil.
func (f *acpFS) refusal(path string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.refused[path]
}

// Refused reports whether the client refused to serve path in this
// session: the tools that read the disk themselves (Grep, the language
// servers' answers) leave it out.
func (f *acpFS) Refused(path string) bool { return f.refusal(path) != nil }

// ReadsDisk reports whether the text of path is the disk's: the client
// does not serve files, or not this kind.
func (f *acpFS) ReadsDisk(path string) bool {
	return !f.read || f.noRead.Load() || f.session() == "" || diskOnly[strings.ToLower(filepath.Ext(path))]
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
	if err := f.c.peer.Call(ctx, "fs/write_text_file", map[string]any{"sessionId": f.session(), "path": c.Path, "content": c.After}, nil); err != nil {
		if errors.Is(err, jsonrpc2.ErrMethodNotFound) {
			f.noWrite.Store(true)
			f.c.logf("the client offers fs/write_text_file but does not serve it; files are written to the disk")
			return tools.WriteFileAtomic(c.Path, []byte(c.After))
		}
		return &workspace.EditRefusedError{Path: c.Path, Reason: rpcErrorText(err)}
	}
	return nil
}

// IsOpen reports false: ACP does not say which files the editor has open.
func (f *acpFS) IsOpen(string) bool { return false }

// serviceFor returns the service of cwd's project (services.go).
func (d *acpDoor) serviceFor(cwd string) (*engine.Service, error) {
	return d.c.services.forProject(cwd)
}

// sessionOptions returns the options of a session on the ACP door: files
// through the client's fs methods and commands in its terminal, when it
// offers them.
func (d *acpDoor) sessionOptions(cwd string, mcp []schema.MCPServer) (engine.SessionOptions, func(id string)) {
	d.mu.Lock()
	caps, shows := d.caps, d.showsTerminals
	d.mu.Unlock()
	ref := &sessionRef{}
	opts := engine.SessionOptions{Cwd: cwd, Client: acpSessionClient(d.c, caps), MCPServers: mcp}
	opts.Files = &acpFS{c: d.c, read: caps.FS.ReadTextFile, write: caps.FS.WriteTextFile, ref: ref}
	if caps.Terminal {
		opts.Terminal = &acpTerminal{c: d.c, ref: ref, shows: shows}
	}
	return opts, ref.set
}
