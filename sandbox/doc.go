// Package sandbox runs shell commands inside bubblewrap (bwrap). It has
// four profiles and one container, chosen per tool call by how the call
// was allowed, each one function (profiles.go) over shared mount helpers
// (mounts.go): commonArgs is the one place for the bwrap arguments they
// all share.
//
// # Grant, don't mask
//
// Every profile starts from nothing: bwrap's root is an empty tmpfs, and
// a command sees what its profile grants, never the host less a list.
// Each sees
//   - the system's folders read-only (/usr, /bin, /sbin, /lib*, /opt,
//     /nix/store, /etc), with /etc's secrets masked (shadow, gshadow,
//     sudoers, ssh host keys, ssl/private, ...; etcSecrets);
//   - a minimal /dev, its own /proc in a PID namespace (neither /proc nor
//     `ps axeww` shows the sidecar), a private /tmp;
//   - an empty home: a tmpfs at $HOME, thrown away when the command
//     ends. No credential, token, history or socket of the home is
//     there, listed or not. (When a workspace root is the home itself,
//     the workspace shows it, with homeSecrets masked.)
//   - the toolchain folders, read-only (toolchainFolders): Go's GOROOT,
//     GOPATH, GOMODCACHE and GOCACHE; CARGO_HOME and RUSTUP_HOME; NVM_DIR,
//     VOLTA_HOME and the npm, pnpm and yarn caches; the pip and uv caches,
//     uv's Pythons and PYENV_ROOT; Maven's ~/.m2/repository, Gradle's
//     caches and wrapper, SDKMAN_DIR; and the folders of PATH outside the
//     system's. Each follows the environment variable that moves it (and
//     Go's env file); credential files in them (cargo's credentials) are
//     masked, and Maven's and Gradle's are not in the granted subfolders;
//   - the settings' sandbox.filesystem: allowRead folders read-only,
//     allowWrite folders writable where commands may write outside the
//     workspace (the rule and approved profiles; read-only otherwise),
//     denyRead hidden (the workspace's and the grants' too) unless an
//     allowRead inside shows part again, denyWrite read-only everywhere;
//   - the workspace roots.
//
// Nothing else: no other project, no /home, /root, /srv, /mnt, /var,
// /run (the docker, D-Bus and agents' sockets). A Read deny pattern that
// could match inside a granted folder keeps that folder out (deny beats
// grant); a literal denied path in one is masked alone. A command that
// fails because a folder was not granted gets a note naming the folder
// and the setting that grants it (Confiner.GrantNote).
//
// # Confined: commands that run without a question
//
// A Confiner holds the commands that the permission policy allowed only
// because its classifier judged them harmless (permission.Decision's
// Confine). It does not depend on the settings' enabled flag: whenever
// bwrap works, such a command runs in the read-only profile (the
// workspace read-only) or, for acceptEdits' writes, the workspace
// profile (the workspace writable, what runs later read-only); with
//   - no network (a network namespace of its own), nothing a Read deny
//     rule covers (masked: an empty read-only directory over a folder,
//     /dev/null over a file);
//   - no capability, even when the sidecar runs as root (bwrap started by
//     root keeps root's capabilities unless told otherwise; in every
//     sandbox here they are dropped);
//   - an environment built from an allowlist (PATH, LANG, LC_*, TERM,
//     USER, LOGNAME, TZ, NO_COLOR, the toolchain variables of
//     toolchainVars; HOME, the empty home): never the sidecar's API keys
//     or other secrets. bwrap itself starts with no environment, because
//     it is PID 1 inside and /proc/1/environ is readable there.
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
// gets what every profile gets, and
//   - the workspace roots writable, what runs later (below) read-only,
//     the settings' allowWrite writable (build caches: by default a
//     toolchain that writes a cache under the home, such as `go build`'s
//     ~/.cache/go-build, fails, and the note says which setting grants
//     it);
//   - sanitised copies of the user's global git config in the empty
//     home (who commits; nothing that names a program or a credential);
//   - the hosts the settings' sandbox.network.allowedDomains grants (less
//     deniedDomains; enabled or not), through the network proxy
//     (Options.Proxy, see Network by host below); the host's network
//     when it lists "*" and denies nothing; otherwise none. A failing
//     command's result then tells the model how it ran;
//   - the sidecar's environment without its secrets (ANTHROPIC_*,
//     OPENAI_*, CLAUDE_CODE_*, AGENT_LSP_*, AWS_BEARER_TOKEN_*, the ssh
//     and gpg agent sockets, the D-Bus address, XDG_RUNTIME_DIR) and
//     without GIT_* variables, replaced by gitConfig; TMPDIR=/tmp.
//
// A rule sandbox replaces the configured sandbox for these commands.
// Two choices are deliberate: a command the user approved once by
// clicking "allow" is not held by it (they saw this very command), and
// bypassPermissions holds nothing (the user chose to run everything
// unasked, knowingly). Without bwrap, rule-allowed commands run as
// before: in the configured sandbox when it can run, else unconfined (in
// the host's environment).
//
// # The configured sandbox: commands the user approved
//
// Commands the user approved one by one (a click), in bypassPermissions
// mode or under a hook's allow run as the settings say. With
// sandbox.enabled, a Sandbox runs them in the approved profile: what every
// profile gets, the workspace folders, the additional directories and
// allowWrite writable, what runs later read-only, the user's global git
// identity; the network as for the rule sandbox (Sandbox.WrapVia), the
// environment is the sidecar's. The command gets its own session, PID
// and IPC namespaces, and dies with the sidecar.
//
// When bwrap is missing, or cannot create a sandbox (no user namespaces,
// as in some containers), New says so once, and Wrap then refuses to run
// commands unless the settings allow running them unsandboxed
// (sandbox.failIfUnavailable false or sandbox.allowUnsandboxedCommands
// true).
//
// # What runs later: protected by principle
//
// In every sandbox where the workspace is writable, what could run later
// without a question, outside the sandbox, stays read-only (Protected
// says the same to the file tools, which then ask in acceptEdits):
//   - what git's configuration names as a place programs come from
//     (gitNamed): core.hooksPath, core.fsmonitor as a path, include.path
//     and includeIf files, the programs of drivers, pagers, editors,
//     helpers and "!" aliases named by path; and the git directories
//     (hooks, config, config.worktree, info, commondir), of the roots,
//     nested repositories, submodules and linked worktrees;
//   - configuration that editors and tools act on without asking: every
//     dot-file and dot-folder anywhere in the workspace (.claude,
//     .mcp.json, .vscode, .idea, .husky, .envrc, .nvim.lua, .exrc,
//     .dir-locals.el, .github, ...), editor workspace files
//     (*.code-workspace) and lefthook's files (runsLater); except the
//     dot-folders builds write (buildDots: .venv, .next, .cache, ...),
//     and nothing inside node_modules.
//
// bwrap can only mount over a path that exists, and bwrap 0.8 has no
// overlay, so a missing path of the git directories, of the well-known
// names at a root (.claude, .mcp.json, .vscode, .husky) or of what the
// git config names gets a placeholder on the host just before the
// command starts (an empty directory, or a file holding "{}"; "." for
// commondir, nothing for config files), mounted read-only over itself
// (a missing place is held at its first missing folder); the last
// command that uses it removes it when it ends, if nobody changed it.
// While the command runs, the host sees the empty placeholder. Any other
// dot-file a command creates where none was stays (known limit). .git
// itself is mounted over itself (still writable), so it cannot be
// renamed or removed with the read-only mounts inside it, and a .git
// file (a worktree's gitdir: line) is read-only. The same holds in the
// repositories of submodules (.git/modules/NAME: config, hooks, info)
// and in linked worktrees' folders (.git/worktrees/NAME:
// config.worktree, commondir, gitdir), whose folders are mounted over
// themselves too. A commondir a command creates in a submodule's
// repository is removed when it ends. A protected path of the git
// directories or the well-known names that is a symlink (.git included)
// cannot be protected: bwrap mounts over its target, and the link
// itself, in a writable folder, could be replaced; Wrap then refuses.
// Another dot-file that is a link keeps its target in the workspace
// read-only. Known limit: a second sidecar process on the same workspace
// may remove a placeholder that this one still uses.
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
//
// # Network by host
//
// Every profile has a network namespace of its own. With a Proxy (the
// rule and configured sandboxes, when the settings grant hosts by name),
// the command's way out is package netproxy's proxy, in the sidecar: the
// launcher connects to the proxy's socket before starting bwrap
// (seccomp.BwrapNetArgs), this program is shown at bridgePath, and runs
// as the command's parent inside (netproxy.BridgeArg), listening on
// 127.0.0.1:netproxy.Port; the command gets HTTP_PROXY and its kin
// (netproxy.Env). Without a Proxy nothing of this is added: no cost for
// commands without network. When the proxy cannot be reached, the
// command runs without network.
//
// # The kernel: unix sockets, keyrings, user namespaces
//
// Every sandbox above (confined, write, rule, configured; not Contain)
// starts bwrap through this program as a launcher (kernelArgs), which
// hands bwrap a seccomp filter built in Go (package seccomp):
// socket(AF_UNIX) fails with EPERM, so no unix socket outside the sandbox
// can be reached (in the filesystem, where a read-only mount or a network
// namespace does not stop connect(), or abstract); keyctl, add_key and
// request_key fail with EPERM, so the kernel keyrings are out of reach;
// io_uring cannot be set up (its socket operations are not system calls);
// system calls of another ABI (i386, x32, arm32) kill the process. When
// the sidecar is root, bwrap also gets --unshare-user (it makes no user
// namespace for root otherwise), with root mapped to itself so that files
// written in the workspace stay root's. The launcher is package seccomp's
// init, in this program started with seccomp.LauncherArg first: it is
// there because a command may be started by another process (an ACP
// client's terminal), where no descriptor of the sidecar's can be passed.
// Where the filter cannot be applied (no launcher, an architecture the
// filter is not built for, a bwrap or a kernel without seccomp, no user
// namespace for root), the probes fail: no sandbox runs, and the commands
// that would have run in one ask or are refused as without bubblewrap.
package sandbox
