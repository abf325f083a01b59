package shell

import (
	"strings"
	"sync"
)

// The commands' tables: what each read-only command (and git
// subcommand) accepts, one option per entry. readonly.go and git.go
// judge arguments against them.

// readOnlyCommands run without asking in default mode when their
// arguments pass their spec, each registered once. A spec is an
// allowlist: options not on it ask. Some commands (find, git, test, ...)
// parse their arguments with a function of their own (cmdSpec.parse).
// The table is built on first use, not at start-up (issue 21).
func readOnlyCommands() map[string]*cmdSpec {
	readOnlyOnce.Do(buildReadOnly)
	return readOnlyTable
}

var (
	readOnlyOnce  sync.Once
	readOnlyTable map[string]*cmdSpec // written once, by buildReadOnly
)

func buildReadOnly() {
	sums := spec([]opt{
		{"-b", optFlag}, {"-t", optFlag}, {"-z", optFlag}, {"--binary", optFlag}, {"--text", optFlag},
		{"--zero", optFlag}, {"--tag", optFlag},
	}, text, check(checkFiles))
	grep := spec([]opt{
		{"-i", optFlag}, {"-y", optFlag}, {"-E", optFlag}, {"-F", optFlag}, {"-G", optFlag},
		{"-P", optFlag}, {"-w", optFlag}, {"-v", optFlag}, {"-x", optFlag}, {"-c", optFlag},
		{"-l", optFlag}, {"-L", optFlag}, {"-n", optFlag}, {"-h", optFlag}, {"-H", optFlag},
		{"-o", optFlag}, {"-q", optFlag}, {"-s", optFlag}, {"-r", optFlag}, {"-R", optFlag},
		{"-z", optFlag}, {"-Z", optFlag}, {"-U", optFlag}, {"-a", optFlag}, {"-b", optFlag},
		{"-I", optFlag}, {"-T", optFlag}, {"-A", optValue}, {"-B", optValue}, {"-C", optValue},
		{"-m", optValue}, {"-e", optValue}, {"-f", optFile}, {"--ignore-case", optFlag},
		{"--no-ignore-case", optFlag}, {"--extended-regexp", optFlag}, {"--fixed-strings", optFlag},
		{"--basic-regexp", optFlag}, {"--perl-regexp", optFlag}, {"--word-regexp", optFlag},
		{"--line-regexp", optFlag}, {"--invert-match", optFlag}, {"--count", optFlag},
		{"--files-with-matches", optFlag}, {"--files-without-match", optFlag},
		{"--line-number", optFlag}, {"--no-filename", optFlag}, {"--with-filename", optFlag},
		{"--only-matching", optFlag}, {"--quiet", optFlag}, {"--silent", optFlag},
		{"--no-messages", optFlag}, {"--recursive", optFlag}, {"--dereference-recursive", optFlag},
		{"--null", optFlag}, {"--null-data", optFlag}, {"--text", optFlag}, {"--binary-files", optValue},
		{"--include", optValue}, {"--exclude", optValue}, {"--exclude-dir", optValue},
		{"--color", optMaybe}, {"--colour", optMaybe}, {"--context", optValue},
		{"--after-context", optValue}, {"--before-context", optValue}, {"--max-count", optValue},
		{"--regexp", optValue}, {"--file", optFile}, {"--label", optValue}, {"--line-buffered", optFlag},
		{"--byte-offset", optFlag}, {"--initial-tab", optFlag},
	},
		pattern("-e", "-f", "--regexp", "--file"),
		recursiveWhen([]string{"-r", "-R", "--recursive", "--dereference-recursive"}, []string{"-R", "--dereference-recursive"}, true))
	readOnlyTable = map[string]*cmdSpec{
		"ls": spec([]opt{
			{"-a", optFlag}, {"-A", optFlag}, {"-b", optFlag}, {"-B", optFlag}, {"-c", optFlag},
			{"-C", optFlag}, {"-d", optFlag}, {"-f", optFlag}, {"-F", optFlag}, {"-g", optFlag},
			{"-G", optFlag}, {"-h", optFlag}, {"-H", optFlag}, {"-i", optFlag}, {"-k", optFlag},
			{"-l", optFlag}, {"-m", optFlag}, {"-n", optFlag}, {"-N", optFlag}, {"-o", optFlag},
			{"-p", optFlag}, {"-q", optFlag}, {"-Q", optFlag}, {"-r", optFlag}, {"-R", optFlag},
			{"-s", optFlag}, {"-S", optFlag}, {"-t", optFlag}, {"-u", optFlag}, {"-U", optFlag},
			{"-v", optFlag}, {"-x", optFlag}, {"-X", optFlag}, {"-1", optFlag}, {"-w", optValue},
			{"-I", optValue}, {"-T", optValue}, {"--all", optFlag}, {"--almost-all", optFlag},
			{"--human-readable", optFlag}, {"--si", optFlag}, {"--classify", optFlag},
			{"--directory", optFlag}, {"--reverse", optFlag}, {"--recursive", optFlag}, {"--sort", optValue},
			{"--time", optValue}, {"--time-style", optValue}, {"--group-directories-first", optFlag},
			{"--full-time", optFlag}, {"--inode", optFlag}, {"--size", optFlag}, {"--literal", optFlag},
			{"--quoting-style", optValue}, {"--indicator-style", optValue}, {"--ignore", optValue},
			{"--hide", optValue}, {"--width", optValue}, {"--color", optMaybe}, {"--file-type", optFlag},
			{"--no-group", optFlag}, {"--numeric-uid-gid", optFlag}, {"--escape", optFlag},
		}, unconfined("-l", "-a", "-A", "-h", "-1", "-F", "-d")),
		"cat": spec([]opt{
			{"-A", optFlag}, {"-b", optFlag}, {"-e", optFlag}, {"-E", optFlag}, {"-n", optFlag},
			{"-s", optFlag}, {"-t", optFlag}, {"-T", optFlag}, {"-u", optFlag}, {"-v", optFlag},
			{"--number", optFlag}, {"--show-all", optFlag}, {"--number-nonblank", optFlag},
			{"--squeeze-blank", optFlag}, {"--show-ends", optFlag}, {"--show-tabs", optFlag},
			{"--show-nonprinting", optFlag},
		}, unconfined("-n")),
		"head": spec([]opt{
			{"-n", optValue}, {"-c", optValue}, {"-q", optFlag}, {"-v", optFlag}, {"-z", optFlag},
			{"--lines", optValue}, {"--bytes", optValue}, {"--quiet", optFlag}, {"--silent", optFlag},
			{"--verbose", optFlag}, {"--zero-terminated", optFlag},
		}, numeric, unconfined("-n")),
		"tail": spec([]opt{
			{"-n", optValue}, {"-c", optValue}, {"-q", optFlag}, {"-v", optFlag}, {"-z", optFlag},
			{"--lines", optValue}, {"--bytes", optValue}, {"--quiet", optFlag}, {"--silent", optFlag},
			{"--verbose", optFlag}, {"--zero-terminated", optFlag},
		}, numeric, unconfined("-n")),
		"wc": spec([]opt{
			{"-c", optFlag}, {"-m", optFlag}, {"-l", optFlag}, {"-L", optFlag}, {"-w", optFlag},
			{"--bytes", optFlag}, {"--chars", optFlag}, {"--lines", optFlag}, {"--words", optFlag},
			{"--max-line-length", optFlag},
		}, unconfined("-l", "-c", "-w", "-m")),
		"nl": spec([]opt{
			{"-b", optValue}, {"-n", optValue}, {"-w", optValue}, {"-s", optValue}, {"-v", optValue},
			{"-i", optValue}, {"--body-numbering", optValue}, {"--number-format", optValue},
			{"--number-width", optValue}, {"--number-separator", optValue},
		}),
		"tac": spec([]opt{
			{"-b", optFlag}, {"-r", optFlag}, {"-s", optValue}, {"--before", optFlag}, {"--regex", optFlag},
			{"--separator", optValue},
		}),
		"stat": spec([]opt{
			{"-t", optFlag}, {"-f", optFlag}, {"-c", optValue}, {"--terse", optFlag},
			{"--file-system", optFlag}, {"--format", optValue}, {"--printf", optValue},
		}),
		"du": spec([]opt{
			{"-s", optFlag}, {"-a", optFlag}, {"-h", optFlag}, {"-c", optFlag}, {"-k", optFlag},
			{"-m", optFlag}, {"-b", optFlag}, {"-x", optFlag}, {"-d", optValue}, {"--summarize", optFlag},
			{"--human-readable", optFlag}, {"--all", optFlag}, {"--total", optFlag},
			{"--apparent-size", optFlag}, {"--max-depth", optValue}, {"--exclude", optValue},
			{"--si", optFlag}, {"--bytes", optFlag},
		}),
		"md5sum": sums, "sha1sum": sums, "sha256sum": sums, "sha512sum": sums, "b2sum": sums,
		"cksum": spec([]opt{}),
		"rev":   spec([]opt{}),
		"od": spec([]opt{
			{"-A", optValue}, {"-t", optValue}, {"-N", optValue}, {"-j", optValue}, {"-w", optValue},
			{"-v", optFlag}, {"-b", optFlag}, {"-c", optFlag}, {"-d", optFlag}, {"-f", optFlag},
			{"-i", optFlag}, {"-o", optFlag}, {"-s", optFlag}, {"-x", optFlag},
			{"--address-radix", optValue}, {"--format", optValue}, {"--read-bytes", optValue},
			{"--skip-bytes", optValue}, {"--width", optMaybe}, {"--output-duplicates", optFlag},
		}),
		"hexdump": spec([]opt{
			{"-b", optFlag}, {"-c", optFlag}, {"-C", optFlag}, {"-d", optFlag}, {"-o", optFlag},
			{"-x", optFlag}, {"-v", optFlag}, {"-n", optValue}, {"-s", optValue}, {"-e", optValue},
			{"-f", optFile},
		}),
		"strings": spec([]opt{
			{"-a", optFlag}, {"-n", optValue}, {"-t", optValue}, {"-e", optValue}, {"-d", optFlag},
			{"-w", optFlag}, {"--all", optFlag}, {"--bytes", optValue}, {"--radix", optValue},
			{"--encoding", optValue}, {"--data", optFlag},
		}, check(checkResponseFiles)),
		"base64": spec([]opt{
			{"-d", optFlag}, {"-i", optFlag}, {"-w", optValue}, {"--decode", optFlag},
			{"--ignore-garbage", optFlag}, {"--wrap", optValue},
		}),
		"paste": spec([]opt{
			{"-d", optValue}, {"-s", optFlag}, {"-z", optFlag}, {"--delimiters", optValue},
			{"--serial", optFlag}, {"--zero-terminated", optFlag},
		}),
		"fold": spec([]opt{
			{"-w", optValue}, {"-s", optFlag}, {"-b", optFlag}, {"--width", optValue}, {"--spaces", optFlag},
			{"--bytes", optFlag},
		}),
		"column": spec([]opt{
			{"-t", optFlag}, {"-s", optValue}, {"-c", optValue}, {"-x", optFlag}, {"-o", optValue},
			{"-N", optValue}, {"-R", optValue}, {"--table", optFlag}, {"--separator", optValue},
			{"--output-width", optValue}, {"--fillrows", optFlag}, {"--output-separator", optValue},
		}),
		"comm": spec([]opt{
			{"-1", optFlag}, {"-2", optFlag}, {"-3", optFlag}, {"-z", optFlag}, {"--check-order", optFlag},
			{"--nocheck-order", optFlag}, {"--output-delimiter", optValue}, {"--total", optFlag},
			{"--zero-terminated", optFlag},
		}, maxOps(2)),
		"join": spec([]opt{
			{"-t", optValue}, {"-1", optValue}, {"-2", optValue}, {"-j", optValue}, {"-o", optValue},
			{"-e", optValue}, {"-a", optValue}, {"-v", optValue}, {"-i", optFlag}, {"-z", optFlag},
			{"--ignore-case", optFlag}, {"--check-order", optFlag}, {"--nocheck-order", optFlag},
			{"--header", optFlag}, {"--zero-terminated", optFlag},
		}, maxOps(2)),
		"cmp": spec([]opt{
			{"-l", optFlag}, {"-s", optFlag}, {"-b", optFlag}, {"-i", optValue}, {"-n", optValue},
			{"--verbose", optFlag}, {"--silent", optFlag}, {"--quiet", optFlag}, {"--print-bytes", optFlag},
			{"--ignore-initial", optValue}, {"--bytes", optValue},
		}),
		"diff": spec([]opt{
			{"-u", optFlag}, {"-U", optValue}, {"-c", optFlag}, {"-C", optValue}, {"-r", optFlag},
			{"-N", optFlag}, {"-q", optFlag}, {"-s", optFlag}, {"-y", optFlag}, {"-w", optFlag},
			{"-b", optFlag}, {"-B", optFlag}, {"-i", optFlag}, {"-a", optFlag}, {"-t", optFlag},
			{"-T", optFlag}, {"-p", optFlag}, {"-x", optValue}, {"--unified", optMaybe},
			{"--context", optMaybe}, {"--recursive", optFlag}, {"--new-file", optFlag}, {"--brief", optFlag},
			{"--report-identical-files", optFlag}, {"--side-by-side", optFlag},
			{"--ignore-all-space", optFlag}, {"--ignore-space-change", optFlag},
			{"--ignore-blank-lines", optFlag}, {"--ignore-case", optFlag}, {"--text", optFlag},
			{"--expand-tabs", optFlag}, {"--initial-tab", optFlag}, {"--show-c-function", optFlag},
			{"--label", optValue}, {"--normal", optFlag}, {"--minimal", optFlag}, {"--color", optMaybe},
			{"--exclude", optValue}, {"--no-dereference", optFlag},
		},
			// diff follows symlinks inside the directories it compares,
			// at the top level and, with -r, below.
			recursiveWhen([]string{"*"}, []string{"*"}, false)),
		"df": spec([]opt{
			{"-h", optFlag}, {"-H", optFlag}, {"-k", optFlag}, {"-T", optFlag}, {"-a", optFlag},
			{"-l", optFlag}, {"-i", optFlag}, {"--human-readable", optFlag}, {"--si", optFlag},
			{"--local", optFlag}, {"--print-type", optFlag}, {"--all", optFlag}, {"--inodes", optFlag},
		}),
		"realpath": spec([]opt{
			{"-e", optFlag}, {"-m", optFlag}, {"-s", optFlag}, {"-L", optFlag}, {"-P", optFlag},
			{"-q", optFlag}, {"-z", optFlag}, {"--canonicalize-existing", optFlag},
			{"--canonicalize-missing", optFlag}, {"--no-symlinks", optFlag}, {"--logical", optFlag},
			{"--physical", optFlag}, {"--quiet", optFlag}, {"--zero", optFlag}, {"--relative-to", optValue},
			{"--relative-base", optValue},
		}, text),
		"readlink": spec([]opt{
			{"-f", optFlag}, {"-e", optFlag}, {"-m", optFlag}, {"-n", optFlag}, {"-q", optFlag},
			{"-s", optFlag}, {"-v", optFlag}, {"-z", optFlag}, {"--canonicalize", optFlag},
			{"--canonicalize-existing", optFlag}, {"--canonicalize-missing", optFlag},
			{"--no-newline", optFlag}, {"--quiet", optFlag}, {"--silent", optFlag}, {"--verbose", optFlag},
			{"--zero", optFlag},
		}, text),
		"basename": spec([]opt{
			{"-a", optFlag}, {"-s", optValue}, {"-z", optFlag}, {"--multiple", optFlag},
			{"--suffix", optValue}, {"--zero", optFlag},
		}, text),
		"dirname": spec([]opt{{"-z", optFlag}, {"--zero", optFlag}}, text),
		"pwd":     spec([]opt{{"-L", optFlag}, {"-P", optFlag}}, none, unconfined()),
		"echo":    {parse: anyArgs}, // prints, whatever its arguments expand to
		"true":    {parse: anyArgs},
		"false":   {parse: anyArgs},
		":":       {parse: anyArgs},
		"test":    {parse: checkTest},
		"[":       {parse: checkTest},
		"which":   spec([]opt{{"-a", optFlag}, {"-s", optFlag}}, text),
		"type": spec([]opt{
			{"-a", optFlag}, {"-f", optFlag}, {"-P", optFlag}, {"-p", optFlag}, {"-t", optFlag},
		}, text),
		"whoami": spec([]opt{}, none),
		"id": spec([]opt{
			{"-u", optFlag}, {"-g", optFlag}, {"-G", optFlag}, {"-n", optFlag}, {"-r", optFlag},
			{"-z", optFlag}, {"--user", optFlag}, {"--group", optFlag}, {"--groups", optFlag},
			{"--name", optFlag}, {"--real", optFlag}, {"--zero", optFlag},
		}, text),
		"uname": spec([]opt{
			{"-a", optFlag}, {"-s", optFlag}, {"-n", optFlag}, {"-r", optFlag}, {"-v", optFlag},
			{"-m", optFlag}, {"-p", optFlag}, {"-i", optFlag}, {"-o", optFlag}, {"--all", optFlag},
			{"--kernel-name", optFlag}, {"--nodename", optFlag}, {"--kernel-release", optFlag},
			{"--kernel-version", optFlag}, {"--machine", optFlag}, {"--processor", optFlag},
			{"--hardware-platform", optFlag}, {"--operating-system", optFlag},
		}, none),
		"seq": spec([]opt{
			{"-f", optValue}, {"-s", optValue}, {"-w", optFlag}, {"--format", optValue},
			{"--separator", optValue}, {"--equal-width", optFlag},
		}, text),
		"sleep": spec([]opt{}, text),
		"free": spec([]opt{
			{"-b", optFlag}, {"-k", optFlag}, {"-m", optFlag}, {"-g", optFlag}, {"-h", optFlag},
			{"-t", optFlag}, {"-w", optFlag}, {"-l", optFlag}, {"--bytes", optFlag}, {"--kibi", optFlag},
			{"--mebi", optFlag}, {"--gibi", optFlag}, {"--human", optFlag}, {"--total", optFlag},
			{"--wide", optFlag}, {"--lohi", optFlag}, {"--si", optFlag},
		}, none),
		"uptime": spec([]opt{
			{"-p", optFlag}, {"-s", optFlag}, {"--pretty", optFlag}, {"--since", optFlag},
		}, none),
		"nproc": spec([]opt{{"--all", optFlag}, {"--ignore", optValue}}, none),
		"printenv": spec([]opt{{"-0", optFlag}, {"--null", optFlag}}, text, check(func(_ *analysis, p *parsedArgs) string {
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
		"exit":     {parse: anyArgs},
		"return":   {parse: anyArgs},
		"break":    {parse: anyArgs},
		"continue": {parse: anyArgs},
		"wait":     {parse: checkWait},
		"tr": spec([]opt{
			{"-c", optFlag}, {"-d", optFlag}, {"-s", optFlag}, {"-t", optFlag}, {"-C", optFlag},
			{"--complement", optFlag}, {"--delete", optFlag}, {"--squeeze-repeats", optFlag},
			{"--truncate-set1", optFlag},
		}, text, maxOps(2)),
		"cd":     {parse: anyArgs}, // where it goes is checked by the analysis
		"set":    {parse: checkSet},
		"printf": {parse: checkPrintf},
		"grep":   grep,
		"egrep":  grep,
		"fgrep":  grep,
		"rg": spec([]opt{
			{"-i", optFlag}, {"-I", optFlag}, {"-s", optFlag}, {"-S", optFlag}, {"-w", optFlag},
			{"-v", optFlag}, {"-x", optFlag}, {"-c", optFlag}, {"-n", optFlag}, {"-N", optFlag},
			{"-o", optFlag}, {"-q", optFlag}, {"-u", optFlag}, {"-a", optFlag}, {"-l", optFlag},
			{"-L", optFlag}, {"-F", optFlag}, {"-P", optFlag}, {"-H", optFlag}, {"-U", optFlag},
			{"-0", optFlag}, {"-p", optFlag}, {"-e", optValue}, {"-f", optFile}, {"-g", optValue},
			{"-t", optValue}, {"-T", optValue}, {"-A", optValue}, {"-B", optValue}, {"-C", optValue},
			{"-m", optValue}, {"-M", optValue}, {"-j", optValue}, {"-d", optValue}, {"-r", optValue},
			{"--ignore-case", optFlag}, {"--case-sensitive", optFlag}, {"--smart-case", optFlag},
			{"--word-regexp", optFlag}, {"--invert-match", optFlag}, {"--line-regexp", optFlag},
			{"--count", optFlag}, {"--count-matches", optFlag}, {"--files-with-matches", optFlag},
			{"--files-without-match", optFlag}, {"--line-number", optFlag}, {"--no-line-number", optFlag},
			{"--only-matching", optFlag}, {"--quiet", optFlag}, {"--unrestricted", optFlag},
			{"--hidden", optFlag}, {"--no-ignore", optFlag}, {"--no-ignore-vcs", optFlag},
			{"--no-ignore-parent", optFlag}, {"--no-ignore-dot", optFlag}, {"--no-ignore-global", optFlag},
			{"--no-config", optFlag}, {"--follow", optFlag}, {"--fixed-strings", optFlag},
			{"--pcre2", optFlag}, {"--with-filename", optFlag}, {"--no-filename", optFlag},
			{"--multiline", optFlag}, {"--multiline-dotall", optFlag}, {"--null", optFlag},
			{"--pretty", optFlag}, {"--files", optFlag}, {"--type-list", optFlag}, {"--json", optFlag},
			{"--vimgrep", optFlag}, {"--stats", optFlag}, {"--heading", optFlag}, {"--no-heading", optFlag},
			{"--column", optFlag}, {"--no-column", optFlag}, {"--trim", optFlag}, {"--byte-offset", optFlag},
			{"--sort", optValue}, {"--sortr", optValue}, {"--color", optValue}, {"--colors", optValue},
			{"--glob", optValue}, {"--iglob", optValue}, {"--type", optValue}, {"--type-not", optValue},
			{"--regexp", optValue}, {"--file", optFile}, {"--after-context", optValue},
			{"--before-context", optValue}, {"--context", optValue}, {"--max-count", optValue},
			{"--max-columns", optValue}, {"--max-columns-preview", optFlag}, {"--max-depth", optValue},
			{"--threads", optValue}, {"--replace", optValue}, {"--text", optFlag}, {"--binary", optFlag},
			{"--no-messages", optFlag}, {"--passthru", optFlag}, {"--crlf", optFlag},
			{"--null-data", optFlag}, {"--one-file-system", optFlag},
		},
			pattern("-e", "-f", "--regexp", "--file", "--files", "--type-list"),
			recursiveWhen([]string{"*"}, []string{"-L", "--follow"}, true)),
		"find": {parse: checkFind},
		"git":  {parse: checkGit},
		"sort": spec([]opt{
			{"-b", optFlag}, {"-d", optFlag}, {"-f", optFlag}, {"-g", optFlag}, {"-i", optFlag},
			{"-M", optFlag}, {"-h", optFlag}, {"-n", optFlag}, {"-R", optFlag}, {"-r", optFlag},
			{"-V", optFlag}, {"-s", optFlag}, {"-u", optFlag}, {"-c", optFlag}, {"-C", optFlag},
			{"-z", optFlag}, {"-m", optFlag}, {"-k", optValue}, {"-t", optValue}, {"-S", optValue},
			{"--ignore-leading-blanks", optFlag}, {"--dictionary-order", optFlag},
			{"--ignore-case", optFlag}, {"--general-numeric-sort", optFlag},
			{"--ignore-nonprinting", optFlag}, {"--month-sort", optFlag}, {"--human-numeric-sort", optFlag},
			{"--numeric-sort", optFlag}, {"--random-sort", optFlag}, {"--reverse", optFlag},
			{"--version-sort", optFlag}, {"--stable", optFlag}, {"--unique", optFlag}, {"--check", optMaybe},
			{"--zero-terminated", optFlag}, {"--merge", optFlag}, {"--key", optValue},
			{"--field-separator", optValue}, {"--buffer-size", optValue}, {"--parallel", optValue},
			{"--random-source", optFile}, {"--debug", optFlag},
		}),
		"uniq": spec([]opt{
			{"-c", optFlag}, {"-d", optFlag}, {"-D", optFlag}, {"-u", optFlag}, {"-i", optFlag},
			{"-z", optFlag}, {"-f", optValue}, {"-s", optValue}, {"-w", optValue}, {"--count", optFlag},
			{"--repeated", optFlag}, {"--all-repeated", optMaybe}, {"--unique", optFlag},
			{"--ignore-case", optFlag}, {"--zero-terminated", optFlag}, {"--skip-fields", optValue},
			{"--skip-chars", optValue}, {"--check-chars", optValue}, {"--group", optMaybe},
		}, maxOps(1)),
		"xxd": {parse: checkXxd},
		"tree": spec([]opt{
			{"-a", optFlag}, {"-d", optFlag}, {"-f", optFlag}, {"-i", optFlag}, {"-F", optFlag},
			{"-n", optFlag}, {"-C", optFlag}, {"-h", optFlag}, {"-s", optFlag}, {"-D", optFlag},
			{"-p", optFlag}, {"-u", optFlag}, {"-g", optFlag}, {"-J", optFlag}, {"-X", optFlag},
			{"-L", optValue}, {"-P", optValue}, {"-I", optValue}, {"--noreport", optFlag},
			{"--dirsfirst", optFlag}, {"--du", optFlag}, {"--prune", optFlag}, {"--filelimit", optValue},
			{"--charset", optValue}, {"--sort", optValue},
		}),
		"file": spec([]opt{
			{"-b", optFlag}, {"-i", optFlag}, {"-k", optFlag}, {"-L", optFlag}, {"-h", optFlag},
			{"-z", optFlag}, {"-N", optFlag}, {"-E", optFlag}, {"-0", optFlag}, {"--brief", optFlag},
			{"--mime", optFlag}, {"--mime-type", optFlag}, {"--mime-encoding", optFlag},
			{"--keep-going", optFlag}, {"--dereference", optFlag}, {"--no-dereference", optFlag},
			{"--uncompress", optFlag}, {"--no-pad", optFlag}, {"--print0", optFlag},
		}),
		"cut": spec([]opt{
			{"-b", optValue}, {"-c", optValue}, {"-d", optValue}, {"-f", optValue}, {"-s", optFlag},
			{"-n", optFlag}, {"-z", optFlag}, {"--bytes", optValue}, {"--characters", optValue},
			{"--delimiter", optValue}, {"--fields", optValue}, {"--only-delimited", optFlag},
			{"--complement", optFlag}, {"--output-delimiter", optValue}, {"--zero-terminated", optFlag},
		}),
		"date": spec([]opt{
			{"-d", optValue}, {"-f", optFile}, {"-r", optFile}, {"-u", optFlag}, {"-R", optFlag},
			{"-I", optMaybe}, {"--date", optValue}, {"--file", optFile}, {"--reference", optFile},
			{"--utc", optFlag}, {"--universal", optFlag}, {"--rfc-email", optFlag}, {"--iso-8601", optMaybe},
			{"--rfc-3339", optValue}, {"--debug", optFlag},
		}, text, check(checkDate)),
		"hostname": spec([]opt{
			{"-f", optFlag}, {"-s", optFlag}, {"-i", optFlag}, {"-I", optFlag}, {"-d", optFlag},
			{"-A", optFlag}, {"--fqdn", optFlag}, {"--short", optFlag}, {"--ip-address", optFlag},
			{"--all-ip-addresses", optFlag}, {"--domain", optFlag}, {"--all-fqdns", optFlag},
		}, none),
		"jq": spec([]opt{
			{"-r", optFlag}, {"-j", optFlag}, {"-c", optFlag}, {"-n", optFlag}, {"-s", optFlag},
			{"-e", optFlag}, {"-a", optFlag}, {"-S", optFlag}, {"-C", optFlag}, {"-M", optFlag},
			{"-R", optFlag}, {"--raw-output", optFlag}, {"--join-output", optFlag},
			{"--compact-output", optFlag}, {"--null-input", optFlag}, {"--slurp", optFlag},
			{"--exit-status", optFlag}, {"--ascii-output", optFlag}, {"--sort-keys", optFlag},
			{"--color-output", optFlag}, {"--monochrome-output", optFlag}, {"--raw-input", optFlag},
			{"--tab", optFlag}, {"--indent", optValue}, {"--seq", optFlag}, {"--stream", optFlag},
			{"--from-file", optFile}, {"--raw-output0", optFlag}, {"--arg", optValue},
			{"--argjson", optValue}, {"-f", optFile},
		}, pattern("-f", "--from-file"), check(jqFilter), own(checkJq)),
		"sed": spec([]opt{
			{"-n", optFlag}, {"-E", optFlag}, {"-r", optFlag}, {"-s", optFlag}, {"-u", optFlag},
			{"-z", optFlag}, {"-e", optValue}, {"--quiet", optFlag}, {"--silent", optFlag},
			{"--regexp-extended", optFlag}, {"--separate", optFlag}, {"--unbuffered", optFlag},
			{"--null-data", optFlag}, {"--posix", optFlag}, {"--debug", optFlag}, {"--expression", optValue},
			{"--sandbox", optFlag},
		}, pattern("-e", "--expression"), check(sedScripts)),
		"go": {parse: checkGo},
		"ps": spec([]opt{
			{"-e", optFlag}, {"-A", optFlag}, {"-f", optFlag}, {"-F", optFlag}, {"-l", optFlag},
			{"-y", optFlag}, {"-j", optFlag}, {"-H", optFlag}, {"-T", optFlag}, {"-M", optFlag},
			{"-a", optFlag}, {"-x", optFlag}, {"-d", optFlag}, {"-N", optFlag}, {"-o", optValue},
			{"-p", optValue}, {"-u", optValue}, {"-U", optValue}, {"-g", optValue}, {"-G", optValue},
			{"--forest", optFlag}, {"--sort", optValue}, {"--pid", optValue}, {"--ppid", optValue},
			{"--user", optValue}, {"--no-headers", optFlag}, {"--headers", optFlag}, {"--cols", optValue},
			{"--columns", optValue}, {"--width", optValue},
		},
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
			}), text, own(checkPs)),
	}
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
	if s.parse != nil {
		why = s.parse(a, args)
	} else {
		why = a.judge(name, s, args)
	}
	return why == "", why
}

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
