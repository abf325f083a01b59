package shell

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/agent-lsp/agent-lsp/settings"
)

// gitValued are git's global options that take a value, joined with "="
// or as the next word. They are stripped before Bash rules are matched,
// so "git -C . push" is "git push" to a deny rule.
var gitValued = map[string]bool{
	"-C": true, "-c": true, "--git-dir": true, "--work-tree": true, "--namespace": true,
	"--config-env": true, "--super-prefix": true, "--exec-path": false, "--list-cmds": true, "--attr-source": true,
}

// gitStrip returns "git SUB ARGS..." without git's global options, for
// rule matching, and false when a global option is only known at run
// time.
func gitStrip(words []Word) ([]Word, bool) {
	i := 1
	for ; i < len(words); i++ {
		w := words[i]
		if !w.literal {
			return nil, false
		}
		v := w.value
		if v == "--" {
			i++
			break
		}
		if !strings.HasPrefix(v, "-") {
			break
		}
		if name, _, joined := strings.Cut(v, "="); gitValued[name] && !joined {
			i++
		}
	}
	if i > len(words) {
		i = len(words)
	}
	return append([]Word{words[0]}, words[i:]...), true
}

// gitKnown are git's own commands; any other subcommand may be an alias
// that runs anything, including what a deny rule forbids. Built on first
// use.
var gitKnown = sync.OnceValue(func() map[string]bool {
	known := map[string]bool{}
	for _, c := range strings.Fields(`add am annotate apply archive bisect blame branch bundle cat-file check-attr
	check-ignore check-mailmap check-ref-format checkout checkout-index cherry cherry-pick citool clean clone
	column commit commit-graph commit-tree config count-objects credential describe diff diff-files diff-index
	diff-tree difftool fast-export fast-import fetch fetch-pack filter-branch fmt-merge-msg for-each-ref
	for-each-repo format-patch fsck gc get-tar-commit-id grep gui hash-object help hook index-pack init
	instaweb interpret-trailers log ls-files ls-remote ls-tree mailinfo mailsplit maintenance merge merge-base
	merge-file merge-index merge-tree mergetool mktag mktree multi-pack-index mv name-rev notes pack-objects
	pack-redundant pack-refs patch-id prune prune-packed pull push range-diff read-tree rebase reflog remote
	repack replace request-pull rerere reset restore rev-list rev-parse revert rm send-email send-pack
	shortlog show show-branch show-index show-ref sparse-checkout stash status stripspace submodule switch
	symbolic-ref tag unpack-file unpack-objects update-index update-ref update-server-info var verify-commit
	verify-pack verify-tag version whatchanged worktree write-tree backfill replay refs`) {
		known[c] = true
	}
	return known
})

// gitDiffOpts are the options of git's diff family (diff, log, show,
// stash show, ...), and gitLogOpts those of its revision walkers.
var (
	gitDiffOpts = []opt{
		{"-p", optFlag}, {"-u", optFlag}, {"-s", optFlag}, {"-R", optFlag}, {"-a", optFlag},
		{"-w", optFlag}, {"-b", optFlag}, {"-z", optFlag}, {"-W", optFlag}, {"-M", optMaybe},
		{"-C", optMaybe}, {"-B", optMaybe}, {"-U", optValue}, {"-X", optMaybe}, {"-l", optValue},
		{"--patch", optFlag}, {"--no-patch", optFlag}, {"--raw", optFlag}, {"--patch-with-raw", optFlag},
		{"--patch-with-stat", optFlag}, {"--stat", optMaybe}, {"--compact-summary", optFlag},
		{"--numstat", optFlag}, {"--shortstat", optFlag}, {"--dirstat", optMaybe},
		{"--summary", optFlag}, {"--name-only", optFlag}, {"--name-status", optFlag},
		{"--submodule", optMaybe}, {"--color", optMaybe}, {"--no-color", optFlag},
		{"--word-diff", optMaybe}, {"--word-diff-regex", optValue}, {"--color-words", optMaybe},
		{"--no-renames", optFlag}, {"--check", optFlag}, {"--full-index", optFlag},
		{"--binary", optFlag}, {"--abbrev", optMaybe}, {"--break-rewrites", optMaybe},
		{"--find-renames", optMaybe}, {"--find-copies", optMaybe}, {"--find-copies-harder", optFlag},
		{"--irreversible-delete", optFlag}, {"--diff-filter", optValue}, {"--text", optFlag},
		{"--ignore-cr-at-eol", optFlag}, {"--ignore-space-at-eol", optFlag},
		{"--ignore-space-change", optFlag}, {"--ignore-all-space", optFlag},
		{"--ignore-blank-lines", optFlag}, {"--inter-hunk-context", optValue},
		{"--function-context", optFlag}, {"--exit-code", optFlag}, {"--quiet", optFlag},
		{"--no-ext-diff", optFlag}, {"--no-textconv", optFlag}, {"--ignore-submodules", optMaybe},
		{"--src-prefix", optValue}, {"--dst-prefix", optValue}, {"--no-prefix", optFlag},
		{"--default-prefix", optFlag}, {"--line-prefix", optValue},
		{"--ita-invisible-in-index", optFlag}, {"--minimal", optFlag}, {"--patience", optFlag},
		{"--histogram", optFlag}, {"--diff-algorithm", optValue}, {"--anchored", optValue},
		{"--indent-heuristic", optFlag}, {"--no-indent-heuristic", optFlag}, {"--unified", optValue},
		{"--color-moved", optMaybe}, {"--no-color-moved", optFlag}, {"--null", optFlag},
		{"--relative", optMaybe}, {"--no-relative", optFlag},
	}
	gitLogOpts = []opt{
		{"-n", optFlag}, {"-i", optFlag}, {"-E", optFlag}, {"-F", optFlag}, {"-P", optFlag},
		{"-m", optFlag}, {"-c", optFlag}, {"-g", optFlag}, {"-t", optFlag}, {"-S", optValue},
		{"-G", optValue}, {"--oneline", optFlag}, {"--max-count", optValue}, {"--skip", optValue},
		{"--since", optValue}, {"--after", optValue}, {"--until", optValue}, {"--before", optValue},
		{"--author", optValue}, {"--committer", optValue}, {"--grep", optValue},
		{"--all-match", optFlag}, {"--invert-grep", optFlag}, {"--regexp-ignore-case", optFlag},
		{"--basic-regexp", optFlag}, {"--extended-regexp", optFlag}, {"--fixed-strings", optFlag},
		{"--perl-regexp", optFlag}, {"--all", optFlag}, {"--branches", optMaybe}, {"--tags", optMaybe},
		{"--remotes", optMaybe}, {"--glob", optValue}, {"--exclude", optValue}, {"--graph", optFlag},
		{"--decorate", optMaybe}, {"--no-decorate", optFlag}, {"--decorate-refs", optValue},
		{"--decorate-refs-exclude", optValue}, {"--first-parent", optFlag}, {"--merges", optFlag},
		{"--no-merges", optFlag}, {"--min-parents", optValue}, {"--max-parents", optValue},
		{"--reverse", optFlag}, {"--follow", optFlag}, {"--date", optValue}, {"--pretty", optMaybe},
		{"--format", optValue}, {"--abbrev-commit", optFlag}, {"--no-abbrev-commit", optFlag},
		{"--left-right", optFlag}, {"--cherry-pick", optFlag}, {"--cherry-mark", optFlag},
		{"--cherry", optFlag}, {"--boundary", optFlag}, {"--topo-order", optFlag},
		{"--date-order", optFlag}, {"--author-date-order", optFlag}, {"--walk-reflogs", optFlag},
		{"--source", optFlag}, {"--no-walk", optMaybe}, {"--do-walk", optFlag},
		{"--ancestry-path", optMaybe}, {"--simplify-by-decoration", optFlag},
		{"--full-history", optFlag}, {"--dense", optFlag}, {"--sparse", optFlag},
		{"--simplify-merges", optFlag}, {"--parents", optFlag}, {"--children", optFlag},
		{"--use-mailmap", optFlag}, {"--mailmap", optFlag}, {"--no-mailmap", optFlag},
		{"--pickaxe-all", optFlag}, {"--pickaxe-regex", optFlag}, {"--cc", optFlag},
		{"--combined-all-paths", optFlag}, {"--diff-merges", optValue}, {"--no-diff-merges", optFlag},
		{"--remerge-diff", optMaybe}, {"--expand-tabs", optMaybe}, {"--no-expand-tabs", optFlag},
		{"--no-notes", optFlag}, {"--relative-date", optFlag}, {"--log-size", optFlag},
		{"--count", optFlag}, {"--not", optFlag},
	}
)

// gitSpecs are the read-only git subcommands and their options. What is
// not here asks, notably --output, --ext-diff, --textconv, --no-index,
// -O/--open-files-in-pager, --show-signature, --contents, --filters and
// --ignore-revs-file. Built on first use.
func gitSpecs() map[string]*cmdSpec {
	gitSpecsOnce.Do(buildGitSpecs)
	return gitSpecsTable
}

var (
	gitSpecsOnce  sync.Once
	gitSpecsTable map[string]*cmdSpec // written once, by buildGitSpecs
)

func buildGitSpecs() {
	log := spec(join(gitDiffOpts, gitLogOpts), numeric, text)
	gitSpecsTable = map[string]*cmdSpec{
		"status": spec([]opt{
			{"-s", optFlag}, {"-b", optFlag}, {"-u", optMaybe}, {"-v", optFlag}, {"-z", optFlag},
			{"--short", optFlag}, {"--branch", optFlag}, {"--show-stash", optFlag},
			{"--porcelain", optMaybe}, {"--long", optFlag}, {"--verbose", optFlag},
			{"--untracked-files", optMaybe}, {"--ignored", optMaybe}, {"--ignore-submodules", optMaybe},
			{"--no-renames", optFlag}, {"--renames", optFlag}, {"--find-renames", optMaybe},
			{"--column", optMaybe}, {"--no-column", optFlag}, {"--ahead-behind", optFlag},
			{"--no-ahead-behind", optFlag}, {"--null", optFlag},
		}, text, unconfined("--short", "-s", "--branch", "-b", "--porcelain", "--no-renames", "-u", "--untracked-files")),
		"diff": spec(join(gitDiffOpts, []opt{
			{"--cached", optFlag}, {"--staged", optFlag}, {"--merge-base", optFlag},
		}), text, unconfined("--stat", "--cached", "--staged", "--name-only", "--name-status", "--no-color", "--no-ext-diff", "--no-textconv")),
		"log": spec(join(gitDiffOpts, gitLogOpts), numeric, text,
			unconfined("--oneline", "--stat", "--no-color", "--name-only", "--name-status", "-n", "--no-ext-diff", "--no-textconv")),
		"whatchanged": log,
		"show":        log,
		"rev-list": spec(join(gitDiffOpts, gitLogOpts, []opt{
			{"--objects", optFlag}, {"--objects-edge", optFlag}, {"--in-commit-order", optFlag},
		}), numeric, text),
		"shortlog": spec([]opt{
			{"-s", optFlag}, {"-e", optFlag}, {"-n", optFlag}, {"-i", optFlag}, {"-E", optFlag},
			{"-F", optFlag}, {"-P", optFlag}, {"-m", optFlag}, {"-c", optFlag}, {"-g", optFlag},
			{"-t", optFlag}, {"-S", optValue}, {"-G", optValue}, {"--numbered", optFlag},
			{"--summary", optFlag}, {"--email", optFlag}, {"--committer", optFlag}, {"--group", optValue},
			{"--all", optFlag}, {"--since", optValue}, {"--after", optValue}, {"--until", optValue},
			{"--before", optValue}, {"--author", optValue}, {"--no-merges", optFlag}, {"--merges", optFlag},
			{"--first-parent", optFlag},
		}, text),
		"blame": spec([]opt{
			{"-b", optFlag}, {"-c", optFlag}, {"-f", optFlag}, {"-l", optFlag}, {"-n", optFlag},
			{"-p", optFlag}, {"-s", optFlag}, {"-t", optFlag}, {"-e", optFlag}, {"-w", optFlag},
			{"-M", optMaybe}, {"-C", optMaybe}, {"-L", optValue}, {"--root", optFlag},
			{"--show-stats", optFlag}, {"--show-name", optFlag}, {"--show-number", optFlag},
			{"--porcelain", optFlag}, {"--line-porcelain", optFlag}, {"--incremental", optFlag},
			{"--encoding", optValue}, {"--date", optValue}, {"--abbrev", optMaybe}, {"--minimal", optFlag},
			{"--first-parent", optFlag}, {"--reverse", optValue}, {"--color-lines", optFlag},
			{"--color-by-age", optFlag}, {"--since", optValue}, {"--ignore-rev", optValue},
		}, text),
		"grep": spec([]opt{
			{"-n", optFlag}, {"-i", optFlag}, {"-r", optFlag}, {"-v", optFlag}, {"-l", optFlag},
			{"-L", optFlag}, {"-c", optFlag}, {"-h", optFlag}, {"-H", optFlag}, {"-E", optFlag},
			{"-F", optFlag}, {"-G", optFlag}, {"-P", optFlag}, {"-w", optFlag}, {"-o", optFlag},
			{"-q", optFlag}, {"-z", optFlag}, {"-W", optFlag}, {"-p", optFlag}, {"-I", optFlag},
			{"-a", optFlag}, {"-e", optValue}, {"-A", optValue}, {"-B", optValue}, {"-C", optValue},
			{"-m", optValue}, {"-f", optFile}, {"--line-number", optFlag}, {"--ignore-case", optFlag},
			{"--invert-match", optFlag}, {"--files-with-matches", optFlag}, {"--name-only", optFlag},
			{"--files-without-match", optFlag}, {"--count", optFlag}, {"--no-filename", optFlag},
			{"--heading", optFlag}, {"--break", optFlag}, {"--extended-regexp", optFlag},
			{"--fixed-strings", optFlag}, {"--basic-regexp", optFlag}, {"--perl-regexp", optFlag},
			{"--word-regexp", optFlag}, {"--only-matching", optFlag}, {"--quiet", optFlag},
			{"--null", optFlag}, {"--show-function", optFlag}, {"--function-context", optFlag},
			{"--text", optFlag}, {"--full-name", optFlag}, {"--column", optFlag}, {"--cached", optFlag},
			{"--untracked", optFlag}, {"--no-exclude-standard", optFlag}, {"--exclude-standard", optFlag},
			{"--max-depth", optValue}, {"--threads", optValue}, {"--and", optFlag}, {"--or", optFlag},
			{"--not", optFlag}, {"--all-match", optFlag}, {"--regexp", optValue},
			{"--after-context", optValue}, {"--before-context", optValue}, {"--context", optValue},
			{"--max-count", optValue}, {"--color", optMaybe}, {"--no-color", optFlag},
			{"--recursive", optFlag}, {"--no-recursive", optFlag}, {"--file", optFile},
		}, numeric, text),
		"rev-parse": spec([]opt{
			{"-q", optFlag}, {"--show-toplevel", optFlag}, {"--abbrev-ref", optMaybe}, {"--short", optMaybe},
			{"--verify", optFlag}, {"--quiet", optFlag}, {"--git-dir", optFlag},
			{"--git-common-dir", optFlag}, {"--absolute-git-dir", optFlag},
			{"--is-inside-work-tree", optFlag}, {"--is-inside-git-dir", optFlag},
			{"--is-bare-repository", optFlag}, {"--is-shallow-repository", optFlag},
			{"--show-prefix", optFlag}, {"--show-cdup", optFlag}, {"--symbolic", optFlag},
			{"--symbolic-full-name", optFlag}, {"--all", optFlag}, {"--branches", optMaybe},
			{"--tags", optMaybe}, {"--remotes", optMaybe}, {"--show-object-format", optMaybe},
			{"--show-ref-format", optFlag}, {"--path-format", optValue}, {"--default", optValue},
			{"--revs-only", optFlag}, {"--no-revs", optFlag}, {"--flags", optFlag}, {"--no-flags", optFlag},
			{"--git-path", optValue},
		}, text),
		"ls-files": spec([]opt{
			{"-c", optFlag}, {"-d", optFlag}, {"-m", optFlag}, {"-o", optFlag}, {"-k", optFlag},
			{"-i", optFlag}, {"-s", optFlag}, {"-t", optFlag}, {"-u", optFlag}, {"-v", optFlag},
			{"-f", optFlag}, {"-z", optFlag}, {"-x", optValue}, {"--cached", optFlag},
			{"--deleted", optFlag}, {"--modified", optFlag}, {"--others", optFlag}, {"--ignored", optFlag},
			{"--stage", optFlag}, {"--killed", optFlag}, {"--directory", optFlag},
			{"--no-empty-directory", optFlag}, {"--unmerged", optFlag}, {"--resolve-undo", optFlag},
			{"--eol", optFlag}, {"--exclude-standard", optFlag}, {"--error-unmatch", optFlag},
			{"--full-name", optFlag}, {"--abbrev", optMaybe}, {"--deduplicate", optFlag},
			{"--sparse", optFlag}, {"--format", optValue}, {"--exclude", optValue},
			{"--exclude-per-directory", optValue}, {"--zero", optFlag},
		}, text),
		"ls-tree": spec([]opt{
			{"-r", optFlag}, {"-d", optFlag}, {"-t", optFlag}, {"-l", optFlag}, {"-z", optFlag},
			{"--long", optFlag}, {"--name-only", optFlag}, {"--name-status", optFlag},
			{"--object-only", optFlag}, {"--full-name", optFlag}, {"--full-tree", optFlag},
			{"--abbrev", optMaybe}, {"--format", optValue},
		}, text),
		"describe": spec([]opt{
			{"--tags", optFlag}, {"--all", optFlag}, {"--long", optFlag}, {"--abbrev", optValue},
			{"--always", optFlag}, {"--dirty", optMaybe}, {"--broken", optMaybe}, {"--exact-match", optFlag},
			{"--match", optValue}, {"--exclude", optValue}, {"--contains", optFlag},
			{"--first-parent", optFlag}, {"--candidates", optValue},
		}, text),
		"merge-base": spec([]opt{
			{"-a", optFlag}, {"--all", optFlag}, {"--octopus", optFlag}, {"--independent", optFlag},
			{"--is-ancestor", optFlag}, {"--fork-point", optFlag},
		}, text),
		"cat-file": spec([]opt{
			{"-t", optFlag}, {"-s", optFlag}, {"-e", optFlag}, {"-p", optFlag}, {"--batch-check", optMaybe},
			{"--batch", optMaybe}, {"--allow-unknown-type", optFlag}, {"--use-mailmap", optFlag},
			{"--mailmap", optFlag},
		}, text),
		"show-ref": spec([]opt{
			{"-s", optFlag}, {"-d", optFlag}, {"-q", optFlag}, {"--heads", optFlag}, {"--tags", optFlag},
			{"--branches", optFlag}, {"--hash", optMaybe}, {"--verify", optFlag}, {"--dereference", optFlag},
			{"--quiet", optFlag}, {"--abbrev", optMaybe}, {"--head", optFlag}, {"--exists", optFlag},
		}, text),
		"count-objects": spec([]opt{
			{"-v", optFlag}, {"-H", optFlag}, {"--verbose", optFlag}, {"--human-readable", optFlag},
		}, none),
		"version": spec([]opt{{"--build-options", optFlag}}, none),
		"branch": spec([]opt{
			{"-a", optFlag}, {"-r", optFlag}, {"-v", optFlag}, {"-l", optFlag}, {"--all", optFlag},
			{"--remotes", optFlag}, {"--verbose", optFlag}, {"--list", optFlag}, {"--show-current", optFlag},
			{"--no-color", optFlag}, {"--color", optMaybe}, {"--sort", optValue}, {"--format", optValue},
			{"--contains", optMaybe}, {"--no-contains", optMaybe}, {"--merged", optMaybe},
			{"--no-merged", optMaybe}, {"--points-at", optValue}, {"--column", optMaybe},
			{"--no-column", optFlag}, {"--abbrev", optMaybe}, {"--omit-empty", optFlag},
			{"--ignore-case", optFlag},
		}, text),
		"tag": spec([]opt{
			{"-l", optFlag}, {"-n", optMaybe}, {"-i", optFlag}, {"--list", optFlag}, {"--sort", optValue},
			{"--contains", optMaybe}, {"--no-contains", optMaybe}, {"--points-at", optValue},
			{"--merged", optMaybe}, {"--no-merged", optMaybe}, {"--format", optValue},
			{"--column", optMaybe}, {"--no-column", optFlag}, {"--ignore-case", optFlag},
			{"--omit-empty", optFlag},
		}, text),
		"remote": spec([]opt{{"-v", optFlag}, {"--verbose", optFlag}}, text),
		"reflog": log,
		"for-each-ref": spec([]opt{
			{"--format", optValue}, {"--sort", optValue}, {"--count", optValue}, {"--points-at", optValue},
			{"--merged", optMaybe}, {"--no-merged", optMaybe}, {"--contains", optMaybe},
			{"--no-contains", optMaybe}, {"--ignore-case", optFlag}, {"--omit-empty", optFlag},
			{"--exclude", optValue}, {"--shell", optFlag}, {"--perl", optFlag}, {"--python", optFlag},
			{"--tcl", optFlag},
		}, text),
		"check-ignore": spec([]opt{
			{"-q", optFlag}, {"-v", optFlag}, {"-n", optFlag}, {"-z", optFlag}, {"--quiet", optFlag},
			{"--verbose", optFlag}, {"--non-matching", optFlag}, {"--no-index", optFlag},
		}, text),
		"stash": spec(join(gitDiffOpts, []opt{{"--include-untracked", optFlag}, {"--only-untracked", optFlag}}), text),
	}
}

// gitContent are the subcommands that can print files' contents (and so
// bypass a Read deny rule).
var gitContent = map[string]bool{
	// blame is not here: it prints the one file it is given, and that
	// operand is checked against the deny rules like any other.
	"show": true, "grep": true, "cat-file": true, "diff": true, "stash": true,
	"log": true, "whatchanged": true, "archive": true,
}

// gitPatchOpts make log print contents.
var gitPatchOpts = []string{"-p", "-u", "-U", "--patch", "--patch-with-raw", "--patch-with-stat", "--unified",
	"--word-diff", "--color-words", "--cc", "-c", "--remerge-diff", "-W", "--function-context", "-G", "-S"}

// checkGit allows read-only git subcommands with options from their
// allowlist, in a repository inside the workspace, naming no path
// outside it.
func checkGit(a *analysis, args []Word) string {
	if len(args) == 1 && args[0].literal && args[0].value == "--version" {
		return ""
	}
	dirs := []string{"."}
	i := 0
	for ; i < len(args); i++ {
		w := args[i]
		if !w.literal {
			return "git option " + w.src + " only known at run time"
		}
		v := w.value
		switch {
		case v == "-C":
			if i+1 >= len(args) || !args[i+1].literal {
				return "git -C without a literal directory"
			}
			i++
			if why := a.outside(args[i].value); why != "" {
				return why
			}
			for j, d := range dirs {
				dirs[j] = filepath.Join(d, args[i].value)
				if filepath.IsAbs(args[i].value) {
					dirs[j] = args[i].value
				}
			}
		case contains([]string{"--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs", "--no-replace-objects",
			"--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs", "--no-advice"}, v):
		case strings.HasPrefix(v, "-"):
			// -c, --git-dir, --work-tree, --exec-path, -p (pager), ...
			return "git option " + v + " is not on the list of read-only options"
		default:
			goto sub
		}
	}
	return "git without a subcommand"
sub:
	for _, d := range dirs {
		for _, cwd := range a.cwds {
			if why := a.gitRepoCheck(realPath(cwd, d)); why != "" {
				return why
			}
		}
	}
	sub, rest := args[i].value, args[i+1:]
	s, ok := gitSpecs()[sub]
	if !ok {
		return "git " + sub + " is not a read-only git command"
	}
	switch sub {
	case "stash":
		if len(rest) == 0 || !rest[0].literal || (rest[0].value != "list" && rest[0].value != "show") {
			return "git stash changes the working tree"
		}
		if rest[0].value == "list" {
			s = gitSpecs()["log"]
		}
		rest = rest[1:]
	case "remote":
		if len(rest) == 2 && rest[0].literal && rest[0].value == "get-url" && rest[1].literal {
			return ""
		}
	case "reflog":
		if len(rest) > 0 && rest[0].literal && contains([]string{"expire", "delete", "drop", "exists", "write"}, rest[0].value) {
			return "git reflog " + rest[0].value + " changes the reflog"
		}
		if len(rest) > 0 && rest[0].literal && (rest[0].value == "show" || rest[0].value == "list") {
			rest = rest[1:]
		}
	}
	p, why := a.parseArgs("git "+sub, s, rest)
	if why != "" {
		return why
	}
	if p.dynamic > 0 {
		// A run-time word may be an option (--output=F).
		return "git " + sub + " with arguments only known at run time"
	}
	for _, o := range p.opts {
		if o.kind == optFile {
			if why := a.outside(o.value); why != "" {
				return why
			}
		}
	}
	switch sub {
	case "branch", "tag":
		if len(p.operands) > 0 && !p.has("-l", "--list") {
			return "git " + sub + " with a name may create or change a " + sub
		}
	case "remote":
		if len(p.operands) > 0 {
			return "git remote " + p.operands[0]
		}
	}
	for _, f := range p.values("--format", "--pretty") {
		if strings.Contains(f, "%G") || strings.Contains(f, "%(signature") {
			return "git format " + f + " verifies signatures, which runs gpg.program"
		}
	}
	for _, o := range p.operands {
		if rev, _, ok := strings.Cut(o, ":"); ok && !strings.Contains(rev, "/") {
			continue // REV:path names an object, not a file
		}
		if why := a.outside(o); why != "" {
			// git diff with a path outside the repository silently
			// becomes --no-index and reads it.
			return "git " + sub + ": " + why
		}
	}
	content := gitContent[sub]
	if sub == "log" || sub == "whatchanged" {
		content = p.has(gitPatchOpts...)
	}
	if content && a.env.denyRules() {
		if !a.gitProvablyAllowed(p) && !((sub == "show" || sub == "cat-file") && a.gitObjectsAllowed(p)) {
			a.denyRisk("git %s can print files that a Read deny rule covers", sub)
		}
	}
	return ""
}

// gitProvablyAllowed reports whether the pathspecs after "--" limit a
// content-printing git command to regular files no Read deny rule covers.
func (a *analysis) gitProvablyAllowed(p *parsedArgs) bool {
	if p.dashdash < 0 || p.dashdash >= len(p.operands) {
		return false
	}
	for _, o := range p.operands[:p.dashdash] {
		if strings.Contains(o, ":") {
			return false
		}
	}
	for _, o := range p.operands[p.dashdash:] {
		if strings.HasPrefix(o, ":") {
			return false // pathspec magic
		}
		for _, cwd := range a.cwds {
			rp := realPath(cwd, o)
			fi, err := os.Stat(rp)
			if err != nil || !fi.Mode().IsRegular() || a.env.readDenied(rp) || a.env.readDenied(lexAbs(cwd, o)) {
				return false
			}
		}
	}
	return true
}

// gitObjectsAllowed reports whether every operand names an object by
// REV:path, and no path is one a Read deny rule covers (a tree only
// lists names).
func (a *analysis) gitObjectsAllowed(p *parsedArgs) bool {
	if len(p.operands) == 0 {
		return false
	}
	for _, o := range p.operands {
		_, path, ok := strings.Cut(o, ":")
		if !ok {
			return false
		}
		var candidates []string
		if strings.HasPrefix(path, "./") || strings.HasPrefix(path, "../") {
			for _, cwd := range a.cwds {
				candidates = append(candidates, lexAbs(cwd, path))
			}
		} else {
			// Relative to the top of the repository, which lies in one
			// of the roots or in a directory a command runs in.
			for _, dir := range append(append([]string(nil), a.env.Roots...), a.cwds...) {
				candidates = append(candidates, lexAbs(dir, path))
			}
		}
		for _, c := range candidates {
			if a.env.readDenied(c) || a.env.readDenied(realPath("/", c)) {
				return false
			}
		}
	}
	return true
}

// gitRepoCheck returns why git run in dir would use a repository outside
// the workspace: a .git file whose gitdir (or commondir) lies outside, a
// .git symlink leading out, or no repository below the workspace root.
func (a *analysis) gitRepoCheck(dir string) string {
	for cur := dir; ; {
		g := filepath.Join(cur, ".git")
		if fi, err := os.Lstat(g); err == nil {
			if !withinAny(a.env.Roots, cur) {
				return fmt.Sprintf("git would use the repository at %s, outside the workspace", cur)
			}
			gitDir := realPath("/", g)
			if fi.Mode().IsRegular() {
				target, err := readGitdir(g)
				if err != nil {
					return "the .git file does not say where the repository is"
				}
				if !filepath.IsAbs(target) {
					target = filepath.Join(cur, target)
				}
				gitDir = realPath("/", target)
			}
			if !withinAny(a.env.Roots, gitDir) {
				return fmt.Sprintf("the repository's git directory %s lies outside the workspace", gitDir)
			}
			common := gitDir
			if b, err := settings.ReadFile(filepath.Join(gitDir, "commondir")); err == nil { // bounded: a link to /dev/zero must not hang
				common = strings.TrimSpace(string(b))
				if !filepath.IsAbs(common) {
					common = filepath.Join(gitDir, common)
				}
				common = realPath("/", common)
				if !withinAny(a.env.Roots, common) {
					return fmt.Sprintf("the repository's common directory %s lies outside the workspace", common)
				}
			}
			if _, err := os.Stat(filepath.Join(common, "objects", "info", "alternates")); err == nil {
				return "the repository borrows objects from other repositories (objects/info/alternates)"
			}
			for _, f := range []string{filepath.Join(common, "config"), filepath.Join(gitDir, "config.worktree")} {
				if why := gitConfigPrograms(f); why != "" {
					return why
				}
			}
			return ""
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return ""
		}
		cur = parent
	}
}

// readGitdir reads the "gitdir: PATH" line of a .git file.
func readGitdir(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "gitdir:"); ok {
			return strings.TrimSpace(v), nil
		}
	}
	return "", fmt.Errorf("reading %s: no gitdir line", path)
}

// gitRiskyKeys are repository config keys (section.key, or
// section.*.key for any subsection) that make read-only git commands
// run programs, read or write files elsewhere, or reach the network.
var gitRiskyKeys = map[string]bool{
	"core.fsmonitor": true, "core.pager": true, "core.sshcommand": true, "core.hookspath": true,
	"core.editor": true, "core.askpass": true, "core.gitproxy": true, "core.worktree": true,
	"core.alternaterefscommand": true, "diff.external": true, "diff.*.textconv": true, "diff.*.command": true,
	"diff.orderfile": true, "filter.*.clean": true, "filter.*.smudge": true, "filter.*.process": true,
	"gpg.program": true, "gpg.*.program": true, "credential.helper": true, "credential.*.helper": true,
	"log.showsignature": true, "merge.*.driver": true, "interactive.difffilter": true, "sequence.editor": true,
	"remote.*.uploadpack": true, "remote.*.receivepack": true, "remote.*.promisor": true,
	"extensions.partialclone": true, "blame.ignorerevsfile": true, "status.showsignature": true,
	"uploadpack.packobjectshook": true, "format.signature": false,
}

// gitRiskySections are config sections any key of which is risky.
var gitRiskySections = map[string]bool{"include": true, "includeif": true, "pager": true, "trace2": true}

// gitConfigPrograms returns why the git config file at path makes git
// commands unsafe to run without asking, or "".
func gitConfigPrograms(path string) string {
	// O_NONBLOCK: a FIFO must not stall the classifier.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return ""
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "the repository's git config is not a regular file"
	}
	section, sub := "", false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				return "the repository's git config does not parse"
			}
			head := strings.TrimSpace(line[1:end])
			name, _, hasSub := strings.Cut(head, " ")
			if !hasSub {
				name, _, hasSub = strings.Cut(head, ".")
			}
			section, sub = strings.ToLower(name), hasSub
			line = strings.TrimSpace(line[end+1:])
			if line == "" {
				if gitRiskySections[section] {
					return fmt.Sprintf("the repository's git config has a [%s] section", head)
				}
				continue
			}
		}
		key, value, _ := strings.Cut(line, "=")
		key = strings.ToLower(strings.TrimSpace(key))
		full := section + "." + key
		if sub {
			full = section + ".*." + key
		}
		switch {
		case gitRiskySections[section], gitRiskyKeys[full]:
			return fmt.Sprintf("the repository's git config sets %s, which git may run or follow", full)
		case section == "alias" && strings.HasPrefix(strings.TrimSpace(value), "!"):
			return fmt.Sprintf("the repository's git config defines the shell alias %s", key)
		}
	}
	if sc.Err() != nil {
		return "the repository's git config cannot be read"
	}
	return ""
}
