#!/usr/bin/env bash
# Installs ripgrep (rg), bubblewrap (bwrap) and python3-nbformat (the
# notebook tests validate with it) from Debian's packages, only when
# missing. Prints RG=... and BWRAP=... lines (eval-able) on stdout.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

if ! command -v rg >/dev/null 2>&1 || ! command -v bwrap >/dev/null 2>&1; then
  apt_install ripgrep bubblewrap
fi
# nbformat validates the notebooks NotebookEdit writes (tools tests).
if ! /usr/bin/python3 -c 'import nbformat' >/dev/null 2>&1; then
  apt_install python3-nbformat
fi

rg=$(command -v rg) || die "rg not found after install"
bwrap=$(command -v bwrap) || die "bwrap not found after install"
"$rg" --version >/dev/null || die "$rg does not run"
"$bwrap" --version >/dev/null || die "$bwrap does not run"
printf 'RG=%q\nBWRAP=%q\n' "$rg" "$bwrap"
