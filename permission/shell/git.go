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
