#!/usr/bin/env bash
# make soak: runs scripted turns against the built binary for a while and
# reports its RSS, threads, open files and child processes over time, as
# /proc shows them (see bench/soak). Not part of CI.
#
#   scripts/soak.sh                        # 10 minutes, a sample every 10 s
#   SOAK_MINUTES=60 SOAK_INTERVAL=30s scripts/soak.sh
#   SOAK_PROMPTS=20 scripts/soak.sh        # prompts per session before it is replaced
#
# Everything runs on this machine: the model is a local fake server. It
# exits 1 when a figure grew beyond its allowance after the warm-up.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

minutes=${SOAK_MINUTES:-10}
interval=${SOAK_INTERVAL:-10s}
prompts=${SOAK_PROMPTS:-10}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
make --no-print-directory build BIN="$work/agent-lsp" >&2
go build -o "$work/soak" ./bench/soak
echo "soak: ${minutes} min, sampling every ${interval}, ${prompts} prompts per session; $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
"$work/soak" -bin "$work/agent-lsp" -duration "${minutes}m" -interval "$interval" -session-prompts "$prompts"
