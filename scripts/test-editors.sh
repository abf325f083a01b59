#!/usr/bin/env bash
# Runs the editor end-to-end suites: Neovim (headless, real plugin) and VS
# Code (code-server in chromium, with its screenshots), then the Neovim
# screenshots. Each script installs what it needs, cached.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
for suite in editors/neovim/test/run.sh editors/vscode/test/run.sh; do
  if [[ -x $suite ]]; then
    echo "== $suite"
    "$suite" || status=1
  else
    echo "missing editor suite: $suite" >&2
    status=1
  fi
done
# The Neovim screenshots, rendered into a scratch directory, so a broken
# view fails here (the VS Code ones are rendered by its suite).
echo "== scripts/screenshots-nvim.sh"
shots="$(mktemp -d "${TMPDIR:-/tmp}/agent-lsp-shots.XXXXXX")"
SCREENSHOTS_DIR="$shots" scripts/screenshots-nvim.sh || status=1
rm -rf "$shots"
exit $status
