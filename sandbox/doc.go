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
//   - no capability, even when the sidecar runs as root (bwrap started by
//     root keeps root's capabilities unless told otherwise; in every
//     sandbox here they are dropped);
//   - an environment built from an allowlist (PATH, LANG, LC_*, TERM,
//     USER, LOGNAME, TZ, NO_COLOR; HOME=/tmp): never the sidecar's API
//     keys or other secrets. bwrap itself starts with no environment,
//     because it is PID 1 inside and /proc/1/environ is readable there.
//
// Every git in a confined command gets gitConfig through GIT_CONFIG_COUNT
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
// the allowlist and gitConfig, plus empty values for the drivers the
// workspace repositories' configs name): NewConfiner's warning says so
// once, and the engine makes the policy ask for every command but a
// short list (permission.Policy.SetUnconfined).
//
// # The rule sandbox: commands the user's allow rules allowed
//
// A command allowed by one of the user's allow rules (a settings rule such
// as Bash(git log:*) or Bash(npm test:*), a session "always allow" grant,
// a bare Bash rule) in any mode but bypassPermissions runs with
// Options.Rule when bwrap works. A rule names a command prefix, not what
// the command's options or the repository's scripts make it do: `git log
// --output=/anywhere` or a package.json test script are still held. It
// sees
//   - the workspace roots writable, their protected paths (below)
//     read-only, and the settings' sandbox.filesystem.allowWrite folders
//     writable (build caches: by default a toolchain that writes a cache
//     under the home, such as `go build`'s ~/.cache/go-build, fails);
//   - the rest of the host's filesystem read-only, the user's home
//     included (so toolchains under it work: GOPATH, ~/.cargo, ~/.nvm,
//     caches), even when the home is under /tmp;
//   - with the user's secrets masked: ~/.ssh, ~/.gnupg, ~/.aws, ~/.azure,
//     ~/.config/gcloud, ~/.config/gh, ~/.netrc, ~/.git-credentials,
//     ~/.docker/config.json, ~/.kube, ~/.claude.json, ~/.claude,
//     ~/.npmrc, ~/.pypirc, browser profiles, keyrings, password stores,
//     shell histories, the sockets of container engines and editors under
//     the home (Docker Desktop, colima, lima, Emacs' server), and more
//     (homeSecrets; a symlinked one is masked at
//     its target too), /etc's secrets, and every file a Read deny rule
//     covers: inside the workspace by the same walk as the confined
//     sandbox, outside it by masking the pattern's leading literal folder
//     whole. A deny pattern whose leading folder holds the home or a
//     workspace root (`~/**/.env`, `//**/key`) cannot be masked that way:
//     Wrap then refuses, and the command fails rather than run unmasked;
//   - a private /tmp, /run hidden (agents' and daemons' sockets: a
//     read-only mount does not stop connecting to a socket, so the docker
//     and D-Bus sockets must not be there), a minimal /dev and its own
//     /proc in a PID namespace (the sidecar's /proc/<pid>/environ and its
//     memory, where an apiKeyHelper's key lives, are out of reach);
//   - the network only when the settings' sandbox.network.allowedDomains
//     lists "*" (enabled or not); otherwise none. A failing command's
//     result then tells the model that it ran without network;
//   - the sidecar's environment without its secrets (ANTHROPIC_*,
//     OPENAI_*, CLAUDE_CODE_*, AGENT_LSP_*, AWS_BEARER_TOKEN_*, the ssh
//     and gpg agent sockets, the D-Bus address, XDG_RUNTIME_DIR) and
//     without GIT_* variables, replaced by gitConfig (the user's global
//     git config stays readable: it names who commits); TMPDIR=/tmp.
//
// A rule sandbox replaces the configured sandbox for these commands
// (it is stricter in every respect but the home's readability, which the
// configured sandbox gives too). Two choices are deliberate: a command the
// user approved once by clicking "allow" is not held by it (they saw this
// very command), and bypassPermissions holds nothing (the user chose to
// run everything unasked, knowingly). Without bwrap, rule-allowed commands
// run as before: in the configured sandbox when it can run, else
// unconfined (in the host's environment).
//
// # The configured sandbox: commands the user approved
//
// Commands the user approved one by one (a click), in bypassPermissions
// mode or under a hook's allow run as the settings say. With
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
// (.git/hooks, .git/config, .git/config.worktree, .git/info,
// .git/commondir, .claude, .mcp.json, .vscode, .husky; with a .git file
// whose "gitdir:" names a folder in the workspace, that file and the same
// paths in that folder), stay read-only and cannot be created where
// missing. bwrap can
// only mount over a path that exists, and bwrap 0.8 has no overlay, so a
// missing one gets a placeholder on the host just before the command
// starts (an empty directory, or a file holding "{}"; "." for commondir,
// nothing for config.worktree), mounted read-only
// over itself; the last command that uses it removes it when it ends, if
// nobody changed it. While the command runs, the host sees the empty
// placeholder. .git itself is mounted over itself (still writable), so it
// cannot be renamed or removed with the read-only mounts inside it, and a
// .git file (a worktree's gitdir: line) is read-only. The same holds in
// the repositories of submodules (.git/modules/NAME: config, hooks, info)
// and in linked worktrees' folders (.git/worktrees/NAME: config.worktree,
// commondir, gitdir), whose folders are mounted over themselves too. A
// commondir a command creates in a submodule's repository (git would read
// the config of the folder it names) is removed when it ends. A protected
// path that is a symlink (.git included) cannot be protected:
// bwrap mounts over its target, and the link itself, in a writable folder,
// could be replaced; Wrap then refuses. Known limit: a second sidecar
// process on the same workspace may remove a placeholder that this one
// still uses.
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
