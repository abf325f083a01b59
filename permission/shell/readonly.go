package shell

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

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
