#!/usr/bin/env bash
# Installs acpx (a headless ACP client from npm, pinned) into the cache for
# cmd/agent-lsp's TestACPX. acpx declares Node >= 22.13 but runs on Node
# 20, so the engines check is not enforced. Idempotent.
set -euo pipefail
VERSION=0.19.1
cache=${AGENT_LSP_CACHE:-$HOME/.cache/agent-lsp}/acpx
if [[ -x $cache/node_modules/.bin/acpx ]] && grep -q "\"version\": \"$VERSION\"" "$cache/node_modules/acpx/package.json"; then
  exit 0
fi
mkdir -p "$cache"
cd "$cache"
npm install --no-audit --no-fund --engine-strict=false "acpx@$VERSION" >/dev/null
