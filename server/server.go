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
)

// Options configure a connection.
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
	// interruptWait to answer, and then Serve or ServeACP returns.
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

// core is what every door of one editor connection shares: the
// connection itself (dispatch.go orders its messages), its lifecycle
// state, the requests in flight and the session services. A door
// (lspDoor, acpDoor) builds one with its own method table, error codes
// and cancel notice, and serves its methods over it.
type core struct {
	opts  Options
	logf  func(string, ...any)
	peer  rpc.Peer
	codes errorCodes
	// methods is the door's method table, built by its constructor.
	methods methodTable
	// cancelNotice is the notification that cancels a call to the
	// editor that the agent abandons (nil: LSP's $/cancelRequest).
	cancelNotice func(id any) (string, any)
	// nudge, if set, writes something harmless while a call to the
	// editor waits for its answer (rpc.Peer.Nudge).
	nudge func(ctx context.Context)
	// atClose runs once run has stopped serving, before it returns (the
	// plain door waits for its turns there).
	atClose func()

	services serviceSet

	mu       sync.Mutex
	state    state // guarded by mu
	exitCode int   // guarded by mu
	exited   chan struct{}
	// inputEnded is closed when the editor's stream ends (nil when run
	// was handed a connection without watchInput); releaseInput then lets
	// jsonrpc2 see that end.
	inputEnded   <-chan struct{}
	releaseInput func()

	closing chan struct{}  // closed when run ends
	bg      sync.WaitGroup // goroutines run waits for

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

// state is a connection's lifecycle state.
type state int

const (
	stateNew state = iota
	stateInitialized
	stateShutdown
)

func (s state) String() string {
	switch s {
	case stateNew:
		return "new"
	case stateInitialized:
		return "initialized"
	case stateShutdown:
		return "shut down"
	}
	return "unknown"
}

// errorCodes are the codes a door answers with where LSP and ACP give
// the same number different meanings.
type errorCodes struct {
	// notInitialized answers a request before initialize.
	notInitialized jsonrpc2.Code
	// unknownSessionNotFound answers a request naming an unknown session
	// with ACP's -32002 "resource not found" (data.sessionId) instead of
	// invalid params.
	unknownSessionNotFound bool
}

// inputWatch closes ended when a read of the editor's stream fails: the
// editor closed its end or went away. jsonrpc2's Done waits for the
// requests in flight, which a running prompt may never finish on its own.
// The failure itself reaches jsonrpc2 only once hold is closed (by
// releaseInput, or Close): jsonrpc2 writes nothing after its reader has
// seen it, and the requests in flight get to answer first (core.drain).
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

// watchInput makes run stop serving when rwc's input ends, even with
// requests in flight, once they have answered.
func (c *core) watchInput(rwc io.ReadWriteCloser) io.ReadWriteCloser {
	w := &inputWatch{ReadWriteCloser: rwc, ended: make(chan struct{}), hold: make(chan struct{})}
	c.inputEnded, c.releaseInput = w.ended, w.releaseInput
	return w
}

// newCore returns the core of a connection; the door sets its methods.
func newCore(opts Options, codes errorCodes) *core {
	logf := opts.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	if opts.TranscriptDir == "" {
		opts.TranscriptDir = filepath.Join(os.TempDir(), "agent-lsp-transcripts")
	}
	return &core{
		opts:     opts,
		logf:     logf,
		codes:    codes,
		services: serviceSet{build: opts.NewService},
		exitCode: 1,
		exited:   make(chan struct{}),
		closing:  make(chan struct{}),
		calls:    make(map[jsonrpc2.ID]context.CancelFunc),
		dispatch: newDispatcher(),
	}
}

// serveStream serves the door's methods on rwc, framed by frame, until exit,
// the end of the stream or ctx's end, and returns the exit code.
func (c *core) serveStream(ctx context.Context, rwc io.ReadWriteCloser, frame func(io.ReadWriteCloser, func(string, ...any)) jsonrpc2.Stream) int {
	return c.run(ctx, jsonrpc2.NewConn(c.countAnswers(frame(c.watchInput(rwc), c.logf))))
}

// run serves conn until exit, the end of the stream or ctx's end.
func (c *core) run(ctx context.Context, conn jsonrpc2.Conn) int {
	c.peer = rpc.Peer{Conn: conn, CancelNotice: c.cancelNotice, Nudge: c.nudge}
	c.bg.Add(1)
	go func() {
		defer c.bg.Done()
		c.dispatch.run(c.closing, c.serveNotification)
	}()
	conn.Go(ctx, c.handle)
	// leaving is set when the process is about to end (exit, an
	// interrupt): nothing is left to read, so run does not wait for the
	// reader, which may sit in a read of stdin that nothing interrupts.
	leaving := false
	select {
	case <-conn.Done():
		if err := conn.Err(); err != nil && !errors.Is(err, io.EOF) {
			c.logf("connection ended: %v", err)
		}
	case <-c.inputEnded:
		c.drain(closeWait)
	case <-c.exited:
		leaving = true
	case <-c.opts.Interrupt:
		c.logf("interrupted: cancelling the requests in flight")
		c.cancelCalls()
		c.drain(interruptWait)
		leaving = true
	case <-ctx.Done():
	}
	if c.releaseInput != nil {
		c.releaseInput()
	}
	close(c.closing)
	c.bg.Wait()
	c.mu.Lock()
	if c.state == stateShutdown {
		// The end of the stream after shutdown is a clean exit.
		c.exitCode = 0
	}
	c.mu.Unlock()
	c.closeServices()
	if c.atClose != nil {
		c.atClose()
	}
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
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.exitCode
	}
	select {
	case <-closed:
	case <-time.After(closeWait):
		c.logf("connection did not close within %s; exiting anyway", closeWait)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.exitCode
}

// closeWait bounds how long run waits for the connection to close.
const closeWait = 500 * time.Millisecond

// interruptWait bounds how long an interrupt waits for the cancelled
// requests to answer: a cancelled Bash command is stopped (in the
// editor's terminal, with requests bounded at 10 s) first.
const interruptWait = 15 * time.Second

// handler handles one method. Notification handlers' errors are logged,
// never returned to jsonrpc2 (which would end the connection). A handler
// may call the editor and wait for its answer: none runs on jsonrpc2's
// read loop (dispatch.go).
type handler func(ctx context.Context, req *jsonrpc2.Request) (any, error)

// methodTable maps a door's method names to its handlers. Each door
// builds its own in its constructor (lspDoor, acpDoor), with the session
// methods they share (sessions.go). Every method, whatever it does, is
// dispatched as dispatch.go describes.
type methodTable map[string]handler

// Error codes beyond JSON-RPC's.
const (
	codeServerNotInitialized jsonrpc2.Code = -32002
	// codeAuthRequired is ACP's "authentication required".
	codeAuthRequired jsonrpc2.Code = -32000
	// codeRequestFailed is LSP's RequestFailed: valid request, failed.
	codeRequestFailed jsonrpc2.Code = -32803
)

// checkState refuses requests the connection is not ready for.
func (c *core) checkState(method string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case method == "exit":
		return nil
	case c.state == stateNew && method != "initialize":
		return jsonrpc2.Errorf(c.codes.notInitialized, "%s before initialize: send initialize first", method)
	case c.state != stateNew && method == "initialize":
		return jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "initialize was already received")
	case c.state == stateShutdown:
		return jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%s after shutdown", method)
	}
	return nil
}

// initialized records the service initialize built, for the project
// root, and moves the connection to the initialized state.
func (c *core) initialized(svc *engine.Service, root string) {
	c.services.setMain(svc, root)
	c.mu.Lock()
	c.state = stateInitialized
	c.mu.Unlock()
}

// service returns the service initialize built.
func (c *core) service() *engine.Service { return c.services.main() }

// closeServices moves the connection to the shut down state and closes
// every session service.
func (c *core) closeServices() {
	c.mu.Lock()
	c.state = stateShutdown
	c.mu.Unlock()
	c.services.close()
}

// exit ends the connection: Serve returns 0 after shutdown, 1 otherwise.
func (c *core) exit(context.Context, *jsonrpc2.Request) (any, error) {
	c.mu.Lock()
	if c.state == stateShutdown {
		c.exitCode = 0
	}
	c.mu.Unlock()
	select {
	case <-c.exited:
	default:
		close(c.exited)
	}
	return nil, nil
}

// decode decodes a request's params, naming the bad field on error.
func decode(req *jsonrpc2.Request, v any) error {
	return rpc.Decode(req.Method(), req.Params(), v)
}

// failed wraps an engine error as a request failure.
func failed(format string, args ...any) error {
	return jsonrpc2.Errorf(codeRequestFailed, format, args...)
}

// cancelRequest returns the handler of a request cancellation
// notification whose params name the request in field: LSP's
// $/cancelRequest {id}, ACP's $/cancel_request {requestId}.
func (c *core) cancelRequest(field string) handler {
	return func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		var p map[string]json.RawMessage
		if err := decode(req, &p); err != nil {
			return nil, err
		}
		if id, ok := rpc.ParseID(p[field]); ok {
			c.cancelCall(id)
		}
		return nil, nil
	}
}

// cancelCalls cancels every running request.
func (c *core) cancelCalls() {
	c.callsMu.Lock()
	defer c.callsMu.Unlock()
	for _, cancel := range c.calls {
		cancel()
	}
}

// cancelCall cancels the running request with id, if any.
func (c *core) cancelCall(id jsonrpc2.ID) {
	c.callsMu.Lock()
	cancel := c.calls[id]
	c.callsMu.Unlock()
	if cancel != nil {
		cancel()
	}
}
