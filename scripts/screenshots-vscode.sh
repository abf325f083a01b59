#!/usr/bin/env bash
# The VS Code screenshots of docs/screenshots/vscode-*.png: the packaged
# extension (linux-x64, agent-lsp inside) in code-server + chromium, driven by
# editors/vscode/test/e2e/screenshots.cjs through the chat's key states with
# the fake model (the end-to-end test's harness, run-e2e.sh with
# E2E_MODE=screenshots). Each state is shot in the dark theme
# (vscode-<name>.png) and the light one (vscode-<name>-light.png). Fails if a
# state is not reached or a PNG is missing.
#
# The states, in the order they are shot: the chat streaming, then
# cancelled; an edit's approval and its diff review (the standing answers'
# picker open); a Bash approval and its output; the end of the turn; the
# model, effort and mode pickers; rewind's picker, preview and result; a plan
# under review; acceptEdits writing a file without asking; a turn that writes
# twelve files; an edit the user rejected; a command that failed; a command
# with 300 lines of output; the model's question; an API error; the chat in
# a narrow (300 px) pane; the chat history; a reloaded chat; an @ mention
# and a pasted image above the input, then sent (the message's thumbnail); no
# API key; two chats, the panel's and one in an editor tab.
#
# Env: SCREENSHOTS_DIR (default docs/screenshots), E2E_TIMEOUT (default 900).
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

names=(chat-streaming cancelled edit-approval diff-review bash-approval bash-output end-of-turn
       model-picker effort-picker mode-picker rewind-picker rewind-preview rewound
       plan-review accept-edits many-files rejected failing-command long-output question api-error narrow
       history reloaded mention-image image-sent no-key two-chats)
for n in "${names[@]}"; do rm -f "$out/vscode-$n.png" "$out/vscode-$n-light.png"; done
rm -f "$out/vscode-FAILED.png"
E2E_MODE=screenshots E2E_TIMEOUT="${E2E_TIMEOUT:-900}" \
  test/e2e/run-e2e.sh "$ext/dist/agent-lsp-linux-x64.vsix" unused "$work/fakemodel" "$out"
for n in "${names[@]}"; do
  for f in "vscode-$n.png" "vscode-$n-light.png"; do
    [ -s "$out/$f" ] || die "$f was not written"
  done
done
log "wrote ${#names[@]} states in the dark and light themes to $out"
