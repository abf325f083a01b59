#!/usr/bin/env bash
# Runs every Go fuzz target for a short time (FUZZTIME, default 5s) beyond
# its checked-in seed corpus, which `go test` already replays.
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZTIME=${FUZZTIME:-5s}
status=0
while IFS= read -r line; do
  file=${line%%:*}
  name=$(sed -E 's/.*func (Fuzz[A-Za-z0-9_]+).*/\1/' <<<"$line")
  pkg=./$(dirname "$file")
  echo "fuzz: $pkg $name ($FUZZTIME)"
  if ! go test -run='^$' -fuzz="^${name}\$" -fuzztime="$FUZZTIME" "$pkg"; then
    status=1
  fi
done < <(git ls-files '*_test.go' | xargs grep -H -E '^func Fuzz[A-Za-z0-9_]+\(f \*testing\.F\)' || true)
exit $status
