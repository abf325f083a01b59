#!/usr/bin/env bash
# Installs the real language servers the tests drive into the cache:
# gopls from the Go module proxy and pyright from npm, at pinned versions.
# The Go tests find them under $AGENT_LSP_CACHE/langservers (bin/ and
# node_modules/.bin/), or on PATH (internal/langtest).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

# gopls v0.24 needs a newer Go than the project's; keep v0.23.
GOPLS_VERSION=v0.23.0
PYRIGHT_VERSION=1.1.414

prefix="$AGENT_LSP_CACHE/langservers"
mkdir -p "$prefix/bin"
exec 9>"$AGENT_LSP_CACHE/.langservers.lock"
flock 9   # another install may be running; wait for it

stamp="$prefix/.gopls-stamp"
if [ ! -x "$prefix/bin/gopls" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$GOPLS_VERSION" ]; then
  command -v go >/dev/null 2>&1 || die "go not found"
  log "installing gopls@$GOPLS_VERSION into $prefix/bin"
  GOBIN="$prefix/bin" GOFLAGS=-mod=mod go install "golang.org/x/tools/gopls@$GOPLS_VERSION" >&2
  echo "$GOPLS_VERSION" >"$stamp"
fi

stamp="$prefix/.pyright-stamp"
if [ ! -x "$prefix/node_modules/.bin/pyright-langserver" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$PYRIGHT_VERSION" ]; then
  command -v npm >/dev/null 2>&1 || die "npm not found"
  log "installing pyright@$PYRIGHT_VERSION into $prefix"
  (cd "$prefix" && npm install --no-audit --no-fund --no-save --loglevel=error --prefix "$prefix" "pyright@$PYRIGHT_VERSION" >&2)
  echo "$PYRIGHT_VERSION" >"$stamp"
fi
printf 'AGENT_LSP_LANGSERVERS=%q\n' "$prefix"
