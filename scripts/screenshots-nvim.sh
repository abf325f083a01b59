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
#
#   scripts/screenshots-nvim.sh          writes docs/screenshots/nvim-*.png
#   SCREENSHOTS_DIR=/tmp/s scripts/screenshots-nvim.sh
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${SCREENSHOTS_DIR:-$repo/docs/screenshots}"
COLS=${SCREENSHOTS_COLS:-150}
ROWS=${SCREENSHOTS_ROWS:-42}

apt_install tmux chromium
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
    "$NVIM" --headless --listen "$nsock" -u "$tmp/init.lua" -i NONE calc.go \
    </dev/null >"$tmp/nvim-$name.log" 2>&1) &
  nvim_pids+=($!)
  for ((i = 0; i < 100; i++)); do [ -S "$nsock" ] && break; sleep 0.1; done
  [ -S "$nsock" ] || die "Neovim ($name) did not start: $(cat "$tmp/nvim-$name.log")"
  tmux -S "$sock" -f /dev/null new-session -d -s "$name" -x "$COLS" -y "$ROWS" \
    env TERM=tmux-256color COLORTERM=truecolor "$NVIM" --remote-ui --server "$nsock"
  tmux -S "$sock" set-option -t "$name" status off >/dev/null
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

# shot NAME: the screen as docs/screenshots/nvim-NAME.png.
shot() {
  local name=$1 w h
  sleep 0.4 # the last redraw
  tmux -S "$sock" capture-pane -e -p -t "$session" > "$tmp/$name.ans"
  "$tmp/bin/ansihtml" -title "nvim-$name" < "$tmp/$name.ans" > "$tmp/$name.html"
  # DejaVu Sans Mono at 14 px: 8.43 px a cell, 18 px a line, 8 px padding.
  w=$(( (COLS * 843 + 99) / 100 + 16 ))
  h=$(( ROWS * 18 + 16 ))
  mkdir -p "$out"
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
wait_for '## You'
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
wait_for 'Agent sessions'
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
wait_for '## You'
keys i 'Add a Sub function' Escape Enter
wait_for 'Type number and <Enter>' 30
shot question
keys 1 Enter
wait_for 'as Go' 30
ex 'qa!'

log "screenshots in $out"
