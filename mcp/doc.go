// Package mcp gives a session the tools of the user's Model Context
// Protocol servers, through the official Go SDK's client.
//
// # Configuration
//
// Collect gathers a session's servers from every place Claude Code reads
// them, the first definition of a name winning: the mcpServers the editor
// passes in session/new (ACP and the LSP door alike), the mcpServers of
// the settings, the local scope (the mcpServers of the folder's entry in
// the projects of Claude Code's ~/.claude.json), the workspace's
// .mcp.json, and the user scope (the top-level mcpServers of
// ~/.claude.json); local beats project beats user, as in Claude Code. The
// format is Claude Code's (stdio servers with command, args and env; http
// or sse servers with url and headers; ${VAR} and ${VAR:-default}
// expanded). Servers of .mcp.json are the project's, checked in by
// anyone: they start only once approved by enableAllProjectMcpServers or
// enabledMcpjsonServers (in the settings, or in the folder's entry of
// ~/.claude.json, where Claude Code records the user's answer), and never
// when named in disabledMcpjsonServers. The others are reported as
// needing approval.
//
// An administrator's managed-mcp.json (DefaultManagedFile) has exclusive
// control: only its servers start, and every other is reported Blocked.
// The settings' deniedMcpServers and allowedMcpServers (with
// allowManagedMcpServersOnly) block servers as Claude Code does
// (policy.go).
//
// # Running servers
//
// Start starts every server at once in the background and returns: a
// server that is slow, hangs or crashes delays nothing, and is reported
// through Options.OnStatus (and the log) with its error. Starting,
// initialize and the first tools/list must end within
// Options.StartTimeout. Each server's tools reach Options.OnTools as
// tools.Tool values named mcp__<server>__<tool> (ToolName), with the
// server's description and input schema, Kind "other", and ReadOnly from
// the tool's readOnlyHint annotation; OnTools is called again after each
// notifications/tools/list_changed, and with nil when the server fails or
// stops. Permission rules name these tools as any other
// ("mcp__github__create_issue", or "mcp__github" for all of a server's).
//
// A server that declares resources is listed by ResourceServers, and
// ResourceTools gives the model Claude Code's ListMcpResourcesTool and
// ReadMcpResourceTool over them. A ready server's prompts come in its
// Status; GetPrompt runs one with the words typed after its command
// (CommandName: mcp__<server>__<prompt>). Reconnect restarts one server. A
// remote server that answers 401 with a WWW-Authenticate challenge ends in
// StateNeedsAuth, with an AuthError that says what to do.
//
// A tool call's result maps to a tools.Result: text joined, images as
// images, embedded text resources inline, resource links described,
// anything else noted; text beyond Options.ResultBudget is cut with a
// note, and the server's isError becomes IsError. Every failure (a
// protocol error, a server that stopped) is an error result the model
// sees.
//
// # Processes
//
// A stdio server runs in its own process group, in Options.Dir. Close
// stops every server: it closes a stdio server's stdin, and after
// Options.Grace sends SIGTERM to its whole group, and SIGKILL after
// Options.Grace more. Close returns once every process has been reaped and
// every goroutine of the Manager has ended. A sidecar that dies without
// Close leaves its stdio servers reading end-of-file on stdin, which ends
// a well-behaved server.
package mcp
