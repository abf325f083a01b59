#!/usr/bin/env bash
# Fails when git tracks a file that .gitignore ignores (a build output
# committed before the rule, such as tools/tools.test once was), a binary
# file (git's own test: a NUL byte in the first 8000 bytes), except the
# screenshots `make screenshots` renders into docs/screenshots/, or a file
# with an odd name: a control character, '#', a path component that
# starts with '-' or a space or ends with a space or a dot, a character
# Windows refuses (<>:"|?*\), or bytes that are not UTF-8. Such names
# come from slips (a heredoc's line written as a file name) and break
# shells, checkouts and release archives.
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
# Names as git stores them (-z: no quoting), shown quoted.
show() { while IFS= read -r -d '' f; do printf '  %q\n' "$f"; done; }
odd=$(git ls-files -z | LC_ALL=C grep -zE '[[:cntrl:]]|#|(^|/)[- ]|[ .](/|$)|[<>:"|?*\\]' | show || true)
notutf8=$(git ls-files -z | LC_ALL=C.UTF-8 grep -zavx '.*' | show || true)
if [ -n "$odd" ]; then
  echo "tracked files with odd names (git mv or git rm them):" >&2
  echo "$odd" >&2
  status=1
fi
if [ -n "$notutf8" ]; then
  echo "tracked files whose names are not UTF-8 (git mv or git rm them):" >&2
  echo "$notutf8" >&2
  status=1
fi
exit $status
