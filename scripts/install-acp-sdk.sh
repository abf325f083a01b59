#!/usr/bin/env bash
# Installs the official Agent Client Protocol TypeScript SDK,
# @agentclientprotocol/sdk, into the cache for the ACP conformance test
# (server/acp_sdk_test.go), at the exact versions of
# server/testdata/acp-sdk/package-lock.json (npm ci), to run with the
# machine's node. Prints the install prefix (shell-quoted, eval-able):
#   eval "$(scripts/install-acp-sdk.sh)"; ls "$ACP_SDK/node_modules"
# The Go test finds it there, or at $AGENT_LSP_ACP_SDK.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

lock_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/server/testdata/acp-sdk"
prefix="$AGENT_LSP_CACHE/acp-sdk"
pkg="$prefix/node_modules/@agentclientprotocol/sdk/package.json"
stamp="$prefix/.agent-lsp-stamp"

[ -f "$lock_dir/package.json" ] && [ -f "$lock_dir/package-lock.json" ] \
  || die "lock files missing in $lock_dir"
# The stamp is the lock's content: a new pin reinstalls.
key=$(cat "$lock_dir/package.json" "$lock_dir/package-lock.json" | sha256sum | cut -d' ' -f1)

installed() { [ -f "$pkg" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$key" ]; }
report() { printf 'ACP_SDK=%q\n' "$prefix"; }

if installed; then report; exit 0; fi

mkdir -p "$AGENT_LSP_CACHE"
exec 9>"$AGENT_LSP_CACHE/.acp-sdk.lock"
flock 9   # another install-acp-sdk.sh may be running; wait for it
if installed; then report; exit 0; fi

command -v node >/dev/null 2>&1 || die "node not found (the conformance client runs with the machine's Node.js)"
command -v npm >/dev/null 2>&1 || die "npm not found"
t0=$(date +%s)

log "installing @agentclientprotocol/sdk from $lock_dir into $prefix"
tmp="$prefix.tmp.$$"
rm -rf "$tmp"; mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
cp "$lock_dir/package.json" "$lock_dir/package-lock.json" "$tmp/"
(cd "$tmp" && npm ci --no-audit --no-fund --loglevel=error >&2) \
  || die "npm ci of @agentclientprotocol/sdk failed"

# Check that this node loads it and that it speaks ACP v1 with the client
# API the test uses (2.x: client(), connectWith, ndJsonStream).
check='import("@agentclientprotocol/sdk").then(a => {
  if (a.PROTOCOL_VERSION !== 1 || typeof a.client !== "function" || typeof a.ndJsonStream !== "function") {
    console.error("unexpected SDK API: PROTOCOL_VERSION", a.PROTOCOL_VERSION); process.exit(1);
  }
})'
out=$(cd "$tmp" && node --input-type=module -e "$check" 2>&1) \
  || die "@agentclientprotocol/sdk does not load with node $(node --version): $out"

rm -rf "$prefix"
mv "$tmp" "$prefix"
trap - EXIT
[ -f "$pkg" ] || die "SDK package missing: $pkg"

echo "$key" > "$stamp"
log "ready in $(( $(date +%s) - t0 ))s: $(node -p "require('$pkg').version") with node $(node --version)"
report
