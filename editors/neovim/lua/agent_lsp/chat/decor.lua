--- How the chat's markdown looks on screen, drawn with extmarks over the
--- buffer's text, which stays the real markdown (what the user yanks):
---
---   - "## You" / "## Agent" read as styled headers (the hashes concealed);
---   - "- " bullets read "• ", "> " quotes read as a bar;
---   - a code fence reads as a thin rule with the block's language (or a
---     diff's file) instead of a blank line, so no blank lines pile up
---     where fences were;
---   - a code block is coloured in its language: by tree-sitter when its
---     parser is installed (the markdown parser injects it), else by the
---     language's Vim syntax file (Neovim bundles few parsers; a Go block
---     is coloured on a stock Neovim too);
---   - a diff's added and removed lines are green and red, its headers
---     dimmed.
---
--- Needs 'conceallevel' 2 in the chat window (chat.lua sets it).
local M = {}

local api = vim.api

M.ns = api.nvim_create_namespace('agent_lsp_chat_decor')

--- The highlight groups, each a default link a colorscheme can override.
M.groups = {
  AgentLspChatRole = 'Title',
  AgentLspChatRule = 'NonText',
  AgentLspChatLabel = 'Comment',
  AgentLspChatBullet = 'Special',
  AgentLspChatQuote = 'NonText',
  AgentLspChatCode = 'Normal',
  AgentLspChatDiffAdd = 'DiffAdd',
  AgentLspChatDiffDelete = 'DiffDelete',
  AgentLspChatDiffHeader = 'Comment',
  AgentLspChatPrompt = 'Special',
  AgentLspChatInlineCode = '@markup.raw',
}

function M.define_groups()
api.nvim_create_autocmd('ColorScheme', {
  group = api.nvim_create_augroup('agent_lsp_chat_decor', { clear = true }),
  callback = M.define_groups,
})
  for name, link in pairs(M.groups) do
    api.nvim_set_hl(0, name, { link = link, default = true })
  end
end
M.define_groups()
api.nvim_create_autocmd('ColorScheme', {
  group = api.nvim_create_augroup('agent_lsp_chat_decor', { clear = true }),
  callback = M.define_groups,
})

--- Fence language names to the filetype whose syntax colours them.
local aliases = {
  golang = 'go',
  py = 'python',
  js = 'javascript',
  ts = 'typescript',
  jsx = 'javascriptreact',
  tsx = 'typescriptreact',
  rb = 'ruby',
  rs = 'rust',
  sh = 'sh',
  bash = 'sh',
  shell = 'sh',
  zsh = 'zsh',
  yml = 'yaml',
  ['c++'] = 'cpp',
  patch = 'diff',
}

--- The fence a line opens or closes (CommonMark: up to 3 spaces, then 3+
--- backticks or tildes), as {char, len, info}.
local function fence_of(line)
  local run, info = line:match('^ ? ? ?(```+)(.*)$')
  if not run then
    run, info = line:match('^ ? ? ?(~~~+)(.*)$')
  end
  if run then
    return { char = run:sub(1, 1), len = #run, info = vim.trim(info or '') }
  end
end

local function closes(line, f)
  local run = line:match('^ ? ? ?(' .. vim.pesc(f.char) .. '+)%s*$')
  return run ~= nil and #run >= f.len
end

--- The filetype of a fence's info string ("go", "diff calc.go") and the
--- rest of it (a diff's file name).
---@return string? ft, string label
function M.lang(info)
  local word, rest = info:match('^(%S+)%s*(.*)$')
  if not word then
    return nil, ''
  end
  word = word:lower()
  local ft = aliases[word] or vim.filetype.match({ filename = 'x.' .. word }) or word
  return ft, rest ~= '' and rest or word
end

--- Whether tree-sitter colours the language already (its parser is
--- installed, and the markdown parser injects it).
local function has_parser(ft)
  local lang = vim.treesitter.language.get_lang(ft) or ft
  local ok, added = pcall(vim.treesitter.language.add, lang)
  return ok and added ~= false
end

--- Whether Vim has a syntax file for ft.
local function has_syntax(ft)
  return ft:match('^[%w_]+$') ~= nil and #api.nvim_get_runtime_file('syntax/' .. ft .. '.vim', false) > 0
end

local scratch
local cache = {}
local cache_n = 0

--- The syntax groups of lines in filetype ft, by Vim's syntax file: a list
--- per line of {start_col, end_col, group} (0-based, end exclusive). Worked
--- out in a hidden scratch buffer; cached by text.
---@param ft string
---@param lines string[]
---@return table[][]
function M.syntax_spans(ft, lines)
  local key = ft .. '\0' .. table.concat(lines, '\n')
  if cache[key] then
    return cache[key]
  end
  if not (scratch and api.nvim_buf_is_valid(scratch)) then
    scratch = api.nvim_create_buf(false, true)
    vim.bo[scratch].bufhidden = 'hide'
    vim.bo[scratch].undolevels = -1
  end
  local out = {}
  api.nvim_buf_set_lines(scratch, 0, -1, false, lines)
  api.nvim_buf_call(scratch, function()
    if vim.bo.syntax ~= ft then
      vim.bo.syntax = ft
    end
    vim.cmd('syntax sync fromstart')
    for i, line in ipairs(lines) do
      local spans = {}
      local cur, from = nil, 0
      for col = 1, #line do
        local id = vim.fn.synID(i, col, 1)
        local name = id > 0 and vim.fn.synIDattr(id, 'name') or nil
        if name == '' then
          name = nil
        end
        if name ~= cur then
          if cur then
            table.insert(spans, { from, col - 1, cur })
          end
          cur, from = name, col - 1
        end
      end
      if cur then
        table.insert(spans, { from, #line, cur })
      end
      out[i] = spans
    end
  end)
  if cache_n > 200 then
    cache, cache_n = {}, 0
  end
  cache[key] = out
  cache_n = cache_n + 1
  return out
end

local function mark(buf, row, col, opts)
  pcall(api.nvim_buf_set_extmark, buf, M.ns, row, col, opts)
end

local rule = ('─'):rep(24)

--- Decorates a fenced block: rows `open` (the opening fence) to `close`
--- (the closing fence, or nil while it streams), `lines` the block's text.
local function block(buf, open, close, f, body, close_line)
  local ft, label = M.lang(f.info)
  -- The fences read as thin rules; the opening one names the language.
  mark(buf, open, 0, { end_col = #body.fence, conceal = '' })
  mark(buf, open, 0, {
    virt_text = { { '── ', 'AgentLspChatRule' }, { label ~= '' and label or 'code', 'AgentLspChatLabel' }, { ' ' .. rule, 'AgentLspChatRule' } },
    virt_text_pos = 'inline',
  })
  if close then
    mark(buf, close, 0, { end_col = #close_line, conceal = '' })
    mark(buf, close, 0, { virt_text = { { '───' .. rule, 'AgentLspChatRule' } }, virt_text_pos = 'inline' })
  end
  local lines = body.lines
  if #lines == 0 then
    return
  end
  local first = open + 1
  if ft == 'diff' then
    for i, l in ipairs(lines) do
      local row = first + i - 1
      local c = l:sub(1, 1)
      local hl
      if l:match('^%-%-%- ') or l:match('^%+%+%+ ') or l:match('^@@') or l:match('^diff ') or l:match('^index ') then
        hl = 'AgentLspChatDiffHeader'
      elseif c == '+' then
        hl = 'AgentLspChatDiffAdd'
      elseif c == '-' then
        hl = 'AgentLspChatDiffDelete'
      end
      mark(buf, row, 0, { end_col = #l, hl_group = hl or 'AgentLspChatCode', hl_eol = hl ~= nil and hl ~= 'AgentLspChatDiffHeader', priority = 120 })
    end
    return
  end
  if ft == 'console' then
    for i, l in ipairs(lines) do
      if l:match('^%$ ') then
        mark(buf, first + i - 1, 0, { end_col = #l, hl_group = 'AgentLspChatPrompt', priority = 120 })
      end
    end
    return
  end
  -- Vim's syntax runs once the block is closed: a streaming block would
  -- be worked out again at every render.
  if not close or not ft or has_parser(ft) or not has_syntax(ft) then
    return
  end
  local spans = M.syntax_spans(ft, lines)
  for i, l in ipairs(lines) do
    local row = first + i - 1
    -- The block's plain text in the normal colour, its syntax over it.
    mark(buf, row, 0, { end_col = #l, hl_group = 'AgentLspChatCode', priority = 110 })
    for _, s in ipairs(spans[i] or {}) do
      mark(buf, row, s[1], { end_col = s[2], hl_group = s[3], priority = 120 })
    end
  end
end

--- Whether a line is one of the chat's role headers.
function M.is_role(line)
  return line == '## You' or line == '## Agent'
end

--- Draws a role header: the word styled over "## You" (an overlay, so
--- it reads the same on the cursor's line, where conceal shows the text).
function M.role(buf, row, line)
  local word = line:sub(4)
  mark(buf, row, 0, { virt_text = { { word, 'AgentLspChatRole' }, { '   ' } }, virt_text_pos = 'overlay' })
end

--- Decorates rows r1..r2 (0-based, inclusive), r1 being a row outside
--- any code block. Returns the last row (at or before r2 - 1) after which
--- no code block is open: the next pass can start there.
---@param buf integer
---@param r1 integer
---@param r2 integer
---@return integer
function M.decorate(buf, r1, r2)
  api.nvim_buf_clear_namespace(buf, M.ns, r1, r2 + 1)
  local lines = api.nvim_buf_get_lines(buf, r1, r2 + 1, false)
  local clean = r1
  local open, body, f
  for i, line in ipairs(lines) do
    local row = r1 + i - 1
    if f then
      if closes(line, f) then
        block(buf, open, row, f, body, line)
        f = nil
        if row < r2 then
          clean = row + 1
        end
      else
        table.insert(body.lines, line)
      end
    else
      local nf = fence_of(line)
      if nf then
        f, open, body = nf, row, { fence = line, lines = {} }
      elseif M.is_role(line) then
        M.role(buf, row, line)
      else
        local indent, bullet = line:match('^(%s*)([-*+]) %S')
        if bullet then
          mark(buf, row, #indent, { end_col = #indent + 1, conceal = '•', hl_group = 'AgentLspChatBullet' })
        end
        -- Inline code without its backticks (tree-sitter's markdown does
        -- not conceal them everywhere, and is not always there).
        for _, sp in ipairs(require('agent_lsp.chat.render').code_spans(line)) do
          local n = #line:match('^`+', sp[1])
          mark(buf, row, sp[1] - 1, { end_col = sp[1] - 1 + n, conceal = '' })
          mark(buf, row, sp[2] - n, { end_col = sp[2], conceal = '' })
          mark(buf, row, sp[1] - 1 + n, { end_col = sp[2] - n, hl_group = 'AgentLspChatInlineCode', priority = 90 })
        end
        local quotes = line:match('^(>[> ]*)')
        if quotes then
          for c = 1, #quotes do
            if quotes:sub(c, c) == '>' then
              mark(buf, row, c - 1, { end_col = c, conceal = '▎', hl_group = 'AgentLspChatQuote' })
            end
          end
        end
      end
      if not f and row < r2 then
        clean = row + 1
      end
    end
  end
  if f then
    -- A block still streaming: drawn open.
    block(buf, open, nil, f, body)
  end
  return clean
end

return M
