#!/usr/bin/env bash
# Installs, into the cache, what the editor and protocol tests need beyond
# Go: tmux, Neovim 0.10 and the npm packages of the editor tests (the ACP SDK,
# the MCP everything server, the real Claude Code binary) and Debian's Emacs
# with eglot. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/common.sh
# tmux runs the Neovim TUI for the screenshots (scripts/screenshots-nvim.sh).
apt_install tmux
scripts/install-nvim.sh >/dev/null
for s in scripts/install-acp-sdk.sh scripts/install-mcp-everything.sh scripts/install-claude-code.sh scripts/install-langservers.sh scripts/install-emacs.sh scripts/install-acpx.sh; do
  if [[ -x $s ]]; then "$s" >/dev/null; fi
done
