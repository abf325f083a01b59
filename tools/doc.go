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
//
// # The tools
//
// New returns, in this order: Read, Write, Edit, MultiEdit, Glob, Grep, LS,
// Bash, BashOutput, KillBash, TodoWrite, WebFetch and NotebookEdit. Each
// tool's description is the .md file beside it. Its input struct is the
// one source of its input schema and of the decoding rules: InputSchema
// infers the schema from the struct's json and jsonschema tags, as the MCP
// go-sdk does for typed tools (testdata/input_schemas.json shows the
// result), and inputs are decoded strictly by the same tags: a missing or
// wrong-typed field is an error result naming it ("file_path: expected
// string, got number"). Every path goes through
// Env.Resolve, which refuses paths outside the workspace roots, symbolic
// links included.
//
// Edit, MultiEdit and Write implement Previewer with the exact old and new
// text of the file, refuse to change a file the model has not Read (or that
// changed since), and record what they wrote as read. Bash previews its
// command. NotebookEdit changes one cell of a .ipynb file the same way, as
// a whole-file change that keeps the notebook's JSON layout (key order,
// indent, string escapes of the cells it does not touch); Read shows a
// notebook cell by cell with its outputs.
//
// WebFetch gets a URL (http becomes https except on loopback), converts
// HTML to markdown, cuts it to WebFetchMaxChars, and follows redirects
// only on the same host: a redirect elsewhere is reported to the model,
// which fetches the new URL in a new call that is permitted on its own.
// With Env.Ask set it answers its prompt about the page with a small
// model instead of returning the page.
//
// # Files a repository ships
//
// Every read of a file is of a regular file of at most MaxFileBytes,
// opened without waiting: a FIFO, a device, a link to /dev/zero or a
// 20 GB sparse file is an error result that says what it is, never a
// wait or an allocation without bound. Read pages through a bigger text
// file with offset and limit, reading no further than the lines asked
// for. A search (Grep) leaves such files out, and the content of a file
// with more than one name (a hard link, which may be a file outside the
// workspace); the permission gate decides a call that names one as that
// file (permission/identity.go). A file the editor refused to serve
// (Refuser) is left out of every search, as one a deny rule hides.
//
// # Session lifetime
//
// Tools are built per session. Bash's background shells (run_in_background)
// belong to the session: Env.Close, or Close on the Bash tool, kills them
// and every process they started. The engine must call one of them when
// the session ends.
//
// # Search
//
// Glob, Grep and LS see the same files: hidden files are included, .git is
// not, symbolic links are not followed, and .gitignore files (nested ones
// too) are honoured from the workspace root down, as ripgrep does with
// --hidden --no-require-git. Grep has two engines that give the same
// answers: ripgrep, used when rg is on PATH and the FileSystem is DiskFS or
// an OpenFileLister (so open editor buffers can be searched beside it), and
// an in-process engine (parallel walk, required-literal prefilter, regexp on
// candidate lines only) otherwise. The in-process engine uses Go's regexp,
// whose \w, \d, \s and \b are ASCII-only where ripgrep's are Unicode-aware;
// on ASCII text the two agree.
//
// A file a permission rule keeps from the model (Env.Hide, set by the
// engine from the session's policy: a Read deny or ask rule covers every
// file-reading tool) is left out of all three: the walk prunes it (a
// directory with everything under it), ripgrep gets it as an exclusion
// where the rule can be written as one and its output is filtered by the
// rule itself, and an editor buffer of it is not searched.
package tools
