#!/usr/bin/env bash
# Smoke test of the code-server + chromium + playwright-core stack installed by
# install-code-server.sh: starts code-server on 127.0.0.1 (random port) with
# everything (config, user data, extensions, XDG dirs) in a temp dir, loads it
# in headless Debian chromium through playwright-core, waits for the VS Code
# workbench, checks it is not in Restricted Mode, takes a screenshot, and shuts
# everything down, checking that no process is left behind.
#
# Usage: scripts/smoke-code-server.sh [extra code-server args...]
# Environment:
#   SMOKE_SCREENSHOT  screenshot path (default /tmp/code-server-smoke.png)
#   SMOKE_WORKSPACE   folder to open (default: an empty temp folder)
#   SMOKE_TIMEOUT     seconds for the browser part (default 180)
#   SMOKE_KEEP_TMP=1  keep the temp dir (logs) for debugging
#   SMOKE_STRACE=FILE run code-server under strace (execve/clone) for debugging
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$here/lib/common.sh"

eval "$("$here/install-code-server.sh")"

shot="${SMOKE_SCREENSHOT:-/tmp/code-server-smoke.png}"
timeout_s="${SMOKE_TIMEOUT:-180}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/agent-lsp-code-server-smoke.XXXXXX")
ws="${SMOKE_WORKSPACE:-$tmp/workspace}"
mkdir -p "$ws" "$tmp/user-data/User" "$tmp/extensions" "$tmp/xdg/config" \
         "$tmp/xdg/data" "$tmp/xdg/cache" "$tmp/xdg/state" "$tmp/chromium-profile" "$tmp/home" "$tmp/t"

cat > "$tmp/config.yaml" <<CFG
bind-addr: 127.0.0.1:0
auth: none
cert: false
CFG
cat > "$tmp/user-data/User/settings.json" <<'JSON'
{
  "security.workspace.trust.enabled": false,
  "telemetry.telemetryLevel": "off",
  "update.mode": "none",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "chat.disableAIFeatures": true,
  "workbench.secondarySideBar.defaultVisibility": "hidden"
}
JSON

cs_pid=""
# Processes whose command line names our temp dir (code-server and chromium,
# which playwright starts in its own process group).
our_pids() {
  local d pid
  for d in /proc/[0-9]*; do
    pid=${d#/proc/}
    [ "$pid" = "$$" ] && continue
    tr '\0' ' ' < "$d/cmdline" 2>/dev/null | grep -qF -- "$tmp" && echo "$pid"
  done
  return 0
}
stop_all() {
  local pids i
  if [ -n "$cs_pid" ]; then
    kill -TERM -- "-$cs_pid" 2>/dev/null || true
    for i in $(seq 50); do kill -0 -- "-$cs_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$cs_pid" 2>/dev/null || true
  fi
  pids=$(our_pids)
  if [ -n "$pids" ]; then
    # shellcheck disable=SC2086
    kill -TERM $pids 2>/dev/null || true; sleep 1
    pids=$(our_pids)
    # shellcheck disable=SC2086
    [ -n "$pids" ] && kill -KILL $pids 2>/dev/null || true
  fi
}
on_exit() {
  local rc=$?
  stop_all
  if [ $rc -ne 0 ]; then
    log "FAILED; code-server log:"; sed 's/^/  /' "$tmp/code-server.log" >&2 2>/dev/null || true
  fi
  if [ "${SMOKE_KEEP_TMP:-}" = 1 ]; then log "kept $tmp"; else rm -rf "$tmp"; fi
}
trap on_exit EXIT
trap 'exit 130' INT TERM

# Debian's chromium writes "Crash Reports" under ~/.config/chromium and
# ~/.cache/dconf whatever its --user-data-dir, so it gets a temp HOME and XDG
# dirs too.
# VS Code resolves a "user environment" by running `bash -i -l -c ...`, i.e.
# the user's ~/.bashrc (here: pyenv rehash writing ~/.pyenv/shims), and gives
# the result to the extension host and terminals. --vscode-option
# force-disable-user-env stops it for the extension host only; the pty host
# ignores that flag but skips it when VSCODE_CLI=1 is in the environment.
# code-server in its own session/process group so it and all its children
# (extension host, pty host, file watcher) can be ended together.
# TMPDIR too: the extension host's vscode-ipc-*.sock files go there and are
# not removed when code-server ends (keep it short: unix socket path limit).
HOME_ENV=(XDG_CONFIG_HOME="$tmp/xdg/config" XDG_DATA_HOME="$tmp/xdg/data"
          XDG_CACHE_HOME="$tmp/xdg/cache" XDG_STATE_HOME="$tmp/xdg/state"
          TMPDIR="$tmp/t" VSCODE_CLI=1)
env "${HOME_ENV[@]}" setsid ${SMOKE_STRACE:+strace -f -qq -e trace=execve,clone,clone3,vfork -o "$SMOKE_STRACE"} "$CODE_SERVER" \
  --config "$tmp/config.yaml" --bind-addr 127.0.0.1:0 \
  --auth none --disable-telemetry --disable-update-check \
  --user-data-dir "$tmp/user-data" --extensions-dir "$tmp/extensions" \
  --vscode-option force-disable-user-env \
  "$@" "$ws" > "$tmp/code-server.log" 2>&1 < /dev/null &
cs_pid=$!

url=""
for _ in $(seq 300); do
  url=$(sed -n 's/.*HTTP server listening on \(http:[^ ]*\).*/\1/p' "$tmp/code-server.log" | head -1)
  [ -n "$url" ] && break
  kill -0 "$cs_pid" 2>/dev/null || die "code-server exited early"
  sleep 0.1
done
[ -n "$url" ] || die "code-server did not report its address within 30s"
case "$url" in http://127.0.0.1:*) ;; *) die "code-server is not on 127.0.0.1: $url" ;; esac
log "code-server at $url"

cat > "$tmp/smoke.cjs" <<'JS'
const { chromium } = require(process.env.PLAYWRIGHT_DIR);
(async () => {
  const ctx = await chromium.launchPersistentContext(process.env.SMOKE_PROFILE, {
    executablePath: process.env.CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking',
           '--disable-component-update', '--disable-sync', '--no-first-run',
           '--disable-quic'],
  });
  let ok = false;
  try {
    const page = ctx.pages()[0] || await ctx.newPage();
    const errors = [];
    page.on('pageerror', e => errors.push(String(e)));
    await page.goto(process.env.SMOKE_URL, { waitUntil: 'domcontentloaded', timeout: 60000 });
    await page.waitForSelector('.monaco-workbench', { timeout: 120000 });
    await page.waitForSelector('.part.statusbar', { timeout: 60000 });
    await page.waitForSelector('.part.activitybar, .part.sidebar', { timeout: 60000 });
    // Built-in extensions activating: wait for the status bar to settle.
    await page.waitForFunction(() => {
      const sb = document.querySelector('.part.statusbar');
      return sb && !/Activating Extensions/.test(sb.textContent);
    }, null, { timeout: 90000 });
    await page.waitForTimeout(1000);
    const text = await page.evaluate(() => document.body.innerText);
    if (/Restricted Mode/.test(text)) throw new Error('workbench is in Restricted Mode (workspace trust setting ignored)');
    await page.screenshot({ path: process.env.SMOKE_SCREENSHOT });
    console.log('title: ' + await page.title());
    if (errors.length) console.log('page errors: ' + errors.join(' | '));
    ok = true;
  } finally {
    await ctx.close();
  }
  process.exit(ok ? 0 : 1);
})().catch(e => { console.error(e && e.stack || String(e)); process.exit(1); });
JS

rm -f "$shot"
env SMOKE_URL="${url%/}/?folder=$ws" SMOKE_PROFILE="$tmp/chromium-profile" SMOKE_SCREENSHOT="$shot" \
  PLAYWRIGHT_DIR="$PLAYWRIGHT_DIR" CHROMIUM="$CHROMIUM" \
  HOME="$tmp/home" "${HOME_ENV[@]}" \
  timeout -k 10 "$timeout_s" "$NODE24" "$tmp/smoke.cjs" >&2 \
  || die "browser check failed"
[ -s "$shot" ] || die "no screenshot at $shot"

stop_all
left=$(our_pids)
if [ -n "$left" ] || kill -0 -- "-$cs_pid" 2>/dev/null; then
  die "processes left behind: $left"
fi
cs_pid=""
log "OK: VS Code workbench rendered; screenshot $shot; all processes ended"
printf 'SMOKE_SCREENSHOT=%q\n' "$shot"
