// Package shell classifies shell command lines for package permission:
// what each simple command in a line does, as far as parsing can tell,
// without running anything. Parse returns a Script; the policy matches
// its commands (Command.Spellings) against Bash rules and asks it
// whether the line only reads (Script.Judge, Script.NotReadOnly).
//
// Commands are classified by parsing them (mvdan.cc/sh/v3/syntax), never
// by string matching, and the classifier fails closed: what it cannot
// prove read-only asks. Every simple command in the line, through &&,
// ||, ;, pipes, subshells, $(...), backticks, process substitution,
// loops and bash -c '...', is classified.
//
// A command runs without asking when it is on the read-only list
// (readonly.go, git.go) and its arguments pass that command's allowlist.
// Each command is registered once, with its options as data, one entry
// per option (TestOptionTables rejects duplicates and unknown kinds), or
// with a parser of its own. The same entries mark the few commands and
// options that run without a question when no sandbox can confine them
// (Script.ShortListed).
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
// Script.Writes reports the files a line writes, by redirection or as
// a command known to write its operands (writes.go), and why others
// cannot be told; package permission holds them against Edit deny rules.
//
// The corpus in testdata is the package's conformance suite
// (corpus_test.go): every line in it must get its verdict from
// permission.Policy.Decide.
package shell
