package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/agent-lsp/agent-lsp/engine"
	"github.com/agent-lsp/agent-lsp/rpc"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/workspace"
)

// Options configure a Server.
type Options struct {
	// NewService builds the session service once the editor's
	// initialization options are known.
	NewService func(init InitOptions) (*engine.Service, error)
	// Version is reported in serverInfo.
	Version string
	// Logf logs to stderr.
	Logf func(format string, args ...any)
	// TranscriptDir holds the markdown transcripts of the plain-LSP
	// door's sessions (default: a temporary directory).
	TranscriptDir string
	// Interrupt, when it receives or is closed, ends the connection the
	// way SIGINT should on the ACP door: the requests in flight are
	// cancelled (a prompt answers stopReason "cancelled"), get up to
	// interruptWait to answer, and then Run returns.
	Interrupt <-chan struct{}
}

// InitOptions are the initializationOptions of initialize that the
// sidecar understands. Raw holds all of them for the settings layer.
type InitOptions struct {
	Model    string          `json:"model,omitempty"`
	Provider string          `json:"provider,omitempty"`
	BaseURL  string          `json:"baseURL,omitempty"`
	MaxTurns int             `json:"maxTurns,omitempty"`
	Raw      json.RawMessage `json:"-"`
	// Roots are the workspace folders of initialize.
	Roots []string `json:"-"`
}

// Server serves one editor connection.
type Server struct {
	opts Options
	logf func(string, ...any)
	peer rpc.Peer

	overlay *workspace.Overlay
	plain   plainDoor
	// door is the table of this connection's own methods (lspMethods or
	// acpMethods); the session methods are shared.
	door methodTable
	// acp is set on the ACP door's connections.
	acp bool

	mu       sync.Mutex
	state    state                      // guarded by mu
	svc      *engine.Service            // set by initialize, guarded by mu
	svcRoot  string                     // the project of svc on the ACP door, guarded by mu
	projects map[string]*projectService // ACP door: the services of other session cwds, guarded by mu
	roots    []string                   // workspace folders, guarded by mu
	caps     clientCapabilities         // guarded by mu
	// diagVersions is, per file, the document's version when the editor
	// last reported its diagnostics before an edit (agent/diagnostics);
	// guarded by mu.
	diagVersions map[string]int32
	acpCaps      schema.ClientCapabilities // ACP door, guarded by mu
	// acpShowsTerminals is set when the ACP client renders embedded
	// terminals (clientCapabilities._meta.terminal_output); guarded by mu.
	acpShowsTerminals bool
	exitCode          int // guarded by mu
	exited            chan struct{}
	// inputEnded is closed when the editor's stream ends (nil when Run
	// was handed a connection without watchInput); releaseInput then lets
	// jsonrpc2 see that end.
	inputEnded   <-chan struct{}
	releaseInput func()

	closing chan struct{}  // closed when Run ends
	bg      sync.WaitGroup // goroutines Run waits for

	dispatch *dispatcher // orders the messages (dispatch.go)
	prompts  promptOrder // hands each session its prompts in order (promptorder.go)

	callsMu  sync.Mutex
	calls    map[jsonrpc2.ID]context.CancelFunc // running requests by id, guarded by callsMu
	received int                                // requests received, guarded by callsMu
	answered int                                // responses written, guarded by callsMu
	// answerHooks run once the response to a request is written, by
	// request id; guarded by callsMu.
	answerHooks map[jsonrpc2.ID]func()
}

type state int

const (
	stateNew state = iota
	stateInitialized
	stateShutdown
)

// Serve serves the LSP door on rwc until the editor sends exit, the stream
// ends or ctx is cancelled. It returns the process exit code LSP asks for:
// 0 after shutdown then exit, 1 otherwise. Every session is closed (and
// every process it started stopped) before Serve returns.
func Serve(ctx context.Context, rwc io.ReadWriteCloser, opts Options) int {
	s := New(opts)
	conn := jsonrpc2.NewConn(s.countAnswers(rpc.NewHeaderStream(s.watchInput(rwc), s.logf)))
	return s.Run(ctx, conn)
}

// inputWatch closes ended when a read of the editor's stream fails: the
// editor closed its end or went away. jsonrpc2's Done waits for the
// requests in flight, which a running prompt may never finish on its own.
// The failure itself reaches jsonrpc2 only once hold is closed (by
// releaseInput, or Close): jsonrpc2 writes nothing after its reader has
// seen it, and the requests in flight get to answer first (Server.drain).
type inputWatch struct {
	io.ReadWriteCloser
	once    sync.Once
	ended   chan struct{}
	release sync.Once
	hold    chan struct{}
	err     error // the read failure, kept for after hold; only the reader touches it
}

func (w *inputWatch) Read(p []byte) (int, error) {
	if w.err != nil {
		<-w.hold
		return 0, w.err
	}
	n, err := w.ReadWriteCloser.Read(p)
	if err != nil {
		w.err = err
		w.once.Do(func() { close(w.ended) })
		if n > 0 {
			return n, nil
		}
		<-w.hold
	}
	return n, err
}

// releaseInput lets jsonrpc2's reader see the end of the input.
func (w *inputWatch) releaseInput() { w.release.Do(func() { close(w.hold) }) }

// Close releases the reader and closes the stream.
func (w *inputWatch) Close() error {
	w.releaseInput()
	return w.ReadWriteCloser.Close()
}

// watchInput makes Run stop serving when rwc's input ends, even with
// requests in flight, once they have answered.
func (s *Server) watchInput(rwc io.ReadWriteCloser) io.ReadWriteCloser {
	w := &inputWatch{ReadWriteCloser: rwc, ended: make(chan struct{}), hold: make(chan struct{})}
	s.inputEnded, s.releaseInput = w.ended, w.releaseInput
	return w
}

// New returns a Server.
func New(opts Options) *Server {
	logf := opts.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	if opts.TranscriptDir == "" {
		opts.TranscriptDir = filepath.Join(os.TempDir(), "agent-lsp-transcripts")
	}
	s := &Server{
		opts:     opts,
		logf:     logf,
		door:     lspMethods,
		overlay:  workspace.NewOverlay(),
		exitCode: 1,
		exited:   make(chan struct{}),
		closing:  make(chan struct{}),
		calls:    make(map[jsonrpc2.ID]context.CancelFunc),
		dispatch: newDispatcher(),
	}
	s.plain.idle = sync.NewCond(&s.plain.mu)
	return s
}

// Run serves conn until exit, the end of the stream or ctx's end.
func (s *Server) Run(ctx context.Context, conn jsonrpc2.Conn) int {
	s.peer = rpc.Peer{Conn: conn}
	if s.acp {
		s.peer.CancelNotice = rpc.ACPCancelNotice
	} else {
		s.peer.Nudge = s.nudge
	}
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		s.dispatch.run(s.closing, s.serveNotification)
	}()
	conn.Go(ctx, s.handle)
	// leaving is set when the process is about to end (exit, an
	// interrupt): nothing is left to read, so Run does not wait for the
	// reader, which may sit in a read of stdin that nothing interrupts.
	leaving := false
	select {
	case <-conn.Done():
		if err := conn.Err(); err != nil && !errors.Is(err, io.EOF) {
			s.logf("connection ended: %v", err)
		}
	case <-s.inputEnded:
		s.drain(closeWait)
	case <-s.exited:
		leaving = true
	case <-s.opts.Interrupt:
		s.logf("interrupted: cancelling the requests in flight")
		s.cancelCalls()
		s.drain(interruptWait)
		leaving = true
	case <-ctx.Done():
	}
	if s.releaseInput != nil {
		s.releaseInput()
	}
	close(s.closing)
	s.bg.Wait()
	s.mu.Lock()
	if s.state == stateShutdown {
		// The end of the stream after shutdown is a clean exit.
		s.exitCode = 0
	}
	s.mu.Unlock()
	s.closeServices()
	s.plain.turns.Wait()
	// Closing the connection waits for its reader, which may sit in a
	// read of stdin that nothing can interrupt: do not let that keep the
	// process from exiting after exit or a signal.
	closed := make(chan struct{})
	go func() {
		conn.Close()
		close(closed)
	}()
	if leaving {
		// The process ends now; the close finishes or dies with it.
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.exitCode
	}
	select {
	case <-closed:
	case <-time.After(closeWait):
		s.logf("connection did not close within %s; exiting anyway", closeWait)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.exitCode
}

// closeWait bounds how long Run waits for the connection to close.
const closeWait = 500 * time.Millisecond

// interruptWait bounds how long an interrupt waits for the cancelled
// requests to answer: a cancelled Bash command is stopped (in the
// editor's terminal, with requests bounded at 10 s) first.
const interruptWait = 15 * time.Second

// handler handles one method. Notification handlers' errors are logged,
// never returned to jsonrpc2 (which would end the connection). A handler
// may call the editor and wait for its answer: none runs on jsonrpc2's
// read loop (dispatch.go).
type handler func(s *Server, ctx context.Context, req *jsonrpc2.Request) (any, error)

// methodTable maps method names to handlers; see the files per group.
// Every method, whatever it does, is dispatched as dispatch.go describes.
type methodTable map[string]handler

func (t methodTable) register(name string, h handler) { t[name] = h }

// Each door serves a table of its own and the session methods they share.
var (
	// sessionMethods are the session/* methods of both doors (sessions.go).
	sessionMethods = methodTable{}
	// lspMethods are the LSP door's own: lifecycle (lifecycle.go),
	// document sync (textsync.go), the plain-LSP features (plain.go) and
	// $/cancelRequest.
	lspMethods = methodTable{}
	// acpMethods are the ACP door's own: initialize, authenticate and
	// $/cancel_request (acp.go).
	acpMethods = methodTable{}
)

// lookup returns the handler of a method on this connection's door.
func (s *Server) lookup(name string) (handler, bool) {
	if m, ok := s.door[name]; ok {
		return m, true
	}
	m, ok := sessionMethods[name]
	return m, ok
}

// Error codes beyond JSON-RPC's.
const (
	codeServerNotInitialized jsonrpc2.Code = -32002
	// codeAuthRequired is ACP's "authentication required".
	codeAuthRequired jsonrpc2.Code = -32000
	// codeRequestFailed is LSP's RequestFailed: valid request, failed.
	codeRequestFailed jsonrpc2.Code = -32803
)

// checkState refuses requests the server is not ready for.
func (s *Server) checkState(method string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case method == "exit":
		return nil
	case s.state == stateNew && method != "initialize":
		code := codeServerNotInitialized
		if s.acp {
			code = jsonrpc2.InvalidRequest // ACP's -32002 means "resource not found"
		}
		return jsonrpc2.Errorf(code, "%s before initialize: send initialize first", method)
	case s.state != stateNew && method == "initialize":
		return jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "initialize was already received")
	case s.state == stateShutdown:
		return jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%s after shutdown", method)
	}
	return nil
}

func (s *Server) service() *engine.Service {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.svc
}

// decode decodes a request's params, naming the bad field on error.
func decode(req *jsonrpc2.Request, v any) error {
	return rpc.Decode(req.Method(), req.Params(), v)
}

// failed wraps an engine error as a request failure.
func failed(format string, args ...any) error {
	return jsonrpc2.Errorf(codeRequestFailed, format, args...)
}

func init() {
	lspMethods.register("$/cancelRequest", cancelRequestHandler("id"))
}

// cancelRequestHandler returns the handler of a request cancellation
// notification whose params name the request in field: LSP's
// $/cancelRequest {id}, ACP's $/cancel_request {requestId}.
func cancelRequestHandler(field string) handler {
	return func(s *Server, ctx context.Context, req *jsonrpc2.Request) (any, error) {
		var p map[string]json.RawMessage
		if err := decode(req, &p); err != nil {
			return nil, err
		}
		if id, ok := rpc.ParseID(p[field]); ok {
			s.cancelCall(id)
		}
		return nil, nil
	}
}

// cancelCalls cancels every running request.
func (s *Server) cancelCalls() {
	s.callsMu.Lock()
	defer s.callsMu.Unlock()
	for _, cancel := range s.calls {
		cancel()
	}
}

// cancelCall cancels the running request with id, if any.
func (s *Server) cancelCall(id jsonrpc2.ID) {
	s.callsMu.Lock()
	cancel := s.calls[id]
	s.callsMu.Unlock()
	if cancel != nil {
		cancel()
	}
}
