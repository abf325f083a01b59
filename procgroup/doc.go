// Package procgroup starts commands in process groups of their own and
// signals a whole group, so that stopping a hook, a shell, an MCP server
// or a language server stops what it started too. On Windows, which
// cannot signal a group, it ends the group's leader only.
package procgroup
