#!/usr/bin/env bash
# Runs the editor end-to-end suites: Neovim (headless, real plugin) and VS
# Code (code-server in chromium). Each suite's own script installs what it
# needs, cached.
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
exit $status
