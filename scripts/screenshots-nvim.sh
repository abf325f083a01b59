#!/usr/bin/env bash
# Neovim screenshots for docs/screenshots (issue 26): the real Neovim TUI
# with the plugin, in tmux, driving the real agent-lsp against the fake
# model (internal/cmd/fakemodel), through the states a new user meets.
# Each state is waited for on the screen (a missing one fails the script
# with the screen it saw); its screen is taken with `tmux capture-pane -e`,
# turned into HTML (internal/cmd/ansihtml) and shot with headless chromium:
#
#   nvim-streaming.png      the answer streaming in
#   nvim-edit-approval.png  the approval float of an edit
#   nvim-diff-review.png    the review tab of that edit
#   nvim-bash-approval.png  the approval float of `go test ./...`
#   nvim-bash-output.png    its output, opened in the chat
#   nvim-end-of-turn.png    the markdown answer at the end of the turn
#   nvim-model-picker.png   :AgentModel
#   nvim-mode-picker.png    :AgentMode
#   nvim-history.png        :AgentSessions
#   nvim-reloaded.png       the session reloaded in a new Neovim
#   nvim-rewind-picker.png  :AgentRewind's list of prompts
#   nvim-rewind-preview.png the files a rewind will change, to confirm
#   nvim-rewound.png        the chat and calc.go after the rewind
#   nvim-no-key.png         a chat opened with no model configured
#   nvim-question.png       the model's question (AskUserQuestion) in vim.ui.select
#   nvim-rejected.png       a command the user rejected, and the model going on
#   nvim-failed-command.png a command that failed, its output opened
#   nvim-long-output.png    a command with long output, cut in the chat
#   nvim-cancelled.png      a turn cancelled while the model streams
#   nvim-api-error.png      the model's API answering with an error
#   nvim-plan-review.png    plan mode: the plan (ExitPlanMode) to approve
#   nvim-plan-edit.png      the plan opened in a buffer to change before approving
#   nvim-many-files.png     acceptEdits mode: a turn that writes many files
#   nvim-narrow.png         the chat in an 80-column terminal
#   nvim-mention-image.png  a prompt with @chart.png and @calc.go: the image
#                           as a thumbnail, the file attached
#
# Every one is rendered twice: in the dark theme (nvim-NAME.png) and in the
# light one (nvim-NAME-light.png: 'background' light with the default
# colorscheme, and a light page around it). The script fails when a state
# is not reached or a PNG is missing.
#
#   scripts/screenshots-nvim.sh          writes docs/screenshots/nvim-*.png
#   SCREENSHOTS_DIR=/tmp/s scripts/screenshots-nvim.sh
#   SHOT_THEME=light scripts/screenshots-nvim.sh   one theme only
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${SCREENSHOTS_DIR:-$repo/docs/screenshots}"
COLS=${SCREENSHOTS_COLS:-150}
ROWS=${SCREENSHOTS_ROWS:-42}

# The names listed above: each must exist in both themes at the end.
SHOTS=(streaming edit-approval diff-review bash-approval bash-output end-of-turn
  model-picker mode-picker history reloaded rewind-picker rewind-preview rewound
  no-key question rejected failed-command long-output cancelled api-error
  plan-review plan-edit many-files narrow mention-image)

if [ -z "${SHOT_THEME:-}" ]; then
  for theme in dark light; do
    SHOT_THEME=$theme "${BASH_SOURCE[0]}"
  done
  missing=()
  for name in "${SHOTS[@]}"; do
    for f in "nvim-$name.png" "nvim-$name-light.png"; do
      [ -s "$out/$f" ] || missing+=("$f")
    done
  done
  [ ${#missing[@]} -eq 0 ] || die "screenshots missing: ${missing[*]}"
  log "all ${#SHOTS[@]} states in both themes are in $out"
  exit 0
fi
case "$SHOT_THEME" in
  dark) suffix="" ansi_colors=(-bg '#14161b' -fg '#e0e2ea') ;;
  light) suffix="-light" ansi_colors=(-bg '#e0e2ea' -fg '#14161b') ;;
  *) die "SHOT_THEME must be dark or light, not $SHOT_THEME" ;;
esac

apt_install tmux chromium fonts-noto-color-emoji # emoji: 📎 attachments, 💭 thinking
NVIM="$("$repo/scripts/install-nvim.sh" | tail -1)"
chromium=$(command -v chromium || true)
[ -n "$chromium" ] || die "chromium not found"

tmp="$(mktemp -d "${TMPDIR:-/tmp}/agent-lsp-nvim-shots.XXXXXX")"
sock="$tmp/tmux.sock"
fm_pid=""
nvim_pids=()
cleanup() {
  tmux -S "$sock" kill-server 2>/dev/null || true
  for p in "${nvim_pids[@]}"; do kill "$p" 2>/dev/null || true; done
  exec 7>&- 2>/dev/null || true
  [ -n "$fm_pid" ] && kill "$fm_pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

log "building agent-lsp, fakemodel and ansihtml into $tmp/bin"
(cd "$repo" && go build -o "$tmp/bin/agent-lsp" ./cmd/agent-lsp \
  && go build -o "$tmp/bin/fakemodel" ./internal/cmd/fakemodel \
  && go build -o "$tmp/bin/ansihtml" ./internal/cmd/ansihtml)

# The project the user works on: a Go package whose Add subtracts.
ws="$tmp/calc"
mkdir -p "$ws" "$tmp/home" "$tmp/nokey-home" "$tmp/gocache" "$tmp/chrome" "$tmp/nvimtmp"
git -C "$ws" init -q
cat > "$ws/go.mod" <<'EOF'
module example.com/calc

go 1.21
EOF
cat > "$ws/calc.go" <<'EOF'
// Package calc does arithmetic.
package calc

// Add returns the sum of a and b.
func Add(a, b int) int {
	return a - b
}
EOF
cat > "$ws/calc_test.go" <<'EOF'
package calc

import "testing"

func TestAdd(t *testing.T) {
	if got := Add(2, 3); got != 5 {
		t.Errorf("Add(2, 3) = %d, want 5", got)
	}
}
EOF
# The chart the image shot attaches: five bars, each group's sum halved.
python3 - "$ws/chart.png" <<'PY'
import struct, sys, zlib
w, h = 320, 200
bars = [(24, '4e79a7', 3), (82, 'f28e2b', 5), (140, 'e15759', 2), (198, '76b7b2', 5), (256, '59a14f', 12)]
rows = []
for y in range(h):
    row = bytearray(b'\0')
    for x in range(w):
        c = 'fafafa'
        if y == 180 and 12 <= x < 308:
            c = '333333'
        for left, colour, mean in bars:
            if left <= x < left + 40 and 180 - mean * 8 <= y < 180:
                c = colour
        row += bytes.fromhex(c)
    rows.append(bytes(row))
def chunk(kind, data):
    return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data))
png = b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0)) \
    + chunk(b'IDAT', zlib.compress(b''.join(rows))) + chunk(b'IEND', b'')
open(sys.argv[1], 'wb').write(png)
PY
# Compile the standard library parts once, so the agent's `go test` is quick.
(cd "$ws" && GOCACHE="$tmp/gocache" go test -count=1 -run '^$' ./... >/dev/null)

# The model's side of the session, one entry per model request.
python3 - "$ws" > "$tmp/turns.json" <<'EOF'
import json, sys
ws = sys.argv[1]
intro = "I'll read `calc.go` first, find out why `Add` gives the wrong sum, fix it and then run the tests to make sure nothing else breaks."
answer = """The bug is fixed and the tests pass.

## What changed

`Add` returned `a - b`; it now returns **`a + b`**:

```go
func Add(a, b int) int {
	return a + b
}
```

## Checked

- `go test ./...` passes
- `TestAdd` covers the case that failed (**2 + 3**)

Before you push, run the whole suite once more, with the race detector on: `go test -race -count=1 ./...`, and check the formatting with `gofmt -l .`; they catch what these tests do not.
"""
turns = [
    [{"between_ms": 140}, {"text": [w + " " for w in intro.split(" ")]},
     {"tool_use": {"id": "toolu_read", "name": "Read", "input": {"file_path": ws + "/calc.go"}}}],
    [{"text": "`Add` subtracts instead of adding. Fixing it:"},
     {"tool_use": {"id": "toolu_edit", "name": "Edit", "input": {
         "file_path": ws + "/calc.go", "old_string": "return a - b", "new_string": "return a + b"}}}],
    [{"text": "Now the tests:"},
     {"tool_use": {"id": "toolu_bash", "name": "Bash", "input": {
         "command": "go test ./...", "description": "Run the Go tests"}}}],
    [{"between_ms": 20}, {"text": [l + "\n" for l in answer.rstrip("\n").split("\n")]}],
    [{"text": "Before I write it, one choice is yours:"},
     {"tool_use": {"id": "toolu_ask", "name": "AskUserQuestion", "input": {"questions": [{
         "question": "How should Sub handle an overflow?", "header": "Overflow", "multiSelect": False,
         "options": [{"label": "Wrap around (Recommended)", "description": "Like Go's own integer arithmetic"},
                     {"label": "Return an error", "description": "Sub(a, b int) (int, error)"},
                     {"label": "Panic", "description": "Overflow is a programming error"}]}]}}}],
    [{"text": "Sub will wrap around, as Go's integers do."}],
    # A command the user rejects; the model goes on.
    [{"text": "Removing the old test file:"},
     {"tool_use": {"id": "toolu_rm", "name": "Bash", "input": {
         "command": "rm calc_test.go", "description": "Delete the old tests"}}}],
    [{"text": "All right, I left `calc_test.go` alone. Tell me what you want instead."}],
    # A command that fails.
    [{"text": "Checking:"},
     {"tool_use": {"id": "toolu_cat", "name": "Bash", "input": {
         "command": "cat NOTES.md", "description": "Show the notes"}}}],
    [{"text": "There is no `NOTES.md` in the project: `cat` failed with exit status 1."}],
    # Long output.
    [{"tool_use": {"id": "toolu_seq", "name": "Bash", "input": {
         "command": "seq 1 300", "description": "Count to 300"}}}],
    [{"text": "That is all 300 of them; the chat keeps the first lines."}],
    # A turn the user cancels while it streams.
    [{"between_ms": 60}, {"text": [w + " " for w in "Let me go through the package file by file, starting with".split(" ")]},
     {"hang": True}],
    # The model's API answers with an error.
    [{"error": 400}],
    # Plan mode: the plan to approve, then (acceptEdits) many files.
    [{"text": "Here is the plan:"},
     {"tool_use": {"id": "toolu_plan", "name": "ExitPlanMode", "input": {"plan":
         "## Add Mul\n\n1. Write `Mul` in `mul.go`\n2. Test it in `mul_test.go`\n3. Document it in `doc/mul.md` and `CHANGELOG.md`\n"}}}],
    [{"text": "Writing the four files:"},
     {"tool_use": {"id": "toolu_w1", "name": "Write", "input": {"file_path": ws + "/mul.go",
         "content": "package calc\n\n// Mul returns the product of a and b.\nfunc Mul(a, b int) int {\n\treturn a * b\n}\n"}}},
     {"tool_use": {"id": "toolu_w2", "name": "Write", "input": {"file_path": ws + "/mul_test.go",
         "content": "package calc\n\nimport \"testing\"\n\nfunc TestMul(t *testing.T) {\n\tif Mul(2, 3) != 6 {\n\t\tt.Error(\"Mul(2, 3) != 6\")\n\t}\n}\n"}}},
     {"tool_use": {"id": "toolu_w3", "name": "Write", "input": {"file_path": ws + "/doc/mul.md",
         "content": "# Mul\n\nMul(a, b) returns a times b.\n"}}},
     {"tool_use": {"id": "toolu_w4", "name": "Write", "input": {"file_path": ws + "/CHANGELOG.md",
         "content": "# Changelog\n\n- Add Mul.\n"}}}],
    [{"text": "Done: `Mul`, its test, its page and the changelog entry.\n\n- `mul.go`\n- `mul_test.go`\n- `doc/mul.md`\n- `CHANGELOG.md`\n"}],
    # A prompt with an image and a file mentioned.
    [{"text": "The chart has five bars, and the last one is far higher than the rest. "
               "`calc.go` has no averaging yet: if the chart's values were halved sums, "
               "as an `Average` that divides by 2 would give, a group of many values "
               "would look too high in just this way."}],
]
print(json.dumps(turns))
EOF

# The fake model serves until its stdin closes (fd 7 holds it open).
mkfifo "$tmp/fm.in"
"$tmp/bin/fakemodel" -script "$tmp/turns.json" < "$tmp/fm.in" > "$tmp/fm.out" 2> "$tmp/fm.err" &
fm_pid=$!
exec 7> "$tmp/fm.in"
for _ in $(seq 100); do grep -q '^URL=' "$tmp/fm.out" && break; sleep 0.1; done
url=$(sed -n 's/^URL=//p' "$tmp/fm.out")
[ -n "$url" ] || die "the fake model printed no URL: $(cat "$tmp/fm.err")"

# Neovim's init: the plugin from this checkout, true colors, and helpers
# the script calls to open a tool call's fold.
cat > "$tmp/init.lua" <<EOF
for _, p in ipairs({ 'python3', 'node', 'perl', 'ruby' }) do
  vim.g['loaded_' .. p .. '_provider'] = 0
end
vim.opt.runtimepath:prepend('$repo/editors/neovim')
vim.o.termguicolors = true
vim.o.background = os.getenv('SHOT_THEME') == 'light' and 'light' or 'dark'
vim.o.swapfile = false
vim.o.laststatus = 2
vim.o.number = true
vim.o.ruler = false
vim.opt.shortmess:append('I')
local key = os.getenv('SHOT_NO_KEY') == nil
require('agent_lsp').setup({
  cmd = { '$tmp/bin/agent-lsp', '--stdio' },
  cmd_env = {
    ANTHROPIC_API_KEY = key and 'test' or '',
    ANTHROPIC_BASE_URL = key and '$url' or '',
    AGENT_LSP_NO_USER_SETTINGS = '1',
    GOCACHE = '$tmp/gocache',
  },
  chat = { width = 0.6 },
})
-- Puts the cursor on the first tool call of a kind in the chat, opens its
-- details and scrolls them into view.
function _G.shot_open_tool(kind)
  local chat = require('agent_lsp').current_chat()
  for _, t in pairs(chat and chat.state.tools or {}) do
    local b = chat.blocks[t]
    if b and t.kind == kind then
      local win = vim.fn.win_findbuf(chat.buf)[1]
      vim.api.nvim_set_current_win(win)
      local row = chat:_block_row(b) + 1
      vim.api.nvim_win_set_cursor(win, { row + (b.fold_from or 0), 0 })
      vim.cmd('silent! normal! zO')
      vim.api.nvim_win_set_cursor(win, { row, 0 })
      vim.cmd('normal! zt')
      vim.api.nvim_echo({ { '' } }, false, {}) -- not the command typed
      return
    end
  end
  error('no ' .. kind .. ' tool call in the chat')
end
-- The same for the last tool call whose title holds text.
function _G.shot_open_title(text)
  local chat = require('agent_lsp').current_chat()
  local best
  for t, b in pairs(chat and chat.blocks or {}) do
    if type(t) == 'table' and type(t.title) == 'string' and t.title:find(text, 1, true) then
      local row = chat:_block_row(b)
      if not best or row > best.row then
        best = { row = row, b = b }
      end
    end
  end
  if not best then
    error('no tool call titled ' .. text .. ' in the chat')
  end
  local win = vim.fn.win_findbuf(chat.buf)[1]
  vim.api.nvim_set_current_win(win)
  local row = best.row + 1
  vim.api.nvim_win_set_cursor(win, { row + (best.b.fold_from or 0), 0 })
  vim.cmd('silent! normal! zO')
  vim.api.nvim_win_set_cursor(win, { row, 0 })
  vim.cmd('normal! zt')
  vim.api.nvim_echo({ { '' } }, false, {})
end
EOF

# nvim_start NAME HOME [ENV...]: Neovim in the project, its TUI in a new
# tmux session. The TUI is a --remote-ui client of a --headless server:
# the extracted Neovim's v:progpath is its loader, so the TUI could not
# start its own --embed server.
nvim_start() {
  local name=$1 home=$2 i
  shift 2
  local nsock="$tmp/nvim-$name.sock"
  (cd "$ws" && exec env -u ANTHROPIC_API_KEY -u OPENAI_API_KEY -u ANTHROPIC_BASE_URL -u OPENAI_BASE_URL \
    HOME="$home" AGENT_LSP_HOME="$home/.agent-lsp" \
    XDG_CONFIG_HOME="$home/.config" XDG_DATA_HOME="$home/.local/share" XDG_STATE_HOME="$home/.local/state" \
    XDG_CACHE_HOME="$home/.cache" TMPDIR="$tmp/nvimtmp" "$@" \
    SHOT_THEME="$SHOT_THEME" "$NVIM" --headless --listen "$nsock" -u "$tmp/init.lua" -i NONE calc.go \
    </dev/null >"$tmp/nvim-$name.log" 2>&1) &
  nvim_pids+=($!)
  for ((i = 0; i < 100; i++)); do [ -S "$nsock" ] && break; sleep 0.1; done
  [ -S "$nsock" ] || die "Neovim ($name) did not start: $(cat "$tmp/nvim-$name.log")"
  tmux -S "$sock" -f /dev/null new-session -d -s "$name" -x "$COLS" -y "$ROWS" \
    env TERM=tmux-256color COLORTERM=truecolor "$NVIM" --remote-ui --server "$nsock"
  tmux -S "$sock" set-option -t "$name" status off >/dev/null
  tmux -S "$sock" set-option -t "$name" window-size manual >/dev/null
  session=$name
}
screen() { tmux -S "$sock" capture-pane -p -t "$session"; }
keys() { tmux -S "$sock" send-keys -t "$session" "$@"; }
# ex CMD: runs an Ex command from normal mode.
ex() { keys Escape; keys ":$1" Enter; }

# wait_for TEXT [SECONDS]: until TEXT is on the screen; fails loudly.
wait_for() {
  local text=$1 secs=${2:-30} i
  for ((i = 0; i < secs * 5; i++)); do
    if screen | grep -qF -- "$text"; then return 0; fi
    sleep 0.2
  done
  echo "----- screen of session $session -----" >&2
  screen >&2
  echo "---------------------------------------" >&2
  die "state not reached: \"$text\" is not on the screen after ${secs}s"
}

# allow_if_asked DONE [SECONDS]: approves the command when the agent asks
# (a read-only one runs without asking), until DONE is on the screen.
allow_if_asked() {
  local done=$1 secs=${2:-30} i
  for ((i = 0; i < secs * 5; i++)); do
    if screen | grep -qF -- 'y Allow'; then keys y; wait_for "$done" "$secs"; return 0; fi
    if screen | grep -qF -- "$done"; then return 0; fi
    sleep 0.2
  done
  wait_for "$done" 1
}

# shot NAME: the screen as docs/screenshots/nvim-NAME.png (nvim-NAME-light.png
# in the light theme).
shot() {
  local name=$1$suffix w h
  sleep 0.4 # the last redraw
  tmux -S "$sock" capture-pane -e -p -t "$session" > "$tmp/$name.ans"
  "$tmp/bin/ansihtml" -title "nvim-$name" "${ansi_colors[@]}" < "$tmp/$name.ans" > "$tmp/$name.html"
  # DejaVu Sans Mono at 14 px: 8.43 px a cell, 18 px a line, 8 px padding.
  w=$(( (COLS * 843 + 99) / 100 + 16 ))
  h=$(( ROWS * 18 + 16 ))
  mkdir -p "$out"
  rm -f "$out/nvim-$name.png"
  HOME="$tmp/chrome" "$chromium" --headless --no-sandbox --disable-gpu --disable-background-networking \
    --disable-component-update --disable-sync --no-first-run --hide-scrollbars \
    --user-data-dir="$tmp/chrome" --window-size="$w,$h" \
    --screenshot="$out/nvim-$name.png" "file://$tmp/$name.html" >"$tmp/chrome.log" 2>&1 \
    || die "chromium failed on $name: $(tail -5 "$tmp/chrome.log")"
  [ -s "$out/nvim-$name.png" ] || die "no screenshot nvim-$name.png"
  log "nvim-$name.png"
}

# 1. A turn: streaming, an edit to approve and review, a command to
#    approve, its output, the markdown answer.
nvim_start main "$tmp/home"
wait_for 'Add returns the sum'
ex AgentChat
wait_for 'sends'
keys i 'Fix the bug in calc.go and check it with the tests' Escape Enter
wait_for 'find out why'
shot streaming
wait_for 'y Allow' 60
wait_for 'Edit'
shot edit-approval
keys d
wait_for '(proposed)'
shot diff-review
keys y
wait_for '  Allowed' 20
wait_for 'go test ./...' 30
wait_for 'y Allow' 30
shot bash-approval
keys y
wait_for 'TestAdd' 60
wait_for 'sends' 30 # the input header is back: the turn ended
shot end-of-turn
ex 'lua shot_open_tool("execute")'
wait_for '$ go test ./...'
wait_for 'ok  '
shot bash-output

# 2. The pickers.
ex 'normal! G'
ex AgentModel
wait_for 'Agent model'
shot model-picker
keys Enter
ex AgentMode
wait_for 'Agent mode'
shot mode-picker
keys Enter

# 3. The session reloaded in a new Neovim.
ex 'qa!'
sleep 0.5
nvim_start reload "$tmp/home"
wait_for 'Add returns the sum'
ex AgentSessions
wait_for 'Chat history'
shot history
keys 1 Enter
wait_for 'TestAdd' 30
ex 'lua shot_open_tool("edit")'
wait_for '@@ -3,5 +3,5 @@' 10
shot reloaded

# 4. Rewind the code and the conversation to before the prompt.
ex 'wincmd p'
ex AgentRewind
wait_for 'Rewind to before which prompt?'
shot rewind-picker
keys 1 Enter
wait_for 'Restore what?'
keys 1 Enter
wait_for 'Files it will change'
shot rewind-preview
keys 1 Enter
wait_for 'return a - b' 20
wait_for 'Fix the bug in calc.go and check' 10 # the prompt back in the input
shot rewound
ex 'qa!'

# 5. No model configured: the chat says so when it opens.
nvim_start nokey "$tmp/nokey-home" SHOT_NO_KEY=1
wait_for 'Add returns the sum'
ex AgentChat
wait_for 'No model is configured' 20
wait_for 'shows what is set' 10 # the chat's notice, under the message
shot no-key
ex 'qa!'

# 6. The model asks a question: Neovim's own vim.ui.select.
nvim_start ask "$tmp/home"
wait_for 'Add returns the sum'
ex AgentChat
wait_for 'sends'
keys i 'Add a Sub function' Escape Enter
wait_for 'Type number and <Enter>' 30
shot question
keys 1 Enter
wait_for 'as Go' 30

# 7. A rejected command: the model is told and goes on.
ex AgentNew
wait_for 'sends'
ex 'Agent Delete the old test file'
wait_for 'n Reject' 30
keys n
wait_for 'left calc_test.go alone' 30
wait_for 'sends' 30
shot rejected

# 8. A command that fails, its output opened.
ex AgentNew
wait_for 'sends'
ex 'Agent Check that the notes file is there'
allow_if_asked 'exit status 1.'
wait_for 'sends' 30
ex 'lua shot_open_title("cat NOTES.md")'
wait_for 'No such file' 10
shot failed-command

# 9. Long output, cut in the chat.
ex AgentNew
wait_for 'sends'
ex 'Agent List the numbers up to 300'
allow_if_asked 'keeps the first lines'
wait_for 'sends' 30
ex 'lua shot_open_title("seq 1 300")'
wait_for '$ seq 1 300' 10
ex 'exe "normal! j]zzb" | echo ""'
wait_for 'more lines' 10
shot long-output

# 10. A turn cancelled while the model streams.
ex AgentNew
wait_for 'sends'
ex 'Agent Explain the whole package in detail'
wait_for 'starting' 30
ex AgentCancel
wait_for 'Cancelled.' 20
wait_for 'sends' 20
shot cancelled

# 11. The model's API answers with an error.
ex AgentNew
wait_for 'sends'
ex 'Agent Add a Mul function'
wait_for '✗' 60
wait_for 'sends' 30
shot api-error

# 12. Plan mode: the plan to review and change, approved into acceptEdits;
#     then a turn that writes many files without asking.
ex AgentNew
wait_for 'sends'
ex 'AgentMode plan'
wait_for 'mode: plan' 10
ex 'Agent Plan a Mul function'
wait_for 'Document it' 30
shot plan-review
keys d
wait_for 'plan.md' 10
shot plan-edit
ex 'tabclose'
ex AgentPermission
wait_for 'auto-accept edits' 10
keys a
wait_for 'the changelog entry' 60
wait_for 'sends' 30
wait_for 'acceptEdits' 10
shot many-files

# 13. A narrow terminal: 80 columns, the chat alone in it.
COLS=80
tmux -S "$sock" resize-window -t "$session" -x "$COLS" -y "$ROWS"
sleep 0.5
ex 'lua vim.api.nvim_set_current_win(vim.fn.win_findbuf(require("agent_lsp").current_chat().buf)[1]); vim.cmd("only | echo")'
wait_for 'CHANGELOG.md' 10
shot narrow
ex 'qa!'

# 14. A prompt with an image and a file mentioned with @: the image shows
#     as a thumbnail under its line, the file as an attachment.
COLS=${SCREENSHOTS_COLS:-150}
nvim_start image "$tmp/home"
wait_for 'Add returns the sum'
ex AgentChat
wait_for 'sends'
keys i 'What does @chart.png show? Compare it with @calc.go' Escape Enter
wait_for 'in just this way' 30
wait_for 'sends' 30
wait_for '▀▀▀' 10 # the thumbnail
shot mention-image
ex 'qa!'

log "screenshots in $out"
