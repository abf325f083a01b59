// Package permission decides whether a tool call runs, asks the user, or
// is refused, from Claude Code-compatible rules and the session's mode.
//
// A deny path rule on Read covers every tool that reads files, as in
// Claude Code, and one on Edit every tool that edits them: a call says
// what it does (Call.Access, which the engine copies from the tool's
// spec), and a call that does not say is covered by both. Claude Code's
// tool names (Write, Grep, LS, ...) are accepted in rules as aliases.
// Besides refusing Read, Grep, Glob and LS calls on the file, a Read
// deny rule hides the file from their results (Policy.Hides and
// Policy.HiddenGlobs, which the engine hands to the tools). An ask path
// rule on Read hides its files too, so a search never shows what Read
// would have asked about.
//
// What the user allowed always in a session (Policy.SessionRules) can be
// saved with the session and granted again when it is restored
// (Policy.Grant), without being written to a settings file.
//
// Rules come from the settings (see package settings) and from "allow
// always" answers during the session. Deny rules beat ask rules, which
// beat allow rules; what no rule covers is decided by the mode:
//
//   - default: read-only tools run, anything that changes state asks;
//   - acceptEdits: file edits inside the workspace also run (except in
//     .git/, .claude/ and similar directories whose files run code or grant
//     permissions); shell commands still ask;
//   - plan: read-only tools only; everything else is refused;
//   - bypassPermissions: nothing asks, deny rules still hold;
//   - dontAsk: what would ask is refused instead.
//
// Shell commands are classified by parsing them (mvdan.cc/sh/v3/syntax),
// never by string matching, and the classifier fails closed: what it
// cannot prove read-only asks. Every simple command in the line, through
// &&, ||, ;, pipes, subshells, $(...), backticks, process substitution,
// loops and bash -c '...', must be allowed for the whole line to be
// allowed.
//
// A command runs without asking when it is on the read-only list
// (readonly.go, git.go) and its arguments pass that command's allowlist:
//
//   - Options are judged against an allowlist of each command's short and
//     long options, saying which take a value and which take a file. An
//     option not on the list asks, and so does an abbreviation of a long
//     one: GNU getopt and git accept any unambiguous prefix
//     (sort --out=F, git grep --op=CMD), so only exact names are safe.
//   - Values joined to short options (-fFILE, bundles like -bfFILE) and
//     --opt=value are split as getopt splits them; file values go through
//     the same checks as file operands. After "--" every word is an
//     operand, so "uniq -- in -out" has two operands and asks.
//   - Globs are expanded against the real filesystem from every directory
//     the command may run in, and a match that reads as an option asks.
//     Paths are resolved physically, component by component ("link/.."
//     is the parent of the link's target). A path outside the workspace
//     asks; a recursive read that follows symlinks (grep -R, rg -L,
//     find -L, diff) walks the named directories, bounded, and asks if a
//     symlink inside leads out.
//   - git: only read-only subcommands with their own option allowlists.
//     --output, --ext-diff, --textconv, --no-index, -O, --show-signature,
//     %G formats, --contents, --filters and global -c, --git-dir,
//     --work-tree, -p are not on them. Git asks when any operand or -C
//     lies outside the workspace (git diff with an outside path silently
//     becomes --no-index), when the repository lies outside (a .git file
//     whose gitdir points out, a commondir, alternates), and when the
//     repository's config names programs git would run (fsmonitor, pager,
//     textconv, diff.external, filters, gpg.program, hooksPath, includes,
//     shell aliases, ...). The sandbox neutralises those too; the check
//     here is the layer above it.
//
// Code that arrives at run time asks: xargs with any command, wrappers
// (env, nice, nohup, timeout, stdbuf, command, exec, builtin) whose
// command is not literal or is fed by xargs, eval, a command name that
// is an expansion or a glob, function definitions, source and ".",
// find -exec/-ok/-delete/-fprint, awk, sed scripts with e, w, W, r or R
// (sed is parsed; only stream-editing commands pass), jq modules and
// filters read from a file, binutils @FILE operands (strings).
//
// Bash semantics, not just syntax: bash evaluates array subscripts and
// arithmetic, which run $(...) inside them. test -v/-R, [[ -v ]],
// declare and friends with options or subscripts, printf -v, wait -p,
// read, mapfile, let, (( )), $(( )) and ${a[...]} ask. set and shopt
// options that change later words (set -k, -a, -B, -H, -m, -o keyword)
// ask. Variables may only be set (NAME=value words, export, env, for
// loops, declare) when they are on a short list of harmless names (CI,
// NODE_ENV, LANG, TZ, ...) or are lower-case shell variables: PATH,
// LD_*, GIT_*, BASH_ENV, ENV, PAGER, EDITOR and every other name ask.
//
// Some things always ask, whatever the allow rules: redirection to a
// file (in acceptEdits mode, to a file inside the workspace is allowed),
// cd out of the workspace, the run-time code and variables above, and
// anything that does not parse. Only a bare "Bash" allow rule overrides
// those.
//
// Deny wins in any spelling. Bash deny and ask rules are matched against
// every simple command, including those inside wrappers (sudo, env,
// nice, timeout, xargs, find -exec, eval, bash -c), against a command
// given by path by its name (/bin/rm is rm), against a glob command
// name's expansions, against git without its global options
// (git -C . push, git --no-pager push and git -c x=y push are all
// git push), and against every later word of a wrapper that could be its
// command. When Bash deny or ask rules exist, a git subcommand that is
// not a git command (an alias) or git -c asks, since either can run
// anything. Read deny rules reach the shell too: a read-only command
// whose file operand, file option value, glob expansion or input
// redirection is covered is refused; a recursive read that reaches a
// covered file, a git command that can print file contents (show, log
// -p, grep, cat-file, diff, blame) unless its "--" pathspecs are proved
// clear, and any other command naming a covered file ask. Those that
// ask are refused in plan and bypassPermissions modes, where nothing
// asks. Code only known at run time ($(echo rm) as a command name,
// eval "$x", a shell reading its input, a line that does not parse)
// cannot be matched against Bash rules: when any Bash deny or ask rule
// exists it asks, and bypassPermissions refuses it; without such rules
// bypassPermissions runs it, which is why that mode should be paired
// with the sandbox.
//
// An allowed Bash call carries how the engine must hold it
// (Decision.Confine): ConfineReadOnly or ConfineWorkspace when only the
// classifier allowed it, ConfineRule when an allow rule did (settings, a
// session "always allow" grant, a bare Bash rule, in any mode but
// bypassPermissions), NotConfined for bypassPermissions. A call the user
// approves by clicking is not held. See package sandbox for what each
// level allows.
package permission
