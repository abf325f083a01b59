// Package permission decides whether a tool call runs, asks the user, or
// is refused, from Claude Code-compatible rules and the session's mode.
//
// A deny path rule on Read covers every tool that reads files, as in
// Claude Code: besides refusing Read, Grep, Glob and LS calls on the
// file, it hides the file from their results (Policy.Hides and
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
// never by string matching: every simple command in the line, through
// &&, ||, ;, pipes, subshells, $(...), backticks, process substitution,
// functions, loops, bash -c '...', eval and wrappers such as env, nice,
// timeout and xargs, must be allowed for the whole line to be allowed. A
// known set of read-only commands (ls, cat, grep, rg, find without -exec,
// git status/diff/log/show, ...) runs without asking when its file
// arguments lie in the workspace. Some things always ask, whatever the
// rules: redirection to a file (in acceptEdits mode, to a file inside
// the workspace is allowed), cd out of the workspace, a command name or
// script only known at run time, arithmetic (bash evaluates variables'
// values, which can run code), setting variables such as PATH that change
// what other commands run, and anything that does not parse. Only a bare
// "Bash" allow rule overrides those.
//
// Deny rules for Bash are matched against every simple command, including
// those inside wrappers (sudo rm, find -exec rm, bash -c 'rm ...') and
// commands given by path (/bin/rm). They cannot see commands whose name
// is computed at run time ($(echo rm)); such commands ask, except in
// bypassPermissions mode, which is why that mode should be paired with
// the sandbox.
package permission
