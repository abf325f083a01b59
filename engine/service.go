package engine

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/google/uuid"

	"github.com/agent-lsp/agent-lsp/langserver"
	"github.com/agent-lsp/agent-lsp/providers"
	"github.com/agent-lsp/agent-lsp/providers/config"
	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/session"
	"github.com/agent-lsp/agent-lsp/settings"
	"github.com/agent-lsp/agent-lsp/tools"
)

// Config configures a Service.
type Config struct {
	// Provider answers model calls. When nil, prompts fail with
	// ProviderError.
	Provider Provider
	// ProviderError explains why there is no provider (e.g. which
	// environment variable to set).
	ProviderError error
	// Model is the model to ask.
	Model string
	// WebSearch says the provider has a server-side web search tool
	// (Anthropic's): sessions then offer the WebSearch tool.
	WebSearch bool
	// SmallModel is the small, fast model for side questions (WebFetch's
	// prompt about a page); empty means the session's model.
	SmallModel string
	// MaxTurns bounds the model calls of one prompt (default 50).
	MaxTurns int
	// MaxTokens bounds each response (default 16384).
	MaxTokens int
	// MaxThinkingTokens is MAX_THINKING_TOKENS as the environment gave
	// it: a thinking budget, "0" to think not at all, empty for the
	// default (see thinking.go). The settings' env overrides it.
	MaxThinkingTokens string
	// Window is the model's context window in tokens (default 200,000).
	Window int64
	// ResultBudget is the most characters of one tool result sent to the
	// model (default 100,000).
	ResultBudget int
	// Logf logs to stderr (never to the protocol stream).
	Logf func(format string, args ...any)
	// Home is the user's home directory, for ~/.claude/CLAUDE.md and
	// Claude Code's ~/.claude.json (its user- and local-scope MCP
	// servers; $CLAUDE_CONFIG_DIR/.claude.json when that is set).
	Home string
	// ManagedMCP is the administrator's managed-mcp.json
	// (mcp.DefaultManagedFile); when it exists only its MCP servers
	// start. Empty reads none.
	ManagedMCP string
	// ManagedMemory is the managed CLAUDE.md, the organization's
	// instructions: "" means Claude Code's path on this system
	// (/etc/claude-code/CLAUDE.md on Linux), "-" none.
	ManagedMemory string
	// AutoMemory turns Claude Code's auto memory on (memory.go): the
	// model keeps notes in ~/.claude/projects/<project>/memory, whose
	// MEMORY.md is loaded every time. The settings' autoMemoryEnabled
	// and CLAUDE_CODE_DISABLE_AUTO_MEMORY may still turn it off.
	AutoMemory bool
	// DisableAutoMemory is CLAUDE_CODE_DISABLE_AUTO_MEMORY as the
	// environment gave it; the settings' env overrides it.
	DisableAutoMemory string
	// CompactAt is the fraction of the window at which the conversation
	// is compacted (default 0.8).
	CompactAt float64
	// Models are offered in the model picker.
	Models []ModelInfo
	// AllowModel, if set, refuses a model the user may not pick (the
	// settings' availableModels): SetModel returns its error.
	AllowModel func(model string) error
	// Mode is the initial permission mode of new sessions (default
	// "default").
	Mode string
	// Price returns the cost in USD of a model call's usage, or 0 when
	// the model's price is unknown.
	Price func(Usage) float64
	// Settings are the user's and the project's settings (permission
	// rules, hooks, sandbox); nil means none.
	Settings *settings.Settings
	// Notices are problems to show the user in every new session, such
	// as errors in settings files.
	Notices []string
	// OnClose runs when the service closes (stopping watchers).
	OnClose []func()
	// Store persists sessions; nil keeps them in memory only.
	Store *session.Store
	// LangServers are the language servers sessions may start when the
	// settings configure none; nil detects the known ones on PATH.
	LangServers []langserver.ServerConfig
	// Trust, when set, is how to trust the project folder: its settings
	// were loaded restricted (Settings.ProjectRestricted), and at the
	// first prompt the user is asked when they hold something back. nil
	// means the folder is trusted.
	Trust *Trust
}

func (c *Config) setDefaults() {
	if c.MaxTurns <= 0 {
		c.MaxTurns = 50
	}
	if c.MaxTokens <= 0 {
		c.MaxTokens = 16384
	}
	if c.Window <= 0 {
		c.Window = 200_000
	}
	if c.CompactAt <= 0 || c.CompactAt > 1 {
		c.CompactAt = 0.8
	}
	if c.ResultBudget <= 0 {
		c.ResultBudget = 100_000
	}
	if c.Logf == nil {
		c.Logf = log.Printf
	}
	if c.Home == "" {
		c.Home, _ = os.UserHomeDir()
	}
}

// Usage counts the tokens of a model call.
type Usage = providers.Usage

// ErrNoProvider is matched (errors.Is) by the error Prompt returns when
// no model provider is configured; that error's text is
// NoProviderMessage, or says what else went wrong.
var ErrNoProvider = errors.New("no model provider configured")

// NoProviderMessage is what the user reads when no model is configured:
// the prompt's error, the initialize and session/new results'
// _meta["agent-lsp"].providerProblem, `agent-lsp doctor` and the editors'
// health checks use these words.
const NoProviderMessage = "No model is configured. Set ANTHROPIC_API_KEY, or OPENAI_API_KEY with OPENAI_BASE_URL for an OpenAI-compatible server; `agent-lsp doctor` checks the setup."

// noProviderError is the error of a prompt without a provider: its text
// is for the user, and it is ErrNoProvider (errors.Is).
type noProviderError struct {
	msg   string
	cause error
}

func (e *noProviderError) Error() string        { return e.msg }
func (e *noProviderError) Unwrap() error        { return e.cause }
func (e *noProviderError) Is(target error) bool { return target == ErrNoProvider }

// ProviderProblem returns the words of NoProviderMessage for a
// configuration problem cause (nil, or an error that wraps
// config.ErrNoAPIKey: no key was found). Another problem (a provider
// name that is not known, an apiKeyHelper that failed) is named instead
// of the advice to set a key.
func ProviderProblem(cause error, noKey bool) string {
	if cause == nil || noKey {
		return NoProviderMessage
	}
	return "No model is configured: " + strings.TrimSuffix(cause.Error(), ".") + ". `agent-lsp doctor` checks the setup."
}

// ErrUnknownSession is returned (wrapped, naming the id) for a session id
// that is neither open in this service nor saved for the directory.
var ErrUnknownSession = errors.New("unknown session")

// Service owns the sessions of one sidecar process. Doors create, find and
// close sessions through it.
type Service struct {
	cfg Config

	mu       sync.Mutex
	sessions map[string]*Session // guarded by mu
	warned   map[string]bool     // warnings given once per process, guarded by mu

	lspMu      sync.Mutex
	lsp        *langserver.Manager // nil when there are none, guarded by lspMu
	lspConf    *settings.LSP       // what lsp was made for; nil: not made yet, guarded by lspMu
	lspClosed  bool                // guarded by lspMu
	lspRetired sync.WaitGroup      // managers of older settings, shutting down
	// cfg.Settings, Notices, Provider, ProviderError, Model, Trust and
	// OnClose change when the user trusts the folder: guarded by mu.
	trust     trustState    // guarded by mu
	trustDone chan struct{} // closed when the pending question is answered, guarded by mu

	// folderTypes holds the file name extensions found in the untrusted
	// folder, looked for once (folderFiletypes).
	folderTypesOnce sync.Once
	folderTypes     map[string]bool
}

// warnOnce calls show with msg the first time msg is given.
func (s *Service) warnOnce(msg string, show func(string)) {
	s.mu.Lock()
	if s.warned == nil {
		s.warned = make(map[string]bool)
	}
	first := !s.warned[msg]
	s.warned[msg] = true
	s.mu.Unlock()
	if first {
		show(msg)
	}
}

// NewService returns a Service with cfg.
func NewService(cfg Config) *Service {
	cfg.setDefaults()
	return &Service{cfg: cfg, sessions: make(map[string]*Session)}
}

// SessionOptions describe a new session.
type SessionOptions struct {
	// Cwd is the session's working directory; it must be absolute.
	Cwd string
	// Roots are the workspace folders; Cwd is always one of them.
	Roots []string
	// Client is the editor.
	Client Client
	// Files is the editor-aware file system (default: the disk).
	Files tools.FileSystem
	// Terminal is the editor's terminal, when it offers one: Bash runs
	// foreground commands there.
	Terminal tools.Terminal
	// MCPServers are MCP servers the editor passed.
	MCPServers []schema.MCPServer
	// Model overrides the service's model.
	Model string
	// Fork, for ResumeSession, continues a copy of the stored session
	// under a new id instead of the session itself.
	Fork bool
	// Overrides are the client's options for this session.
	Overrides Overrides
}

// NewSession starts a session.
func (s *Service) NewSession(ctx context.Context, opts SessionOptions) (*Session, error) {
	if err := CheckCwd(opts.Cwd); err != nil {
		return nil, err
	}
	if opts.Client == nil {
		return nil, fmt.Errorf("session has no client")
	}
	if opts.Files == nil {
		opts.Files = tools.DiskFS{}
	}
	sess := newSession(s, uuid.NewString(), opts)
	if s.cfg.Store != nil {
		log, err := s.cfg.Store.Create(sess.cwd, sess.ID)
		if err != nil {
			return nil, fmt.Errorf("creating session file: %w", err)
		}
		sess.conv.log = log
		// Saved from the start, so a restart never gives the session
		// the mode a later default would.
		sess.saveState()
	}
	s.mu.Lock()
	s.sessions[sess.ID] = sess
	s.mu.Unlock()
	return sess, nil
}

// Session returns the session with id.
func (s *Service) Session(id string) (*Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, ok := s.sessions[id]
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownSession, id)
	}
	return sess, nil
}

// CloseSession cancels any running prompt of the session, stops what it
// started and forgets it.
func (s *Service) CloseSession(id string) error {
	s.mu.Lock()
	sess, ok := s.sessions[id]
	delete(s.sessions, id)
	s.mu.Unlock()
	if !ok {
		return fmt.Errorf("%w %q", ErrUnknownSession, id)
	}
	sess.close()
	return nil
}

// Close closes every session and stops what the service started.
func (s *Service) Close() {
	s.mu.Lock()
	all := s.sessions
	s.sessions = make(map[string]*Session)
	closers := s.cfg.OnClose
	s.cfg.OnClose = nil
	s.mu.Unlock()
	for _, sess := range all {
		sess.close()
	}
	for _, f := range closers {
		f()
	}
	s.lspMu.Lock()
	s.lspClosed = true // none may start from now on
	m := s.lsp
	s.lspMu.Unlock()
	if m != nil {
		m.Close()
	}
	s.lspRetired.Wait()
}

// UpdateSettings applies reloaded settings to the service and to every
// open session's permission rules and hooks, and shows their problems.
func (s *Service) UpdateSettings(st *settings.Settings, notices []string) {
	s.mu.Lock()
	s.cfg.Settings = st
	s.cfg.Notices = notices
	open := make([]*Session, 0, len(s.sessions))
	for _, sess := range s.sessions {
		open = append(open, sess)
	}
	s.mu.Unlock()
	for _, sess := range open {
		sess.pipe.gate.policy.Update(st)
		sess.saveState() // the settings may have ended bypassPermissions
		sess.pipe.hooks.Update(st)
		sess.setSandbox(st)
		sess.status(context.Background(), Status{Kind: StatusInfo, Message: "settings reloaded"})
		for _, n := range notices {
			sess.status(context.Background(), Status{Kind: StatusWarning, Message: n})
		}
	}
}

// settings returns the current settings.
func (s *Service) settings() (*settings.Settings, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg.Settings, s.cfg.Notices
}

// Sessions returns the ids of the open sessions.
func (s *Service) Sessions() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := make([]string, 0, len(s.sessions))
	for id := range s.sessions {
		ids = append(ids, id)
	}
	return ids
}

// CheckProvider returns the reason prompts would fail for want of a model
// provider, or nil.
func (s *Service) CheckProvider() error {
	_, err := s.provider()
	return err
}

// provider returns the provider or the error explaining its absence.
func (s *Service) provider() (Provider, error) {
	s.mu.Lock()
	p, perr := s.cfg.Provider, s.cfg.ProviderError
	s.mu.Unlock()
	if p == nil {
		return nil, &noProviderError{msg: ProviderProblem(perr, errors.Is(perr, config.ErrNoAPIKey)), cause: perr}
	}
	return p, nil
}

// ProviderProblem returns what the user must fix before a prompt can
// run, in the words of NoProviderMessage, or "" when a model provider is
// configured.
func (s *Service) ProviderProblem() string {
	if _, err := s.provider(); err != nil {
		return err.Error()
	}
	return ""
}

// defaultModel is the model new sessions ask.
func (s *Service) defaultModel() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg.Model
}

// CheckCwd returns an error unless cwd is an absolute path to a directory.
func CheckCwd(cwd string) error {
	if !filepath.IsAbs(cwd) {
		return fmt.Errorf("cwd %q is not an absolute path", cwd)
	}
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		return fmt.Errorf("cwd %s is not a directory", cwd)
	}
	return nil
}
