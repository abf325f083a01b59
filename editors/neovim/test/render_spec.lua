-- How the chat looks on screen (issue 33 item 7): code blocks coloured in
-- their language, diffs in red and green, no raw markdown, no blank lines
-- piling up at fences, no hanging indent, and the words of
-- docs/editor-words.md. The cases feed the contract's messages straight to
-- the plugin and read the screen (screenstring) or the extmarks.

local ANSWER = table.concat({
  'Fixed it.',
  '',
  '## What changed',
  '',
  '- `Add` returned `a - b`',
  '- it now returns **a + b**',
  '',
  '> a quoted note',
  '',
  '```go',
  'func Add(a, b int) int {',
  '\treturn a + b // the sum',
  '}',
  '```',
  '',
  'Before you push, run the whole suite once more, with the race detector on and the formatter checked too, since they catch what these tests do not.',
  '',
}, '\n')

--- A chat bound to a made-up session, shown in a window of `cols` columns.
local function bound_chat(h, cols)
  h.workspace({ ['calc.go'] = 'package calc\n' })
  h.setup()
  vim.o.columns = cols or 100
  vim.o.lines = 50
  vim.cmd('only')
  local chat = require('agent_lsp.chat').new(h.root)
  chat:_bind('s1')
  chat:show({ layout = 'tab' })
  return chat
end

local updates = require('harness').updates

local function answer(chat, text)
  return updates(chat, {
    { sessionUpdate = 'agent_message_chunk', content = { type = 'text', text = text } },
  })
end

--- The screen rows of the chat window, as text.
local function screen(win)
  vim.cmd('redraw!')
  local pos = vim.fn.win_screenpos(win)
  local rows = {}
  for r = pos[1], pos[1] + vim.api.nvim_win_get_height(win) - 1 do
    local cells = {}
    for c = pos[2], pos[2] + vim.api.nvim_win_get_width(win) - 1 do
      table.insert(cells, vim.fn.screenstring(r, c))
    end
    table.insert(rows, (table.concat(cells):gsub('%s+$', '')))
  end
  return rows
end

--- The highlight groups of the extmarks covering (row, col), 0-based.
local function groups_at(buf, row, col)
  local out = {}
  for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, -1, { row, 0 }, { row, -1 }, { details = true })) do
    local d = m[4]
    if d.hl_group and m[3] <= col and (d.end_col or math.huge) > col then
      table.insert(out, d.hl_group)
    end
  end
  return out
end

--- The row (0-based) of the first buffer line equal to text.
local function row_of(buf, text)
  for i, l in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    if l == text then
      return i - 1
    end
  end
end

--- Whether a group resolves (by links) to one of the names.
local function resolves(group, names)
  for _ = 1, 10 do
    if vim.tbl_contains(names, group) then
      return true
    end
    local hl = vim.api.nvim_get_hl(0, { name = group })
    if not hl.link then
      return false
    end
    group = hl.link
  end
  return false
end

return {
  {
    name = 'a thumbnail is drawn in half blocks: the upper pixel over the lower, transparent ones left blank',
    fn = function(h)
      local thumbnail = require('agent_lsp.chat.thumbnail')
      local lines = thumbnail.lines({
        { '#ff0000', '#ff0000', '', '#00ff00', '' },
        { '#ff0000', '#ff0000', '#0000ff', '', '' },
      }, 2)
      h.ok(lines and #lines == 1, 'two pixel rows make one line: ' .. vim.inspect(lines))
      ---@cast lines -nil
      local cells = lines[1]
      h.eq({ '  ' }, cells[1], 'the indent')
      h.eq('▀▀', cells[2][1], 'two red cells in one chunk')
      h.eq('▄', cells[3][1], 'blue below a transparent pixel')
      h.eq('▀', cells[4][1], 'green above a transparent pixel')
      h.eq({ ' ' }, cells[5], 'both transparent: blank')
      local function hl(name)
        local g = vim.api.nvim_get_hl(0, { name = name })
        return { g.fg, g.bg }
      end
      h.eq({ 0xff0000, 0xff0000 }, hl(cells[2][2]))
      h.eq({ 0x0000ff }, hl(cells[3][2]), 'no background under the lower half block')
      h.eq({ 0x00ff00 }, hl(cells[4][2]))
      -- A colorscheme clears every group: the thumbnail's come back.
      vim.cmd('highlight clear')
      vim.cmd('doautocmd ColorScheme')
      h.eq({ 0xff0000, 0xff0000 }, hl(cells[2][2]), 'defined again after a colorscheme')
      h.eq(nil, thumbnail.lines({ 'not a row' }), 'rows that are not lists draw nothing')
      h.eq(nil, thumbnail.lines({}), 'nor does an empty image')
      local max = thumbnail.max_groups
      thumbnail.max_groups = 0
      h.eq(nil, thumbnail.lines({ { '#123456' }, { '#654321' } }), 'past the most groups, no thumbnail')
      thumbnail.max_groups = max
      h.eq({ 32, 8 }, { thumbnail.size(120) }, 'at most 32 x 8 cells')
      h.eq({ 24, 8 }, { thumbnail.size(30) }, 'narrower in a narrow window')
    end,
  },
  {
    name = "a Go block is coloured by Go's syntax on a stock Neovim",
    fn = function(h)
      local chat = bound_chat(h)
      answer(chat, ANSWER)
      local row = row_of(chat.buf, 'func Add(a, b int) int {')
      h.ok(row, 'the code is in the buffer')
      local keyword = groups_at(chat.buf, row, 0)
      h.ok(#vim.tbl_filter(function(g)
        return g:match('^go') ~= nil
      end, keyword) > 0, 'func has a Go syntax group: ' .. vim.inspect(keyword))
      local comment = groups_at(chat.buf, row + 1, #'\treturn a + b // ')
      h.ok(#vim.tbl_filter(function(g)
        return resolves(g, { 'Comment' })
      end, comment) > 0, 'the comment is a Comment: ' .. vim.inspect(comment))
    end,
  },
  {
    name = 'a diff (live and reloaded) is red and green, with its file instead of ---/+++',
    fn = function(h)
      local chat = bound_chat(h)
      local lines = updates(chat, {
        {
          sessionUpdate = 'tool_call',
          toolCallId = 'toolu_edit',
          title = 'Edit calc.go',
          kind = 'edit',
          status = 'completed',
          content = {
            { type = 'diff', path = h.root .. '/calc.go', oldText = 'x\n\treturn a - b\n', newText = 'x\n\treturn a + b\n' },
          },
        },
      })
      h.not_contains(lines, '--- a/', 'no raw diff header')
      h.not_contains(lines, '+++ b/', 'no raw diff header')
      local plus = row_of(chat.buf, '+\treturn a + b')
      local minus = row_of(chat.buf, '-\treturn a - b')
      h.ok(plus and minus, 'the changed lines are in the chat')
      h.contains(table.concat(groups_at(chat.buf, plus, 1), ' '), 'AgentLspChatDiffAdd')
      h.contains(table.concat(groups_at(chat.buf, minus, 1), ' '), 'AgentLspChatDiffDelete')
      h.ok(resolves('AgentLspChatDiffAdd', { 'DiffAdd' }), 'added lines are DiffAdd')
      h.ok(resolves('AgentLspChatDiffDelete', { 'DiffDelete' }), 'removed lines are DiffDelete')
      -- Opened, the fold shows the file's name where the fence was.
      local win = vim.fn.win_findbuf(chat.buf)[1]
      vim.api.nvim_win_call(win, function()
        vim.cmd('normal! zR')
      end)
      h.contains(screen(win), '── calc.go ─', 'the file names the diff')
    end,
  },
  {
    name = 'no raw markdown on screen: role headers, bullets, quotes, backticks and fences are drawn',
    fn = function(h)
      local chat = bound_chat(h)
      chat:push({ kind = 'user', text = 'Fix `Add`', labels = {} })
      -- Streamed in small pieces, each rendered: a line is drawn once it
      -- is whole, not as the first piece of it looked.
      for i = 1, #ANSWER, 3 do
        answer(chat, ANSWER:sub(i, i + 2))
      end
      updates(chat, { { kind = 'stop', reason = 'end_turn' } })
      local win = vim.fn.win_findbuf(chat.buf)[1]
      vim.api.nvim_set_current_win(win)
      -- The cursor on the input: its own line shows as typed.
      vim.api.nvim_win_set_cursor(win, { vim.api.nvim_buf_line_count(chat.buf), 0 })
      local rows = screen(win)
      local text = table.concat(rows, '\n')
      h.not_contains(text, '## ', 'no role header hashes')
      h.not_contains(text, '```', 'no fences')
      h.not_contains(text, '`', 'no backticks')
      h.contains(rows, 'You')
      h.contains(rows, 'Agent')
      for _, r in ipairs(rows) do
        h.ok(not r:match('^%- '), 'no "- " bullet: ' .. r)
        h.ok(not r:match('^> '), 'no "> " quote: ' .. r)
      end
      h.contains(text, '• Add returned a - b')
      h.contains(text, '▎ a quoted note')
      -- The buffer (what a yank copies) keeps the markdown.
      local lines = vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false)
      h.contains(lines, '- `Add` returned `a - b`')
      h.contains(lines, '```go')
    end,
  },
  {
    name = 'no two blank rows around a code block, and wrapped prose has no hanging indent',
    fn = function(h)
      local chat = bound_chat(h, 80)
      answer(chat, ANSWER)
      updates(chat, { { kind = 'stop', reason = 'end_turn' } })
      local win = vim.fn.win_findbuf(chat.buf)[1]
      vim.api.nvim_set_current_win(win)
      vim.api.nvim_win_set_cursor(win, { vim.api.nvim_buf_line_count(chat.buf), 0 })
      local rows = screen(win)
      local at
      for i, r in ipairs(rows) do
        if r:find('func Add', 1, true) then
          at = i
        end
      end
      h.ok(at, 'the code block is on screen: ' .. table.concat(rows, '\n'))
      for i = math.max(2, at - 4), math.min(#rows, at + 5) do
        h.ok(not (rows[i] == '' and rows[i - 1] == ''), 'two blank rows at the fence:\n' .. table.concat(rows, '\n'))
      end
      h.contains(rows[at - 1], '── go ─', 'the opening fence is a rule naming the language')
      local first
      for i, r in ipairs(rows) do
        if r:find('^Before you push') then
          first = i
        end
      end
      h.ok(first and rows[first + 1] ~= '', 'the long line wraps')
      h.ok(rows[first + 1]:match('^%S'), 'the continuation starts at the margin: ' .. rows[first + 1])
    end,
  },
  {
    name = 'the words of docs/editor-words.md: tool states, the turn, usage, thinking, the history',
    fn = function(h)
      h.workspace({})
      h.setup()
      local render = require('agent_lsp.chat.render')
      local words = {}
      for _, st in ipairs({ 'pending', 'in_progress', 'completed', 'failed' }) do
        table.insert(words, (render.tool_summary({ title = 'Read calc.go', status = st }, '/w'):gsub('^.* · ', '')))
      end
      h.eq({ 'waiting', 'running', 'done', 'failed' }, words)
      h.eq('⚑ Edit calc.go · waiting for your approval', render.tool_summary({ title = 'Edit calc.go', status = 'pending', awaiting = true }, '/w'))
      h.eq('53k / 200k tokens · 73% left · $0.05', render.usage({ used = 53400, size = 200000, cost = { amount = 0.05, currency = 'USD' } }))
      h.eq('128 / 200k tokens · 100% left · <$0.01', render.usage({ used = 128, size = 200000, cost = { amount = 0.003, currency = 'USD' } }))
      h.eq('53k / 200k · $0.05', render.usage({ used = 53000, size = 200000, cost = { amount = 0.05, currency = 'USD' } }, true))
      local function header(s, width)
        return table.concat(vim.tbl_map(function(p)
          return p[1]
        end, (render.header(s, {}, width))))
      end
      local s = { busy = true, tools = {}, context_labels = {}, usage = { used = 53000, size = 200000 } }
      h.eq('  Working… · 53k / 200k tokens · 74% left', header(s, 100))
      h.eq('  Working… · 53k / 200k', header(s, 40), 'narrow: the short usage')
      s.tools = { a = { awaiting = true }, b = { awaiting = true } }
      h.eq('  Waiting for your approval (2) · 53k / 200k tokens · 74% left', header(s, 100))
      local fit = table.concat(vim.tbl_map(function(p)
        return p[1]
      end, (render.header(s, { permission = 'gp' }, 60))))
      h.eq('  Waiting for your approval (2) · 53k / 200k', fit, 'one screen line: the key hint goes first')
      h.eq('💭 Thinking', render.thought({ parts = { 'a\nb' } })[1])
      h.eq({ '> ⏹ Cancelled.' }, render.notice({ level = 'stop', text = 'cancelled' }))
      local sessions = require('agent_lsp.sessions')
      h.eq('Chat history', sessions.title)
      h.eq('No saved chats for calc yet', sessions.empty_text('/home/me/calc/'))
      local t = os.time({ year = 2026, month = 11, day = 28, hour = 14, min = 5, sec = 0 })
      local utc = os.date('!%Y-%m-%dT%H:%M:%SZ', t)
      h.eq('2026-11-28 14:05', sessions.when(utc, t + 3 * 86400), 'local time')
      h.eq('today 14:05', sessions.when(utc, t + 60), 'today')
      h.eq('2026-11-28 14:05', sessions.when(os.date('%Y-%m-%dT%H:%M:%S', t) .. (function()
        local off = os.time(os.date('*t', t)) - os.time(os.date('!*t', t))
        return ('%s%02d:%02d'):format(off < 0 and '-' or '+', math.floor(math.abs(off) / 3600), math.floor(math.abs(off) % 3600 / 60))
      end)(), t + 3 * 86400), 'an offset time')
    end,
  },
}
