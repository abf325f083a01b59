--- The chat's view: a markdown buffer per session, its windows, keymaps
--- and input. The chat's model and its updates are chat/state.lua (pure,
--- tested headless); what each part looks like is chat/render.lua; this
--- file puts their lines in the buffer.
---
--- Layout of the buffer:
---
---   ## You                  <- transcript: what was said, tool calls,
---   ...                        thinking, the plan, notices
---   ## Agent
---   ...
---   <blank>                 <- gap
---   ## You                  <- the input header (an extmark tracks it)
---   text typed here         <- the input: sent with <CR> / :Agent
---
--- Everything the agent sends goes through a queue that is rendered at most
--- once per `chat.render_interval_ms` (33 ms: ~30 renders a second), so a
--- long streamed answer costs a bounded number of buffer changes and
--- redraws whatever the chunk rate. Streamed text is appended at the end of
--- the transcript (cost proportional to the new text, not to the buffer).
--- Tool calls and thinking are blocks tracked by extmarks: a one-line
--- summary, and the details in a closed manual fold once the call ends.
local client = require('agent_lsp.client')
local config = require('agent_lsp.config')
local methods = require('agent_lsp.methods')
local decor = require('agent_lsp.chat.decor')
local render_ = require('agent_lsp.chat.render')
local state = require('agent_lsp.chat.state')
local thumbnail = require('agent_lsp.chat.thumbnail')
local util = require('agent_lsp.util')

local M = {}

local api = vim.api
local ns = api.nvim_create_namespace('agent_lsp_chat')
local augroup = api.nvim_create_augroup('agent_lsp_chat', { clear = true })
-- Marks the prose rows that hold inline code (at column 0), and the
-- padding that keeps their code spans whole on wrap (Chat:_keep_spans).
local spans_ns = api.nvim_create_namespace('agent_lsp_chat_spans')
local pad_ns = api.nvim_create_namespace('agent_lsp_chat_pad')
-- Conceals the markers of the agent's own headings.
local heading_ns = api.nvim_create_namespace('agent_lsp_chat_heading')
-- Holds the thumbnails of the prompts' images (chat/thumbnail.lua).
local thumb_ns = api.nvim_create_namespace('agent_lsp_chat_thumbnail')

--- Counters for tests and :checkhealth.
M.stats = { renders = 0 }

---@type table<integer, agent_lsp.Chat> chats by buffer
local chats = {}
---@type table<string, agent_lsp.Chat> chats by session id
local by_session = {}
---@type agent_lsp.Chat?
local current
local chat_count = 0

local notify, fire, err_message = util.notify, util.fire, util.message
local fence_of, closes, code_spans = render_.fence_of, render_.closes, render_.code_spans
-- The markdown rules, for the tests (they live in chat/render.lua).
M._code_spans = render_.code_spans
M.markdown_block = render_.markdown_block

---@class agent_lsp.Chat
---@field buf integer
---@field root string
---@field client_id integer?
---@field state agent_lsp.ChatState the model (chat/state.lua)
---@field queue table[]        updates waiting to be rendered
---@field last string          what the transcript's last line belongs to
---@field empty boolean        no transcript yet
---@field input_mark integer   extmark on the input header
---@field blocks table<table, table> the buffer block of a state item or tool call
---@field thought table?       the thinking block being streamed
---@field spans_autocmd integer keeps code spans whole on scroll and resize
---@field _starting table[]?    callbacks waiting for the session being started
---@field stop_ambient fun()?   stops following the editor's context
local Chat = {}

--- The state's fields a chat reads and writes as its own (chat.busy,
--- chat.modes, ...): the rest of the plugin and the tests use them.
local forwarded = {
  session_id = true,
  busy = true,
  modes = true,
  models = true,
  config_options = true,
  commands = true,
  usage = true,
  stop_reason = true,
  context = true,
  context_labels = true,
}

Chat.__index = function(self, k)
  if forwarded[k] then
    return rawget(self, 'state')[k]
  end
  return Chat[k]
end

Chat.__newindex = function(self, k, v)
  if forwarded[k] then
    rawget(self, 'state')[k] = v
  else
    rawset(self, k, v)
  end
end

--- Creates a chat buffer for a project root.
---@param root string
---@return agent_lsp.Chat
function Chat.new(root)
  chat_count = chat_count + 1
  local buf = api.nvim_create_buf(false, true)
  local self = setmetatable({
    buf = buf,
    root = root,
    state = state.new(),
    queue = {},
    last = 'none',
    empty = true,
    blocks = {},
    folds = {},
    timer = assert(vim.uv.new_timer()),
    armed = false,
    last_render = -math.huge,
    deco_from = 0,
  }, Chat)
  -- A plain name, so tab labels read "agent-lsp chat" (a URI-like name
  -- is shortened to "a//c/1"). A scratch buffer is never read or written.
  vim.bo[buf].buftype = 'nofile'
  pcall(api.nvim_buf_set_name, buf, chat_count == 1 and 'agent-lsp chat' or ('agent-lsp chat %d'):format(chat_count))
  vim.bo[buf].bufhidden = 'hide'
  vim.bo[buf].swapfile = false
  vim.bo[buf].filetype = 'markdown'
  -- Tree-sitter's markdown (with markdown_inline) conceals backticks and
  -- ** with conceallevel; without the parser, the markdown syntax does.
  if not pcall(vim.treesitter.start, buf, 'markdown') then
    vim.bo[buf].syntax = 'markdown'
  end
  vim.bo[buf].omnifunc = "v:lua.require'agent_lsp.chat'.omnifunc"
  api.nvim_buf_set_lines(buf, 0, -1, false, { '## You', '' })
  self.input_mark = api.nvim_buf_set_extmark(buf, ns, 0, 0, {})
  chats[buf] = self
  self:_keymaps()
  api.nvim_create_autocmd('BufWinEnter', {
    group = augroup,
    buffer = buf,
    callback = function()
      local win = api.nvim_get_current_win()
      if api.nvim_win_get_buf(win) == buf then
        self:_setup_window(win)
      end
    end,
  })
  -- Padding that keeps code spans whole depends on the width and on
  -- which rows are on screen.
  self.spans_autocmd = api.nvim_create_autocmd({ 'WinScrolled', 'WinResized' }, {
    group = augroup,
    callback = function()
      local win = self:_layout_window()
      if win then
        self:_keep_visible_spans(win)
      end
      -- The usage is shorter in a narrow window.
      self:_refresh_header()
    end,
  })
  api.nvim_create_autocmd('BufWipeout', {
    group = augroup,
    buffer = buf,
    callback = function()
      self:_dispose()
    end,
  })
  -- The editor's context shows above the input as it changes.
  self.stop_ambient = require('agent_lsp.ambient').on_change(function()
    self:_refresh_header()
  end)
  self:_refresh_header()
  return self
end

function Chat:_dispose()
  pcall(api.nvim_del_autocmd, self.spans_autocmd)
  if self.stop_ambient then
    self.stop_ambient()
  end
  chats[self.buf] = nil
  if self.session_id and by_session[self.session_id] == self then
    by_session[self.session_id] = nil
  end
  if current == self then
    current = nil
  end
  if not self.timer:is_closing() then
    self.timer:stop()
    self.timer:close()
  end
end

--- The row (0-based) of the input header.
function Chat:_header_row()
  local pos = api.nvim_buf_get_extmark_by_id(self.buf, ns, self.input_mark, {})
  if pos[1] == nil then
    -- The user deleted the header: put a new one at the end.
    local n = api.nvim_buf_line_count(self.buf)
    api.nvim_buf_set_lines(self.buf, n, n, false, { '', '## You', '' })
    self.input_mark = api.nvim_buf_set_extmark(self.buf, ns, n + 1, 0, {})
    return n + 1
  end
  return pos[1]
end

--- Runs buffer changes without undo history: the transcript is not the
--- user's text to undo, and a 100k-token answer must not pile up undo
--- entries.
function Chat:_edit(fn)
  local buf = self.buf
  local ul = vim.bo[buf].undolevels
  vim.bo[buf].undolevels = -1
  local ok, err = pcall(fn)
  vim.bo[buf].undolevels = ul
  if not ok then
    error(err, 0)
  end
end

--- Appends whole lines at the end of the transcript; returns their first row.
---@param lines string[]
---@return integer
function Chat:_append_lines(lines)
  local h = self:_header_row()
  if self.empty then
    local with_gap = vim.list_extend(vim.list_slice(lines), { '' })
    api.nvim_buf_set_lines(self.buf, h, h, false, with_gap)
    self.empty = false
    return h
  end
  api.nvim_buf_set_lines(self.buf, h - 1, h - 1, false, lines)
  return h - 1
end

--- The transcript's last line.
function Chat:_last_line()
  if self.empty then
    return nil
  end
  local row = self:_header_row() - 2
  return api.nvim_buf_get_lines(self.buf, row, row + 1, false)[1]
end

--- Appends text at the end of the transcript's last line.
---@param text string
function Chat:_append_text(text)
  if self.empty then
    self:_append_lines({ '' })
  end
  local row = self:_header_row() - 2
  local line = api.nvim_buf_get_lines(self.buf, row, row + 1, false)[1] or ''
  api.nvim_buf_set_text(self.buf, row, #line, row, #line, vim.split(text, '\n', { plain = true }))
end

--- Starts the agent's part of the exchange when the last block was the user's.
function Chat:_ensure_agent()
  if self.last == 'none' or self.last == 'user' then
    if self.empty then
      self:_append_lines({ '## Agent', '' })
    else
      self:_append_lines({ '', '## Agent', '' })
    end
    self.last = 'agent_header'
  end
end

---@param text string
function Chat:_agent_text(text)
  self:_ensure_agent()
  if self.last == 'block' then
    self:_append_lines({ '', '' })
  end
  if self.last ~= 'text' then
    self.md_fence = nil
  end
  self:_append_text(text)
  self.last = 'text'
  local _, k = text:gsub('\n', '')
  if k > 0 then
    local last = self:_header_row() - 2
    self:_markdown_rows(last - k, last - 1)
  end
end

--- Looks at finished lines of the agent's text (0-based rows r1..r2, in
--- order, each once): the agent's own headings go two levels under the
--- "## You" / "## Agent" role headers ("## Plan" becomes "#### Plan"), so
--- they do not read as a new speaker, and rows with inline code keep their
--- spans whole on wrap (Chat:_keep_spans). Lines in code blocks are left
--- alone.
function Chat:_markdown_rows(r1, r2)
  if r2 < r1 then
    return
  end
  local lines = api.nvim_buf_get_lines(self.buf, r1, r2 + 1, false)
  for i, line in ipairs(lines) do
    if self.md_fence then
      if closes(line, self.md_fence) then
        self.md_fence = nil
      end
    else
      self.md_fence = fence_of(line)
      local row = r1 + i - 1
      local demoted, marker, old = nil, nil, nil
      if not self.md_fence then
        demoted, marker, old = render_.heading(line)
      end
      if demoted then
        api.nvim_buf_set_text(self.buf, row, 0, row, old, { demoted })
        -- The heading reads as a heading (tree-sitter's highlight), not
        -- as "#### Plan"; the role headers keep their "## ".
        api.nvim_buf_set_extmark(self.buf, heading_ns, row, 0, { end_col = marker, conceal = '' })
      end
      if not self.md_fence and #code_spans(line) > 0 then
        api.nvim_buf_set_extmark(self.buf, spans_ns, row, 0, {})
        local win = self:_layout_window()
        if win then
          self:_keep_spans(win, row, row)
        end
      end
    end
  end
end

--- Keeps the inline code spans of the prose rows top..bot (0-based) whole
--- where win wraps them: a span that would start on one screen line and
--- end on the next gets padding before it (inline virtual text), so it
--- starts on the next line, as a word would. 'linebreak' alone breaks at
--- any 'breakat' character, inside `go test ./...` too, and 'breakat' is
--- global. Rows off screen are done when they scroll into view, and all
--- of them again when the window changes size (Chat.new's autocmds).
---@param win integer
---@param top integer
---@param bot integer
function Chat:_keep_spans(win, top, bot)
  if not api.nvim_win_is_valid(win) or api.nvim_win_get_buf(win) ~= self.buf or not vim.wo[win].wrap then
    return
  end
  local info = vim.fn.getwininfo(win)[1]
  local left = info.wincol + info.textoff -- screen column of the text's first cell
  local width = info.width - info.textoff
  local marks = api.nvim_buf_get_extmarks(self.buf, spans_ns, { top, 0 }, { bot, -1 }, {})
  for _, m in ipairs(marks) do
    local row = m[2]
    api.nvim_buf_clear_namespace(self.buf, pad_ns, row, row + 1)
    local line = api.nvim_buf_get_lines(self.buf, row, row + 1, false)[1] or ''
    for _, sp in ipairs(code_spans(line)) do
      local a = vim.fn.screenpos(win, row + 1, sp[1])
      local b = vim.fn.screenpos(win, row + 1, sp[2])
      if a.row == 0 or b.row == 0 then
        break -- off screen: done when it scrolls into view
      end
      -- Only a span that fits on a continuation line can be kept whole.
      local fits = vim.fn.strdisplaywidth(line:sub(sp[1], sp[2])) <= width
      local at = a.curscol - left -- cells before the span on its screen line
      if a.row ~= b.row and fits and at > 0 then
        api.nvim_buf_set_extmark(self.buf, pad_ns, row, sp[1] - 1, {
          virt_text = { { (' '):rep(width - at) } },
          virt_text_pos = 'inline',
        })
      end
    end
  end
end

--- The window the padding of code spans is worked out for: the current
--- window when it shows the chat, else the first that does (the padding
--- is the buffer's, one width for all its windows).
---@return integer?
function Chat:_layout_window()
  local cur = api.nvim_get_current_win()
  if api.nvim_win_get_buf(cur) == self.buf then
    return cur
  end
  return self:windows()[1]
end

--- Keeps the code spans whole in the rows win shows (Chat:_keep_spans).
function Chat:_keep_visible_spans(win)
  if api.nvim_win_is_valid(win) and api.nvim_win_get_buf(win) == self.buf then
    local top, bot = vim.fn.line('w0', win), vim.fn.line('w$', win)
    self:_keep_spans(win, top - 1, bot - 1)
  end
end

--- Ends a run of the agent's text: its last line is looked at, and a code
--- block the model left open is closed so the rest of the chat keeps its
--- highlighting.
function Chat:_end_text()
  if self.last ~= 'text' then
    return
  end
  local row = self:_header_row() - 2
  self:_markdown_rows(row, row)
  if self.md_fence then
    local f = self.md_fence
    self.md_fence = nil
    self:_append_lines({ (f.char):rep(f.len) })
  end
  self.last = 'text_end'
end

---@param text string
function Chat:_user_text(text)
  self:_end_text()
  if self.last ~= 'user' then
    if self.empty then
      self:_append_lines({ '## You', '' })
    else
      self:_append_lines({ '', '## You', '' })
    end
    self.last = 'user'
  end
  self:_append_text(text)
end

--- Appends a block of lines after the agent's header; returns its block.
---@param lines string[]
---@return table block {mark, nlines}
function Chat:_append_block(lines)
  self:_ensure_agent()
  self:_end_text()
  if self.last == 'text_end' then
    local last = self:_last_line()
    if last and last ~= '' then
      self:_append_lines({ '' })
    end
  end
  local row = self:_append_lines(lines)
  self.last = 'block'
  return { mark = api.nvim_buf_set_extmark(self.buf, ns, row, 0, {}), nlines = #lines }
end

---@param b table
---@return integer row
function Chat:_block_row(b)
  return api.nvim_buf_get_extmark_by_id(self.buf, ns, b.mark, {})[1]
end

--- Windows showing this chat.
function Chat:windows()
  return vim.fn.win_findbuf(self.buf)
end

--- Replaces a block's lines; `fold` makes all but its first line the
--- block's details in a closed fold (kept open if the user opened it).
---@param b table
---@param lines string[]
---@param fold boolean
function Chat:_replace_block(b, lines, fold, fold_from)
  local row = self:_block_row(b)
  local was_open = {}
  if b.folded then
    local first = row + 1 + (b.fold_from or 0)
    for _, win in ipairs(self:windows()) do
      api.nvim_win_call(win, function()
        was_open[win] = vim.fn.foldlevel(first) > 0 and vim.fn.foldclosed(first) == -1
      end)
    end
  end
  if #lines == 1 and b.nlines == 1 and not b.folded then
    local old = api.nvim_buf_get_lines(self.buf, row, row + 1, false)[1] or ''
    api.nvim_buf_set_text(self.buf, row, 0, row, #old, lines)
  else
    -- Deleting every line of a block deletes its fold with it. The marks
    -- of the blocks below (right gravity) move down with the inserted
    -- lines; this block's own mark is put back on its first line.
    api.nvim_buf_set_lines(self.buf, row, row + b.nlines, false, {})
    api.nvim_buf_set_lines(self.buf, row, row, false, lines)
    api.nvim_buf_set_extmark(self.buf, ns, row, 0, { id = b.mark })
  end
  b.nlines = #lines
  self:_dirty(row)
  b.fold_from = fold_from or 0
  b.folded = fold and #lines > 1 + b.fold_from
  if b.folded then
    for _, win in ipairs(self:windows()) do
      self:_fold(win, b, was_open[win])
    end
  end
end

--- Creates a block's fold in a window (folds are per window). The fold
--- starts `b.fold_from` lines into the block (the lines above stay shown).
function Chat:_fold(win, b, open)
  local row = self:_block_row(b) + (b.fold_from or 0)
  api.nvim_win_call(win, function()
    if vim.wo.foldmethod ~= 'manual' then
      return
    end
    if vim.fn.foldlevel(row + 1) > 0 then
      return -- already there (a split copies its window's folds)
    end
    vim.cmd(('silent! %d,%dfold'):format(row + 1, row + b.nlines - (b.fold_from or 0)))
    if open then
      vim.cmd(('silent! %dfoldopen'):format(row + 1))
    end
  end)
end

--- Window options of a chat window, and the folds of the blocks.
function Chat:_setup_window(win)
  local function set(name, value)
    api.nvim_set_option_value(name, value, { scope = 'local', win = win })
  end
  set('wrap', true)
  set('linebreak', true)
  set('number', false)
  set('relativenumber', false)
  set('signcolumn', 'no')
  set('foldcolumn', '0')
  set('foldenable', true)
  set('foldmethod', 'manual')
  set('foldtext', '') -- show the summary line itself when closed
  set('foldlevel', 0)
  set('fillchars', 'fold: ')
  set('conceallevel', 2)
  -- The transcript reads the same under the cursor in normal mode; the
  -- markdown shows where you type (insert mode) and select (visual).
  set('concealcursor', 'n')
  -- A wrapped line continues at its own indent: prose at the margin, a
  -- bullet's text under the bullet's line (no hanging indent).
  set('breakindent', true)
  set('breakindentopt', '')
  set('showbreak', '')
  set('spell', false)
  for _, b in ipairs(self.folds) do
    if b.folded and api.nvim_buf_is_valid(self.buf) then
      self:_fold(win, b, false)
    end
  end
  if win == self:_layout_window() then
    self:_keep_visible_spans(win)
  end
end

--- Draws a tool call's block (render.tool): the summary, the answer to
--- its permission request, and once it ended its details in a closed fold.
---@param t table the tool call (state.tools[id])
function Chat:_draw_tool(t)
  local b = self.blocks[t]
  if not b then
    b = self:_append_block({ render_.tool_summary(t, self.root) })
    self.blocks[t] = b
    table.insert(self.folds, b)
  end
  local r = render_.tool(t, self.root)
  self:_replace_block(b, r.lines, r.fold, r.fold_from)
  local row = self:_block_row(b)
  if r.answer then
    b.perm_hl = api.nvim_buf_set_extmark(self.buf, ns, row + 1, 2, {
      id = b.perm_hl,
      end_col = 2 + #r.answer,
      hl_group = r.answer_hl,
    })
  elseif b.perm_hl then
    api.nvim_buf_del_extmark(self.buf, ns, b.perm_hl)
    b.perm_hl = nil
  end
end

--- Streams thinking into its block (its first line only, until it ends).
function Chat:_thought_text()
  if not self.thought then
    self.thought = self:_append_block({ render_.thinking })
    table.insert(self.folds, self.thought)
  end
end

--- Ends the thinking block: its text goes into a closed fold.
---@param item table the thought item
function Chat:_finish_thought(item)
  local th = self.thought
  if not th then
    return
  end
  self.thought = nil
  self:_replace_block(th, render_.thought(item), true)
end

--- Draws the plan block of this turn.
---@param item table the plan item
function Chat:_plan(item)
  local lines = render_.plan(item.entries)
  local b = self.blocks[item]
  if b then
    self:_replace_block(b, lines, false)
  else
    self.blocks[item] = self:_append_block(lines)
  end
end

--- The text on the input header: state, mode, usage.
function Chat:_refresh_header()
  if not api.nvim_buf_is_valid(self.buf) then
    return
  end
  local _, ambient = require('agent_lsp.ambient').current()
  self.state.ambient_labels = ambient
  local win = self:_layout_window()
  local width = win and api.nvim_win_get_width(win) or nil
  local parts, virt_lines = render_.header(self.state, config.get().chat.keymaps, width)
  local row = self:_header_row()
  api.nvim_buf_clear_namespace(self.buf, decor.ns, row, row + 1)
  if decor.is_role(api.nvim_buf_get_lines(self.buf, row, row + 1, false)[1] or '') then
    decor.role(self.buf, row, '## You')
  end
  api.nvim_buf_set_extmark(self.buf, ns, row, 0, {
    id = self.input_mark,
    virt_text = parts,
    virt_text_pos = 'eol',
    virt_lines = virt_lines,
    virt_lines_above = true,
  })
end

--- Renders what the queue holds. Called by the timer; at most one render
--- per render interval. The state takes each update; the view draws what
--- changed, consecutive streamed text of one kind as one append.
function Chat:render()
  if not api.nvim_buf_is_valid(self.buf) or #self.queue == 0 then
    return
  end
  local q = self.queue
  self.queue = {}
  self.last_render = vim.uv.now()
  M.stats.renders = M.stats.renders + 1
  local ops = {}
  for _, u in ipairs(q) do
    state.apply(self.state, u, ops)
  end
  local after = {}
  self:_edit(function()
    for _, op in ipairs(ops) do
      if op.op == 'agent_text' then
        self:_agent_text(table.concat(op.parts))
      elseif op.op == 'user_text' then
        self:_user_text(table.concat(op.parts))
      elseif op.op == 'thought_text' then
        self:_thought_text()
      else
        local ok, err = pcall(self._draw[op.op], self, op, after)
        if not ok then
          vim.notify('agent-lsp: rendering ' .. op.op .. ': ' .. tostring(err), vim.log.levels.ERROR)
        end
      end
    end
  end)
  self:_decorate()
  self:_refresh_header()
  for _, fn in ipairs(after) do
    fn()
  end
end

--- Marks row as changed: the next decoration pass starts there or above.
--- Only a block's first row is passed in (outside any code block).
function Chat:_dirty(row)
  if row < self.deco_from then
    self.deco_from = row
  end
end

--- Draws the transcript's markdown (chat/decor.lua) from the first row
--- that changed since the last pass to its end: the rows above keep their
--- marks.
function Chat:_decorate()
  -- To the transcript's last line (the one still streaming: the pass
  -- starts there again next time).
  local last = self:_header_row() - 2
  local from = math.min(self.deco_from, last)
  if self.empty or from < 0 then
    return
  end
  self.deco_from = decor.decorate(self.buf, from, last)
end

--- How the view draws each change of the state (state.apply's ops).
Chat._draw = {}

Chat._draw.thought_end = function(self, op)
  self:_finish_thought(op.item)
end
Chat._draw.tool = function(self, op)
  self:_draw_tool(op.tool)
end
Chat._draw.plan = function(self, op)
  self:_plan(op.item)
end
Chat._draw.header = function() end
Chat._draw.notice = function(self, op)
  self:_append_block(render_.notice(op.item))
end
Chat._draw.end_text = function(self)
  self:_end_text()
end

--- A prompt sent by this editor: the user's block.
Chat._draw.prompt = function(self, op)
  -- A new prompt always opens its own "## You" block, even right after a
  -- replayed user message.
  self.last = 'new_prompt'
  self:_user_text(state.text(op.item))
  local lines = render_.labels(op.item.labels)
  if lines then
    local first = self:_append_lines(lines)
    -- The images' labels ("🖼 shot.png (12 KB)") are in the order of
    -- their blocks: each gets its thumbnail under it.
    local images = op.item.images or {}
    local k = 0
    for i, l in ipairs(op.item.labels) do
      if vim.startswith(l, '🖼 ') then
        k = k + 1
        self:_thumbnail(first + i, images[k])
      end
    end
  end
  self.last = 'user'
end

--- An image of a user message a loaded session replays: its thumbnail
--- under the line that names it (state.chunk_text's "🖼 image (...)").
Chat._draw.image = function(self, op)
  local last = self:_header_row() - 2
  for row = last, math.max(0, last - 3), -1 do
    local line = api.nvim_buf_get_lines(self.buf, row, row + 1, false)[1] or ''
    if vim.startswith(line, '🖼 ') then
      return self:_thumbnail(row, op.block)
    end
  end
end

--- Asks the sidecar for an image's thumbnail (agent/thumbnail) and draws
--- it under `row` as virtual lines; the line naming the image stays, and
--- is all there is without true colour or with chat.thumbnails off.
---@param row integer
---@param block table? the image content block
function Chat:_thumbnail(row, block)
  if not thumbnail.enabled(config.get().chat.thumbnails) or type(block) ~= 'table' or type(block.data) ~= 'string' then
    return
  end
  local win = self:windows()[1]
  local cols, rows = thumbnail.size(win and api.nvim_win_get_width(win) or 80)
  local mark = api.nvim_buf_set_extmark(self.buf, thumb_ns, row, 0, {})
  local params = { data = block.data, mimeType = block.mimeType, cols = cols, rows = rows }
  -- The chat's first prompt is drawn before its session has started.
  self:with_session(function(c)
    client.request(c, methods.method.agent_thumbnail, params, function(err, result)
      if not api.nvim_buf_is_valid(self.buf) then
        return
      end
      local pos = api.nvim_buf_get_extmark_by_id(self.buf, thumb_ns, mark, {})
      local lines = not err and type(result) == 'table' and thumbnail.lines(result.pixels, 3)
      if not pos[1] or not lines then
        if err then
          notify('no thumbnail: ' .. err_message(err), vim.log.levels.DEBUG)
        end
        return
      end
      api.nvim_buf_set_extmark(self.buf, thumb_ns, pos[1], 0, { id = mark, virt_lines = lines })
    end)
  end, function() end)
end

--- The end of a turn.
Chat._draw.stop = function(self, op, after)
  if op.error then
    local msg = err_message(op.error):gsub('\n', ' ')
    table.insert(after, function()
      -- Styled as an error and kept in :messages.
      util.error(msg, M.fix_hint(op.error))
    end)
  end
  local session_id = self.session_id
  table.insert(after, function()
    if session_id then
      require('agent_lsp.permission').drop_session(session_id)
    end
    fire('AgentLspTurnEnd', {
      buf = self.buf,
      session_id = session_id,
      stop_reason = op.reason,
      error = op.error and err_message(op.error) or nil,
    })
  end)
end

--- Queues an update and arms the render timer: the first update after a
--- quiet spell renders at once, later ones wait for the interval.
---@param u table
function Chat:push(u)
  table.insert(self.queue, u)
  if self.armed then
    return
  end
  self.armed = true
  local interval = config.get().chat.render_interval_ms
  local delay = math.max(0, self.last_render + interval - vim.uv.now())
  self.timer:start(delay, 0, function()
    vim.schedule(function()
      self.armed = false
      self:render()
    end)
  end)
end

--- Renders now (end of a turn, before a command reads the buffer).
function Chat:flush()
  self:render()
end

--- Registers the chat as the one for a session.
function Chat:_bind(session_id, result)
  if self.session_id and by_session[self.session_id] == self then
    by_session[self.session_id] = nil
  end
  state.bind(self.state, session_id, result)
  by_session[session_id] = self
  if type(result) == 'table' then
    local problem = util.meta(result)[methods.meta.provider_problem]
    if type(problem) == 'string' and problem ~= '' then
      self:push({ kind = 'provider_problem', message = problem })
    else
      self.state.problem_shown = nil -- a model is configured (again)
    end
  end
  self:_refresh_header()
end

--- Calls cb(client) with a live client and a session for this chat:
--- creates the session, or resumes it when the sidecar was restarted.
---@param cb fun(c: vim.lsp.Client)
---@param on_error fun(err: any)?
function Chat:with_session(cb, on_error)
  on_error = on_error or function(err)
    notify(err_message(err), vim.log.levels.ERROR)
  end
  local live = self.client_id and client.get_by_id(self.client_id)
  if live and self.session_id then
    return cb(live)
  end
  -- A session is being started or resumed: wait for it rather than start
  -- a second one (two quick commands would each get their own session).
  if self._starting then
    table.insert(self._starting, { cb = cb, on_error = on_error })
    return
  end
  local waiting = { { cb = cb, on_error = on_error } }
  self._starting = waiting
  local function finish(c, err)
    self._starting = nil
    for _, w in ipairs(waiting) do
      if err then
        w.on_error(err)
      else
        w.cb(c)
      end
    end
  end
  client.with_client(self.root, function(c)
    self.client_id = c.id
    if self.session_id then
      client.request(c, methods.method.session_resume, {
        sessionId = self.session_id,
        cwd = self.root,
        mcpServers = {},
      }, function(err, result)
        if err then
          return finish(nil, err)
        end
        self:_bind(self.session_id, result)
        finish(c)
      end)
      return
    end
    client.request(c, methods.method.session_new, { cwd = self.root, mcpServers = {} }, function(err, result)
      if err or type(result) ~= 'table' or type(result.sessionId) ~= 'string' then
        return finish(nil, err or 'the agent started no session (its answer has no sessionId)')
      end
      self:_bind(result.sessionId, result)
      finish(c)
    end)
  end, function(err)
    finish(nil, err)
  end)
end

--- Redraws the transcript from the agent's history (after a conversation
--- rewind): clears it, keeping the session, its modes, models and the
--- attachments, and replays the session with session/load, which hands
--- over the open session as it now is. `draft` (the rewound prompt) goes
--- into an empty input.
---@param draft string?
function Chat:reload(draft)
  local session_id = self.session_id
  if not session_id then
    return
  end
  self:flush()
  local old = self.state
  local fresh = state.new()
  for _, k in ipairs({ 'session_id', 'modes', 'models', 'config_options', 'commands', 'context', 'context_labels', 'problem_shown' }) do
    fresh[k] = old[k]
  end
  self.state = fresh
  self.queue, self.blocks, self.folds, self.thought = {}, {}, {}, nil
  self.last, self.empty = 'none', true
  self.deco_from = 0
  local h = self:_header_row()
  self:_edit(function()
    api.nvim_buf_set_lines(self.buf, 0, h, false, {})
    api.nvim_buf_clear_namespace(self.buf, thumb_ns, 0, -1)
    if draft and draft ~= '' then
      local input = api.nvim_buf_get_lines(self.buf, 1, -1, false)
      if vim.trim(table.concat(input, '\n')) == '' then
        api.nvim_buf_set_lines(self.buf, 1, -1, false, vim.split(draft, '\n', { plain = true }))
      end
    end
  end)
  self:with_session(function(c)
    self.busy = true
    self:_refresh_header()
    client.request(c, methods.method.session_load, {
      sessionId = session_id,
      cwd = self.root,
      mcpServers = {},
    }, function(err, result)
      self.busy = false
      if err then
        self:push({ kind = 'error', message = 'reloading the session: ' .. err_message(err) })
        self:flush()
        return
      end
      self:_bind(session_id, result)
      self:flush()
      self:_refresh_header()
    end)
  end)
end

--- Files named with @path in a prompt, as resource_link blocks.
---@param text string
---@return table[] blocks, string[] labels
--- Image files a mention sends as images, by extension, with their type.
local image_types = { png = 'image/png', jpg = 'image/jpeg', jpeg = 'image/jpeg', gif = 'image/gif', webp = 'image/webp' }

--- The largest image the model takes.
local max_image_bytes = 5 * 1024 * 1024

function Chat:_mentions(text)
  local blocks, labels, seen = {}, {}, {}
  for mention in text:gmatch('%f[%S]@([%w%._%-/~+:#L]+)') do
    mention = mention:gsub('[%.,;:]+$', '')
    -- A line range: @calc.py:10-20, @calc.py:7 or @calc.py#L10-L20.
    local path, a, b = mention:match('^(.-):(%d+)%-(%d+)$')
    if not path then
      path, a = mention:match('^(.-):(%d+)$')
      b = a
    end
    if not path then
      path, a, b = mention:match('^(.-)#L(%d+)%-L?(%d+)$')
    end
    path = path or mention
    local abs = vim.fs.normalize(path)
    if not abs:match('^/') then
      abs = vim.fs.normalize(self.root .. '/' .. path)
    end
    local stat = vim.uv.fs_stat(abs)
    local key = abs .. (a and ('#' .. a .. '-' .. b) or '')
    local image_type = image_types[(abs:match('%.(%w+)$') or ''):lower()]
    if stat and not seen[key] then
      seen[key] = true
      local rel = vim.fn.fnamemodify(abs, ':~:.')
      a, b = tonumber(a), tonumber(b)
      if stat.type == 'file' and a and b and a >= 1 and b >= a then
        local buf = vim.fn.bufnr(abs)
        local lines = buf ~= -1 and api.nvim_buf_is_loaded(buf) and api.nvim_buf_get_lines(buf, a - 1, b, false)
          or vim.list_slice(vim.fn.readfile(abs, '', b), a, b)
        table.insert(blocks, {
          type = methods.content.resource,
          resource = { uri = ('%s#L%d-L%d'):format(vim.uri_from_fname(abs), a, b), text = table.concat(lines, '\n') },
        })
        table.insert(labels, ('%s:%d-%d'):format(rel, a, b))
      elseif stat.type == 'file' and image_type then
        -- An image: sent as one, as the editors' pasted images are.
        if stat.size > max_image_bytes then
          notify(('%s is %d KB; the model takes images of at most 5 MB'):format(rel, math.floor(stat.size / 1024)), vim.log.levels.WARN)
        else
          local f = assert(io.open(abs, 'rb'))
          local bytes = f:read('*a')
          f:close()
          table.insert(blocks, {
            type = methods.content.image,
            mimeType = image_type,
            data = vim.base64.encode(bytes),
          })
          table.insert(labels, ('🖼 %s (%d KB)'):format(rel, math.max(1, math.floor(#bytes / 1024 + 0.5))))
        end
      elseif stat.type == 'file' or stat.type == 'directory' then
        local dir = stat.type == 'directory' and '/' or ''
        table.insert(blocks, {
          type = methods.content.resource_link,
          uri = vim.uri_from_fname(abs),
          name = vim.fn.fnamemodify(abs, ':t') .. dir,
        })
        table.insert(labels, rel .. dir)
      end
    end
  end
  return blocks, labels
end

--- Sends a prompt. `extra` are content blocks (a selection) with labels.
---@param text string
---@param extra {blocks: table[], labels: string[]}?
---@return boolean sent
function Chat:send(text, extra)
  text = vim.trim(text or '')
  if text == '' and #self.context == 0 and not extra then
    notify('nothing to send', vim.log.levels.WARN)
    return false
  end
  if self.busy then
    return self:_steer(text)
  end
  local prompt = {}
  if text ~= '' then
    table.insert(prompt, { type = methods.content.text, text = text })
  end
  local labels = {}
  local links, link_labels = self:_mentions(text)
  vim.list_extend(prompt, self.context)
  vim.list_extend(labels, self.context_labels)
  if extra then
    vim.list_extend(prompt, extra.blocks)
    vim.list_extend(labels, extra.labels)
  end
  vim.list_extend(prompt, links)
  vim.list_extend(labels, link_labels)
  if text:sub(1, 1) ~= '/' then
    -- The editor's context last, unless the prompt holds the same already.
    local uris = {}
    for _, b in ipairs(prompt) do
      uris[b.uri or (b.resource and b.resource.uri) or ''] = true
    end
    local ambient = require('agent_lsp.ambient')
    local blocks, names = ambient.current()
    for i, b in ipairs(blocks) do
      if not uris[b.uri or b.resource.uri] then
        table.insert(prompt, b)
        table.insert(labels, names[i])
      end
    end
    ambient.sent()
  end
  state.take_context(self.state)
  local images = {}
  for _, b in ipairs(prompt) do
    if b.type == methods.content.image then
      table.insert(images, b)
    end
  end
  self:push({ kind = 'user', text = text ~= '' and text or '(attached context)', labels = labels, images = images })
  local function fail(err)
    self:push({ kind = 'stop', error = err })
    self:flush()
  end
  self:with_session(function(c)
    client.request(c, methods.method.session_prompt, { sessionId = self.session_id, prompt = prompt }, function(err, result)
      self:push({ kind = 'stop', reason = result and result.stopReason, error = err })
      self:flush()
    end)
  end, fail)
  return true
end

--- Sends text to the running turn (steering): the agent gives it to the
--- model at its next step and echoes it as user_message_chunk then; the
--- request is answered when that turn ends, whose own answer ends the turn
--- here. Commands and attachments wait for the turn to end.
---@param text string
---@return boolean sent
function Chat:_steer(text)
  if text == '' then
    notify('type a message to add to the running turn', vim.log.levels.WARN)
    return false
  end
  if text:sub(1, 1) == '/' then
    notify('commands wait for the running turn to end; :AgentCancel stops it', vim.log.levels.WARN)
    return false
  end
  local c = self.client_id and client.get_by_id(self.client_id)
  if not c or not self.session_id then
    notify('the session is still starting; send again in a moment', vim.log.levels.WARN)
    return false
  end
  local prompt = { { type = methods.content.text, text = text } }
  client.request(c, methods.method.session_prompt, { sessionId = self.session_id, prompt = prompt }, function(err)
    if err then
      notify('sending to the running turn: ' .. err_message(err), vim.log.levels.ERROR)
    end
  end)
  return true
end

--- Sends the text typed under the input header.
function Chat:submit_input()
  local h = self:_header_row()
  local lines = api.nvim_buf_get_lines(self.buf, h + 1, -1, false)
  local text = vim.trim(table.concat(lines, '\n'))
  if text == '' and #self.context == 0 then
    notify('type a prompt under "## You" first', vim.log.levels.WARN)
    return
  end
  if self.busy then
    -- Steering: the input is cleared only once the text went out.
    if self:_steer(text) then
      self:_edit(function()
        api.nvim_buf_set_lines(self.buf, h + 1, -1, false, { '' })
      end)
    end
    return
  end
  self:_edit(function()
    api.nvim_buf_set_lines(self.buf, h + 1, -1, false, { '' })
  end)
  self:send(text)
end

--- Cancels the running turn.
function Chat:cancel()
  if not self.busy or not self.session_id then
    notify('nothing to cancel')
    return false
  end
  local c = self.client_id and vim.lsp.get_client_by_id(self.client_id)
  if c then
    client.notify(c, methods.method.session_cancel, { sessionId = self.session_id })
  end
  require('agent_lsp.permission').drop_session(self.session_id)
  return true
end

--- Attaches a content block to the next prompt.
---@param block table
---@param label string
function Chat:attach(block, label)
  table.insert(self.context, block)
  table.insert(self.context_labels, label)
  self:_refresh_header()
end

--- Switches the session's mode.
---@param mode_id string
function Chat:set_mode(mode_id)
  self:with_session(function(c)
    client.request(c, methods.method.session_set_mode, { sessionId = self.session_id, modeId = mode_id }, function(err)
      if err then
        return notify('switching the mode: ' .. err_message(err), vim.log.levels.ERROR)
      end
      self.modes = self.modes or { availableModes = methods.default_modes }
      self.modes.currentModeId = mode_id
      self:_refresh_header()
      local name = mode_id
      for _, m in ipairs(self.modes.availableModes or {}) do
        if m.id == mode_id and m.name then
          name = m.name
        end
      end
      notify('mode: ' .. name)
    end)
  end)
end

--- Switches the session's model.
---@param model_id string
function Chat:set_model(model_id)
  self:with_session(function(c)
    client.request(c, methods.method.session_set_model, { sessionId = self.session_id, modelId = model_id }, function(err)
      if err then
        return notify('switching the model: ' .. err_message(err), vim.log.levels.ERROR)
      end
      for _, o in ipairs(self.config_options or {}) do
        if o.id == 'model' then
          o.currentValue = model_id
        end
      end
      local name = model_id
      if self.models then
        self.models.currentModelId = model_id
        for _, m in ipairs(self.models.availableModels or {}) do
          if m.modelId == model_id and m.name then
            name = m.name
          end
        end
      end
      notify('model: ' .. name)
    end)
  end)
end

--- Sets one of the session's config options (docs/protocol.md: `model`,
--- `effort`) and keeps the options the agent answers with.
---@param id string
---@param value string
---@param label string what the notice calls it
function Chat:set_config_option(id, value, label)
  self:with_session(function(c)
    local params = { sessionId = self.session_id, configId = id, value = value }
    client.request(c, methods.method.session_set_config_option, params, function(err, result)
      if err then
        return notify('setting the ' .. label .. ': ' .. err_message(err), vim.log.levels.ERROR)
      end
      if type(result) == 'table' and type(result.configOptions) == 'table' then
        self.config_options = result.configOptions
      end
      notify(label .. ': ' .. value)
    end)
  end)
end

function Chat:_keymaps()
  local keys = config.get().chat.keymaps
  local buf = self.buf
  local function map(modes, lhs, fn, desc)
    if lhs then
      vim.keymap.set(modes, lhs, fn, { buffer = buf, desc = 'agent-lsp: ' .. desc })
    end
  end
  map('n', keys.send, function()
    self:submit_input()
  end, 'send the prompt')
  map('i', keys.send_insert, function()
    self:submit_input()
  end, 'send the prompt')
  map({ 'n', 'i' }, keys.cancel, function()
    self:cancel()
  end, 'cancel the running turn')
  map('n', keys.close, function()
    if #api.nvim_list_wins() > 1 then
      api.nvim_win_close(0, false)
    end
  end, 'close the chat window')
  map('n', keys.permission, function()
    if not require('agent_lsp.permission').show({ focus = true }) then
      notify('no permission request is waiting')
    end
  end, 'show the pending permission request')
  map('n', keys.mode, function()
    require('agent_lsp').select_mode()
  end, 'pick a mode')
  map('n', keys.drop_context, function()
    require('agent_lsp.ambient').drop()
  end, "leave the editor's context out of the next prompts")
end

--- Shows the chat in a window; returns the window.
---@param opts {layout: string?, focus: boolean?}?
function Chat:show(opts)
  opts = opts or {}
  local wins = self:windows()
  if opts.win and api.nvim_win_is_valid(opts.win) and #wins == 0 then
    -- Take over another chat's window (:AgentNew): no new split.
    api.nvim_win_set_buf(opts.win, self.buf)
    self:_setup_window(opts.win)
    if opts.focus ~= false then
      api.nvim_set_current_win(opts.win)
    end
    return opts.win
  end
  if #wins > 0 then
    if opts.focus ~= false then
      api.nvim_set_current_win(wins[1])
    end
    return wins[1]
  end
  local cfg = config.get().chat
  local layout = opts.layout or cfg.layout
  local prev = api.nvim_get_current_win()
  local function size(frac, total)
    return frac > 1 and math.floor(frac) or math.max(10, math.floor(total * frac))
  end
  local win
  if layout == 'float' then
    local w, h = size(cfg.width > 1 and cfg.width or 0.8, vim.o.columns), size(cfg.height > 1 and cfg.height or 0.8, vim.o.lines)
    win = api.nvim_open_win(self.buf, true, {
      relative = 'editor',
      width = w,
      height = h,
      row = math.floor((vim.o.lines - h) / 2) - 1,
      col = math.floor((vim.o.columns - w) / 2),
      border = 'rounded',
      title = ' agent-lsp ',
      title_pos = 'center',
    })
  elseif layout == 'tab' then
    vim.cmd('tab split')
    win = api.nvim_get_current_win()
    api.nvim_win_set_buf(win, self.buf)
  elseif layout == 'split' then
    vim.cmd(('botright %dsplit'):format(size(cfg.height, vim.o.lines)))
    win = api.nvim_get_current_win()
    api.nvim_win_set_buf(win, self.buf)
  else
    vim.cmd(('botright %dvsplit'):format(size(cfg.width, vim.o.columns)))
    win = api.nvim_get_current_win()
    api.nvim_win_set_buf(win, self.buf)
  end
  self:_setup_window(win)
  api.nvim_win_set_cursor(win, { api.nvim_buf_line_count(self.buf), 0 })
  if opts.focus == false and api.nvim_win_is_valid(prev) then
    api.nvim_set_current_win(prev)
  end
  return win
end

-- Module API ---------------------------------------------------------------

--- What to add to an error message to say how to fix it.
---@param err any
---@return string
function M.fix_hint(err)
  local msg = err_message(err)
  if msg:find('No model is configured', 1, true) or (type(err) == 'table' and err.code == methods.error_code.auth_required) then
    return ' See :checkhealth agent_lsp.'
  end
  return ''
end

--- A window of the current tab showing a chat, if any.
---@return integer?
function M.window_in_tab()
  for _, win in ipairs(api.nvim_tabpage_list_wins(0)) do
    if chats[api.nvim_win_get_buf(win)] and api.nvim_win_get_config(win).relative == '' then
      return win
    end
  end
end

--- The chat :Agent talks to, created for the current project if none.
---@param create boolean?
---@return agent_lsp.Chat?
function M.current(create)
  local buf_chat = chats[api.nvim_get_current_buf()]
  if buf_chat then
    current = buf_chat
    return buf_chat
  end
  if current and api.nvim_buf_is_valid(current.buf) then
    return current
  end
  if create then
    current = Chat.new(client.root())
  end
  return current
end

--- Starts a new chat (a new session on its first prompt).
---@param root string?
---@return agent_lsp.Chat
function M.new(root)
  current = Chat.new(root or client.root())
  return current
end

--- The chat of a session, if open here.
---@param session_id string
---@return agent_lsp.Chat?
function M.by_session(session_id)
  return by_session[session_id]
end

--- Every chat, by buffer.
function M.all()
  return chats
end

-- Handlers ------------------------------------------------------------------

---@param client_id integer
---@param params table session/update params
function M.on_update(client_id, params)
  if type(params) ~= 'table' or type(params.update) ~= 'table' then
    return
  end
  local chat = by_session[params.sessionId]
  if chat then
    chat:push(params.update)
  end
end

local status_level = {
  retry = vim.log.levels.WARN,
  warning = vim.log.levels.WARN,
  info = vim.log.levels.INFO,
}

---@param client_id integer
---@param params table agent/status params
function M.on_status(client_id, params)
  if type(params) ~= 'table' then
    return
  end
  if config.get().notify_status then
    notify(tostring(params.message), status_level[params.kind] or vim.log.levels.INFO)
  end
  local chat = params.sessionId and by_session[params.sessionId]
  if chat then
    chat:push({ kind = 'status', message = params.message, status_kind = params.kind })
  end
end

--- A permission request arrived: mark its tool call in the chat.
function M.on_permission(client_id, req)
  local chat = req.session_id and by_session[req.session_id]
  if chat then
    chat:push({ kind = 'awaiting', tool = req.params.toolCall })
  end
end

--- The model asks questions (elicitation/create): what it said before them
--- is on the screen before a picker (the built-in one blocks) takes it.
---@param session_id string?
function M.on_question(session_id)
  local chat = session_id and by_session[session_id]
  if chat then
    chat:flush()
  end
  vim.cmd('redraw')
end

--- A permission request was answered here (the state's "answered" event).
---@param req agent_lsp.PermissionRequest
---@param o table? the option chosen (nil when cancelled)
function M.on_answered(req, o)
  local chat = req.session_id and by_session[req.session_id]
  local tool = type(req.params) == 'table' and req.params.toolCall
  if not chat or type(tool) ~= 'table' or not tool.toolCallId then
    return
  end
  local outcome = methods.permission_answer.cancelled
  if o then
    outcome = vim.startswith(o.kind or '', 'allow') and methods.permission_answer.allowed
      or methods.permission_answer.rejected
  end
  chat:push({
    kind = 'answered',
    tool_call_id = tool.toolCallId,
    permission = {
      outcome = outcome,
      optionId = o and o.optionId,
      kind = o and o.kind,
      name = o and require('agent_lsp.permission').option_name(o),
    },
  })
end

--- The sidecar reported that no model is configured (initialize result):
--- every chat of that client shows it.
---@param client_id integer
---@param problem string
function M.on_provider_problem(client_id, problem)
  for _, chat in pairs(chats) do
    if chat.client_id == client_id or (chat.client_id == nil and client.client_root(client_id) == chat.root) then
      chat:push({ kind = 'provider_problem', message = problem })
    end
  end
end

--- The sidecar exited: running turns end with an error.
function M.on_exit(client_id, code, signal)
  for _, chat in pairs(chats) do
    if chat.client_id == client_id then
      chat.client_id = nil
      if chat.busy then
        chat:push({ kind = 'stop', error = ('agent-lsp exited (code %d, signal %d)'):format(code or -1, signal or 0) })
        chat:flush()
      end
    end
  end
end

--- Completion of @file mentions in the chat (omnifunc).
function M.omnifunc(findstart, base)
  if findstart == 1 then
    local line = api.nvim_get_current_line():sub(1, api.nvim_win_get_cursor(0)[2])
    local at = line:find('@[^%s@]*$')
    return at and at or -3 -- column after '@' (0-based = at)
  end
  local chat = chats[api.nvim_get_current_buf()]
  local root = chat and chat.root or vim.uv.cwd()
  local items = {}
  local prefix = base:gsub('^@', '')
  local function match(name, path)
    local rel = (path .. '/' .. name):sub(#root + 2)
    return vim.startswith(rel, prefix) or vim.startswith(name, prefix)
  end
  -- Folders (with a trailing /) and files; a line range is typed after
  -- a file's name (@calc.py:10-20).
  for _, d in ipairs(vim.fs.find(match, { path = root, type = 'directory', limit = 20 })) do
    local rel = d:sub(#root + 2)
    if not rel:match('^%.git/') and rel ~= '.git' then
      table.insert(items, { word = rel .. '/', menu = 'folder' })
    end
  end
  for _, f in ipairs(vim.fs.find(match, { path = root, type = 'file', limit = 50 })) do
    table.insert(items, { word = f:sub(#root + 2), menu = 'file (:10-20 for lines)' })
  end
  return items
end

M.Chat = Chat

return M
