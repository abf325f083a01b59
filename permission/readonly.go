package permission

import (
	"regexp"
	"strings"
)

// roSpec describes a command that only reads.
type roSpec struct {
	// paths: the command reads files named by its arguments, which must
	// lie in the workspace.
	paths bool
	// globSafe: no option of the command writes or runs anything, so
	// arguments that expand at run time (globs, xargs input) are safe.
	globSafe bool
	// valued lists the short options whose value is the next argument
	// (not a file).
	valued string
	// check, when set, returns why particular arguments are not
	// read-only.
	check func(a *analysis, args []word) string
}

// readOnlyCommands run without asking in default mode.
var readOnlyCommands map[string]roSpec

func init() {
	files := roSpec{paths: true, globSafe: true}
	plain := roSpec{globSafe: true}
	readOnlyCommands = map[string]roSpec{
		"ls": files, "cat": files, "head": {paths: true, globSafe: true, valued: "nc"},
		"tail": {paths: true, globSafe: true, valued: "ncs"}, "wc": files, "nl": files, "tac": files,
		"stat": files, "du": files, "md5sum": files, "sha1sum": files, "sha256sum": files, "sha512sum": files,
		"cksum": files, "b2sum": files,
		"rev": {paths: true}, "od": {paths: true}, "hexdump": {paths: true}, "strings": {paths: true},
		"base64": {paths: true}, "paste": {paths: true}, "fold": {paths: true}, "column": {paths: true},
		"comm": {paths: true}, "join": {paths: true}, "cmp": {paths: true}, "diff": {paths: true},
		"df": {paths: true}, "realpath": {}, "readlink": {}, "basename": plain, "dirname": plain,
		"pwd": plain, "echo": plain, "true": plain, "false": plain, ":": plain, "test": plain, "[": plain,
		"which": plain, "type": plain, "whoami": plain, "id": plain, "uname": plain, "seq": plain,
		"sleep": plain, "free": plain, "uptime": plain, "nproc": plain, "ps": {}, "printenv": plain,
		"exit": plain, "return": plain, "break": plain, "continue": plain, "wait": plain,
		"tr":       {},
		"cd":       plain, // where it goes is checked by the analysis
		"set":      {check: checkSet},
		"printf":   {globSafe: true, check: rejectOpts("-v")},
		"grep":     {paths: true, globSafe: true, valued: grepValued},
		"egrep":    {paths: true, globSafe: true, valued: grepValued},
		"fgrep":    {paths: true, globSafe: true, valued: grepValued},
		"rg":       {paths: true, valued: rgValued, check: checkRg},
		"find":     {paths: true, check: checkFind},
		"git":      {check: checkGit},
		"sort":     {paths: true, valued: "tkST", check: rejectOpts("-o", "--output", "--compress-program")},
		"uniq":     {paths: true, valued: "fsw", check: maxPositional(1)},
		"xxd":      {paths: true, check: maxPositional(1)},
		"tree":     {paths: true, check: rejectOpts("-o", "-R")},
		"file":     {paths: true, check: rejectOpts("-C", "--compile")},
		"cut":      {paths: true, valued: "dfbc"},
		"date":     {check: checkDate},
		"hostname": {check: maxPositional(0)},
		"jq":       {paths: true, check: checkJq},
		"sed":      {paths: true, check: checkSed},
		"go":       {check: checkGo},
	}
}

// readOnly reports whether the command name with args only reads, and
// why not.
func (a *analysis) readOnly(name string, args []word, open bool) (bool, string) {
	spec, ok := readOnlyCommands[name]
	if !ok {
		return false, name + " is not a known read-only command"
	}
	if open && (!spec.globSafe || spec.paths) {
		return false, name + " gets arguments at run time"
	}
	for _, w := range args {
		switch {
		case w.literal:
		case !spec.paths && spec.globSafe:
			// Whatever it expands to, echo and the like only print it.
		case w.expands:
			return false, "argument " + w.src + " is only known at run time"
		case !spec.globSafe:
			return false, "pattern " + w.src + " may expand to an option"
		default:
			if why := a.patternOutside(w.src); why != "" {
				return false, why
			}
		}
	}
	if spec.check != nil {
		if why := spec.check(a, args); why != "" {
			return false, why
		}
	}
	if spec.paths {
		skip := 0
		if pf, ok := patternFirst[name]; ok {
			skip = pf(args)
		}
		for i := 0; i < len(args); i++ {
			w := args[i]
			if i == skip-1 || !w.literal {
				continue
			}
			if v := w.value; len(v) == 2 && v[0] == '-' && strings.IndexByte(spec.valued, v[1]) >= 0 {
				i++
				continue
			}
			for _, p := range pathCandidates(w.value) {
				if why := a.outside(p); why != "" {
					return false, why
				}
			}
		}
	}
	return true, ""
}

// patternOutside returns why the files a glob pattern (as written) may
// expand to could lie outside the workspace, or "".
func (a *analysis) patternOutside(src string) string {
	if strings.ContainsAny(src, "{'\"\\") || strings.Contains(src, "..") {
		return "pattern " + src + " is too complex to check"
	}
	if strings.HasPrefix(src, "~") {
		if src != "~" && !strings.HasPrefix(src, "~/") {
			return "pattern " + src + " names another user's home"
		}
		src = a.env.home + src[1:]
	}
	static := src
	if i := strings.IndexAny(src, "*?["); i >= 0 {
		static = src[:i]
	}
	dir := "."
	if j := strings.LastIndexByte(static, '/'); j >= 0 {
		dir = static[:j+1]
	}
	return a.outside(dir)
}

// pathCandidates returns what in an argument may name a file: the
// argument, or the value of a --long=value option.
func pathCandidates(arg string) []string {
	if strings.HasPrefix(arg, "-") {
		if _, v, ok := strings.Cut(arg, "="); ok && v != "" {
			return []string{v}
		}
		return nil
	}
	return []string{arg}
}

// patternFirst gives, for commands whose first positional argument is a
// pattern rather than a file, the 1-based index of that argument in args
// (0 when there is none).
var patternFirst = map[string]func([]word) int{
	"grep":  grepPattern(grepValued, "e", "f", "--regexp", "--file"),
	"egrep": grepPattern(grepValued, "e", "f", "--regexp", "--file"),
	"fgrep": grepPattern(grepValued, "e", "f", "--regexp", "--file"),
	"rg":    grepPattern(rgValued, "e", "f", "--regexp", "--file", "--files", "--type-list"),
	"jq":    grepPattern("", "f", "--from-file"),
}

// The short options of grep and rg that take the next argument as their
// value. Getting these right matters: an argument wrongly taken for the
// pattern is not checked as a path.
const (
	grepValued = "efmABCdD"
	rgValued   = "efgtTjMrEmABCd"
)

// grepPattern returns a function finding the pattern argument of a
// grep-like command: the first positional argument, unless an option in
// given supplies the pattern. Short options that take a value are
// recognised so their values are not taken for the pattern.
func grepPattern(valued string, given ...string) func([]word) int {
	return func(args []word) int {
		for i := 0; i < len(args); i++ {
			v := args[i].value
			if v == "--" {
				if i+1 < len(args) {
					return i + 2
				}
				return 0
			}
			if strings.HasPrefix(v, "--") {
				for _, g := range given {
					if v == g || strings.HasPrefix(v, g+"=") {
						return 0
					}
				}
				continue
			}
			if strings.HasPrefix(v, "-") && len(v) > 1 {
				for _, g := range given {
					if len(g) == 1 && strings.Contains(v[1:], g) {
						return 0
					}
				}
				if len(v) == 2 && strings.ContainsRune(valued, rune(v[1])) {
					i++
				}
				continue
			}
			return i + 1
		}
		return 0
	}
}

func rejectOpts(opts ...string) func(*analysis, []word) string {
	return func(_ *analysis, args []word) string {
		for _, w := range args {
			for _, o := range opts {
				if w.value == o || strings.HasPrefix(o, "--") && strings.HasPrefix(w.value, o+"=") ||
					len(o) == 2 && !strings.HasPrefix(w.value, "--") && strings.HasPrefix(w.value, "-") && strings.Contains(w.value[1:], o[1:]) {
					return "option " + o + " writes or runs something"
				}
			}
		}
		return ""
	}
}

func positional(args []word) []string {
	var out []string
	for _, w := range args {
		if !strings.HasPrefix(w.value, "-") || w.value == "-" {
			out = append(out, w.value)
		}
	}
	return out
}

func maxPositional(n int) func(*analysis, []word) string {
	return func(_ *analysis, args []word) string {
		if len(positional(args)) > n {
			return "too many arguments (a later one may be written)"
		}
		return ""
	}
}

func checkSet(_ *analysis, args []word) string {
	for _, w := range args {
		if w.value == "--" {
			return ""
		}
		if !strings.HasPrefix(w.value, "-") && !strings.HasPrefix(w.value, "+") &&
			!contains([]string{"pipefail", "errexit", "nounset", "xtrace", "noglob", "noclobber"}, w.value) {
			return "set " + w.value
		}
	}
	return ""
}

func checkRg(a *analysis, args []word) string {
	return rejectOpts("--pre", "--pre-glob", "--hostname-bin")(a, args)
}

func checkFind(_ *analysis, args []word) string {
	for _, w := range args {
		switch w.value {
		case "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls":
			return "find " + w.value + " changes or runs something"
		}
	}
	return ""
}

func checkDate(_ *analysis, args []word) string {
	for _, w := range args {
		v := w.value
		if v == "-s" || strings.HasPrefix(v, "--set") || !strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "+") {
			return "date " + v + " may set the clock"
		}
	}
	return ""
}

func checkJq(a *analysis, args []word) string {
	return rejectOpts("--rawfile", "--slurpfile")(a, args)
}

// sedReadOnlyRE matches sed scripts that only print lines.
var sedReadOnlyRE = regexp.MustCompile(`^(([0-9]+|\$)(,([0-9]+|\$))?)?[pq=]?$`)

func checkSed(_ *analysis, args []word) string {
	scriptSeen := false
	for i := 0; i < len(args); i++ {
		v := args[i].value
		switch {
		case v == "-n" || v == "--quiet" || v == "--silent" || v == "-E" || v == "-r" || v == "-s" || v == "-u" || v == "-z":
		case v == "-e" || v == "--expression":
			if i+1 >= len(args) || !sedReadOnlyRE.MatchString(args[i+1].value) {
				return "sed script may write files or run commands"
			}
			scriptSeen = true
			i++
		case strings.HasPrefix(v, "-") && v != "-":
			return "sed option " + v
		case !scriptSeen:
			if !sedReadOnlyRE.MatchString(v) {
				return "sed script may write files or run commands"
			}
			scriptSeen = true
		}
	}
	return ""
}

func checkGo(_ *analysis, args []word) string {
	if len(args) == 0 {
		return "go without a subcommand"
	}
	switch args[0].value {
	case "version":
		return ""
	case "env":
		for _, w := range args[1:] {
			if strings.HasPrefix(w.value, "-") && w.value != "-json" {
				return "go env " + w.value
			}
		}
		return ""
	}
	return "go " + args[0].value + " builds or runs code"
}

// gitReadOnly are git subcommands that only read, given checkGit's option
// checks.
var gitReadOnly = map[string]bool{
	"status": true, "diff": true, "log": true, "show": true, "blame": true, "rev-parse": true,
	"ls-files": true, "ls-tree": true, "describe": true, "shortlog": true, "merge-base": true,
	"rev-list": true, "cat-file": true, "branch": true, "remote": true, "tag": true, "grep": true,
	"stash": true, "whatchanged": true, "show-ref": true, "count-objects": true,
}

func checkGit(a *analysis, args []word) string {
	i := 0
	for ; i < len(args); i++ {
		v := args[i].value
		switch {
		case v == "-C":
			if i+1 >= len(args) {
				return "git -C without a directory"
			}
			if why := a.outside(args[i+1].value); why != "" {
				return why
			}
			i++
		case v == "--no-pager" || v == "-P" || v == "--no-optional-locks" || v == "--literal-pathspecs" || v == "--no-replace-objects":
		case strings.HasPrefix(v, "-"):
			// -c, --exec-path, --git-dir, --work-tree, -p (pager), ...
			return "git option " + v
		default:
			goto sub
		}
	}
	return "git without a subcommand"
sub:
	sub, rest := args[i].value, args[i+1:]
	if !gitReadOnly[sub] {
		return "git " + sub + " may change the repository"
	}
	for _, w := range rest {
		v := w.value
		if v == "--output" || strings.HasPrefix(v, "--output=") || strings.HasPrefix(v, "--ext-diff") ||
			v == "--no-index" || v == "-O" || strings.HasPrefix(v, "--open-files-in-pager") || strings.HasPrefix(v, "-O") && sub == "grep" {
			return "git " + sub + " " + v + " writes or runs something"
		}
	}
	pos := positional(rest)
	switch sub {
	case "branch":
		for _, w := range rest {
			v := w.value
			if !strings.HasPrefix(v, "-") {
				return "git branch with a name may create a branch"
			}
			if !contains([]string{"-a", "-r", "-v", "-vv", "-l", "--list", "--show-current", "--all", "--remotes", "--verbose", "--no-color"}, v) &&
				!strings.HasPrefix(v, "--sort=") && !strings.HasPrefix(v, "--format=") && !strings.HasPrefix(v, "--color") &&
				!strings.HasPrefix(v, "--contains=") && !strings.HasPrefix(v, "--merged=") && !strings.HasPrefix(v, "--no-merged=") {
				return "git branch " + v
			}
		}
	case "remote":
		if len(rest) > 0 && !(len(rest) == 1 && (rest[0].value == "-v" || rest[0].value == "--verbose")) &&
			!(len(pos) == 2 && pos[0] == "get-url") {
			return "git remote " + rest[0].value
		}
	case "tag":
		if len(rest) > 0 && rest[0].value != "-l" && rest[0].value != "--list" {
			return "git tag with arguments may create a tag"
		}
	case "stash":
		if len(pos) == 0 || (pos[0] != "list" && pos[0] != "show") {
			return "git stash changes the working tree"
		}
	}
	return ""
}
