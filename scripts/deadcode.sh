#!/usr/bin/env bash
# Runs deadcode (golang.org/x/tools/cmd/deadcode) over the module, tests
# included as roots, and fails on unreachable functions that
# scripts/deadcode-allow.txt does not list. The allowlist names functions
# as "path: Name" (no line numbers, so edits elsewhere do not break it),
# each with a comment line above saying why it stays.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
deadcode=${DEADCODE:-deadcode}
allow=scripts/deadcode-allow.txt
found=$("$deadcode" -test ./... | sed -E 's/^([^:]+):[0-9]+:[0-9]+: unreachable func: (.*)$/\1: \2/' | sort)
allowed=$(grep -v '^#' "$allow" | grep -v '^$' | sort || true)
new=$(comm -23 <(echo "$found") <(echo "$allowed") | grep -v '^$' || true)
if [ -n "$new" ]; then
  echo "unreachable functions (remove them, or list them in $allow with a reason):" >&2
  echo "$new" >&2
  exit 1
fi
stale=$(comm -13 <(echo "$found") <(echo "$allowed") | grep -v '^$' || true)
if [ -n "$stale" ]; then
  echo "$allow lists functions that are no longer dead (remove the lines):" >&2
  echo "$stale" >&2
  exit 1
fi
