#!/usr/bin/env bash
# Installs Debian's Emacs (emacs-nox) and eglot (elpa-eglot, 1.9 on
# bookworm) for cmd/agent-lsp's TestPlainDoorInEglot, which drives the
# plain-LSP door from eglot in batch mode. Needs root (apt-get) unless
# they are installed already. Idempotent.
set -euo pipefail
if command -v emacs >/dev/null && emacs --batch --no-init-file --eval "(require 'eglot)" >/dev/null 2>&1; then
  exit 0
fi
if [[ $(id -u) -ne 0 ]]; then
  echo "install-emacs.sh: run as root, or install emacs-nox and elpa-eglot" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get install -y --no-install-recommends emacs-nox elpa-eglot >/dev/null || {
  apt-get update >/dev/null
  apt-get install -y --no-install-recommends emacs-nox elpa-eglot >/dev/null
}
