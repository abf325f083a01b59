#!/usr/bin/env bash
# make bench: measures the sidecar and refreshes docs/benchmarks.md.
#
#   scripts/bench.sh            # the full run (COUNT=5 runs of each Go benchmark)
#   QUICK=1 scripts/bench.sh    # a quick look while developing: one run of each,
#                               # -short (no generated GB of sessions), fewer starts
#   OUT=/tmp/b.md scripts/bench.sh   # write somewhere else
#
# What runs, all in this one run so that medians and ratios compare
# figures taken under the same load:
#   - the binary, built as `make build` builds it, driven from outside by
#     internal/cmd/lspbench (cold start, RSS, streaming latency, burst);
#   - the Go benchmarks of every package that has some (go test -bench .
#     -benchmem -count COUNT), medians by benchstat when it is installed or
#     installable (golang.org/x/perf/cmd/benchstat), else computed here;
#     tools/ runs through bench/tools.sh instead, beside ripgrep.
# It rewrites the top of the file (how to run, the machine, the summary
# of every figure) and the "## Sidecar" section, and keeps every other
# section (Tools, Sessions, ACP, ...) as its owner wrote it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

COUNT=${COUNT:-5}
QUICK=${QUICK:-}
DOC=${OUT:-docs/benchmarks.md}
if [ -n "$QUICK" ]; then COUNT=1; fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/bench" # one file per package, named after it for benchstat
log() { echo "bench: $*" >&2; }

# benchstat: on PATH, in GOPATH/bin, or installed there now.
find_benchstat() {
  local gobin
  gobin="$(go env GOPATH)/bin/benchstat"
  if command -v benchstat >/dev/null; then command -v benchstat; return; fi
  if [ -x "$gobin" ]; then echo "$gobin"; return; fi
  if go install golang.org/x/perf/cmd/benchstat@latest >/dev/null 2>&1 && [ -x "$gobin" ]; then echo "$gobin"; fi
}

# medians FILE: one line per benchmark of `go test -bench` output: name,
# then the median of each unit as "value unit" pairs, tab-separated.
medians() {
  awk '
    /^Benchmark/ {
      name = $1; sub(/-[0-9]+$/, "", name)
      if (!(name in seen)) { seen[name] = 1; order[++n] = name }
      for (i = 3; i + 1 <= NF; i += 2) {
        k = name SUBSEP $(i + 1)
        if (!(k in cnt)) { units[name] = units[name] " " $(i + 1) }
        v[k, ++cnt[k]] = $i
      }
    }
    END {
      for (j = 1; j <= n; j++) {
        name = order[j]; line = name
        split(substr(units[name], 2), us, " ")
        for (u = 1; u in us; u++) {
          k = name SUBSEP us[u]; m = cnt[k]
          for (a = 1; a <= m; a++) s[a] = v[k, a] + 0
          for (a = 2; a <= m; a++) { x = s[a]; b = a - 1; while (b >= 1 && s[b] > x) { s[b + 1] = s[b]; b-- } s[b + 1] = x }
          med = (m % 2) ? s[(m + 1) / 2] : (s[m / 2] + s[m / 2 + 1]) / 2
          line = line "\t" med " " us[u]
        }
        print line
      }
    }' "$1"
}

# human VALUE UNIT: a median in readable units.
human() {
  awk -v x="$1" -v u="$2" 'BEGIN {
    if (u == "ns/op") {
      if (x >= 1e9) printf "%.2f s", x / 1e9
      else if (x >= 1e6) printf "%.2f ms", x / 1e6
      else if (x >= 1e3) printf "%.1f µs", x / 1e3
      else printf "%.0f ns", x
    } else if (u == "B/op") {
      if (x >= 1048576) printf "%.1f MB/op", x / 1048576
      else if (x >= 1024) printf "%.1f KB/op", x / 1024
      else printf "%d B/op", x
    } else if (u == "allocs/op") printf "%d allocs/op", x
    else printf "%g %s", x, u
  }'
}

cpu=$(lscpu 2>/dev/null | awk -F: '/Model name/ {gsub(/^ +/, "", $2); print $2; exit}')
machine="$(nproc) cores, ${cpu:-unknown CPU}, $(free -g | awk '/^Mem:/ {print $2}') GB of memory; Linux $(uname -r); $(go version | awk '{print $3}')"
started=$(date -u +"%Y-%m-%d %H:%M UTC")
load_before=$(cut -d' ' -f1-3 /proc/loadavg)

log "building the binary"
make --no-print-directory build BIN="$work/agent-lsp" >&2
go build -o "$work/trivial" ./bench/trivial # the start-up baseline

log "lspbench (the binary from outside)"
lspflags=()
if [ -n "$QUICK" ]; then lspflags=(-runs 10 -toolcalls 400 -burst 5000); fi
go run ./internal/cmd/lspbench -bin "$work/agent-lsp" -trivial "$work/trivial" "${lspflags[@]}" >"$work/lspbench.md"

log "Go benchmarks (count $COUNT)"
short=()
if [ -n "$QUICK" ]; then short=(-short); fi
pkgs=$(git ls-files '*_test.go' | xargs grep -l -E '^func Benchmark[A-Za-z0-9_]*\(b \*testing\.B\)' | xargs -n1 dirname | sort -u | grep -v '^tools$' || true)
for p in $pkgs; do
  log "  ./$p"
  go test -run '^$' -bench . -benchmem -count "$COUNT" "${short[@]}" "./$p" >"$work/bench/${p//\//_}"
done

log "bench/tools.sh (count $COUNT)"
COUNT=$COUNT bench/tools.sh >"$work/tools.md"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

benchstat=$(find_benchstat || true)

# target MEASURE: what the issue or the README promises for a sidecar row.
target() {
  case "$1" in
    "cold start"*) echo "milliseconds (README)" ;;
    "start-up, "*) echo "<= 2x the baseline (issue 21)" ;;
    "peak RSS"*) echo "<= 25 MB (issue 21)" ;;
    "RSS after"*"tool calls") echo "flat within 10% (issue 10)" ;;
    "RSS after"*) echo "tens of MB (README)" ;;
    "throughput"*) echo "nothing lost or reordered" ;;
    *) echo "-" ;;
  esac
}

{
  cat <<EOF
# Benchmarks

\`make bench\` (scripts/bench.sh) measures everything below in one run on
one machine and rewrites this top part and the "Sidecar" section; the
other sections are written by their owners, with how to run their part
alone. Machines here are shared and noisy: absolute figures move by 2-3x
between runs, so quote medians, and ratios measured side by side in the
same run. \`QUICK=1 make bench\` is a short run for development (one run
of each benchmark, no generated gigabytes); its figures are not for this
file.

Last run: $started, on $machine; load average $load_before before and $load_after after. Go benchmarks: medians of $COUNT runs.

## Summary

Every figure of this run. Sidecar: the built binary driven from outside
(see below); Tools: bench/tools.sh; the others: each package's Go
benchmarks (\`go test -run '^\$' -bench . -benchmem -count $COUNT\`).

| area | measure | this run | target |
|---|---|---|---|
EOF
  tail -n +3 "$work/lspbench.md" | while IFS='|' read -r _ measure result _; do
    measure=$(echo "$measure" | sed 's/^ *//; s/ *$//')
    result=$(echo "$result" | sed 's/^ *//; s/ *$//')
    echo "| Sidecar | $measure | $result | $(target "$measure") |"
  done
  grep '^| ' "$work/tools.md" | tail -n +2 | while IFS='|' read -r _ name ours rg ratio tgt _; do
    name=$(echo "$name" | sed 's/^ *//; s/ *$//')
    res=$(echo "$ours" | sed 's/^ *//; s/ *$//')
    ratio=$(echo "$ratio" | sed 's/^ *//; s/ *$//')
    [ "$ratio" != "-" ] && res="$res ($ratio of rg)"
    echo "| Tools | $name | $res | $(echo "$tgt" | sed 's/^ *//; s/ *$//') |"
  done
  for p in $pkgs; do
    f="$work/bench/${p//\//_}"
    area=$p
    [ "$p" = session ] && area=Sessions
    [ "$p" = server ] && area="Session load"
    medians "$f" | while IFS=$'\t' read -r name rest; do
      res=""
      IFS=$'\t' read -r -a cols <<<"$rest"
      for c in "${cols[@]}"; do
        res="${res:+$res, }$(human ${c% *} ${c##* })"
      done
      echo "| $area | \`${name#Benchmark}\` | $res | - |"
    done
  done
  cat <<EOF

<details><summary>The Go benchmarks as benchstat prints them</summary>

\`\`\`
EOF
  for p in $pkgs; do
    f="$work/bench/${p//\//_}"
    if [ -n "$benchstat" ]; then
      (cd "$work/bench" && "$benchstat" "${p//\//_}" 2>&1)
    else
      echo "./$p (benchstat unavailable; medians):"
      medians "$f"
    fi
    echo
  done
  cat <<EOF
\`\`\`

</details>

## Sidecar

The built binary, started as an editor starts it and driven over stdio
by internal/cmd/lspbench against a local fake Anthropic server, so that
what is measured is the sidecar, not a network. Run alone:
\`make build && go run ./internal/cmd/lspbench -bin bin/agent-lsp\`.

EOF
  cat "$work/lspbench.md"
  cat <<'EOF'

- Cold start: from spawning the process to the answer to `initialize`,
  the editor's wait before it can send anything; the median and 95th
  percentile of the runs, each with a fresh workspace and session store.
- RSS is VmRSS from /proc: after `initialize`, after a 20-turn scripted
  session (each answer a thousand words streamed as deltas), and after a
  first and a second half of the tool calls (Read of a small file, one
  model call each), each half in a session closed after its prompt. A
  leak per call or per closed session shows as growth between the two
  halves; the first half pays for what warms up once.
- Latency: the fake server writes each SSE delta with the time it wrote
  it, 0.5 ms apart; the editor subtracts that from the time the matching
  `session/update` arrives. It is what the sidecar adds (parsing the
  event, the session, encoding and writing the notification), plus the
  loopback and pipe hops.
- Throughput: one response of that many deltas sent without pauses;
  notifications per second as the editor receives them, and a check that
  every delta arrived once and in order.
- Reliability is tested, not measured: `go test -race ./internal/reliability/`
  injects the faults of issue 10 and `make soak` (scripts/soak.sh) watches
  RSS, threads and open files over a long run.
EOF
  echo
  if [ -f "$DOC" ]; then
    # Keep the other sections as their owners wrote them.
    awk '/^## / { h = substr($0, 4); keep = (h != "Summary" && h != "Sidecar") } /^## /,0 { if (keep) print }' "$DOC"
  fi
} >"$work/doc.md"

mv "$work/doc.md" "$DOC"
log "wrote $DOC"
