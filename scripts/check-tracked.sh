#!/usr/bin/env bash
# Fails when git tracks a file that .gitignore ignores (a build output
# committed before the rule, such as tools/tools.test once was) or a binary
# file (git's own test: a NUL byte in the first 8000 bytes), except the
# screenshots `make screenshots` renders into docs/screenshots/.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
status=0
ignored=$(git ls-files -ci --exclude-standard)
if [ -n "$ignored" ]; then
  echo "tracked files that .gitignore ignores (git rm --cached them):" >&2
  echo "$ignored" >&2
  status=1
fi
binary=$(git ls-files --eol | awk '$1 == "i/-text" { sub(/^[^\t]*\t/, ""); print }' | grep -v '^docs/screenshots/[^/]*\.png$' || true)
if [ -n "$binary" ]; then
  echo "tracked binary files:" >&2
  echo "$binary" >&2
  status=1
fi
exit $status
