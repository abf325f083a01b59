// Package sandbox runs shell commands inside bubblewrap (bwrap). It has
// two sandboxes and one container, chosen per tool call by how the call
// was allowed.
//
// # Confined: commands that run without a question
//
// A Confiner holds the commands that the permission policy allowed only
// because its classifier judged them harmless (permission.Decision's
// Confine). It does not depend on the settings: whenever bwrap works, such
// a command sees
//   - the workspace roots, read-only (writable for acceptEdits' writes,
//     with the protected paths below read-only);
//   - the system's program, library and configuration folders (/usr, /bin,
//     /lib*, /etc), read-only, with /etc's secrets (shadow, ssh host keys,
//     ssl/private, sudoers, ...) masked;
//   - a private /tmp (also its HOME), a minimal /dev and its own /proc in a
//     PID namespace, so neither /proc nor `ps axeww` shows the sidecar;
//   - no network (a network namespace of its own), no home directory, no
//     other project, nothing a Read deny rule covers (masked: an empty
//     read-only directory over a folder, /dev/null over a file);
//   - an environment built from an allowlist (PATH, LANG, LC_*, TERM,
//     USER, LOGNAME, TZ, NO_COLOR; HOME=/tmp): never the sidecar's API
//     keys or other secrets. bwrap itself starts with no environment,
//     because it is PID 1 inside and /proc/1/environ is readable there.
//
// Every git in a confined command gets GitConfig through GIT_CONFIG_COUNT
// (fsmonitor off, pager cat, hooks /dev/null, no credential helper, ssh
// command, gpg program, alternate refs command, ext/file/all protocols
// never, bare repositories only when explicit, ...), and the config file
// of every repository in the workspace (the roots', nested ones,
// submodules, bare ones) is replaced by a sanitised copy that keeps only
// the keys git needs to read the repository: drivers (diff textconv and
// command, filters, merge drivers), diff.external, includes, pagers and
// every other key that names a program are gone. The sidecar's own git
// status for the system prompt runs the same way (Confiner.Git).
//
// A Read deny rule is also held against git: when a repository's HEAD
// commit or index holds a file the rule covers, the confined sandbox hides
// that repository's objects (git fails there, and the engine asks before
// commands that run git by name). Files only in older commits are not
// looked for.
//
// Without bwrap the Confiner can only clear the environment (env -i with
// the allowlist and GitConfig, plus empty values for the drivers the
// workspace repositories' configs name): NewConfiner's warning says so
// once, and the engine makes the policy ask for every command but a
// short list (permission.Policy.SetUnconfined).
//
// # The configured sandbox: commands the user approved
//
// Commands the user approved (a click, their allow rules,
// bypassPermissions, a hook) run as the settings say. With
// sandbox.enabled, a Sandbox makes the workspace folders, the additional
// directories, /tmp and sandbox.filesystem.allowWrite writable and the
// rest of the filesystem read-only; the network is off unless the settings
// allow every host. The command gets its own session, PID and IPC
// namespaces, and dies with the sidecar.
//
// When bwrap is missing, or cannot create a sandbox (no user namespaces,
// as in some containers), New says so once, and Wrap then refuses to run
// commands unless the settings allow running them unsandboxed
// (sandbox.failIfUnavailable false or sandbox.allowUnsandboxedCommands
// true).
//
// # Protected paths
//
// In every sandbox where the workspace is writable, the paths whose
// content runs code or grants permissions later, outside the sandbox
// (.git/hooks, .git/config, .git/info, .claude, .mcp.json, .vscode,
// .husky), stay read-only and cannot be created where missing. bwrap can
// only mount over a path that exists, and bwrap 0.8 has no overlay, so a
// missing one gets a placeholder on the host just before the command
// starts (an empty directory, or a file holding "{}"), mounted read-only
// over itself; the last command that uses it removes it when it ends, if
// nobody changed it. While the command runs, the host sees the empty
// placeholder. Known limits: a protected path that is a symlink is
// protected at its target, and the link itself can be replaced; a second
// sidecar process on the same workspace may remove a placeholder that
// this one still uses.
//
// # Contained: approved commands outside any sandbox
//
// A command that runs outside any sandbox (sandbox.enabled false) still
// runs in a PID namespace of its own when bwrap works (Confiner.Contain:
// the host's filesystem writable, its network and environment as they
// are; root keeps its capabilities), so that killing the command's first
// process on cancel, timeout or exit kills everything it started, even
// what left its process group or session (setsid, set -m, GNU timeout).
// A command in a PID namespace sees only its own processes.
package sandbox
