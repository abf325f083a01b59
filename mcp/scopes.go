package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"runtime"
	"slices"

	"github.com/agent-lsp/agent-lsp/settings"
)

// DefaultManagedFile returns where Claude Code looks for the
// administrator's managed-mcp.json on this system.
func DefaultManagedFile() string {
	return managedFileFor(runtime.GOOS)
}

func managedFileFor(goos string) string {
	switch goos {
	case "darwin":
		return "/Library/Application Support/ClaudeCode/managed-mcp.json"
	case "windows":
		return `C:\Program Files\ClaudeCode\managed-mcp.json`
	}
	return "/etc/claude-code/managed-mcp.json"
}

// approval is what the folder's entry of ~/.claude.json says about the
// project's .mcp.json servers (Claude Code writes it when the user
// answers its approval dialog).
type approval struct {
	Enabled   []string `json:"enabledMcpjsonServers"`
	Disabled  []string `json:"disabledMcpjsonServers"`
	EnableAll bool     `json:"enableAllProjectMcpServers"`
}

// claudeJSON is what ~/.claude.json holds for a session: the user-scope
// servers, the folder's local-scope servers and approvals.
type claudeJSON struct {
	user, local []Server
	approval    approval
}

// readClaudeJSON reads Claude Code's ~/.claude.json. Claude Code keeps
// many other keys there (numStartups, oauthAccount, the projects' history
// and trust...), which are ignored. A missing file holds nothing.
func readClaudeJSON(path, folder string, lookup func(string) (string, bool)) (claudeJSON, []error) {
	var out claudeJSON
	if path == "" {
		return out, nil
	}
	data, err := settings.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return out, []error{fmt.Errorf("reading MCP servers: %w", err)}
	}
	var file struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
		Projects   map[string]json.RawMessage `json:"projects"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return out, []error{fmt.Errorf("%s: not valid JSON: %w", path, err)}
	}
	var errs []error
	parse := func(servers map[string]json.RawMessage, scope Scope, where string) []Server {
		var list []Server
		for _, name := range slices.Sorted(maps.Keys(servers)) {
			srv, err := parseEntry(name, servers[name], scope, lookup)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s%s: %w", path, where, err))
				continue
			}
			list = append(list, srv)
		}
		return list
	}
	out.user = parse(file.MCPServers, ScopeUser, "")
	if folder == "" {
		return out, errs
	}
	key, raw := projectEntry(file.Projects, folder)
	if raw == nil {
		return out, errs
	}
	var project struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
		approval
	}
	if err := json.Unmarshal(raw, &project); err != nil {
		return out, append(errs, fmt.Errorf("%s: projects[%q]: %w", path, key, err))
	}
	out.local = parse(project.MCPServers, ScopeLocal, fmt.Sprintf(": projects[%q]", key))
	out.approval = project.approval
	return out, errs
}

// projectEntry finds folder's entry among the projects of ~/.claude.json,
// which Claude Code keys by the folder's resolved path (with forward
// slashes on Windows).
func projectEntry(projects map[string]json.RawMessage, folder string) (string, json.RawMessage) {
	abs, err := filepath.Abs(folder)
	if err != nil {
		abs = folder
	}
	for _, key := range []string{settings.ResolveFolder(folder), abs, folder} {
		for _, k := range []string{key, filepath.ToSlash(key)} {
			if raw, ok := projects[k]; ok {
				return k, raw
			}
		}
	}
	return "", nil
}

// loadManaged reads the administrator's managed-mcp.json. exclusive is
// true when the file exists, even when it is not valid: an administrator
// who deployed one meant to control the servers, so nothing else starts.
func loadManaged(path string, lookup func(string) (string, bool)) (servers []Server, exclusive bool, errs []error) {
	if path == "" {
		return nil, false, nil
	}
	data, err := settings.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, true, []error{fmt.Errorf("reading the managed MCP servers (no other server starts): %w", err)}
	}
	servers, errs = Parse(data, ScopeManaged, lookup)
	for i, e := range errs {
		errs[i] = fmt.Errorf("%s: %w", path, e)
	}
	// The allowlist still applies to a managed server whose definition
	// takes values from the user's environment.
	var raw struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	if json.Unmarshal(data, &raw) == nil {
		for i, srv := range servers {
			servers[i].usesEnv = usesVars(raw.MCPServers[srv.Name])
		}
	}
	return servers, true, errs
}
