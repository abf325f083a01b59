package shell

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// readOnlyCommands run without asking in default mode when their
// arguments pass their spec. Each spec is an allowlist: options not on it
// ask. Special commands (find, git, sed, jq, test, ...) parse their own
// arguments in check. The table is built on first use, not at start-up
// (issue 21).
func readOnlyCommands() map[string]*cmdSpec {
	readOnlyOnce.Do(buildReadOnly)
	return readOnlyTable
}

var (
	readOnlyOnce  sync.Once
	readOnlyTable map[string]*cmdSpec // written once, by buildReadOnly
)

func buildReadOnly() {
	sums := spec("btz", "binary text zero tag", text, check(checkFiles))
	grep := spec("iyEFGPwvxclLnhHoqsrRzZUabITA:B:C:m:e:f@",
		"ignore-case no-ignore-case extended-regexp fixed-strings basic-regexp perl-regexp word-regexp line-regexp "+
			"invert-match count files-with-matches files-without-match line-number no-filename with-filename "+
			"only-matching quiet silent no-messages recursive dereference-recursive null null-data text "+
			"binary-files= include= exclude= exclude-dir= color? colour? context= after-context= before-context= "+
			"max-count= regexp= file=@ label= line-buffered byte-offset initial-tab",
		pattern("-e", "-f", "--regexp", "--file"),
		recursiveWhen([]string{"-r", "-R", "--recursive", "--dereference-recursive"}, []string{"-R", "--dereference-recursive"}, true))
	readOnlyTable = map[string]*cmdSpec{
		"ls": spec("aAbBcCdfFgGhHiklmnNopqQrRsStuUvwxX1w:I:T:",
			"all almost-all human-readable si classify directory reverse recursive sort= time= time-style= "+
				"group-directories-first full-time inode size literal quoting-style= indicator-style= "+
				"ignore= hide= width= color? file-type no-group numeric-uid-gid escape"),
		"cat":    spec("AbeEnstTuv", "number show-all number-nonblank squeeze-blank show-ends show-tabs show-nonprinting"),
		"head":   spec("n:c:qvz", "lines= bytes= quiet silent verbose zero-terminated", numeric),
		"tail":   spec("n:c:qvz", "lines= bytes= quiet silent verbose zero-terminated", numeric),
		"wc":     spec("cmlLw", "bytes chars lines words max-line-length"),
		"nl":     spec("b:n:w:s:v:i:", "body-numbering= number-format= number-width= number-separator="),
		"tac":    spec("brs:", "before regex separator="),
		"stat":   spec("tfc:", "terse file-system format= printf="),
		"du":     spec("sahckmbxd:", "summarize human-readable all total apparent-size max-depth= exclude= si bytes"),
		"md5sum": sums, "sha1sum": sums, "sha256sum": sums, "sha512sum": sums, "b2sum": sums,
		"cksum":   spec("", ""),
		"rev":     spec("", ""),
		"od":      spec("A:t:N:j:w:vbcdfiosx", "address-radix= format= read-bytes= skip-bytes= width? output-duplicates"),
		"hexdump": spec("bcCdoxvn:s:e:f@", ""),
		"strings": spec("an:t:e:dw", "all bytes= radix= encoding= data", check(checkResponseFiles)),
		"base64":  spec("diw:", "decode ignore-garbage wrap="),
		"paste":   spec("d:sz", "delimiters= serial zero-terminated"),
		"fold":    spec("w:sb", "width= spaces bytes"),
		"column":  spec("ts:c:xo:N:R:", "table separator= output-width= fillrows output-separator="),
		"comm":    spec("123z", "check-order nocheck-order output-delimiter= total zero-terminated", maxOps(2)),
		"join":    spec("t:1:2:j:o:e:a:v:iz", "ignore-case check-order nocheck-order header zero-terminated", maxOps(2)),
		"cmp":     spec("lsbi:n:", "verbose silent quiet print-bytes ignore-initial= bytes="),
		"diff": spec("uU:cC:rNqsywbBiatTpx:", "unified? context? recursive new-file brief report-identical-files "+
			"side-by-side ignore-all-space ignore-space-change ignore-blank-lines ignore-case text expand-tabs "+
			"initial-tab show-c-function label= normal minimal color? exclude= no-dereference",
			// diff follows symlinks inside the directories it compares,
			// at the top level and, with -r, below.
			recursiveWhen([]string{"*"}, []string{"*"}, false)),
		"df":       spec("hHkTali", "human-readable si local print-type all inodes"),
		"realpath": spec("emsLPqz", "canonicalize-existing canonicalize-missing no-symlinks logical physical quiet zero relative-to= relative-base=", text),
		"readlink": spec("femnqsvz", "canonicalize canonicalize-existing canonicalize-missing no-newline quiet silent verbose zero", text),
		"basename": spec("as:z", "multiple suffix= zero", text),
		"dirname":  spec("z", "zero", text),
		"pwd":      spec("LP", "", none),
		"echo":     {operands: operandText, check: nil}, // parsed by itself below
		"true":     {operands: operandText},
		"false":    {operands: operandText},
		":":        {operands: operandText},
		"test":     {check: nil}, // see testArgs
		"[":        {check: nil},
		"which":    spec("as", "", text),
		"type":     spec("afPpt", "", text),
		"whoami":   spec("", "", none),
		"id":       spec("ugGnrz", "user group groups name real zero", text),
		"uname":    spec("asnrvmpio", "all kernel-name nodename kernel-release kernel-version machine processor hardware-platform operating-system", none),
		"seq":      spec("f:s:w", "format= separator= equal-width", text),
		"sleep":    spec("", "", text),
		"free":     spec("bkmghtwl", "bytes kibi mebi gibi human total wide lohi si", none),
		"uptime":   spec("ps", "pretty since", none),
		"nproc":    spec("", "all ignore=", none),
		"printenv": spec("0", "null", text, check(func(_ *analysis, p *parsedArgs) string {
			if len(p.operands) == 0 && p.dynamic == 0 {
				return "printenv prints the whole environment, which may hold secrets"
			}
			for _, o := range p.operands {
				if secretVar(o) {
					return "printenv " + o + " may print a secret"
				}
			}
			return ""
		})),
		"exit":     {operands: operandText},
		"return":   {operands: operandText},
		"break":    {operands: operandText},
		"continue": {operands: operandText},
		"wait":     {}, // see checkWait
		"tr":       spec("cdstC", "complement delete squeeze-repeats truncate-set1", text, maxOps(2)),
		"cd":       {operands: operandText}, // where it goes is checked by the analysis
		"set":      {},                      // see checkSet
		"printf":   {},                      // see checkPrintf
		"grep":     grep,
		"egrep":    grep,
		"fgrep":    grep,
		"rg": spec("iIsSwvxclnNoqualLFPHU0pe:f@g:t:T:A:B:C:m:M:j:d:r:",
			"ignore-case case-sensitive smart-case word-regexp invert-match line-regexp count count-matches "+
				"files-with-matches files-without-match line-number no-line-number only-matching quiet unrestricted "+
				"hidden no-ignore no-ignore-vcs no-ignore-parent no-ignore-dot no-ignore-global no-config follow fixed-strings "+
				"pcre2 with-filename no-filename multiline multiline-dotall null pretty files type-list json vimgrep stats "+
				"heading no-heading column no-column trim byte-offset sort= sortr= color= colors= glob= iglob= type= type-not= "+
				"regexp= file=@ after-context= before-context= context= max-count= max-columns= max-columns-preview "+
				"max-depth= threads= replace= text binary no-messages passthru crlf null-data one-file-system",
			pattern("-e", "-f", "--regexp", "--file", "--files", "--type-list"),
			recursiveWhen([]string{"*"}, []string{"-L", "--follow"}, true)),
		"find":     {check: nil}, // see checkFind
		"git":      {},           // see checkGit
		"sort":     spec("bdfgiMhnRrVsucCzmk:t:S:", "ignore-leading-blanks dictionary-order ignore-case general-numeric-sort ignore-nonprinting month-sort human-numeric-sort numeric-sort random-sort reverse version-sort stable unique check? zero-terminated merge key= field-separator= buffer-size= parallel= random-source=@ debug"),
		"uniq":     spec("cdDuizf:s:w:", "count repeated all-repeated? unique ignore-case zero-terminated skip-fields= skip-chars= check-chars= group?", maxOps(1)),
		"xxd":      {}, // see checkXxd
		"tree":     spec("adfiFnChsDpugJXL:P:I:", "noreport dirsfirst du prune filelimit= charset= sort="),
		"file":     spec("bikLhzNE0", "brief mime mime-type mime-encoding keep-going dereference no-dereference uncompress no-pad print0"),
		"cut":      spec("b:c:d:f:snz", "bytes= characters= delimiter= fields= only-delimited complement output-delimiter= zero-terminated"),
		"date":     spec("d:f@r@uRI?", "date= file=@ reference=@ utc universal rfc-email iso-8601? rfc-3339= debug", text, check(checkDate)),
		"hostname": spec("fsiIdA", "fqdn short ip-address all-ip-addresses domain all-fqdns", none),
		"jq":       {}, // see checkJq
		"sed":      {}, // see checkSed
		"go":       {}, // see checkGo
		"ps":       {}, // see checkPs
	}
}

// special are the commands whose arguments are parsed by their own
// function rather than by a spec.
var special = map[string]func(a *analysis, args []Word) string{
	"echo":     checkEcho,
	"true":     anyArgs,
	"false":    anyArgs,
	":":        anyArgs,
	"exit":     anyArgs,
	"return":   anyArgs,
	"break":    anyArgs,
	"continue": anyArgs,
	"cd":       anyArgs,
	"test":     checkTest,
	"[":        checkTest,
	"set":      checkSet,
	"printf":   checkPrintf,
	"find":     checkFind,
	"git":      checkGit,
	"jq":       checkJq,
	"sed":      checkSed,
	"go":       checkGo,
	"ps":       checkPs,
	"xxd":      checkXxd,
	"wait":     checkWait,
}

// readOnly reports whether the command name with args only reads, and
// why not.
func (a *analysis) readOnly(name string, args []Word, open bool) (bool, string) {
	s, ok := readOnlyCommands()[name]
	if !ok {
		return false, name + " is not a known read-only command"
	}
	if open {
		return false, name + " gets arguments at run time"
	}
	var why string
	if f, ok := special[name]; ok {
		why = f(a, args)
	} else {
		why = a.judge(name, s, args)
	}
	return why == "", why
}

func anyArgs(*analysis, []Word) string { return "" }

// checkEcho: echo only prints, whatever its arguments expand to.
func checkEcho(*analysis, []Word) string { return "" }

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

var jqSpec = sync.OnceValue(func() *cmdSpec {
	return spec("rjcnseaSCMR", "raw-output join-output compact-output null-input slurp exit-status ascii-output sort-keys "+
		"color-output monochrome-output raw-input tab indent= seq stream from-file=@ raw-output0 arg= argjson=")
})

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
	s := *jqSpec()
	s.pattern = []string{"-f", "--from-file"}
	s.check = func(a *analysis, p *parsedArgs) string {
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
	s.short['f'] = optFile
	return a.judge("jq", &s, rest)
}

var sedSpec = sync.OnceValue(func() *cmdSpec {
	return spec("nErsuze:", "quiet silent regexp-extended separate unbuffered null-data posix debug expression= sandbox")
})

// checkSed allows sed scripts made only of commands that print or edit
// the stream (no w, W, r, R, e, or s///w, s///e), without -i.
func checkSed(a *analysis, args []Word) string {
	s := *sedSpec()
	s.pattern = []string{"-e", "--expression"}
	s.check = func(_ *analysis, p *parsedArgs) string {
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
	return a.judge("sed", &s, args)
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
	return a.judge("ps", psSpec(), args)
}

var psSpec = sync.OnceValue(func() *cmdSpec {
	return spec("eAfFlyjHTMaxdNo:p:u:U:g:G:", "forest sort= pid= ppid= user= no-headers headers cols= columns= width=",
		check(func(_ *analysis, p *parsedArgs) string {
			for _, f := range p.values("-o") {
				if strings.Contains(f, "env") {
					return "ps -o " + f
				}
			}
			for _, o := range p.operands {
				if strings.Trim(o, "auxwfjlsvmrTU") != "" {
					return "ps " + o
				}
			}
			return ""
		}), text)
})

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
