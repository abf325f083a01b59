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
// Shell commands are judged by package permission/shell, which parses
// them and says, for each simple command in the line, whether it only
// reads, what it reads and writes, and what makes the line ask whatever
// the rules say. Every simple command in the line must be allowed (by a
// rule, or as read-only) for the whole line to be allowed.
//
// Some things always ask, whatever the allow rules: redirection to a
// file (in acceptEdits mode, to a file inside the workspace is allowed),
// cd out of the workspace, the run-time code and variables package
// shell describes, and anything that does not parse. Only a bare "Bash" allow rule overrides
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
// Edit deny rules reach the shell too, in every mode: a line that writes
// a covered file (by redirection, or as a command the classifier knows
// writes its operands: tee, cp, mv, rm, sed -i, dd of=, ...) is refused;
// one whose written files cannot be told (a variable, xargs, find
// -delete, code only known at run time) asks while Edit deny rules exist,
// and is refused where nothing asks.
//
// An allowed Bash call carries how the engine must hold it
// (Decision.Confine): ConfineReadOnly or ConfineWorkspace when only the
// classifier allowed it, ConfineRule when an allow rule did (settings, a
// session "always allow" grant, a bare Bash rule, in any mode but
// bypassPermissions), NotConfined for bypassPermissions. A call the user
// approves by clicking is not held. See package sandbox for what each
// level allows.
package permission
