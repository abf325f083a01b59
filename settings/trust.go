package settings

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/agent-lsp/agent-lsp/pathres"
)

// Folder trust: a repository's own settings (.claude/settings.json,
// .claude/settings.local.json, .mcp.json) come with the code the user
// cloned. Until the user trusts the folder they contribute only what
// tightens the rules (see restrict); what they hold back is listed in
// Settings.HeldBack so the user can be told and asked.

// TrustSources are the places the user's trust in a folder is recorded.
type TrustSources struct {
	// Home is the user's home directory: the home folder itself is
	// trusted.
	Home string
	// ClaudeJSON is Claude Code's global configuration file
	// (ClaudeJSONPath); a folder whose projects entry has
	// hasTrustDialogAccepted is trusted. Empty reads none.
	ClaudeJSON string
	// Store holds the folders the user trusted in agent-lsp; nil for
	// none.
	Store *TrustStore
	// Editor is set when the editor says the workspace is trusted
	// (initializationOptions.workspaceTrusted).
	Editor bool
}

// ClaudeJSONPath returns Claude Code's global configuration file:
// $CLAUDE_CONFIG_DIR/.claude.json when CLAUDE_CONFIG_DIR is set, else
// <home>/.claude.json.
func ClaudeJSONPath(home string) string {
	if d := os.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return filepath.Join(d, ".claude.json")
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".claude.json")
}

// ResolveFolder returns the absolute, symlink-free form of folder, the
// key under which trust is recorded.
func ResolveFolder(folder string) string {
	abs, err := filepath.Abs(folder)
	if err != nil {
		return filepath.Clean(folder)
	}
	if r, err := pathres.Resolve("/", abs); err == nil {
		return r
	}
	return abs
}

// FolderTrusted reports whether the user trusts folder, and why: the
// editor says so, the folder is the user's home, or it (or a folder
// above it) was trusted in agent-lsp or in Claude Code.
func FolderTrusted(folder string, src TrustSources) (bool, string) {
	if src.Editor {
		return true, "the editor trusts the workspace"
	}
	folder = ResolveFolder(folder)
	if src.Home != "" && folder == ResolveFolder(src.Home) {
		return true, "it is the home folder"
	}
	if src.Store != nil && src.Store.Trusts(folder) {
		return true, "it was trusted before (" + src.Store.path + ")"
	}
	if src.ClaudeJSON != "" && claudeTrusts(src.ClaudeJSON, folder) {
		return true, "it is trusted in Claude Code (" + src.ClaudeJSON + ")"
	}
	return false, ""
}

// ancestors returns folder and every folder above it.
func ancestors(folder string) []string {
	var out []string
	for d := folder; ; d = filepath.Dir(d) {
		out = append(out, d)
		if filepath.Dir(d) == d {
			return out
		}
	}
}

// claudeTrusts reports whether Claude Code's configuration file accepted
// the trust dialog for folder or a folder above it, as Claude Code
// itself checks.
func claudeTrusts(path, folder string) bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var cfg struct {
		Projects map[string]struct {
			HasTrustDialogAccepted bool `json:"hasTrustDialogAccepted"`
		} `json:"projects"`
	}
	if json.Unmarshal(data, &cfg) != nil {
		return false
	}
	for _, d := range ancestors(folder) {
		if p, ok := cfg.Projects[d]; ok && p.HasTrustDialogAccepted {
			return true
		}
	}
	return false
}

// TrustStore remembers the folders the user trusted, in a JSON file
// keyed by resolved folder path:
//
//	{"folders": {"/home/me/src/app": {"trustedAt": "2026-11-26T08:00:00Z"}}}
//
// A trusted folder's subfolders are trusted too.
type TrustStore struct {
	path string
	mu   sync.Mutex // serializes read-modify-write cycles of path
}

// NewTrustStore returns the store kept in path (usually trust.json in
// agent-lsp's state directory).
func NewTrustStore(path string) *TrustStore { return &TrustStore{path: path} }

type trustFile struct {
	Folders map[string]trustEntry `json:"folders"`
}

type trustEntry struct {
	TrustedAt string `json:"trustedAt,omitempty"`
}

func (t *TrustStore) read() (trustFile, error) {
	var f trustFile
	data, err := os.ReadFile(t.path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, fmt.Errorf("reading %s: %w", t.path, err)
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return f, fmt.Errorf("reading %s: %w", t.path, err)
	}
	return f, nil
}

// Trusts reports whether folder or a folder above it is in the store.
func (t *TrustStore) Trusts(folder string) bool {
	t.mu.Lock()
	f, err := t.read()
	t.mu.Unlock()
	if err != nil {
		return false
	}
	for _, d := range ancestors(ResolveFolder(folder)) {
		if _, ok := f.Folders[d]; ok {
			return true
		}
	}
	return false
}

// Trust adds folder to the store. The file is replaced atomically; a
// file that is not valid JSON is left alone and reported.
func (t *TrustStore) Trust(folder string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	f, err := t.read()
	if err != nil {
		return fmt.Errorf("remembering that %s is trusted: %w", folder, err)
	}
	if f.Folders == nil {
		f.Folders = map[string]trustEntry{}
	}
	f.Folders[ResolveFolder(folder)] = trustEntry{TrustedAt: time.Now().UTC().Format(time.RFC3339)}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("remembering that %s is trusted: %w", folder, err)
	}
	return writeAtomic(t.path, append(data, '\n'))
}

// HeldBack is what one project file holds that stays off until the
// folder is trusted.
type HeldBack struct {
	// File is the file's path relative to the project, such as
	// ".claude/settings.json".
	File string `json:"file"`
	// Hooks and MCPServers count the hooks and MCP servers it defines.
	Hooks      int `json:"hooks,omitempty"`
	MCPServers int `json:"mcpServers,omitempty"`
	// RunsCode is set when something held back would run a program
	// (hooks, MCP servers, apiKeyHelper); Loosens when something would
	// loosen the rules or redirect the model (allow rules, env, baseURL,
	// defaultMode, ...).
	RunsCode bool `json:"runsCode,omitempty"`
	Loosens  bool `json:"loosens,omitempty"`
	// Other names the other settings held back: "an apiKeyHelper",
	// "env", "2 allow rules", "defaultMode", ...
	Other []string `json:"other,omitempty"`
	// LanguageServers, in an entry with no File, names the language
	// servers that would start in the folder (found on PATH or
	// configured by the user): they run the project's code.
	LanguageServers []string `json:"languageServers,omitempty"`
}

func (h HeldBack) empty() bool {
	return h.Hooks == 0 && h.MCPServers == 0 && len(h.Other) == 0 && len(h.LanguageServers) == 0
}

// things lists what h holds, counted: "3 hooks", "1 MCP server", "env".
func (h HeldBack) things() []string {
	var out []string
	if h.Hooks > 0 {
		out = append(out, plural(h.Hooks, "hook"))
	}
	if h.MCPServers > 0 {
		out = append(out, plural(h.MCPServers, "MCP server"))
	}
	if n := len(h.LanguageServers); n > 0 {
		out = append(out, plural(n, "language server")+" ("+strings.Join(h.LanguageServers, ", ")+")")
	}
	return append(out, h.Other...)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// andList joins items as "a, b and c".
func andList(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// DescribeHeldBack says what is held back, file by file: "3 hooks and 1
// MCP server in .claude/settings.json; 1 MCP server in .mcp.json; 1
// language server (gopls) for its files".
func DescribeHeldBack(held []HeldBack) string {
	var parts []string
	for _, h := range held {
		switch {
		case h.empty():
		case h.File == "":
			parts = append(parts, andList(h.things())+" for its files")
		default:
			parts = append(parts, andList(h.things())+" in "+h.File)
		}
	}
	return strings.Join(parts, "; ")
}

// TrustQuestion is the question asking to trust folder: "Trust the
// folder /src/app? Its .claude/settings.json has 3 hooks and 1 MCP server
// that run code".
//
// Language servers that would start for the folder's files come last:
// "Language servers would run code from it: gopls, pyright".
func TrustQuestion(folder string, held []HeldBack) string {
	var parts, servers []string
	var files []HeldBack
	runs, loosens := false, false
	for _, h := range held {
		if h.empty() {
			continue
		}
		if h.File == "" {
			servers = append(servers, h.LanguageServers...)
			continue
		}
		files = append(files, h)
		parts = append(parts, h.File+" has "+andList(h.things()))
		runs = runs || h.RunsCode
		loosens = loosens || h.Loosens
	}
	q := fmt.Sprintf("Trust the folder %s?", folder)
	if len(parts) > 0 {
		q += " Its " + strings.Join(parts, ", and its ") + thatVerb(files, runs, loosens)
		if len(servers) > 0 {
			q += "."
		}
	}
	switch len(servers) {
	case 0:
	case 1:
		q += " A language server would run code from it: " + servers[0]
	default:
		q += " Language servers would run code from it: " + strings.Join(servers, ", ")
	}
	return q
}

// thatVerb ends the question's sentence on the folder's files: " that
// run code", " that changes what the agent may do".
func thatVerb(held []HeldBack, runs, loosens bool) string {
	verb := func(plural, singular string) string {
		if IsSingular(held) {
			return singular
		}
		return plural
	}
	switch {
	case runs && loosens:
		return " that " + verb("run", "runs") + " code or " + verb("change", "changes") + " what the agent may do"
	case runs:
		return " that " + verb("run", "runs") + " code"
	default:
		return " that " + verb("change", "changes") + " what the agent may do"
	}
}

// IsSingular reports whether held lists one thing, not counted above one
// ("1 hook", "an apiKeyHelper", "env"), for the verb that follows.
func IsSingular(held []HeldBack) bool {
	var things []string
	for _, h := range held {
		things = append(things, h.things()...)
	}
	if len(things) != 1 {
		return false
	}
	var n int
	if _, err := fmt.Sscanf(things[0], "%d", &n); err == nil {
		return n == 1
	}
	return true
}

// restrict keeps only what tightens the rules of an untrusted project
// layer and reports what it took out.
func restrict(lay *layer, file string) HeldBack {
	h := HeldBack{File: file}
	other := func(what string) { h.Other = append(h.Other, what) }
	for _, ms := range lay.hooks {
		for _, m := range ms {
			h.Hooks += len(m.Hooks)
		}
	}
	lay.hooks = nil
	h.MCPServers = len(lay.mcpServers)
	lay.mcpServers = nil
	helper := lay.keyHelper != nil
	if helper {
		other("an apiKeyHelper")
		lay.keyHelper = nil
	}
	// Language servers the project names are programs it would run.
	lspCommands := 0
	for name, srv := range lay.lsp.servers {
		if len(srv.Command) > 0 {
			srv.Command = nil
			lay.lsp.servers[name] = srv
			lspCommands++
		}
	}
	if lspCommands > 0 {
		other(plural(lspCommands, "language server command"))
	}
	h.RunsCode = h.Hooks > 0 || h.MCPServers > 0 || helper || lspCommands > 0
	codeItems := len(h.Other)
	if lay.disableAll != nil {
		other("disableAllHooks")
		lay.disableAll = nil
	}
	if len(lay.env) > 0 {
		other("env")
		lay.env = nil
	}
	// Allowlists merge: the project's would widen the user's.
	if lay.allowedMCP != nil {
		other("allowedMcpServers")
		lay.allowedMCP = nil
	}
	for _, p := range []struct {
		name string
		v    **string
	}{{"baseURL", &lay.baseURL}, {"provider", &lay.provider}, {"model", &lay.model}, {"fallbackModel", &lay.fallback}, {"effortLevel", &lay.effort}} {
		if *p.v != nil {
			other(p.name)
			*p.v = nil
		}
	}
	// The number of days decides which of the user's sessions are
	// deleted; the attribution and the language are text for the
	// system prompt.
	if lay.cleanup != nil {
		other("cleanupPeriodDays")
		lay.cleanup = nil
	}
	if lay.attribution.Commit != nil || lay.attribution.PR != nil {
		other("attribution")
		lay.attribution.Commit, lay.attribution.PR = nil, nil
	}
	if lay.language != nil {
		other("language")
		lay.language = nil
	}
	// Thinking, like the model, spends the user's tokens: the project
	// may turn it off, not on.
	if t := lay.thinking; t != nil && *t {
		other("alwaysThinkingEnabled")
		lay.thinking = nil
	}
	if n := len(lay.allow); n > 0 {
		other(plural(n, "allow rule"))
		lay.allow = nil
	}
	if len(lay.permissions.AdditionalDirectories) > 0 {
		other("additionalDirectories")
		lay.permissions.AdditionalDirectories = nil
	}
	if lay.permissions.DefaultMode != nil {
		other("defaultMode " + *lay.permissions.DefaultMode)
		lay.permissions.DefaultMode = nil
	}
	if lay.enableAll != nil && *lay.enableAll {
		other("enableAllProjectMcpServers")
	}
	lay.enableAll = nil
	if len(lay.enabledMCP) > 0 {
		other("enabledMcpjsonServers")
		lay.enabledMCP = nil
	}
	// The sandbox may only get stricter.
	sb := &lay.sandbox
	loosened := false
	if sb.Enabled != nil && !*sb.Enabled {
		sb.Enabled, loosened = nil, true
	}
	if sb.FailIfUnavailable != nil && !*sb.FailIfUnavailable {
		sb.FailIfUnavailable, loosened = nil, true
	}
	if sb.AllowUnsandboxedCommands != nil && *sb.AllowUnsandboxedCommands {
		sb.AllowUnsandboxedCommands, loosened = nil, true
	}
	if sb.Network.AllowLocalBinding != nil && *sb.Network.AllowLocalBinding {
		sb.Network.AllowLocalBinding, loosened = nil, true
	}
	if len(sb.Network.AllowedDomains) > 0 || len(sb.Filesystem.AllowWrite) > 0 || len(sb.Filesystem.AllowRead) > 0 {
		sb.Network.AllowedDomains, sb.Filesystem.AllowWrite, sb.Filesystem.AllowRead, loosened = nil, nil, nil, true
	}
	if loosened {
		other("sandbox settings that loosen it")
	}
	h.Loosens = len(h.Other) > codeItems
	return h
}

// countMCPJSON counts the servers of a project's .mcp.json, which stay
// off until the folder is trusted.
func countMCPJSON(project string) int {
	data, err := ReadFile(filepath.Join(project, ".mcp.json"))
	if err != nil {
		return 0
	}
	var f struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	if json.Unmarshal(data, &f) != nil {
		return 0
	}
	return len(f.MCPServers)
}

// WaitTrusted calls onTrusted, once, when folder becomes trusted in the
// store while ctx lasts: `agent-lsp trust`, or another process recording
// the user's answer. It watches the store's directory (made when missing),
// so that the atomic replacement of the file is seen, and reads the file
// again after each change. The watch stops when ctx ends or onTrusted has
// been called; the returned channel is closed then.
func (t *TrustStore) WaitTrusted(ctx context.Context, folder string, onTrusted func()) (<-chan struct{}, error) {
	dir := filepath.Dir(t.path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("watching %s: %w", t.path, err)
	}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watching %s: %w", t.path, err)
	}
	if err := fsw.Add(dir); err != nil {
		fsw.Close()
		return nil, fmt.Errorf("watching %s: %w", t.path, err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer fsw.Close()
		// Read after the watch is in place: a change made in between is
		// not missed.
		if t.Trusts(folder) {
			onTrusted()
			return
		}
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-fsw.Events:
				if !ok {
					return
				}
				if filepath.Base(ev.Name) != filepath.Base(t.path) || !t.Trusts(folder) {
					continue
				}
				onTrusted()
				return
			case _, ok := <-fsw.Errors:
				if !ok {
					return
				}
				if t.Trusts(folder) { // an overflow may have lost the event
					onTrusted()
					return
				}
			}
		}
	}()
	return done, nil
}
