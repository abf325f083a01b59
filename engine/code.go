package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"time"

	"github.com/agent-lsp/agent-lsp/langserver"
	"github.com/agent-lsp/agent-lsp/settings"
	"github.com/agent-lsp/agent-lsp/tools"
)

// defaultDiagnosticsWait bounds the wait for a language server's
// diagnostics after an edit, unless settings say otherwise
// (lsp.diagnosticsTimeoutMs).
const defaultDiagnosticsWait = 1500 * time.Millisecond

// EditorDiagnostics is implemented by clients whose editor can report
// its own diagnostics (its language servers' ones) for a file: the
// session then asks the editor instead of starting a server of its own
// for the files the editor covers.
type EditorDiagnostics interface {
	// OffersDiagnostics reports whether the editor announced the
	// capability at all.
	OffersDiagnostics() bool
	// CoversDiagnostics reports whether the editor can report on path.
	CoversDiagnostics(path string) bool
	// Diagnostics returns the editor's diagnostics of path. When changed
	// is set, the file was just changed and the editor waits (at most
	// wait) for its language servers to report on the new text.
	Diagnostics(ctx context.Context, path string, changed bool, wait time.Duration) ([]tools.Diagnostic, error)
}

// langServers returns the service's language servers, made on first use
// from the settings (or PATH when nothing is configured), and made anew
// when the settings' lsp block changes (the old ones shut down in the
// background); nil when they are turned off, none is found, or the
// project folder is not trusted.
func (s *Service) langServers() *langserver.Manager {
	st, _ := s.settings()
	var conf settings.LSP
	if st != nil {
		conf = st.LSP
	}
	s.lspMu.Lock()
	defer s.lspMu.Unlock()
	if s.lspClosed {
		return nil
	}
	if st != nil && st.ProjectRestricted {
		// Until the folder is trusted, start no language server, not
		// even one found on PATH: they run the project's code
		// (rust-analyzer's cargo check runs build.rs; gopls runs the go
		// command, which may fetch a toolchain go.mod names), as VS
		// Code's restricted mode also keeps them off. Trusting the
		// folder replaces the settings, and the next call starts them.
		return nil
	}
	if s.lspConf != nil && reflect.DeepEqual(*s.lspConf, conf) {
		return s.lsp
	}
	if old := s.lsp; old != nil {
		s.lspRetired.Go(old.Close)
	}
	s.lsp, s.lspConf = nil, &conf
	if servers := serverConfigs(conf, s.cfg.LangServers); !conf.Disabled && len(servers) > 0 {
		s.lsp = langserver.New(langserver.Config{Servers: servers, Logf: s.cfg.Logf})
	}
	return s.lsp
}

// serverConfigs turns the settings into server configurations: the
// configured servers, else those of base (nil: detected on PATH), with
// the servers the settings turn off left out.
func serverConfigs(conf settings.LSP, base []langserver.ServerConfig) []langserver.ServerConfig {
	var out []langserver.ServerConfig
	configured := false
	for name, srv := range conf.Servers {
		if srv.Disabled || len(srv.Command) == 0 {
			continue
		}
		configured = true
		c := langserver.ServerConfig{Name: name, Command: srv.Command, Filetypes: srv.Filetypes}
		if k, ok := langserver.Known(name); ok && len(c.Filetypes) == 0 {
			c.Filetypes = k.Filetypes
		}
		if len(srv.Options) > 0 {
			c.InitializationOptions = srv.Options
		}
		out = append(out, c)
	}
	if configured {
		return out
	}
	if base == nil {
		base = langserver.Detect(nil)
	}
	for _, c := range base {
		if srv, ok := conf.Servers[c.Name]; ok {
			if srv.Disabled {
				continue
			}
			if len(srv.Filetypes) > 0 {
				c.Filetypes = srv.Filetypes
			}
		}
		out = append(out, c)
	}
	return out
}

// codeIntel is a session's tools.CodeIntel: the editor's diagnostics for
// the files it covers, the service's language servers for the others.
type codeIntel struct {
	servers func() *langserver.Manager // the service's, nil when none
	editor  EditorDiagnostics          // nil when the editor offers none
	root    string
	// conf returns the settings' lsp block as it is now.
	conf func() settings.LSP
	// tools are the Diagnostics and LSP tools, offered while available
	// reports true.
	tools []tools.Tool

	mu sync.Mutex
	// baseline holds, per file, the diagnostics first seen in the
	// current turn: what was there before the agent edited it.
	baseline map[string][]tools.Diagnostic // guarded by mu
	route    map[string]bool               // the editor answers for the file, guarded by mu
	// seen is the text of each file last asked about, to tell the
	// editor whether it changed; guarded by mu.
	seen   map[string]string
	edited []string // files edited in the turn, guarded by mu
	warned bool     // the stop check spoke this turn, guarded by mu
}

func newCodeIntel(servers func() *langserver.Manager, editor EditorDiagnostics, root string, conf func() settings.LSP) *codeIntel {
	return &codeIntel{servers: servers, editor: editor, root: root, conf: conf, baseline: map[string][]tools.Diagnostic{}, seen: map[string]string{}, route: map[string]bool{}}
}

// available reports whether anything answers for files now: the
// editor's diagnostics, or language servers of the service (which start
// only in a trusted folder, and follow the settings' lsp block).
func (c *codeIntel) available() bool {
	return c.editor != nil || c.servers() != nil
}

// wait bounds the wait for diagnostics after an edit: the settings'
// lsp.diagnosticsTimeoutMs as they are now, else defaultDiagnosticsWait.
func (c *codeIntel) wait() time.Duration {
	if ms := c.conf().DiagnosticsTimeoutMs; ms > 0 {
		return time.Duration(ms) * time.Millisecond
	}
	return defaultDiagnosticsWait
}

// byEditor reports whether the editor answers for path. The choice
// sticks for the session once made, so that the problems before and
// after an edit come from the same source.
func (c *codeIntel) byEditor(path string) bool {
	if c.editor == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if r, ok := c.route[path]; ok {
		return r
	}
	switch {
	case c.editor.CoversDiagnostics(path):
		c.route[path] = true
	case c.servers() != nil && c.servers().Handles(path):
		c.route[path] = false
	}
	return c.route[path]
}

func (c *codeIntel) Handles(path string) bool {
	m := c.servers()
	return c.byEditor(path) || m != nil && m.Handles(path)
}

func (c *codeIntel) Touch(path string, text []byte) {
	if m := c.servers(); !c.byEditor(path) && m != nil {
		m.Touch(c.root, path, text)
	}
}

func (c *codeIntel) Diagnostics(ctx context.Context, path string, text []byte) ([]tools.Diagnostic, bool, error) {
	var out []tools.Diagnostic
	if c.byEditor(path) {
		c.mu.Lock()
		last, seen := c.seen[path]
		c.seen[path] = string(text)
		c.mu.Unlock()
		// Text that changed since the last look was just edited: the
		// editor waits for its servers to report on it.
		diags, err := c.editor.Diagnostics(ctx, path, seen && last != string(text), c.wait())
		if err != nil {
			return nil, false, err
		}
		out = diags
	} else {
		m := c.servers()
		if m == nil {
			return nil, false, langserver.ErrNoServer
		}
		diags, ok, err := m.Diagnostics(ctx, c.root, path, text, c.wait())
		if err != nil || !ok {
			return nil, ok, err
		}
		out = make([]tools.Diagnostic, len(diags))
		for i, d := range diags {
			out[i] = tools.Diagnostic(d)
		}
	}
	c.mu.Lock()
	if _, ok := c.baseline[path]; !ok {
		c.baseline[path] = out
	}
	c.mu.Unlock()
	return out, true, nil
}

func (c *codeIntel) Published(ctx context.Context) []tools.Diagnostic {
	var out []tools.Diagnostic
	if m := c.servers(); m != nil {
		for _, d := range m.Published(c.root) {
			out = append(out, tools.Diagnostic(d))
		}
	}
	return out
}

func (c *codeIntel) Ask(ctx context.Context, q tools.CodeQuery) (string, error) {
	m := c.servers()
	if m == nil || !m.Handles(q.Path) {
		return "", fmt.Errorf("no language server of agent-lsp covers %s (the editor's diagnostics do not answer navigation)", filepath.Base(q.Path))
	}
	return m.Ask(ctx, c.root, langserver.Query{Op: q.Op, Path: q.Path, Text: q.Text, Line: q.Line, Character: q.Character, Symbol: q.Symbol, Hidden: q.Hidden})
}

// beginTurn forgets what the previous turn saw and edited.
func (c *codeIntel) beginTurn() {
	c.mu.Lock()
	c.baseline = map[string][]tools.Diagnostic{}
	c.edited = nil
	c.warned = false
	c.mu.Unlock()
}

// noteEdit records that the agent changed path in this turn.
func (c *codeIntel) noteEdit(path string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.edited {
		if p == path {
			return
		}
	}
	c.edited = append(c.edited, path)
}

// stopCheck returns what to tell the model when the turn ends with
// errors, in files it edited, that were not there before the turn; ""
// when there are none or it was already told this turn.
func (c *codeIntel) stopCheck(ctx context.Context, files tools.FileSystem) string {
	c.mu.Lock()
	if c.warned {
		c.mu.Unlock()
		return ""
	}
	edited := append([]string(nil), c.edited...)
	c.mu.Unlock()
	var errs []tools.Diagnostic
	for _, path := range edited {
		if !c.Handles(path) {
			continue
		}
		text, err := files.ReadFile(path)
		if err != nil && !os.IsNotExist(err) {
			continue
		}
		diags, ok, err := c.Diagnostics(ctx, path, text)
		if err != nil || !ok {
			continue
		}
		c.mu.Lock()
		base := c.baseline[path]
		c.mu.Unlock()
		for _, d := range tools.NewProblems(base, diags) {
			if d.Severity == langserver.SeverityError {
				errs = append(errs, d)
			}
		}
	}
	if len(errs) == 0 {
		return ""
	}
	c.mu.Lock()
	c.warned = true
	c.mu.Unlock()
	return "Before you end your turn: the files you edited now have errors that were not there when the turn began:\n" +
		tools.FormatDiagnostics(errs, c.root, tools.EditDiagnosticsCap) +
		"Fix them, or explain to the user why they remain."
}

// setCode gives the session its code intelligence: the service's
// language servers and the editor's diagnostics. It is there from the
// start even when nothing answers yet (an untrusted folder, no server
// configured or found), so that what starts later reaches the session;
// toolset.syncCode offers the Diagnostics and LSP tools while something
// answers. Call it after the toolset is made.
func (s *Session) setCode(client Client) {
	editor, _ := client.(EditorDiagnostics)
	if editor != nil && !editor.OffersDiagnostics() {
		editor = nil
	}
	conf := func() settings.LSP {
		if st, _ := s.svc.settings(); st != nil {
			return st.LSP
		}
		return settings.LSP{}
	}
	c := newCodeIntel(s.svc.langServers, editor, s.cwd, conf)
	s.tools.code, s.tools.shared.code = c, c
	s.tools.env.Code = c
	c.tools = tools.CodeTools(s.tools.env)
	s.tools.syncCode()
}

// codeGroup is the toolset group of the Diagnostics and LSP tools.
const codeGroup = "code"

// syncCode offers the Diagnostics and LSP tools when something answers
// for files now, and takes them away when nothing does: trusting the
// folder, or settings that turn language servers on or off, change the
// next model request's tools, in the session and in the subagents it
// runs.
func (ts *toolset) syncCode() {
	c := ts.shared.code
	if c == nil {
		return
	}
	var list []tools.Tool
	if c.available() {
		list = c.tools
	}
	ts.setGroup(codeGroup, list)
}

// noteEdit records the files a successful file-changing call touched,
// for the stop check.
func (ts *toolset) noteEdit(t tools.Tool, res *tools.Result) {
	if ts.code == nil || t.Spec().Access != tools.AccessEdit {
		return
	}
	for _, l := range res.Locations {
		ts.code.noteEdit(l.Path)
	}
}

// checkOnStop is the stop check of lsp.checkOnStop: what to tell the
// model when its turn ends with new errors in files it edited.
func (s *Session) checkOnStop(ctx context.Context) string {
	if s.tools.code == nil {
		return ""
	}
	st, _ := s.svc.settings()
	if st == nil || !st.LSP.CheckOnStop {
		return ""
	}
	return s.tools.code.stopCheck(ctx, s.tools.env.Files)
}
