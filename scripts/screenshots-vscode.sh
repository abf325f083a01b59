#!/usr/bin/env bash
# The VS Code screenshots of docs/screenshots/vscode-*.png: the packaged
# extension (linux-x64, agent-lsp inside) in code-server + chromium, driven by
# editors/vscode/test/e2e/screenshots.cjs through the chat's key states with
# the fake model (the end-to-end test's harness, run-e2e.sh with
# E2E_MODE=screenshots). Fails if a state is not reached or a PNG is missing.
#
# Env: SCREENSHOTS_DIR (default docs/screenshots), E2E_TIMEOUT (default 400).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ext="$repo/editors/vscode"
out="${SCREENSHOTS_DIR:-$repo/docs/screenshots}"
. "$repo/scripts/lib/common.sh"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

# One build per checkout at a time (test/run.sh takes the same lock).
lock="${TMPDIR:-/tmp}/agent-lsp-vscode-test-$(printf %s "$ext" | sha256sum | cut -c1-12).lock"
exec 9>"$lock"
flock 9

work=$(mktemp -d "${TMPDIR:-/tmp}/agent-lsp-screenshots.XXXXXX")
trap 'rm -rf "$work"' EXIT

cd "$ext"
stamp="$(sha256sum package-lock.json | cut -c1-16) node$(node --version)"
if [ "$(cat node_modules/.agent-lsp-stamp 2>/dev/null)" != "$stamp" ]; then
  log "npm ci"
  npm ci --no-audit --no-fund --loglevel=error >&2
  echo "$stamp" > node_modules/.agent-lsp-stamp
fi
log "building the extension and its linux-x64 package"
rm -rf out dist
node esbuild.mjs
node scripts/package-all.mjs linux-x64 >"$work/package.log" 2>&1 || { cat "$work/package.log" >&2; die "packaging failed"; }
(cd "$repo" && go build -o "$work/fakemodel" ./internal/cmd/fakemodel)

names=(chat-streaming edit-approval diff-review bash-approval bash-output end-of-turn model-picker effort-picker mode-picker rewind-picker rewind-preview rewound history reloaded no-key two-chats)
for n in "${names[@]}"; do rm -f "$out/vscode-$n.png"; done
rm -f "$out/vscode-FAILED.png"
E2E_MODE=screenshots E2E_TIMEOUT="${E2E_TIMEOUT:-400}" \
  test/e2e/run-e2e.sh "$ext/dist/agent-lsp-linux-x64.vsix" unused "$work/fakemodel" "$out"
for n in "${names[@]}"; do
  [ -s "$out/vscode-$n.png" ] || die "vscode-$n.png was not written"
done
log "wrote ${#names[@]} screenshots to $out"
