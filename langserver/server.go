package langserver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-lsp/agent-lsp/procgroup"
)

// server is one running language server process.
type server struct {
	cfg  ServerConfig
	root string
	logf func(string, ...any)

	// ready is closed when the server has been initialized or has failed
	// to start (err says why).
	ready chan struct{}
	err   error // set before ready is closed
	// exited is closed when the process has ended.
	exited chan struct{}

	cmd       *exec.Cmd
	conn      jsonrpc2.Conn
	closeOnce sync.Once // closes conn
	caps      serverCaps

	// syncMu serializes sync, so that a document's didOpen and
	// didChanges go out in version order.
	syncMu sync.Mutex

	mu    sync.Mutex
	docs  map[string]*document   // open documents by path, guarded by mu
	pub   map[string]publication // last diagnostics by path, guarded by mu
	gen   uint64                 // counts publications, guarded by mu
	wake  chan struct{}          // closed and replaced on each publication, guarded by mu
	dead  bool                   // the process ended or was stopped, guarded by mu
	crash error                  // why it ended, when it was not stopped, guarded by mu
}

// document is an open document as last sent to the server.
type document struct {
	version int32
	text    string
	// sentGen is the publication count when this version was sent, for
	// servers that publish without versions.
	sentGen uint64
}

// publication is the diagnostics published for one document.
type publication struct {
	version    int32
	hasVersion bool
	gen        uint64
	diags      []Diagnostic
}

// serverCaps are the parts of the server's capabilities we look at.
type serverCaps struct {
	Definition     json.RawMessage `json:"definitionProvider,omitempty"`
	References     json.RawMessage `json:"referencesProvider,omitempty"`
	Hover          json.RawMessage `json:"hoverProvider,omitempty"`
	DocumentSymbol json.RawMessage `json:"documentSymbolProvider,omitempty"`
	WorkspaceSym   json.RawMessage `json:"workspaceSymbolProvider,omitempty"`
	Implementation json.RawMessage `json:"implementationProvider,omitempty"`
}

func newServer(cfg ServerConfig, root string, logf func(string, ...any)) *server {
	return &server{
		cfg:    cfg,
		root:   root,
		logf:   logf,
		ready:  make(chan struct{}),
		exited: make(chan struct{}),
		docs:   make(map[string]*document),
		pub:    make(map[string]publication),
		wake:   make(chan struct{}),
	}
}

// startTimeout bounds the start of a server: process and initialize.
const startTimeout = 60 * time.Second

// start starts the process and initializes it; it closes ready. ctx
// bounds the start (Close cancels it).
func (s *server) start(ctx context.Context) {
	defer close(s.ready)
	if err := s.launch(ctx); err != nil {
		s.err = fmt.Errorf("starting language server %s (%s): %w", s.cfg.Name, strings.Join(s.cfg.Command, " "), err)
		s.logf("%v", s.err)
		s.kill()
	}
}

func (s *server) launch(ctx context.Context) error {
	if len(s.cfg.Command) == 0 {
		return errors.New("no command")
	}
	cmd := exec.Command(s.cfg.Command[0], s.cfg.Command[1:]...)
	cmd.Dir = s.root
	cmd.Env = os.Environ()
	procgroup.Set(cmd)
	cmd.WaitDelay = 2 * time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		close(s.exited)
		return err
	}
	s.cmd = cmd
	logs := make(chan struct{})
	go func() { // owned by the process: ends when its stderr closes
		defer close(logs)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		for sc.Scan() {
			s.logf("%s: %s", s.cfg.Name, sc.Text())
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	go func() { // owned by the process: ends when it exits
		err := cmd.Wait()
		<-logs
		s.mu.Lock()
		if !s.dead {
			s.crash = fmt.Errorf("language server %s exited: %v", s.cfg.Name, err)
			s.logf("%v", s.crash)
		}
		s.dead = true
		close(s.wake)
		s.wake = make(chan struct{})
		s.mu.Unlock()
		close(s.exited)
	}()
	s.conn = jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(struct {
		io.Reader
		io.WriteCloser
	}{stdout, stdin}))
	s.conn.Go(context.WithoutCancel(ctx), s.handle)

	ictx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	root := uri.File(s.root)
	params := map[string]any{
		"processId":  os.Getpid(),
		"clientInfo": map[string]string{"name": "agent-lsp"},
		"rootUri":    root,
		"rootPath":   s.root,
		"workspaceFolders": []map[string]string{
			{"uri": string(root), "name": filepath.Base(s.root)},
		},
		"capabilities": map[string]any{
			"workspace": map[string]any{
				"configuration":    true,
				"workspaceFolders": true,
				"symbol":           map[string]any{"dynamicRegistration": false},
			},
			"textDocument": map[string]any{
				"synchronization":    map[string]any{"didSave": false, "dynamicRegistration": false},
				"publishDiagnostics": map[string]any{"versionSupport": true, "relatedInformation": false},
				"hover":              map[string]any{"contentFormat": []string{"markdown", "plaintext"}},
				"definition":         map[string]any{"linkSupport": true},
				"implementation":     map[string]any{"linkSupport": true},
				"references":         map[string]any{},
				"documentSymbol":     map[string]any{"hierarchicalDocumentSymbolSupport": true},
			},
			"window": map[string]any{"workDoneProgress": false},
		},
	}
	if s.cfg.InitializationOptions != nil {
		params["initializationOptions"] = s.cfg.InitializationOptions
	}
	var res struct {
		Capabilities serverCaps `json:"capabilities"`
	}
	if err := s.call(ictx, "initialize", params, &res); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	s.caps = res.Capabilities
	return s.conn.Notify(ictx, "initialized", map[string]any{})
}

// call makes a request, sending $/cancelRequest when ctx ends first and
// failing at once when the process ends.
func (s *server) call(ctx context.Context, method string, params, result any) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	defer close(done)
	go func() { // owned by this call: ends with it
		select {
		case <-s.exited:
			cancel()
		case <-done:
		}
	}()
	id, err := s.conn.Call(ctx, method, params, result)
	if err != nil && ctx.Err() != nil {
		select {
		case <-s.exited:
			return fmt.Errorf("language server %s exited", s.cfg.Name)
		default:
		}
		nctx, ncancel := context.WithTimeout(context.Background(), time.Second)
		_ = s.conn.Notify(nctx, "$/cancelRequest", map[string]any{"id": id})
		ncancel()
	}
	return err
}

// handle answers the server's requests and notifications. It runs on the
// read goroutine and never calls back into the connection.
func (s *server) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	switch req.Method() {
	case "textDocument/publishDiagnostics":
		var p struct {
			URI         uri.URI          `json:"uri"`
			Version     *int32           `json:"version,omitempty"`
			Diagnostics []WireDiagnostic `json:"diagnostics"`
		}
		if err := json.Unmarshal(req.Params(), &p); err != nil {
			s.logf("%s: bad publishDiagnostics: %v", s.cfg.Name, err)
			return nil, nil
		}
		s.publish(p.URI, p.Version, p.Diagnostics)
		return nil, nil
	case "workspace/configuration":
		var p struct {
			Items []json.RawMessage `json:"items"`
		}
		_ = json.Unmarshal(req.Params(), &p)
		return make([]any, len(p.Items)), nil
	case "window/workDoneProgress/create", "client/registerCapability", "client/unregisterCapability", "window/showMessageRequest", "workspace/diagnostic/refresh", "workspace/semanticTokens/refresh", "workspace/inlayHint/refresh", "workspace/codeLens/refresh":
		return nil, nil
	case "workspace/workspaceFolders":
		root := uri.File(s.root)
		return []map[string]string{{"uri": string(root), "name": filepath.Base(s.root)}}, nil
	case "workspace/applyEdit":
		return map[string]any{"applied": false, "failureReason": "agent-lsp does not apply edits from its own language servers"}, nil
	}
	if !req.IsCall() {
		return nil, nil // $/progress, window/logMessage, telemetry: ignored
	}
	return nil, fmt.Errorf("%w: %s", jsonrpc2.ErrMethodNotFound, req.Method())
}

// WireDiagnostic is a diagnostic as LSP carries it: what a server
// publishes, and what an editor answers to agent/diagnostics.
type WireDiagnostic struct {
	Range    protocol.Range  `json:"range"`
	Severity int             `json:"severity,omitempty"`
	Code     json.RawMessage `json:"code,omitempty"`
	Source   string          `json:"source,omitempty"`
	Message  string          `json:"message"`
}

// FromWire converts the wire diagnostics of the file at path, in their
// order: 1-based positions, severities by name, the code as text.
func FromWire(path string, wire []WireDiagnostic) []Diagnostic {
	diags := make([]Diagnostic, 0, len(wire))
	for _, w := range wire {
		code := strings.Trim(string(w.Code), `"`)
		if code == "null" {
			code = ""
		}
		diags = append(diags, Diagnostic{
			Path:     path,
			Line:     int(w.Range.Start.Line) + 1,
			Column:   int(w.Range.Start.Character) + 1,
			Severity: severityName(w.Severity),
			Message:  w.Message,
			Source:   w.Source,
			Code:     code,
		})
	}
	return diags
}

func (s *server) publish(u uri.URI, version *int32, wire []WireDiagnostic) {
	path := filepath.Clean(u.FsPath())
	diags := FromWire(path, wire)
	sort.SliceStable(diags, func(i, j int) bool {
		if diags[i].Line != diags[j].Line {
			return diags[i].Line < diags[j].Line
		}
		return diags[i].Column < diags[j].Column
	})
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gen++
	p := publication{gen: s.gen, diags: diags}
	if version != nil {
		p.version, p.hasVersion = *version, true
	}
	s.pub[path] = p
	close(s.wake)
	s.wake = make(chan struct{})
}

func severityName(n int) string {
	switch n {
	case 1, 0:
		return SeverityError
	case 2:
		return SeverityWarning
	case 3:
		return SeverityInfo
	}
	return SeverityHint
}

// sync sends text as the content of path: didOpen the first time,
// didChange when it differs from what the server has. It returns the
// document's version.
func (s *server) sync(ctx context.Context, path string, text []byte) (string, int32, error) {
	u := uri.File(path)
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	s.mu.Lock()
	if s.dead {
		s.mu.Unlock()
		return path, 0, s.deadErr()
	}
	d, open := s.docs[path]
	if open && d.text == string(text) {
		v := d.version
		s.mu.Unlock()
		return path, v, nil
	}
	nd := &document{version: 1, text: string(text), sentGen: s.gen}
	if open {
		nd.version = d.version + 1
	}
	s.docs[path] = nd
	s.mu.Unlock()
	var err error
	if !open {
		err = s.conn.Notify(ctx, "textDocument/didOpen", map[string]any{
			"textDocument": map[string]any{"uri": u, "languageId": languageID(path), "version": nd.version, "text": nd.text},
		})
	} else {
		err = s.conn.Notify(ctx, "textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": u, "version": nd.version},
			"contentChanges": []map[string]any{{"text": nd.text}},
		})
	}
	if err != nil {
		return path, 0, fmt.Errorf("syncing %s with %s: %w", path, s.cfg.Name, err)
	}
	return path, nd.version, nil
}

func (s *server) deadErr() error {
	if s.crash != nil {
		return s.crash
	}
	return fmt.Errorf("language server %s is stopped", s.cfg.Name)
}

// diagnostics waits until the server has published diagnostics for
// version of u, or ctx ends. ok is false when none came.
func (s *server) diagnostics(ctx context.Context, u string, version int32) (diags []Diagnostic, ok bool) {
	for {
		s.mu.Lock()
		p, have := s.pub[u]
		d := s.docs[u]
		wake, dead := s.wake, s.dead
		s.mu.Unlock()
		if have && d != nil && (p.hasVersion && p.version >= version || !p.hasVersion && p.gen > d.sentGen) {
			return p.diags, true
		}
		if dead {
			return nil, false
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return nil, false
		}
	}
}

// published returns every document's last diagnostics.
func (s *server) published() []Diagnostic {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Diagnostic
	for _, p := range s.pub {
		out = append(out, p.diags...)
	}
	return out
}

// isDead reports whether the process ended.
func (s *server) isDead() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dead
}

// stop shuts the server down politely, then kills its process group.
func (s *server) stop() { s.end(true) }

// kill ends a server that never started properly, without asking it.
func (s *server) kill() { s.end(false) }

func (s *server) end(polite bool) {
	s.mu.Lock()
	wasDead := s.dead
	s.dead = true
	s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	if polite && !wasDead && s.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		if err := s.call(ctx, "shutdown", nil, nil); err == nil {
			_ = s.conn.Notify(ctx, "exit", nil)
		}
		cancel()
		select {
		case <-s.exited:
		case <-time.After(time.Second):
		}
	}
	select {
	case <-s.exited:
	default:
		procgroup.KillCmd(s.cmd)
		<-s.exited
	}
	s.closeOnce.Do(func() {
		if s.conn != nil {
			_ = s.conn.Close()
		}
	})
}
