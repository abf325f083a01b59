// Package sandbox runs shell commands inside bubblewrap (bwrap) when the
// settings enable it: the workspace folders, the additional directories,
// /tmp and the settings' extra writable directories can be written, the
// rest of the filesystem is read-only, and the network is off unless the
// settings allow every host.
//
// Inside the workspace, directories and files whose content runs code or
// grants permissions (.git/hooks, .git/config, .claude, .mcp.json,
// .vscode, .husky) stay read-only, so a sandboxed command cannot plant
// code that later runs outside the sandbox.
//
// Every sandboxed command also gets its own session (no terminal
// injection), its own PID and IPC namespaces, and dies with the sidecar.
//
// When bwrap is missing, or cannot create a sandbox (no user namespaces,
// as in some containers), New says so once, and Wrap then refuses to run
// commands unless the settings allow running them unsandboxed
// (sandbox.failIfUnavailable false or sandbox.allowUnsandboxedCommands
// true).
package sandbox
