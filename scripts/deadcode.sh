#!/usr/bin/env bash
# Runs deadcode (golang.org/x/tools/cmd/deadcode) over the module twice and
# fails on unreachable functions that scripts/deadcode-allow.txt does not
# list:
#   - with tests as roots: no function may be dead, tests or not;
#   - without them: no function of the program may live only for its
#     tests, except in the test kits (packages that exist for the tests,
#     such as the fake editor) that the allowlist names by folder.
# The allowlist names functions as "path: Name" (no line numbers, so edits
# elsewhere do not break it) and test kits as "folder/", each with a
# comment line above saying why it stays.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
deadcode=${DEADCODE:-deadcode}
allow=scripts/deadcode-allow.txt
normalize() { sed -E 's/^([^:]+):[0-9]+:[0-9]+: unreachable func: (.*)$/\1: \2/' | sort -u; }
listed=$(grep -v '^#' "$allow" | grep -v '^$' || true)
allowed=$(echo "$listed" | grep -v '/$' | sort || true)
kits=$(echo "$listed" | grep '/$' || true)
status=0

found=$("$deadcode" -test ./... | normalize)
new=$(comm -23 <(echo "$found") <(echo "$allowed") | grep -v '^$' || true)
if [ -n "$new" ]; then
  echo "unreachable functions (remove them, or list them in $allow with a reason):" >&2
  echo "$new" >&2
  status=1
fi
stale=$(comm -13 <(echo "$found") <(echo "$allowed") | grep -v '^$' || true)
if [ -n "$stale" ]; then
  echo "$allow lists functions that are no longer dead (remove the lines):" >&2
  echo "$stale" >&2
  status=1
fi

testonly=$("$deadcode" ./... | normalize)
for kit in $kits; do
  if ! echo "$testonly" | grep -q "^$kit"; then
    echo "$allow lists $kit as a test kit, but the program uses all of it (remove the line):" >&2
    status=1
  fi
  testonly=$(echo "$testonly" | grep -v "^$kit" || true)
done
testonly=$(comm -23 <(echo "$testonly") <(echo "$allowed") | grep -v '^$' || true)
if [ -n "$testonly" ]; then
  echo "functions only tests call (remove them with their tests, move them to a test file or kit, or list them in $allow with a reason):" >&2
  echo "$testonly" >&2
  status=1
fi
exit $status
