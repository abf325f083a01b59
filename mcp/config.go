package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-lsp/agent-lsp/schema"
	"github.com/agent-lsp/agent-lsp/settings"
)

// ProjectFile is the name of a workspace's MCP configuration file, in
// Claude Code's format.
const ProjectFile = ".mcp.json"

// Scope says where a server was configured.
type Scope int

const (
	// ScopeSession servers come from the editor, in session/new.
	ScopeSession Scope = iota
	// ScopeSettings servers come from the mcpServers of the settings.
	ScopeSettings
	// ScopeProject servers come from the workspace's .mcp.json; they
	// start only once the user has approved them.
	ScopeProject
	// ScopeUser servers come from the top-level mcpServers of Claude
	// Code's ~/.claude.json (claude mcp add -s user).
	ScopeUser
	// ScopeLocal servers come from the workspace's entry in the projects
	// of ~/.claude.json (claude mcp add -s local, the default).
	ScopeLocal
	// ScopeManaged servers come from the administrator's
	// managed-mcp.json, which then has exclusive control.
	ScopeManaged
)

func (s Scope) String() string {
	switch s {
	case ScopeSession:
		return "session"
	case ScopeSettings:
		return "settings"
	case ScopeProject:
		return "project"
	case ScopeUser:
		return "user"
	case ScopeLocal:
		return "local"
	case ScopeManaged:
		return "managed"
	}
	return fmt.Sprintf("Scope(%d)", int(s))
}

// Transport types of a Server.
const (
	TypeStdio = "stdio"
	TypeHTTP  = "http" // streamable HTTP
	TypeSSE   = "sse"  // the older HTTP+SSE transport
)

// Server is one configured MCP server.
type Server struct {
	// Name is the server's name as configured; its tools are named
	// mcp__<Name>__<tool> (see ToolName).
	Name  string
	Scope Scope
	// Type is TypeStdio, TypeHTTP or TypeSSE.
	Type string

	// Command, Args and Env start a stdio server. Env is added to the
	// sidecar's environment.
	Command string
	Args    []string
	Env     map[string]string

	// URL and Headers reach an http or sse server.
	URL     string
	Headers map[string]string

	// NeedsApproval marks a project server the user has not approved;
	// Disabled one the user refused (disabledMcpjsonServers). Start
	// reports either and does not start it.
	NeedsApproval bool
	Disabled      bool
	// Blocked says why MCP policy (deniedMcpServers, allowedMcpServers,
	// managed-mcp.json's exclusive control) keeps the server from
	// starting; empty when it may start.
	Blocked string

	// usesEnv marks a managed server whose definition has ${VAR}
	// references: the allowlist still applies to it.
	usesEnv bool
}

// Sources are the places a session's servers come from.
type Sources struct {
	// Workspace is the directory whose .mcp.json is read; empty reads
	// none.
	Workspace string
	// Settings supply server definitions (mcpServers) and the approval
	// of project servers; nil means none and nothing approved.
	Settings *settings.Settings
	// Session are the servers the editor passed in session/new.
	Session []schema.MCPServer
	// LookupEnv expands ${VAR} and ${VAR:-default} in .mcp.json and
	// settings definitions; nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// ClaudeJSON is Claude Code's ~/.claude.json (settings.ClaudeJSONPath):
	// its top-level mcpServers are the user scope; the mcpServers of its
	// projects entry for Folder the local scope, and that entry's
	// enabledMcpjsonServers, disabledMcpjsonServers and
	// enableAllProjectMcpServers approve .mcp.json servers. Empty reads
	// none.
	ClaudeJSON string
	// Folder is the workspace whose local-scope servers are read; unlike
	// Workspace it is set in a folder that is not trusted, since
	// ~/.claude.json is the user's own.
	Folder string
	// ManagedFile is the administrator's managed-mcp.json
	// (DefaultManagedFile); when it exists only its servers may start.
	// Empty reads none.
	ManagedFile string
}

// Collect returns the servers of a session, sorted by name, and what was
// wrong with definitions it had to skip.
//
// A name defined in several places is taken from the first of: the
// editor's session/new, the settings, the local scope (~/.claude.json's
// entry for the folder), the project's .mcp.json, the user scope
// (~/.claude.json's top level). Local beats project beats user as in
// Claude Code, and the checked-in project file cannot shadow a server the
// user configured for the folder. Project servers are approved as in
// Claude Code: they start when enableAllProjectMcpServers is set or their
// name is in enabledMcpjsonServers (in the settings or in the folder's
// entry of ~/.claude.json), unless it is in disabledMcpjsonServers
// (Disabled); the others come back with NeedsApproval set.
//
// When the administrator's managed-mcp.json exists it has exclusive
// control, as in Claude Code: its servers are the only ones that start,
// and every other comes back Blocked. The settings' deniedMcpServers and
// allowedMcpServers then apply to every server (see policy.go).
func Collect(src Sources) ([]Server, []error) {
	lookup := src.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	var errs []error
	byName := make(map[string]Server)
	add := func(s Server) {
		if _, taken := byName[s.Name]; !taken {
			byName[s.Name] = s
		}
	}

	for _, s := range src.Session {
		srv, err := fromSchema(s)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		add(srv)
	}
	if st := src.Settings; st != nil {
		for _, name := range slices.Sorted(maps.Keys(st.MCPServers)) {
			srv, err := parseEntry(name, st.MCPServers[name], ScopeSettings, lookup)
			if err != nil {
				errs = append(errs, fmt.Errorf("settings: %w", err))
				continue
			}
			add(srv)
		}
	}
	cj, cerrs := readClaudeJSON(src.ClaudeJSON, src.Folder, lookup)
	errs = append(errs, cerrs...)
	for _, srv := range cj.local {
		add(srv)
	}
	if src.Workspace != "" {
		path := filepath.Join(src.Workspace, ProjectFile)
		project, perrs := loadFile(path, ScopeProject, lookup)
		errs = append(errs, perrs...)
		for _, srv := range project {
			approve(&srv, src.Settings, cj.approval)
			add(srv)
		}
	}
	for _, srv := range cj.user {
		add(srv)
	}

	managed, exclusive, merrs := loadManaged(src.ManagedFile, lookup)
	errs = append(errs, merrs...)
	if exclusive {
		for name, srv := range byName {
			srv.Blocked = fmt.Sprintf("the administrator's %s has exclusive control over MCP servers", src.ManagedFile)
			byName[name] = srv
		}
		for _, srv := range managed {
			byName[srv.Name] = srv
		}
	}

	out := slices.SortedFunc(maps.Values(byName), func(a, b Server) int { return strings.Compare(a.Name, b.Name) })
	applyPolicy(out, src.Settings, lookup)
	return out, errs
}

// approve applies the approval of project servers, by the settings and
// by the folder's entry of ~/.claude.json, to srv.
func approve(srv *Server, st *settings.Settings, cj approval) {
	var s settings.Settings
	if st != nil {
		s = *st
	}
	switch {
	case slices.Contains(s.DisabledMcpjsonServers, srv.Name), slices.Contains(cj.Disabled, srv.Name):
		srv.Disabled = true
	case s.EnableAllProjectMcpServers, cj.EnableAll,
		slices.Contains(s.EnabledMcpjsonServers, srv.Name), slices.Contains(cj.Enabled, srv.Name):
	default:
		srv.NeedsApproval = true
	}
}

// loadFile reads a file in .mcp.json's format. A missing file holds no
// servers and is no error. Definitions that are not valid are skipped and
// reported with the file's name.
func loadFile(path string, scope Scope, lookup func(string) (string, bool)) ([]Server, []error) {
	data, err := settings.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, []error{fmt.Errorf("reading MCP servers: %w", err)}
	}
	servers, errs := Parse(data, scope, lookup)
	for i, e := range errs {
		errs[i] = fmt.Errorf("%s: %w", path, e)
	}
	return servers, errs
}

// Parse reads Claude Code's .mcp.json format:
//
//	{"mcpServers": {
//	  "files": {"command": "npx", "args": ["-y", "some-server"], "env": {"KEY": "${KEY}"}},
//	  "issues": {"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}}
//	}}
//
// The type is "stdio" (the default when command is set), "http" (the
// default when url is set) or "sse". ${VAR} and ${VAR:-default} are
// expanded in command, args, env, url and headers with lookup (nil means
// os.LookupEnv); a definition naming a variable that is not set and has no
// default is reported and skipped. Keys this package does not use are
// ignored. The servers come back sorted by name.
func Parse(data []byte, scope Scope, lookup func(string) (string, bool)) ([]Server, []error) {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	var file struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, []error{fmt.Errorf("not a valid MCP configuration: %w", err)}
	}
	var (
		out  []Server
		errs []error
	)
	for _, name := range slices.Sorted(maps.Keys(file.MCPServers)) {
		srv, err := parseEntry(name, file.MCPServers[name], scope, lookup)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, srv)
	}
	return out, errs
}

// entry is one server definition in .mcp.json's format.
type entry struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
}

func parseEntry(name string, raw json.RawMessage, scope Scope, lookup func(string) (string, bool)) (Server, error) {
	var e entry
	if err := json.Unmarshal(raw, &e); err != nil {
		return Server{}, fmt.Errorf("MCP server %q: %w", name, err)
	}
	x := expander{lookup: lookup}
	srv := Server{
		Name:    name,
		Scope:   scope,
		Type:    e.Type,
		Command: x.expand(e.Command),
		URL:     x.expand(e.URL),
	}
	for _, a := range e.Args {
		srv.Args = append(srv.Args, x.expand(a))
	}
	srv.Env = x.expandMap(e.Env)
	srv.Headers = x.expandMap(e.Headers)
	if x.missing != nil {
		slices.Sort(x.missing) // maps expand in random order
		x.missing = slices.Compact(x.missing)
		return Server{}, fmt.Errorf("MCP server %q: environment variable %s is not set and has no default", name, strings.Join(x.missing, ", "))
	}
	if err := srv.check(); err != nil {
		return Server{}, err
	}
	return srv, nil
}

// fromSchema converts a server the editor passed in session/new.
func fromSchema(s schema.MCPServer) (Server, error) {
	srv := Server{
		Name:    s.Name,
		Scope:   ScopeSession,
		Type:    s.Type,
		Command: s.Command,
		Args:    slices.Clone(s.Args),
		URL:     s.URL,
	}
	for _, v := range s.Env {
		if srv.Env == nil {
			srv.Env = make(map[string]string)
		}
		srv.Env[v.Name] = v.Value
	}
	for _, h := range s.Headers {
		if srv.Headers == nil {
			srv.Headers = make(map[string]string)
		}
		srv.Headers[h.Name] = h.Value
	}
	if err := srv.check(); err != nil {
		return Server{}, fmt.Errorf("session/new: %w", err)
	}
	return srv, nil
}

// check fills in the default type and rejects definitions that cannot
// start.
func (s *Server) check() error {
	if s.Name == "" {
		return fmt.Errorf("MCP server without a name")
	}
	if s.Type == "streamable-http" { // Claude Code's alias
		s.Type = TypeHTTP
	}
	if s.Type == "" {
		s.Type = TypeStdio
		if s.Command == "" && s.URL != "" {
			s.Type = TypeHTTP
		}
	}
	switch s.Type {
	case TypeStdio:
		if s.Command == "" {
			return fmt.Errorf("MCP server %q: stdio server without a command", s.Name)
		}
	case TypeHTTP, TypeSSE:
		if s.URL == "" {
			return fmt.Errorf("MCP server %q: %s server without a url", s.Name, s.Type)
		}
	default:
		return fmt.Errorf("MCP server %q: unsupported type %q (want stdio, http or sse)", s.Name, s.Type)
	}
	return nil
}

// expander expands ${VAR} and ${VAR:-default}, remembering variables that
// are neither set nor defaulted.
type expander struct {
	lookup  func(string) (string, bool)
	missing []string
}

func (x *expander) expand(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			break
		}
		b.WriteString(s[:i])
		ref := s[i+2 : i+j]
		name, def, hasDef := strings.Cut(ref, ":-")
		if v, ok := x.lookup(name); ok {
			b.WriteString(v)
		} else if hasDef {
			b.WriteString(def)
		} else {
			if !slices.Contains(x.missing, name) {
				x.missing = append(x.missing, name)
			}
		}
		s = s[i+j+1:]
	}
	b.WriteString(s)
	return b.String()
}

func (x *expander) expandMap(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = x.expand(v)
	}
	return out
}
