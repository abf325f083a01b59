// Package mcp gives a session the tools of the user's Model Context
// Protocol servers, through the official Go SDK's client.
//
// # Configuration
//
// Collect gathers a session's servers from three places: the mcpServers the
// editor passes in session/new (ACP and the LSP door alike), the
// mcpServers of the settings, and the workspace's .mcp.json in Claude
// Code's format (stdio servers with command, args and env; http or sse
// servers with url and headers; ${VAR} and ${VAR:-default} expanded).
// Servers of .mcp.json are the project's, checked in by anyone: they start
// only once approved by enableAllProjectMcpServers or
// enabledMcpjsonServers, and never when named in disabledMcpjsonServers.
// The others are reported as needing approval.
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
