#!/usr/bin/env bash
# Benchmarks of the tools package, run beside ripgrep on the same tree, as
# a markdown table (paste it under "## Tools" in docs/benchmarks.md).
#
#   bench/tools.sh            # COUNT=5 runs of each benchmark, medians
#   COUNT=10 bench/tools.sh
#
# The Go benchmarks are in tools/bench_test.go. Grep and Glob search
# $(go env GOROOT)/src. rg (installed from Debian's ripgrep package when
# missing) runs on the same tree, with the flags the Grep tool gives it, as
# sub-benchmarks (rg_cli) right after the ones it is compared with, so
# both see the same load on a shared machine.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

COUNT=${COUNT:-5}
eval "$(scripts/install-tools.sh)" # sets RG
SRC="$(go env GOROOT)/src"
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# median of the numbers on stdin
median() { sort -g | awk '{a[NR]=$1} END {if (NR==0) {print "nan"; exit}; if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

# go_ms NAME: median ms/op of the Go benchmark NAME (full name, without -N)
go_ms() { awk -v n="$1" '{sub(/-[0-9]+$/, "", $1)} $1==n {print $3/1e6}' "$out" | median; }

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.2fx", a/b; else print "-"}'; }
fmt() { awk -v a="$1" 'BEGIN {if (a < 1) printf "%.4f ms", a; else printf "%.1f ms", a}'; }

echo "running benchmarks (count $COUNT)..." >&2
go test -run '^$' -bench '^(BenchmarkRead2000Lines|BenchmarkEdit2000Lines|BenchmarkGrep|BenchmarkGlobGoFiles)$' \
  -count "$COUNT" ./tools/ >"$out"
rg_literal=$(go_ms BenchmarkGrep/literal/rg_cli)
rg_word=$(go_ms BenchmarkGrep/word_regex/rg_cli)
rg_icase=$(go_ms BenchmarkGrep/case_insensitive/rg_cli)
rg_files=$(go_ms BenchmarkGlobGoFiles/rg_cli)

cpu=$(lscpu | awk -F: '/Model name/ {gsub(/^ +/, "", $2); print $2; exit}')
echo "Machine: $(nproc) cores, ${cpu:-unknown CPU}; $(go version | awk '{print $3}'); $("$RG" --version | head -1); load average after the run: $(cut -d' ' -f1-3 /proc/loadavg)."
echo "Tree: \`$SRC\` ($(find "$SRC" -type f | wc -l) files, $(du -sh "$SRC" | cut -f1)). Medians of $COUNT runs; Grep in files_with_matches mode (its default)."
echo
echo "| benchmark | agent-lsp | rg | ratio to rg | target |"
echo "|---|---|---|---|---|"
row() { # label agent_ms rg_ms target
  local r="-"
  [ "$3" != "-" ] && r=$(ratio "$2" "$3")
  local rgs="-"
  [ "$3" != "-" ] && rgs=$(fmt "$3")
  echo "| $1 | $(fmt "$2") | $rgs | $r | $4 |"
}
row "Read, 2000-line file, through the dispatcher" "$(go_ms BenchmarkRead2000Lines)" - "<= 0.09 ms"
row "Edit, 2000-line file" "$(go_ms BenchmarkEdit2000Lines)" - "-"
row "Grep literal \`ErrUnexpectedEOF\`, in-process engine" "$(go_ms BenchmarkGrep/literal/inprocess)" "$rg_literal" "<= 1.2x"
row "Grep literal, ripgrep engine (spawn + parse)" "$(go_ms BenchmarkGrep/literal/rg)" "$rg_literal" "-"
row "Grep word regex \`\\b\\w+Deadline\\b\`, in-process engine" "$(go_ms BenchmarkGrep/word_regex/inprocess)" "$rg_word" "<= 1.5x"
row "Grep word regex, ripgrep engine" "$(go_ms BenchmarkGrep/word_regex/rg)" "$rg_word" "-"
row "Grep -i \`unexpectedeof\`, in-process engine" "$(go_ms BenchmarkGrep/case_insensitive/inprocess)" "$rg_icase" "<= 1.5x"
row "Grep -i, ripgrep engine" "$(go_ms BenchmarkGrep/case_insensitive/rg)" "$rg_icase" "-"
row "Glob \`**/*.go\` (rg: \`--files -g '*.go'\`)" "$(go_ms BenchmarkGlobGoFiles/glob)" "$rg_files" "-"
