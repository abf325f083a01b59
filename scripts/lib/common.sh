# Shared helpers for scripts/install-*.sh. Source it; it defines functions only.
# shellcheck shell=bash

AGENT_LSP_CACHE="${AGENT_LSP_CACHE:-$HOME/.cache/agent-lsp}"

log() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }
die() { printf '%s: error: %s\n' "${0##*/}" "$*" >&2; exit 1; }

# Run a command as root (sudo when not root and sudo exists).
as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"
  elif command -v sudo >/dev/null 2>&1; then sudo "$@"
  else die "need root for: $*"; fi
}

# pkg_installed NAME: true when dpkg has NAME fully installed.
pkg_installed() {
  [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]
}

# apt_has_candidate NAME: true when the system's apt lists know a version of NAME.
apt_has_candidate() {
  local c
  c=$(apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ {print $2; exit}')
  [ -n "$c" ] && [ "$c" != "(none)" ]
}

# apt_install PKG...: installs the packages that are missing, running
# `apt-get update` once first only if some missing package has no candidate.
apt_install() {
  local missing=() p need_update=0
  for p in "$@"; do pkg_installed "$p" || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  for p in "${missing[@]}"; do apt_has_candidate "$p" || need_update=1; done
  export DEBIAN_FRONTEND=noninteractive
  local apt=(apt-get -q -o DPkg::Lock::Timeout=300)
  if [ $need_update -eq 1 ]; then
    log "apt-get update (no candidate for some of: ${missing[*]})"
    as_root env DEBIAN_FRONTEND=noninteractive "${apt[@]}" update >&2 \
      || die "apt-get update failed"
  fi
  log "apt-get install ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive "${apt[@]}" install -y --no-install-recommends "${missing[@]}" >&2 \
    || die "apt-get install ${missing[*]} failed"
  for p in "${missing[@]}"; do pkg_installed "$p" || die "package $p still not installed"; done
}
