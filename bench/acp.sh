#!/usr/bin/env bash
# Benchmark of the ACP door (agent-lsp acp) as an ACP editor meets it, as a
# markdown table (paste it under "## ACP" in docs/benchmarks.md): spawn ->
# initialize answered, session/new, prompt -> first agent_message_chunk
# and peak memory, against a fake model, measured by a minimal Go NDJSON
# client and by the official ACP TypeScript SDK.
#
#   bench/acp.sh              # RUNS=30 fresh processes per client
#   RUNS=50 bench/acp.sh
#
# The driver is bench/acp/main.go; the SDK side is the "bench" scenario of
# server/testdata/acp-sdk/client.mjs, with the SDK installed by
# scripts/install-acp-sdk.sh (skipped, with a note, when node is missing).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

RUNS=${RUNS:-30}
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$bin/agent-lsp" ./cmd/agent-lsp # as make build builds it
sdk=()
if command -v node >/dev/null 2>&1; then
  eval "$(scripts/install-acp-sdk.sh)" # sets ACP_SDK
  sdk=(-sdk server/testdata/acp-sdk/client.mjs -sdk-prefix "$ACP_SDK")
else
  echo "bench/acp.sh: node not found: measuring with the Go client only" >&2
fi
go run ./bench/acp -bin "$bin/agent-lsp" -runs "$RUNS" "${sdk[@]}"
