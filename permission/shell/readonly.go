package shell

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// bareListed reports whether the command name with args is on the short
// list of commands that run without a question when no sandbox can
// confine them: literal words, and only the options the command's table
// marks for it (cmdSpec.bare). For git, the subcommand's table counts.
func (a *analysis) bareListed(name string, args []Word) bool {
	for _, w := range args {
		if !w.literal {
			return false
		}
	}
	s := readOnlyCommands()[name]
	if name == "git" {
		if len(args) == 0 {
			return false
		}
		s, args = gitSpecs()[args[0].value], args[1:]
	}
	if s == nil || !s.bare {
		return false
	}
	p, why := a.parseArgs(name, s, args)
	if why != "" {
		return false
	}
	for _, o := range p.opts {
		switch {
		case o.name == "-NUM": // head -5
		case !contains(s.bareOpts, o.name):
			return false
		case o.value != "" && !allDigits(o.value) && o.value != "no":
			return false
		}
	}
	return true
}

// anyArgs: the command only prints or ends, whatever its arguments.
func anyArgs(*analysis, []Word) string { return "" }

// checkFiles checks a checksum command: its -c reads file names from a
// file, so it is not on the list; operands are files.
func checkFiles(a *analysis, p *parsedArgs) string {
	if p.dynamic > 0 {
		return "file names only known at run time"
	}
	for _, f := range p.operands {
		if why := a.outside(f); why != "" {
			return why
		}
	}
	return ""
}

// checkResponseFiles: binutils programs (strings) read more arguments
// from the file an @FILE operand names, which the path checks would take
// for a file named "@FILE" in the workspace.
func checkResponseFiles(_ *analysis, p *parsedArgs) string {
	for _, f := range p.operands {
		if strings.HasPrefix(f, "@") {
			return "an operand " + f + " makes the program read its arguments from " + f[1:]
		}
	}
	return ""
}

// checkTest allows test and [ without -v and -R, which evaluate array
// subscripts (and so run $(...) inside them). Run-time values are allowed
// only where they cannot become such an operator: quoted, as the operand
// of a literal unary or binary operator.
func checkTest(_ *analysis, args []Word) string {
	if len(args) > 0 && args[len(args)-1].literal && args[len(args)-1].value == "]" {
		args = args[:len(args)-1]
	}
	for _, w := range args {
		if w.literal && (w.value == "-v" || w.value == "-R") {
			return "test " + w.value + " evaluates array subscripts"
		}
	}
	dyn := func(i int) bool { return !args[i].literal }
	ok := func(i int) bool { return args[i].literal || args[i].quoted }
	unary := func(i int) bool {
		return args[i].literal && strings.HasPrefix(args[i].value, "-") && len(args[i].value) == 2
	}
	binary := func(i int) bool {
		return args[i].literal && contains([]string{"=", "==", "!=", "<", ">", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt", "-ot", "-ef"}, args[i].value)
	}
	switch n := len(args); {
	case n == 1:
		if !ok(0) {
			return "test with an unquoted run-time value"
		}
		return ""
	case n == 2 && unary(0):
		if !ok(1) {
			return "test with an unquoted run-time value"
		}
		return ""
	case n == 3 && binary(1):
		if !ok(0) || !ok(2) {
			return "test with an unquoted run-time value"
		}
		return ""
	}
	for i := range args {
		if dyn(i) {
			return "test with run-time values in a complex expression"
		}
	}
	return ""
}

// checkSet allows the set options that change nothing about later words:
// -e, -u, -x, -v, -C and -o pipefail and the like, and "set --".
func checkSet(_ *analysis, args []Word) string {
	if len(args) == 0 {
		return "set prints every variable, which may hold secrets"
	}
	for i := 0; i < len(args); i++ {
		w := args[i]
		if !w.literal {
			return "set with values only known at run time"
		}
		v := w.value
		if v == "--" || v == "-" {
			return ""
		}
		if !strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "+") {
			return "set " + v
		}
		for _, c := range v[1:] {
			switch {
			case c == 'o':
				i++
				if i >= len(args) || !args[i].literal || !contains([]string{"pipefail", "errexit", "nounset", "xtrace", "noclobber", "verbose"}, args[i].value) {
					return "set -o with an option that changes later words or jobs"
				}
			case strings.ContainsRune("euxvC", c):
			default:
				return fmt.Sprintf("set %c%c changes how later words are read or run", v[0], c)
			}
		}
	}
	return ""
}

// checkPrintf: printf takes no option but -v (which assigns, evaluating
// subscripts); its format must be literal.
func checkPrintf(_ *analysis, args []Word) string {
	if len(args) > 0 && args[0].literal && args[0].value == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		return ""
	}
	if !args[0].literal || strings.HasPrefix(args[0].value, "-") {
		return "printf with an option or a run-time format"
	}
	return ""
}

// checkWait: wait -p assigns a variable (evaluating subscripts), and a
// run-time word could split into it; only job numbers, $! and -n are
// allowed.
func checkWait(a *analysis, args []Word) string {
	for _, w := range args {
		switch {
		case w.src == "$!" || w.src == `"$!"`:
		case w.literal && (allDigits(strings.TrimPrefix(w.value, "%")) || w.value == "-n"):
		default:
			return "wait " + w.src
		}
	}
	return ""
}

// findPrimaries are find's tests and actions that only read; the value
// says how many arguments follow, -1 for a file.
var findPrimaries = map[string]int{
	"-name": 1, "-iname": 1, "-path": 1, "-ipath": 1, "-wholename": 1, "-iwholename": 1, "-regex": 1, "-iregex": 1,
	"-type": 1, "-xtype": 1, "-maxdepth": 1, "-mindepth": 1, "-size": 1, "-mtime": 1, "-mmin": 1, "-atime": 1,
	"-amin": 1, "-ctime": 1, "-cmin": 1, "-newer": -1, "-anewer": -1, "-cnewer": -1, "-samefile": -1,
	"-user": 1, "-group": 1, "-uid": 1, "-gid": 1, "-perm": 1, "-links": 1, "-inum": 1, "-regextype": 1,
	"-print": 0, "-print0": 0, "-prune": 0, "-quit": 0, "-o": 0, "-or": 0, "-a": 0, "-and": 0, "-not": 0, "!": 0,
	"(": 0, ")": 0, ",": 0, "-empty": 0, "-readable": 0, "-writable": 0, "-executable": 0, "-true": 0, "-false": 0,
	"-depth": 0, "-xdev": 0, "-mount": 0, "-nouser": 0, "-nogroup": 0, "-ls": 0, "-printf": 1, "-noleaf": 0,
	"-daystart": 0, "-ignore_readdir_race": 0,
}

// checkFind allows find with read-only primaries; its starting points
// are files. -L/-follow (following symlinks) walks the trees first.
func checkFind(a *analysis, args []Word) string {
	follow := false
	i := 0
	for ; i < len(args) && args[i].literal; i++ {
		switch args[i].value {
		case "-P", "-H":
			continue
		case "-L":
			follow = true
			continue
		}
		break
	}
	var starts []string
	for ; i < len(args); i++ {
		w := args[i]
		if w.literal && (strings.HasPrefix(w.value, "-") || w.value == "(" || w.value == "!") {
			break
		}
		vals, why := a.expandAll(w)
		if why != "" {
			return why
		}
		for _, v := range vals {
			if strings.HasPrefix(v, "-") {
				return "find starting point " + v + " reads as an option"
			}
		}
		starts = append(starts, vals...)
	}
	for ; i < len(args); i++ {
		w := args[i]
		if !w.literal {
			return "find expression with " + w.src + " only known at run time"
		}
		n, ok := findPrimaries[w.value]
		if w.value == "-follow" {
			follow, ok = true, true
		}
		if !ok {
			return "find " + w.value + " is not on the list of read-only primaries (it may run, write or delete)"
		}
		switch {
		case n < 0:
			i++
			if i >= len(args) || !args[i].literal {
				return "find " + w.value + " without a literal file"
			}
			if why := a.outside(args[i].value); why != "" {
				return why
			}
		case n > 0:
			i += n
			if i >= len(args) || !args[i].literal {
				return "find " + w.value + " without a literal value"
			}
		}
	}
	if len(starts) == 0 {
		starts = []string{"."}
	}
	for _, s := range starts {
		if why := a.outside(s); why != "" {
			return why
		}
		if follow {
			if why := a.walkCheck(s, true); why != "" {
				return why
			}
		}
	}
	return ""
}

// checkDate allows only +FORMAT operands: anything else sets the clock.
func checkDate(_ *analysis, p *parsedArgs) string {
	for _, o := range p.operands {
		if !strings.HasPrefix(o, "+") {
			return "date " + o + " may set the clock"
		}
	}
	if p.dynamic > 0 {
		return "date with run-time operands"
	}
	return ""
}

// checkJq allows jq with a filter that loads no modules; --arg and
// --argjson take two values.
func checkJq(a *analysis, args []Word) string {
	var rest []Word
	for i := 0; i < len(args); i++ {
		if w := args[i]; w.literal && (w.value == "--arg" || w.value == "--argjson") {
			if i+2 >= len(args) || !args[i+1].literal || !args[i+2].literal {
				return "jq " + w.value + " without literal values"
			}
			i += 2
			continue
		}
		rest = append(rest, args[i])
	}
	return a.judge("jq", readOnlyCommands()["jq"], rest)
}

// jqFilter allows a jq filter that loads no modules and reads nothing
// of the environment.
func jqFilter(a *analysis, p *parsedArgs) string {
	if p.has("-f", "--from-file") {
		// The filter file is not read here: it may import modules
		// or read the environment.
		return "jq reads its filter from a file"
	}
	if len(p.operands) == 0 {
		return ""
	}
	// jq's lexer allows space between $ and a name ($ ENV).
	filter := strings.ToLower(p.operands[0])
	for _, kw := range []string{"import", "include", "input_filename", "$__prog", "env"} {
		if strings.Contains(filter, kw) {
			return "jq filter uses " + kw + " (modules, or the environment, which may hold secrets)"
		}
	}
	return ""
}

// checkSed allows sed scripts made only of commands that print or edit
// the stream (no w, W, r, R, e, or s///w, s///e), without -i.
func sedScripts(_ *analysis, p *parsedArgs) string {
	scripts := p.values("-e", "--expression")
	if len(scripts) == 0 {
		if len(p.operands) == 0 {
			return "sed without a script"
		}
		scripts = p.operands[:1]
	}
	for _, sc := range scripts {
		if why := sedReadOnly(sc); why != "" {
			return why
		}
	}
	return ""
}

// sedReadOnly returns why a sed script may write, read other files or
// run commands, or "" when every command in it only edits the stream.
func sedReadOnly(sc string) string {
	i := 0
	skipSpace := func() {
		for i < len(sc) && (sc[i] == ' ' || sc[i] == '\t') {
			i++
		}
	}
	// delimited reads a delimited part starting after its opening
	// delimiter d.
	delimited := func(d byte) bool {
		for i < len(sc) {
			switch sc[i] {
			case '\\':
				i += 2
				continue
			case '\n':
				return false
			case d:
				i++
				return true
			}
			i++
		}
		return false
	}
	addr := func() bool {
		switch {
		case i < len(sc) && sc[i] >= '0' && sc[i] <= '9':
			for i < len(sc) && (sc[i] >= '0' && sc[i] <= '9' || sc[i] == '~') {
				i++
			}
		case i < len(sc) && sc[i] == '$':
			i++
		case i < len(sc) && sc[i] == '/':
			i++
			if !delimited('/') {
				return false
			}
			for i < len(sc) && (sc[i] == 'I' || sc[i] == 'M') {
				i++
			}
		case i+1 < len(sc) && sc[i] == '\\':
			d := sc[i+1]
			i += 2
			if !delimited(d) {
				return false
			}
		}
		return true
	}
	for i < len(sc) {
		skipSpace()
		if i < len(sc) && (sc[i] == ';' || sc[i] == '\n' || sc[i] == '}') {
			i++
			continue
		}
		if i >= len(sc) {
			break
		}
		if !addr() {
			return "sed script does not parse"
		}
		if i < len(sc) && sc[i] == ',' {
			i++
			if i < len(sc) && sc[i] == '+' {
				i++
			}
			if !addr() {
				return "sed script does not parse"
			}
		}
		skipSpace()
		if i < len(sc) && sc[i] == '!' {
			i++
			skipSpace()
		}
		if i >= len(sc) {
			return "sed script does not parse"
		}
		c := sc[i]
		i++
		switch {
		case c == '{':
			continue // a block: the next command follows at once
		case strings.IndexByte("pP=dDnNgGhHxzF", c) >= 0:
		case c == 'q' || c == 'Q' || c == 'l':
			for i < len(sc) && sc[i] >= '0' && sc[i] <= '9' {
				i++
			}
		case c == 's' || c == 'y':
			if i >= len(sc) || sc[i] == '\\' || sc[i] == '\n' {
				return "sed script does not parse"
			}
			d := sc[i]
			i++
			for range 2 { // the pattern, then the replacement
				if !delimited(d) {
					return "sed script does not parse"
				}
			}
			if c == 's' {
				for i < len(sc) && strings.IndexByte("gpiImM0123456789", sc[i]) >= 0 {
					i++
				}
			}
		default:
			return fmt.Sprintf("sed command %q may write files, read other files or run commands", string(c))
		}
		skipSpace()
		if i < len(sc) && strings.IndexByte(";\n}", sc[i]) < 0 {
			return fmt.Sprintf("sed script has %q after a command", sc[i:])
		}
	}
	return ""
}

// checkGo allows go version and go env (printing only).
func checkGo(_ *analysis, args []Word) string {
	if len(args) == 0 || !args[0].literal {
		return "go without a literal subcommand"
	}
	switch args[0].value {
	case "version":
		if len(args) == 1 {
			return ""
		}
		return "go version with arguments"
	case "env":
		for _, w := range args[1:] {
			if !w.literal || strings.HasPrefix(w.value, "-") && w.value != "-json" {
				return "go env " + w.src
			}
		}
		return ""
	}
	return "go " + args[0].value + " builds or runs code"
}

// checkPs allows the common listings of ps, not the ones that print
// processes' environments (e in BSD syntax, -o environ).
func checkPs(a *analysis, args []Word) string {
	for _, w := range args {
		if !w.literal {
			return "ps with run-time arguments"
		}
		v := w.value
		if strings.HasPrefix(v, "-") {
			continue
		}
		if strings.ContainsRune(v, 'e') {
			return "ps " + v + " may print processes' environments"
		}
	}
	return a.judge("ps", readOnlyCommands()["ps"], args)
}

// checkXxd: xxd has its own parser, which takes options by prefix
// (-r is -revert, -s is -seek, and -ps is -postscript), so only exact
// spellings pass, values must be numbers, and one file at most is read
// (a second is written).
func checkXxd(a *analysis, args []Word) string {
	var files []string
	for i := 0; i < len(args); i++ {
		w := args[i]
		if !w.literal {
			return "xxd with arguments only known at run time"
		}
		switch v := w.value; {
		case contains([]string{"-a", "-b", "-C", "-E", "-e", "-i", "-p", "-ps", "-plain", "-u", "-d"}, v):
		case contains([]string{"-c", "-g", "-l", "-o", "-s"}, v):
			i++
			if i >= len(args) || !args[i].literal || !xxdNumberRE().MatchString(args[i].value) {
				return "xxd " + v + " without a number"
			}
		case strings.HasPrefix(v, "-") && v != "-":
			return "xxd option " + v + " is not on the list"
		default:
			files = append(files, v)
		}
	}
	if len(files) > 1 {
		return "xxd with a second file, which it writes"
	}
	for _, f := range files {
		if why := a.outside(f); why != "" {
			return why
		}
	}
	return ""
}

var xxdNumberRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[+-]?(0[xX][0-9a-fA-F]+|[0-9]+)$`) })
