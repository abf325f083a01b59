#!/usr/bin/env bash
# End-to-end test of the packaged extension in code-server + chromium, with
# the real agent-lsp and the fake model. Follows scripts/smoke-code-server.sh
# (everything in one temp dir, code-server in its own process group, nothing
# left running).
#
# The VSIX is a platform package with agent-lsp inside: no
# agentLsp.serverPath is set and no agent-lsp is on code-server's PATH, so
# the turn runs on the bundled binary (the log must say so). AGENT_LSP_BIN
# is not started; it is checked to be absent from PATH.
#
# Usage: run-e2e.sh VSIX AGENT_LSP_BIN FAKEMODEL_BIN ARTIFACTS_DIR
# Env: E2E_TIMEOUT (seconds for the browser part, default 240), E2E_KEEP_TMP=1,
# E2E_MODE=screenshots: the same harness drives screenshots.cjs through the
# chat's key states (screenshots-scenario.sh) and writes vscode-*.png into
# ARTIFACTS_DIR instead of running the test (scripts/screenshots-vscode.sh).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../../.." && pwd)"
. "$repo/scripts/lib/common.sh"

vsix="$1" agent="$2" fakemodel="$3" artifacts="$4"
mode="${E2E_MODE:-test}"
mkdir -p "$artifacts"
eval "$("$repo/scripts/install-code-server.sh")"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/agent-lsp-vscode-e2e.XXXXXX")
ws="$tmp/workspace"
mkdir -p "$ws" "$tmp/user-data/User" "$tmp/extensions" "$tmp/xdg/config" "$tmp/xdg/data" \
         "$tmp/xdg/cache" "$tmp/xdg/state" "$tmp/chromium-profile" "$tmp/home" "$tmp/t" "$tmp/agent-home"

if [ "$mode" = screenshots ]; then
  . "$here/screenshots-scenario.sh"
else
cat > "$ws/calc.py" <<'PY'
def total(values):
    return sum(values)


def average(values):
    return total(values) / 2
PY
original=$(cat "$ws/calc.py")
# What the rewind step's Bash turn changes, removes and makes.
echo 'old value' > "$ws/data.txt"
echo 'keep me' > "$ws/notes.txt"

# The model: read calc.py, propose the fix, then say it is done.
cat > "$tmp/turns.json" <<JSON
[
  [{"text": ["I'll read ", "calc.py first."]},
   {"tool_use": {"id": "toolu_e2e_read", "name": "Read", "input": {"file_path": "$ws/calc.py"}}}],
  [{"thinking": "average divides by 2 instead of the length.", "signature": "sig"},
   {"text": "The average divides by 2; it should divide by the number of values."},
   {"tool_use": {"id": "toolu_e2e_edit", "name": "Edit", "input": {"file_path": "$ws/calc.py", "old_string": "/ 2", "new_string": "/ len(values)"}}}],
  [{"text": ["Fixed: \`average\` now divides by \`len(values)\`.\n\n", "\`\`\`python\ndef average(values):\n    return total(values) / len(values)\n\`\`\`\n"]}],
  [{"tool_use": {"id": "toolu_e2e_read2", "name": "Read", "input": {"file_path": "$ws/calc.py"}}}],
  [{"tool_use": {"id": "toolu_e2e_edit2", "name": "Edit", "input": {"file_path": "$ws/calc.py", "old_string": "return sum(values)", "new_string": "return sum(values, 0)"}}}],
  [{"text": "Done: \`total\` starts from 0."}],
  [{"text": "Working on it..."}, {"hang": true}],
  [{"text": "Tidying."},
   {"tool_use": {"id": "toolu_e2e_tidy", "name": "Bash", "input": {"command": "sed -i s/old/new/ data.txt && rm notes.txt && echo made > made.txt", "description": "Tidy the data files"}}}],
  [{"text": "Tidied the data files."}],
  [{"tool_use": {"id": "toolu_e2e_plan", "name": "ExitPlanMode", "input": {"plan": "1. Rename total to sum_all.\n2. Run the tests."}}}],
  [{"text": "Following your plan."}],
  [{"between_ms": 500}, {"text": ["Panel ", "answer, ", "one ", "word ", "at ", "a ", "time ", "while ", "the ", "other ", "chat ", "waits ", "for ", "your ", "approval; ", "it ", "goes ", "on ", "streaming ", "here. ", "Panel answer done."]}],
  [{"text": "The tab asks first."},
   {"tool_use": {"id": "toolu_e2e_tab", "name": "Bash", "input": {"command": "echo tab > tab.txt", "description": "Make tab.txt"}}}],
  [{"text": "Tab turn done: made tab.txt."}]
]
JSON
fi

cs_pid="" fm_pid=""
our_pids() {
  local d pid
  for d in /proc/[0-9]*; do
    pid=${d#/proc/}
    [ "$pid" = "$$" ] && continue
    tr '\0' ' ' 2>/dev/null < "$d/cmdline" | grep -qF -- "$tmp" && echo "$pid"
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
  exec 7>&- # fakemodel ends when its stdin closes
  if [ -n "$fm_pid" ]; then
    for i in $(seq 30); do kill -0 "$fm_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$fm_pid" 2>/dev/null || true
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
    log "FAILED; code-server log:"; tail -n 40 "$tmp/code-server.log" >&2 2>/dev/null || true
    for f in "$tmp"/user-data/logs/*/exthost*/*agent-lsp*/*.log "$tmp"/user-data/logs/*/exthost*/output_logging_*/*agent-lsp*.log; do
      [ -f "$f" ] && { log "extension log $f:"; tail -n 60 "$f" >&2; }
    done
    log "fake model stderr:"; cat "$tmp/fakemodel.err" >&2 2>/dev/null || true
  fi
  if [ "${E2E_KEEP_TMP:-}" = 1 ]; then log "kept $tmp"; else rm -rf "$tmp"; fi
}
trap on_exit EXIT
trap 'exit 130' INT TERM

# The fake model serves until its stdin closes: hold it open on fd 7.
mkfifo "$tmp/fakemodel.in"
"$fakemodel" -script "$tmp/turns.json" -log "$tmp/requests.jsonl" < "$tmp/fakemodel.in" > "$tmp/fakemodel.out" 2> "$tmp/fakemodel.err" &
fm_pid=$!
exec 7> "$tmp/fakemodel.in"
model_url=""
for _ in $(seq 100); do
  model_url=$(sed -n 's/^URL=//p' "$tmp/fakemodel.out" | head -1)
  [ -n "$model_url" ] && break
  sleep 0.1
done
[ -n "$model_url" ] || die "fakemodel did not print its URL"

# Only the settings below give the agent a key (the no-key screenshot takes it away).
unset ANTHROPIC_API_KEY ANTHROPIC_AUTH_TOKEN ANTHROPIC_BASE_URL OPENAI_API_KEY OPENAI_BASE_URL
theme=""
# The screenshots follow the browser's colour scheme, dark or light
# (screenshots.cjs switches it for each state's light twin).
[ "$mode" = screenshots ] && theme='"workbench.colorTheme": "Default Dark Modern", "window.autoDetectColorScheme": true,
  "workbench.preferredDarkColorTheme": "Default Dark Modern", "workbench.preferredLightColorTheme": "Default Light Modern",'
cat > "$tmp/user-data/User/settings.json" <<JSON
{
  $theme
  "security.workspace.trust.enabled": false,
  "telemetry.telemetryLevel": "off",
  "update.mode": "none",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "extensions.ignoreRecommendations": true,
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "workbench.enableExperiments": false,
  "chat.disableAIFeatures": true,
  "workbench.secondarySideBar.defaultVisibility": "hidden",
  "git.enabled": false,
  "files.autoSave": "off"
}
JSON
# The agent's settings are machine-scoped (a binary path, API keys): in
# code-server, a remote window, they come from the machine settings.
mkdir -p "$tmp/user-data/Machine"
cat > "$tmp/user-data/Machine/settings.json" <<JSON
{
  "agentLsp.env": {
    "ANTHROPIC_API_KEY": "test",
    "ANTHROPIC_BASE_URL": "$model_url",
    "AGENT_LSP_HOME": "$tmp/agent-home",
    "AGENT_LSP_NO_USER_SETTINGS": "1"
  }
}
JSON
# The same without a model: what the no-key screenshot switches to.
cat > "$tmp/machine-nokey.json" <<JSON
{
  "agentLsp.env": {
    "AGENT_LSP_HOME": "$tmp/agent-home",
    "AGENT_LSP_NO_USER_SETTINGS": "1"
  }
}
JSON

cat > "$tmp/config.yaml" <<CFG
bind-addr: 127.0.0.1:0
auth: none
cert: false
CFG

# No agent-lsp on PATH: only the bundled binary can run the agent.
clean_path=""
IFS=: read -ra path_dirs <<< "$PATH"
for d in "${path_dirs[@]}"; do
  [ -n "$d" ] && [ ! -e "$d/agent-lsp" ] && clean_path="${clean_path:+$clean_path:}$d"
done
export PATH="$clean_path"
if command -v agent-lsp >/dev/null; then die "agent-lsp is still on PATH: $(command -v agent-lsp)"; fi
: "$agent" # built by the caller; not used by the extension here

# EXTENSIONS_GALLERY={}: no marketplace, so code-server asks no server outside this machine.
HOME_ENV=(XDG_CONFIG_HOME="$tmp/xdg/config" XDG_DATA_HOME="$tmp/xdg/data"
          XDG_CACHE_HOME="$tmp/xdg/cache" XDG_STATE_HOME="$tmp/xdg/state"
          TMPDIR="$tmp/t" VSCODE_CLI=1 EXTENSIONS_GALLERY='{}')
CS_ARGS=(--config "$tmp/config.yaml" --user-data-dir "$tmp/user-data" --extensions-dir "$tmp/extensions")

log "installing $vsix into code-server"
env "${HOME_ENV[@]}" HOME="$tmp/home" "$CODE_SERVER" "${CS_ARGS[@]}" --install-extension "$vsix" > "$tmp/install.log" 2>&1 \
  || { cat "$tmp/install.log" >&2; die "code-server --install-extension failed"; }
ls "$tmp/extensions" | grep -q '^agent-lsp\.agent-lsp-' || { cat "$tmp/install.log" >&2; die "extension not installed"; }

env "${HOME_ENV[@]}" setsid "$CODE_SERVER" "${CS_ARGS[@]}" --bind-addr 127.0.0.1:0 \
  --auth none --disable-telemetry --disable-update-check \
  --vscode-option force-disable-user-env \
  "$ws" > "$tmp/code-server.log" 2>&1 < /dev/null &
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
log "code-server at $url; fake model at $model_url"

spec="$here/e2e.cjs"
if [ "$mode" = screenshots ]; then spec="$here/screenshots.cjs"; else rm -f "$artifacts"/e2e-*.png; fi
env E2E_URL="${url%/}/?folder=$ws" E2E_WORKSPACE="$ws" E2E_PROFILE="$tmp/chromium-profile" E2E_ARTIFACTS="$artifacts" \
  E2E_MACHINE_SETTINGS="$tmp/user-data/Machine/settings.json" E2E_NOKEY_SETTINGS="$tmp/machine-nokey.json" \
  PLAYWRIGHT_DIR="$PLAYWRIGHT_DIR" CHROMIUM="$CHROMIUM" \
  HOME="$tmp/home" "${HOME_ENV[@]}" \
  timeout -k 10 "${E2E_TIMEOUT:-300}" "$NODE24" "$spec" \
  || die "browser $mode failed (screenshots in $artifacts)"

if [ "$mode" = screenshots ]; then
  # The question picked in its quick pick went back to the model.
  grep -q 'User has answered your questions: \\"Which statistic should calc offer next?\\"=\\"Variance\\"' "$tmp/requests.jsonl" \
    || die "the answer to the model's question did not reach the model"
  stop_all
  cs_pid="" fm_pid=""
  log "OK: screenshots in $artifacts"
  exit 0
fi

# The extension ran the binary from its own package.
grep -rqs "from bundled" "$tmp"/user-data/logs \
  || die "the extension's log does not say it used the bundled binary"
grep -rhs "agent-lsp binary:" "$tmp"/user-data/logs | head -1 >&2
# The no-key state was logged as an error, in the user's words.
grep -rhsiE '\[error\].*(no model|model provider)' "$tmp"/user-data/logs | head -1 >&2
grep -rqsiE '\[error\].*(no model|model provider)' "$tmp"/user-data/logs \
  || die "the extension's log does not record the no-key error"
grep -rqsE '\[error\] (session|agent)/[a-z_]+:' "$tmp"/user-data/logs \
  && die "an error in the extension's log starts with a protocol method"

# The file on disk: saved after the edit (it had no unsaved changes), with
# the text the user edited in the diff editor.
disk=$(cat "$ws/calc.py")
[ "$disk" != "$original" ] || die "calc.py unchanged on disk"
grep -q 'return total(values) / len(values)' "$ws/calc.py" || die "calc.py lacks the fix: $disk"
grep -q '# reviewed in the diff editor' "$ws/calc.py" || die "calc.py lacks the user's change to the proposal: $disk"
# The second edit landed in a buffer with unsaved changes: not saved.
grep -q 'sum(values, 0)' "$ws/calc.py" && die "calc.py was saved over the user's unsaved changes: $disk"
grep -q 'my unsaved note' "$ws/calc.py" && die "the user's unsaved note reached the disk: $disk"
# The model was told the user changed the proposal.
n=$(wc -l < "$tmp/requests.jsonl")
[ "$n" -eq 14 ] || die "expected 14 model requests, got $n"
# The open file went with the first prompt without a command (editor context).
sed -n 1p "$tmp/requests.jsonl" | grep -q "The user opened the file $ws/calc.py in the IDE" \
  || die "the first prompt did not carry the open file as editor context"
# The file picked with @ went with the prompt.
sed -n 7p "$tmp/requests.jsonl" | grep -q 'The user attached data.txt' \
  || die "the @ mention did not reach the model"
# The pasted image went with the same prompt.
sed -n 7p "$tmp/requests.jsonl" | grep -q '"media_type":"image/png"' \
  || die "the pasted image did not reach the model"
# The plan the model follows is the one the user changed in its editor.
sed -n 11p "$tmp/requests.jsonl" | grep -q 'USER ADDED STEP' || die "the model did not get the plan as the user changed it"
# Two chats, two sessions: the tab's requests hold none of the panel's turn.
sed -n 12p "$tmp/requests.jsonl" | grep -q 'Answer slowly in the panel' || die "request 12 is not the panel's prompt"
for i in 13 14; do
  sed -n ${i}p "$tmp/requests.jsonl" | grep -q 'Make a file from the tab' || die "request $i is not the tab's turn"
  if sed -n ${i}p "$tmp/requests.jsonl" | grep -q 'Answer slowly in the panel'; then die "the tab's request $i holds the panel's prompt: one session for two chats"; fi
done
# The rewind brought back what the Bash turn changed, removed and made.
[ "$(cat "$ws/data.txt")" = "old value" ] || die "data.txt not rewound: $(cat "$ws/data.txt")"
[ "$(cat "$ws/notes.txt" 2>/dev/null)" = "keep me" ] || die "notes.txt did not come back"
[ ! -e "$ws/made.txt" ] || die "made.txt survived the rewind"
sed -n 3p "$tmp/requests.jsonl" > "$tmp/req3.json"
grep -qi 'user' "$tmp/req3.json" || die "the model request after the edit does not mention the user's change"

stop_all
left=$(our_pids)
if [ -n "$left" ] || kill -0 -- "-$cs_pid" 2>/dev/null; then
  die "processes left behind: $left"
fi
cs_pid="" fm_pid=""
log "OK: prompt sent from the chat view, edit reviewed and changed in the diff editor, applied and saved; screenshots in $artifacts"
