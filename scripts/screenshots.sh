#!/usr/bin/env bash
# make screenshots: docs/screenshots/vscode-*.png, then docs/screenshots/nvim-*.png.
set -euo pipefail; d="$(dirname "${BASH_SOURCE[0]}")"
"$d/screenshots-vscode.sh" && "$d/screenshots-nvim.sh"
