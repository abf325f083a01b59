package settings

import (
	"encoding/json"
	"fmt"
	"runtime"
)

// DefaultManagedPath is where Claude Code's managed policy file lives on
// this system ([ManagedPathFor]). Pass it as [Options.ManagedPath] to
// honour an administrator's policy.
var DefaultManagedPath = ManagedPathFor(runtime.GOOS)

// ManagedPathFor returns where Claude Code reads its managed policy file
// on goos: /Library/Application Support/ClaudeCode on macOS,
// C:\Program Files\ClaudeCode on Windows, /etc/claude-code elsewhere.
// The managed-settings.d folder beside it holds drop-in files.
func ManagedPathFor(goos string) string {
	switch goos {
	case "darwin":
		return "/Library/Application Support/ClaudeCode/managed-settings.json"
	case "windows":
		return `C:\Program Files\ClaudeCode\managed-settings.json`
	}
	return "/etc/claude-code/managed-settings.json"
}

// DefaultCleanupPeriodDays is how many days sessions are kept when no
// layer sets cleanupPeriodDays, as in Claude Code.
const DefaultCleanupPeriodDays = 30

// initializationOptionsName names the initializationOptions layer in
// positions and problems.
const initializationOptionsName = "initializationOptions"

// Settings is the merged result of every layer.
type Settings struct {
	// Project is the workspace root the settings were loaded for.
	Project string
	// Home is the home directory used to find the user's settings and to
	// expand "~".
	Home string

	Permissions Permissions
	// Hooks maps an event name (PreToolUse, PostToolUse, ...) to its
	// matchers, from every layer, highest priority first.
	Hooks map[string][]HookMatcher
	// DisableAllHooks turns every hook off.
	DisableAllHooks bool
	Sandbox         Sandbox

	// Model, Provider and BaseURL pick the model and where it is served.
	Model    string
	Provider string
	BaseURL  string
	// FallbackModel answers a turn whose model is overloaded (or failing
	// with a server error) after the retries; empty for none.
	FallbackModel string
	// AvailableModels, when not nil, are the only models the user may
	// pick (IDs, or aliases such as "sonnet" matching any ID that holds
	// them); the highest-priority layer that sets it decides.
	AvailableModels []string
	// APIKeyHelper is a shell command whose output is the API key.
	APIKeyHelper string
	// Env holds environment variables for the session's commands.
	Env map[string]string

	// AlwaysThinkingEnabled is Claude Code's thinking switch: false turns
	// extended thinking off; nil (unset) and true leave it on.
	AlwaysThinkingEnabled *bool
	// EffortLevel is the effort asked of models that take one ("low",
	// "medium", "high", "xhigh", "max"); empty when no layer sets it.
	EffortLevel string
	// AutoMemoryEnabled is Claude Code's auto memory switch: false turns
	// it off; nil (unset) and true leave it on.
	AutoMemoryEnabled *bool
	// AutoMemoryDirectory is where auto memory is kept instead of
	// ~/.claude/projects/<project>/memory (absolute); only the user's
	// and the managed settings may set it.
	AutoMemoryDirectory string

	// EnableAllProjectMcpServers approves every server of the project's
	// .mcp.json; EnabledMcpjsonServers and DisabledMcpjsonServers approve
	// or refuse them by name.
	EnableAllProjectMcpServers bool
	EnabledMcpjsonServers      []string
	DisabledMcpjsonServers     []string
	// MCPServers are server definitions (Claude Code's .mcp.json format),
	// keyed by name.
	MCPServers map[string]json.RawMessage
	// AllowedMcpServers and DeniedMcpServers are Claude Code's MCP
	// allowlist and denylist, merged from every layer; the allowlist
	// from the managed layer alone when AllowManagedMcpServersOnly (read
	// from the managed layer only) is set. A nil allowlist is unset
	// (every server allowed); an empty, non-nil one allows none.
	AllowedMcpServers          []MCPServerRule
	DeniedMcpServers           []MCPServerRule
	AllowManagedMcpServersOnly bool

	// LSP configures the language servers agent-lsp starts itself.
	LSP LSP

	// CleanupPeriodDays is how many days a session is kept after its
	// last change; older ones are deleted when agent-lsp starts. Always
	// at least 1 (DefaultCleanupPeriodDays when no layer sets it).
	CleanupPeriodDays int
	// CommitAttribution and PRAttribution are the text the model puts at
	// the end of a commit message and of a pull request description; nil
	// means agent-lsp's default, "" none (attribution.commit and
	// attribution.pr, else includeCoAuthoredBy: false).
	CommitAttribution *string
	PRAttribution     *string
	// NoGitInstructions leaves the git commit and pull request
	// instructions out of the system prompt (includeGitInstructions:
	// false).
	NoGitInstructions bool
	// IncludeIgnored makes Glob list files that .gitignore excludes
	// (respectGitignore: false).
	IncludeIgnored bool
	// NoAutoCompact stops the session from compacting by itself when the
	// context fills up (autoCompactEnabled: false); /compact still works.
	NoAutoCompact bool
	// Language is the language the model answers in ("" for the user's).
	Language string

	// ManagedHooksOnly and ManagedPermissionRulesOnly are set by managed
	// settings only (allowManagedHooksOnly, ...): hooks and permission
	// rules then come from managed settings alone, and Hooks and
	// Permissions already hold only theirs. (allowManagedMcpServersOnly
	// is AllowManagedMcpServersOnly, above.)
	ManagedHooksOnly           bool
	ManagedPermissionRulesOnly bool

	// Inert are the settings files' keys that Claude Code knows and that
	// have no effect in agent-lsp, with the reason, highest layer first.
	Inert []Inert

	// Files are the settings files that were read, highest priority
	// first.
	Files []string

	// ProjectRestricted is set when the project folder is not trusted:
	// its own layers contributed only what tightens the rules, and its
	// .mcp.json must not be read.
	ProjectRestricted bool
	// HeldBack is what the untrusted project's files hold that stays off
	// until the user trusts the folder; empty when nothing is.
	HeldBack []HeldBack
}

// MCPServerRule is one entry of allowedMcpServers or deniedMcpServers:
// a server's name, the exact command and arguments of a stdio server, or
// a URL pattern (with * wildcards) of a remote one.
type MCPServerRule struct {
	ServerName    string   `json:"serverName,omitempty"`
	ServerCommand []string `json:"serverCommand,omitempty"`
	ServerURL     string   `json:"serverUrl,omitempty"`
}

// Permissions is the merged "permissions" block.
type Permissions struct {
	// Allow, Deny and Ask are permission rules in Claude Code's syntax,
	// highest priority layer first. Deny beats ask beats allow.
	Allow []Rule
	Deny  []Rule
	Ask   []Rule
	// DefaultMode is the permission mode new sessions start in; empty
	// when no layer sets it.
	DefaultMode string
	// AdditionalDirectories are directories outside the workspace that
	// tools may use (absolute, cleaned).
	AdditionalDirectories []string
	// DisableBypassPermissions forbids the bypassPermissions mode. Any
	// layer can set it ("disableBypassPermissionsMode": "disable").
	DisableBypassPermissions bool
}

// Rule is one permission rule as written, with where it was written.
type Rule struct {
	Text string
	Pos  Position
}

// String returns the rule's text.
func (r Rule) String() string { return r.Text }

// Position is a place in a settings layer. Line and Column are 1-based;
// they are 0 when unknown.
type Position struct {
	File   string
	Line   int
	Column int
}

// String formats the position as file:line:column.
func (p Position) String() string {
	switch {
	case p.Line == 0:
		return p.File
	case p.Column == 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Column)
}

// Problem is something wrong in a settings layer: invalid JSON, a value of
// the wrong type, an invalid rule.
type Problem struct {
	File    string
	Line    int
	Column  int
	Message string
	// Warning marks a setting that is valid (Claude Code reads it) but
	// that agent-lsp does not honour: the rest of the file applies and
	// the message names what will not happen.
	Warning bool
}

// String formats the problem as file:line:column: message.
func (p Problem) String() string {
	return Position{File: p.File, Line: p.Line, Column: p.Column}.String() + ": " + p.Message
}

// HookMatcher is a group of hooks that run for the tools (or sources)
// that Matcher selects.
type HookMatcher struct {
	// Matcher selects tool names: "" or "*" for all, a name, "A|B", or a
	// regular expression.
	Matcher string `json:"matcher"`
	Hooks   []Hook `json:"hooks"`
}

// Hook is one hook handler.
type Hook struct {
	// Type is "command" or "http"; other types ("prompt", "agent") are
	// reported as not supported and never run.
	Type string `json:"type"`
	// Command is run by the shell with the event as JSON on stdin; with
	// Args, it is the program, run with those arguments and no shell.
	Command string   `json:"command,omitempty"`
	Args    []string `json:"args,omitempty"`
	// URL receives the event as a JSON POST (type "http"), with Headers,
	// whose $VAR and ${VAR} are expanded from the environment for the
	// variables AllowedEnvVars names only.
	URL            string            `json:"url,omitempty"`
	Headers        map[string]string `json:"headers,omitempty"`
	AllowedEnvVars []string          `json:"allowedEnvVars,omitempty"`
	// Prompt is the text of a "prompt" or "agent" hook.
	Prompt string `json:"prompt,omitempty"`
	// If is a permission rule ("Bash(rm *)", "Edit(src/**)"): the hook
	// runs only for tool calls the rule covers. Tool events only.
	If string `json:"if,omitempty"`
	// StatusMessage is shown to the user while the hook runs.
	StatusMessage string `json:"statusMessage,omitempty"`
	// Timeout is in seconds; 0 means the default (60 s).
	Timeout float64 `json:"timeout,omitempty"`
}

// Sandbox is the "sandbox" block.
type Sandbox struct {
	// Enabled runs shell commands inside bubblewrap.
	Enabled bool
	// FailIfUnavailable and AllowUnsandboxedCommands decide what happens
	// when the sandbox cannot run: commands run unsandboxed only when
	// FailIfUnavailable is explicitly false or AllowUnsandboxedCommands is
	// explicitly true. Nil means unset.
	FailIfUnavailable        *bool
	AllowUnsandboxedCommands *bool
	Network                  SandboxNetwork
	Filesystem               SandboxFilesystem
}

// MayRunUnsandboxed reports whether the settings let commands run without
// the sandbox when it is enabled but cannot run.
func (s Sandbox) MayRunUnsandboxed() bool {
	return (s.FailIfUnavailable != nil && !*s.FailIfUnavailable) ||
		(s.AllowUnsandboxedCommands != nil && *s.AllowUnsandboxedCommands)
}

// SandboxNetwork is the sandbox's network configuration.
type SandboxNetwork struct {
	// AllowedDomains lists the hosts commands may reach, through the
	// sandbox's proxy (package netproxy): "example.com" that host,
	// "*.example.com" every name below it. "*" alone, without
	// DeniedDomains, gives sandboxes the host's network.
	AllowedDomains []string
	// DeniedDomains lists hosts refused even when AllowedDomains matches
	// them, in the same forms.
	DeniedDomains []string
	// AllowLocalBinding lets commands listen on local ports; it needs the
	// network on.
	AllowLocalBinding bool
}

// SandboxFilesystem is the sandbox's filesystem configuration
// (sandbox.filesystem, as in Claude Code's settings). Every list holds
// absolute, cleaned paths ("~/x" is under the home, a relative path
// under the project); the lists of all layers add up.
type SandboxFilesystem struct {
	// AllowWrite are extra writable folders, such as build caches.
	AllowWrite []string
	// AllowRead are extra folders (or files) the sandboxes show
	// read-only; inside a DenyRead folder, they show that part again.
	AllowRead []string
	// DenyRead are folders and files no sandbox shows, toolchain folders
	// and the workspace included.
	DenyRead []string
	// DenyWrite are folders and files that stay read-only in every
	// sandbox, inside writable folders too.
	DenyWrite []string
}

// EffortLevels are the values of effortLevel, lowest first.
var EffortLevels = []string{"low", "medium", "high", "xhigh", "max"}
