// Package tools implements the agent's tools (Read, Write, Edit, Grep, Bash,
// ...) with Claude Code's names and input fields.
//
// A Tool knows its schema and how to run; it knows nothing of the engine,
// the permission gate or the protocol. Everything a tool needs from the
// outside world reaches it through an Env: the workspace roots, a FileSystem
// that reads the editor's unsaved buffers and writes through the editor, and
// a record of which files the model has read.
//
// A failure the model should see (a missing file, an old_string not found)
// is a Result with IsError set, never a Go error.
package tools
