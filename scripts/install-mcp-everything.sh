#!/usr/bin/env bash
# Installs the MCP reference server, @modelcontextprotocol/server-everything,
# into the cache for the mcp package's tests, at the exact versions of
# mcp/testdata/everything/package-lock.json (npm ci), to run with the
# machine's node. Prints the server's entry point (shell-quoted, eval-able):
#   eval "$(scripts/install-mcp-everything.sh)"; node "$MCP_EVERYTHING" stdio
# The Go tests find it there, or at $AGENT_LSP_MCP_EVERYTHING.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

lock_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/mcp/testdata/everything"
prefix="$AGENT_LSP_CACHE/mcp-everything"
entry="$prefix/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
stamp="$prefix/.agent-lsp-stamp"

[ -f "$lock_dir/package.json" ] && [ -f "$lock_dir/package-lock.json" ] \
  || die "lock files missing in $lock_dir"
# The stamp is the lock's content: a new pin reinstalls.
key=$(cat "$lock_dir/package.json" "$lock_dir/package-lock.json" | sha256sum | cut -d' ' -f1)

installed() { [ -f "$entry" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$key" ]; }
report() { printf 'MCP_EVERYTHING=%q\n' "$entry"; }

if installed; then report; exit 0; fi

mkdir -p "$AGENT_LSP_CACHE"
exec 9>"$AGENT_LSP_CACHE/.mcp-everything.lock"
flock 9   # another install-mcp-everything.sh may be running; wait for it
if installed; then report; exit 0; fi

command -v node >/dev/null 2>&1 || die "node not found (the server runs with the machine's Node.js)"
command -v npm >/dev/null 2>&1 || die "npm not found"
t0=$(date +%s)

log "installing @modelcontextprotocol/server-everything from $lock_dir into $prefix"
tmp="$prefix.tmp.$$"
rm -rf "$tmp"; mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
cp "$lock_dir/package.json" "$lock_dir/package-lock.json" "$tmp/"
(cd "$tmp" && npm ci --no-audit --no-fund --loglevel=error >&2) \
  || die "npm ci of server-everything failed"
rm -rf "$prefix"
mv "$tmp" "$prefix"
trap - EXIT
[ -f "$entry" ] || die "server-everything entry point missing: $entry"

# Check that it runs and answers initialize on stdio (it exits at the end
# of its input).
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"install-check","version":"1"}}}'
out=$(printf '%s\n' "$init" | timeout 30 node "$entry" stdio 2>&1) \
  || die "server-everything did not run with $(node --version): $out"
case "$out" in
  *'"serverInfo"'*) ;;
  *) die "server-everything did not answer initialize: $out" ;;
esac

echo "$key" > "$stamp"
log "ready in $(( $(date +%s) - t0 ))s: $(node -p "require('$prefix/node_modules/@modelcontextprotocol/server-everything/package.json').version") with node $(node --version)"
report
