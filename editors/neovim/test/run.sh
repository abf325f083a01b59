#!/usr/bin/env bash
# Runs the Neovim plugin's tests: a real headless Neovim 0.10 (from
# scripts/install-nvim.sh), the real agent-lsp and the fake model server,
# built once into a temp dir. Each case runs in its own child Neovim.
#
#   editors/neovim/test/run.sh                 all cases
#   TEST_FILTER=edit editors/neovim/test/run.sh  cases whose "file: name" contains "edit"
#
# Ends with "N passed, N failed"; exits non-zero when a case fails.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"

NVIM_WRAPPER="$("$repo/scripts/install-nvim.sh" | tail -1)"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/agent-lsp-nvim-test.XXXXXX")"
cleanup() { rm -rf "$tmp"; }
trap cleanup EXIT

echo "building agent-lsp and fakemodel into $tmp/bin" >&2
(cd "$repo" && go build -o "$tmp/bin/agent-lsp" ./cmd/agent-lsp && go build -o "$tmp/bin/fakemodel" ./internal/cmd/fakemodel)

# The plugin as lazy.nvim installs it: the repository in a plugin dir, then
# its build step (build = "make build"), which makes <dir>/bin/agent-lsp.
lazy="$tmp/lazy/agent-lsp"
mkdir -p "$lazy"
(cd "$repo" && git ls-files -z --cached --others --exclude-standard | tar --null --ignore-failed-read -T - -cf -) | tar -xf - -C "$lazy"
echo "building the lazy.nvim copy in $lazy (make build)" >&2
(cd "$lazy" && make build >/dev/null)
[ -x "$lazy/bin/agent-lsp" ] || { echo "make build made no $lazy/bin/agent-lsp" >&2; exit 1; }
export LAZY_PLUGIN_DIR="$lazy"
# No agent-lsp on PATH: the plugin must find its own.
clean_path=""
IFS=: read -ra path_dirs <<< "$PATH"
for d in "${path_dirs[@]}"; do
  [ -n "$d" ] && [ ! -e "$d/agent-lsp" ] && clean_path="${clean_path:+$clean_path:}$d"
done
export PATH="$clean_path"

# Children keep their state, logs and temp files inside $tmp.
mkdir -p "$tmp/xdg/config" "$tmp/xdg/data" "$tmp/xdg/state" "$tmp/xdg/cache" "$tmp/nvimtmp"
export NVIM_WRAPPER TEST_TMP="$tmp"
export AGENT_LSP_BIN="$tmp/bin/agent-lsp" FAKEMODEL_BIN="$tmp/bin/fakemodel"
export XDG_CONFIG_HOME="$tmp/xdg/config" XDG_DATA_HOME="$tmp/xdg/data"
export XDG_STATE_HOME="$tmp/xdg/state" XDG_CACHE_HOME="$tmp/xdg/cache"
export TMPDIR="$tmp/nvimtmp"
# The sidecar must reach only the fake model.
unset ANTHROPIC_API_KEY ANTHROPIC_BASE_URL ANTHROPIC_MODEL OPENAI_API_KEY OPENAI_BASE_URL
export NO_PROXY='*' no_proxy='*'

status=0
"$NVIM_WRAPPER" --headless -n -i NONE -u NONE -l "$here/runner.lua" || status=$?

# No sidecar or fake model may outlive its Neovim.
for _ in $(seq 50); do
  pgrep -f "$tmp/(bin|lazy)/" >/dev/null || break
  sleep 0.1
done
if left=$(pgrep -f "$tmp/(bin|lazy)/"); then
  echo "left running after the tests:" >&2
  ps -o pid,etime,args -p $left >&2 || true
  kill -9 $left 2>/dev/null || true
  status=1
fi
exit $status
