// Package archtest checks the project's architecture: that dependencies
// point one way, cmd -> [wrap ->] server -> engine -> {tools, session,
// providers, ...} -> {diffs, schema, pathres}, with rpc (framing) known
// only to the doors and wrap mode's proxy.
package archtest

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/agent-lsp/agent-lsp/"

// forbidden lists, per package (a path prefix within the module), the
// project packages it must never import, directly, in non-test files.
var forbidden = map[string][]string{
	"rpc":        {"engine", "server", "tools", "session", "providers", "workspace", "permission", "settings", "hooks", "sandbox", "mcp", "cmd"},
	"schema":     {"engine", "server", "rpc", "tools", "session", "providers", "workspace", "diffs", "cmd"},
	"pathres":    {"engine", "server", "rpc", "tools", "session", "providers", "workspace", "permission", "settings", "hooks", "sandbox", "mcp", "watch", "diffs", "schema", "cmd", "internal"},
	"diffs":      {"engine", "server", "rpc", "tools", "session", "providers", "workspace", "schema", "cmd"},
	"engine":     {"server", "rpc", "cmd", "internal"},
	"tools":      {"engine", "server", "rpc", "session", "providers", "workspace", "permission", "hooks", "cmd"},
	"session":    {"engine", "server", "rpc", "tools", "workspace", "cmd"},
	"providers":  {"engine", "server", "rpc", "tools", "session", "workspace", "cmd"},
	"workspace":  {"engine", "server", "rpc", "cmd"},
	"permission": {"engine", "server", "rpc", "tools", "cmd"},

	// The shell classifier knows nothing of rules or the session: the
	// policy hands it what it needs (shell.Env).
	"permission/shell": {"engine", "server", "rpc", "tools", "session", "providers", "workspace", "permission", "hooks", "sandbox", "mcp", "watch", "diffs", "schema", "cmd"},

	// The call pipeline is the shape of a tool call's way to its tool:
	// the engine builds it from the session's parts, which it knows
	// nothing of.
	"pipeline": {"engine", "server", "rpc", "session", "providers", "workspace", "settings", "hooks", "sandbox", "mcp", "watch", "langserver", "wrap", "cmd", "internal"},

	// Checkpoints know the folder and git objects, nothing of sessions,
	// tools or the editor: the engine hands them the buffers' text.
	"checkpoint": {"engine", "server", "rpc", "tools", "session", "providers", "workspace", "permission", "settings", "hooks", "mcp", "watch", "langserver", "wrap", "schema", "diffs", "cmd", "internal"},

	// Thumbnails know images, nothing of the editor protocol or sessions:
	// the door hands them the decoded bytes.
	"thumbnail": {"engine", "server", "rpc", "tools", "session", "providers", "workspace", "permission", "settings", "hooks", "sandbox", "mcp", "watch", "langserver", "wrap", "schema", "diffs", "cmd", "internal"},

	"settings": {"engine", "server", "rpc", "tools", "permission", "hooks", "cmd"},
	"hooks":    {"engine", "server", "rpc", "tools", "cmd"},
	"sandbox":  {"engine", "server", "rpc", "tools", "cmd"},
	// The network proxy knows hosts and streams, nothing of settings,
	// rules or sessions: the engine hands it a Policy per command. It
	// shares only the launcher's constants (sandbox/seccomp).
	"netproxy":   {"engine", "server", "rpc", "tools", "session", "providers", "workspace", "permission", "settings", "hooks", "mcp", "watch", "langserver", "wrap", "cmd"},
	"mcp":        {"engine", "server", "rpc", "cmd"},
	"watch":      {"engine", "server", "rpc", "cmd"},
	"server":     {"cmd", "wrap"},
	"wrap":       {"engine", "tools", "session", "providers", "permission", "settings", "hooks", "sandbox", "mcp", "langserver", "cmd"},
	"procgroup":  {"engine", "server", "rpc", "tools", "session", "providers", "workspace", "permission", "settings", "hooks", "sandbox", "mcp", "watch", "diffs", "schema", "pathres", "langserver", "cmd", "internal"},
	"langserver": {"engine", "server", "rpc", "tools", "session", "providers", "workspace", "permission", "settings", "hooks", "sandbox", "mcp", "cmd"},
}

// engineFree are third-party packages the engine and below must not use:
// JSON-RPC belongs to the doors.
var engineFree = []string{"go.lsp.dev/jsonrpc2", "go.lsp.dev/protocol"}

func TestImportDirection(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if name == "node_modules" || name == "testdata" || (strings.HasPrefix(name, ".") && path != root) || (name == "editors" && path != root) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		rel = filepath.ToSlash(rel)
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		for _, imp := range f.Imports {
			p := strings.Trim(imp.Path.Value, `"`)
			for pkg, bad := range forbidden {
				if rel != pkg && !strings.HasPrefix(rel, pkg+"/") {
					continue
				}
				for _, b := range bad {
					if p == module+b || strings.HasPrefix(p, module+b+"/") {
						t.Errorf("%s imports %s: %s must not depend on %s", relFile(root, path), p, pkg, b)
					}
				}
				if pkg != "server" && pkg != "rpc" && pkg != "langserver" && pkg != "wrap" {
					for _, b := range engineFree {
						if p == b || strings.HasPrefix(p, b+"/") {
							t.Errorf("%s imports %s: only the protocol doors (server, rpc, wrap, cmd) speak JSON-RPC", relFile(root, path), p)
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 10 {
		t.Fatalf("checked only %d files; is the walk rooted at the module?", checked)
	}
}

func relFile(root, path string) string {
	rel, _ := filepath.Rel(root, path)
	return rel
}
