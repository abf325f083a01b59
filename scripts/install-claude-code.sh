#!/usr/bin/env bash
# Installs the real Claude Code binary, npm @anthropic-ai/claude-code at the
# exact version below, into the cache for the tests that make and resume
# Claude Code sessions with it (server/claude_code_test.go). Prints the
# install prefix (shell-quoted, eval-able):
#   eval "$(scripts/install-claude-code.sh)"; "$CLAUDE_CODE/node_modules/.bin/claude" --version
# The Go test finds it there, or at $AGENT_LSP_CLAUDE_CODE (the binary).
# The package is a native binary of about 245 MB (its postinstall picks
# the platform's); it wants node >= 22 but installs and runs under 20.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

version=2.1.332
prefix="$AGENT_LSP_CACHE/claude-code"
bin="$prefix/node_modules/.bin/claude"
pkg="$prefix/node_modules/@anthropic-ai/claude-code/package.json"

installed() {
  [ -x "$bin" ] && [ -f "$pkg" ] && [ "$(node -p "require('$pkg').version" 2>/dev/null)" = "$version" ]
}
report() { printf 'CLAUDE_CODE=%q\n' "$prefix"; }

command -v node >/dev/null 2>&1 || die "node not found"
command -v npm >/dev/null 2>&1 || die "npm not found"
# The test runs claude in a network namespace of its own (unshare -n) and
# brings its loopback up with ip.
if ! command -v ip >/dev/null 2>&1; then
  apt_install iproute2 >&2
fi
if installed; then report; exit 0; fi

mkdir -p "$AGENT_LSP_CACHE"
exec 9>"$AGENT_LSP_CACHE/.claude-code.lock"
flock 9   # another install-claude-code.sh may be running; wait for it
if installed; then report; exit 0; fi
t0=$(date +%s)

log "installing @anthropic-ai/claude-code@$version into $prefix"
tmp="$prefix.tmp.$$"
rm -rf "$tmp"; mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm install --no-audit --no-fund --no-save --loglevel=error \
  --prefix "$tmp" "@anthropic-ai/claude-code@$version" >&2) \
  || die "npm install of @anthropic-ai/claude-code@$version failed"
# npm moves the binary into place in the postinstall; the .bin link points
# at it. Check that it runs here before replacing what was installed.
out=$("$tmp/node_modules/.bin/claude" --version 2>&1) \
  || die "claude $version does not run on this machine: $out"
case $out in
  "$version"*) ;;
  *) die "claude --version says $out, want $version" ;;
esac

rm -rf "$prefix"
mv "$tmp" "$prefix"
trap - EXIT
installed || die "claude missing after install: $bin"
log "ready in $(( $(date +%s) - t0 ))s: claude $version"
report
