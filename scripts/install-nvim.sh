#!/usr/bin/env bash
# Installs Neovim 0.10 from Debian trixie's packages into the cache, without
# touching the system's apt configuration or dpkg database:
#   apt-get (own sources list, lists dir, archives dir, empty status) update +
#   download, then dpkg -x into <cache>/nvim-root, and a wrapper
#   <cache>/bin/nvim that starts nvim through trixie's own dynamic loader
#   (trixie's nvim needs a newer glibc than bookworm has).
# Prints NVIM_ROOT=..., NVIM_VIMRUNTIME=... (shell-quoted, eval-able) and as
# its LAST line the bare wrapper path:
#   NVIM=$(scripts/install-nvim.sh | tail -1)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

# Bump when the package set or the wrapper changes, to force a reinstall.
STAMP_KEY="trixie-nvim-0.10 v1"
PKGS=(neovim neovim-runtime libluajit-5.1-2 libluajit-5.1-common libmsgpack-c2
      libtree-sitter0.22 libunibilium4 libuv1t64 libvterm0 lua-lpeg lua-luv
      libc6 libgcc-s1)

root="$AGENT_LSP_CACHE/nvim-root"
wrapper="$AGENT_LSP_CACHE/bin/nvim"
stamp="$root/.agent-lsp-stamp"

report() {
  printf 'NVIM_ROOT=%q\n' "$root"
  printf 'NVIM_VIMRUNTIME=%q\n' "$root/usr/share/nvim/runtime"
  printf '%s\n' "$wrapper"   # last line: the wrapper, unquoted
}

# Fast path: already installed and verified.
if [ -x "$wrapper" ] && [ -f "$stamp" ] && [ "$(head -1 "$stamp")" = "$STAMP_KEY" ]; then
  report; exit 0
fi

case "$root" in *"'"*) die "AGENT_LSP_CACHE must not contain a single quote: $AGENT_LSP_CACHE" ;; esac
mkdir -p "$AGENT_LSP_CACHE/bin"
exec 9>"$AGENT_LSP_CACHE/.nvim.lock"
flock 9   # another install-nvim.sh may be running; wait for it
if [ -x "$wrapper" ] && [ -f "$stamp" ] && [ "$(head -1 "$stamp")" = "$STAMP_KEY" ]; then
  report; exit 0
fi

t0=$(date +%s)

# The Debian mirror the system uses for bookworm (one-line .list or deb822
# .sources); overridable with AGENT_LSP_DEBIAN_MIRROR.
find_mirror() {
  local f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    awk '$1=="deb" { i=2; if ($2 ~ /^\[/) { while (i<=NF && $i !~ /\]$/) i++; i++ }
                     if ($(i+1)=="bookworm") { print $i; exit } }' "$f"
  done
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    # deb822: paragraphs separated by blank lines; Suites may list several.
    awk 'BEGIN{RS=""; FS="\n"}
         { uris=""; suites=""; types=""; enabled="yes"
           for (i=1;i<=NF;i++) {
             if ($i ~ /^URIs:/)    { uris=$i;   sub(/^URIs:[ \t]*/,"",uris) }
             if ($i ~ /^Suites:/)  { suites=" " $i " " }
             if ($i ~ /^Types:/)   { types=$i }
             if ($i ~ /^Enabled:[ \t]*no/) { enabled="no" } }
           if (enabled=="yes" && types ~ /(^|[ \t])deb([ \t]|$)/ && suites ~ /[ \t]bookworm[ \t]/) {
             split(uris, u, /[ \t]+/); print u[1]; exit } }' "$f"
  done
}
mirror="${AGENT_LSP_DEBIAN_MIRROR:-$(find_mirror | head -1)}"
if [ -z "$mirror" ]; then
  mirror=http://deb.debian.org/debian
  log "no bookworm mirror found in /etc/apt; using $mirror"
fi
mirror="${mirror%/}"
log "Debian mirror: $mirror"

keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -f "$keyring" ] || die "$keyring missing (install debian-archive-keyring)"

apt_dir="$AGENT_LSP_CACHE/nvim-apt"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/archives/partial" "$apt_dir/cache"
echo "deb [signed-by=$keyring] $mirror trixie main" > "$apt_dir/sources.list"
: > "$apt_dir/status"   # empty dpkg status: only trixie's versions are candidates
aptopts=(
  -o "Dir::Etc::sourcelist=$apt_dir/sources.list"
  -o "Dir::Etc::sourceparts=-"
  -o "Dir::State::Lists=$apt_dir/lists"
  -o "Dir::State::status=$apt_dir/status"
  -o "Dir::Cache=$apt_dir/cache"
  -o "Dir::Cache::archives=$apt_dir/archives"
  -o "APT::Get::List-Cleanup=0"
  -o "Acquire::IndexTargets::deb::DEP-11::DefaultEnabled=false"
  -o "Acquire::IndexTargets::deb::DEP-11-icons::DefaultEnabled=false"
  -o "Acquire::IndexTargets::deb::DEP-11-icons-hidpi::DefaultEnabled=false"
  -o "Acquire::Languages=none"
)
[ "$(id -u)" -eq 0 ] && aptopts+=(-o "APT::Sandbox::User=root")

log "apt-get update (trixie lists in $apt_dir/lists)"
apt-get -q "${aptopts[@]}" update >&2 || die "apt-get update of trixie lists failed (mirror $mirror)"

log "apt-get download ${PKGS[*]}"
dl="$apt_dir/debs"
rm -rf "$dl"; mkdir -p "$dl"
(cd "$dl" && apt-get -q "${aptopts[@]}" download "${PKGS[@]}" >&2) \
  || die "apt-get download from trixie failed"

tmp="$AGENT_LSP_CACHE/nvim-root.tmp.$$"
rm -rf "$tmp"; mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
for deb in "$dl"/*.deb; do
  dpkg -x "$deb" "$tmp" || die "dpkg -x $deb failed"
done
# nvim run through the loader puts <root>/usr/lib/lib/nvim on its runtimepath
# (bundled tree-sitter parsers live in usr/lib/x86_64-linux-gnu/nvim, found via
# ../lib); usr/lib/lib -> . makes that path exist.
ln -sfn . "$tmp/usr/lib/lib"
loader="$tmp/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"
[ -e "$loader" ] || die "trixie loader missing at $loader"
[ -x "$tmp/usr/bin/nvim" ] || die "nvim binary missing in extracted packages"

rm -rf "$root.old"
[ -e "$root" ] && mv "$root" "$root.old"
mv "$tmp" "$root"
rm -rf "$root.old"
trap - EXIT

cat > "$wrapper.tmp" <<WRAP
#!/bin/sh
# Generated by agent-lsp scripts/install-nvim.sh: Neovim from Debian trixie,
# started through trixie's own dynamic loader.
# Note: v:progpath is the loader; start child Neovims with this script instead.
root='$root'
export VIMRUNTIME="\$root/usr/share/nvim/runtime"
exec "\$root/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" \\
  --library-path "\$root/usr/lib/x86_64-linux-gnu:\$root/lib/x86_64-linux-gnu" \\
  "\$root/usr/bin/nvim" "\$@"
WRAP
chmod +x "$wrapper.tmp"
mv "$wrapper.tmp" "$wrapper"

# Verify.
ver=$("$wrapper" --headless --version 2>&1 | head -1) || die "nvim --version failed: $ver"
case "$ver" in
  "NVIM v0.10."*) ;;
  *) die "unexpected nvim version: $ver" ;;
esac
ntmp=$(mktemp -d)   # nvim makes its tempdir (nvim.$USER) under TMPDIR
out=$(TMPDIR="$ntmp" timeout 60 "$wrapper" --headless -u NONE -i NONE \
  --cmd 'lua for _, p in ipairs({"python3","node","perl","ruby"}) do vim.g["loaded_" .. p .. "_provider"] = 0 end' \
  -c 'lua io.stdout:write(tostring(vim.lsp.start ~= nil), " ", tostring(pcall(vim.treesitter.language.add, "markdown")), "\n")' \
  -c 'qa!' </dev/null 2>&1) || { rm -rf "$ntmp"; die "headless nvim run failed: $out"; }
rm -rf "$ntmp"
case "$out" in
  *"true true"*) ;;
  *) die "headless check failed (want 'true true' for vim.lsp.start and markdown parser): $out" ;;
esac

printf '%s\n%s\n' "$STAMP_KEY" "$ver" > "$stamp"
log "installed $ver in $(( $(date +%s) - t0 ))s"
report
