--- The chat's rendering: the state's parts (state.lua) as lines, and the
--- markdown rules the chat keeps (fences never left open, inline code
--- that its own backticks cannot end, the agent's headings under the role
--- headers).
---
--- No buffers or windows: every function returns lines or text; chat.lua
--- puts them in the buffer.
local config = require('agent_lsp.config')
local methods = require('agent_lsp.methods')
local state = require('agent_lsp.chat.state')
local util = require('agent_lsp.util')

local M = {}

local split = util.lines

--- A tool call's state in the words of docs/editor-words.md (the same as
--- VS Code's).
local status_word = {
  pending = 'waiting',
  in_progress = 'running',
  completed = 'done',
  failed = 'failed',
}
M.status_word = status_word

local status_icon = {
  pending = '○',
  in_progress = '◐',
  completed = '✓',
  failed = '✗',
}

--- The longest run of backticks in lines.
---@param lines string[]
local function longest_ticks(lines)
  local n = 0
  for _, l in ipairs(lines) do
    for run in l:gmatch('`+') do
      n = math.max(n, #run)
    end
  end
  return n
end

--- A code fence longer than any backtick run in lines, so the block is
--- never closed early by its own text.
---@param lines string[]
---@return string
local function fence_for(lines)
  return ('`'):rep(math.max(3, longest_ticks(lines) + 1))
end
M.fence_for = fence_for

--- A value as inline code, with a delimiter its own backticks cannot end.
---@param v string
local function inline_code(v)
  local ticks = ('`'):rep(longest_ticks({ v }) + 1)
  local pad = (v:sub(1, 1) == '`' or v:sub(-1) == '`') and ' ' or ''
  return ticks .. pad .. v .. pad .. ticks
end
M.inline_code = inline_code

--- The fence a line opens or closes (CommonMark: up to 3 spaces, then 3+
--- backticks or tildes), as {char, len}.
---@param line string
---@return {char: string, len: integer}?
local function fence_of(line)
  local run = line:match('^ ? ? ?(```+)') or line:match('^ ? ? ?(~~~+)')
  if run then
    return { char = run:sub(1, 1), len = #run }
  end
end
M.fence_of = fence_of

--- Whether line closes the open fence f.
local function closes(line, f)
  local run = line:match('^ ? ? ?(' .. vim.pesc(f.char) .. '+)%s*$')
  return run ~= nil and #run >= f.len
end
M.closes = closes

--- The inline code spans of a prose line, as byte ranges (1-based,
--- inclusive, backticks included). A backtick run with no closing run of
--- the same length is literal text, as in CommonMark.
---@param line string
---@return integer[][]
local function code_spans(line)
  local spans, i = {}, 1
  while true do
    local s, e = line:find('`+', i)
    if not s then
      return spans
    end
    local len, j, close = e - s + 1, e + 1, nil
    while true do
      local a, b = line:find('`+', j)
      if not a then
        break
      end
      if b - a + 1 == len then
        close = b
        break
      end
      j = b + 1
    end
    if close then
      table.insert(spans, { s, close })
      i = close + 1
    else
      i = e + 1
    end
  end
end
M.code_spans = code_spans


--- A line of the agent's prose as the chat shows it: a heading goes two
--- levels under the "## You" / "## Agent" role headers ("## Plan" becomes
--- "#### Plan"), so it does not read as a new speaker. Returns the line's
--- new marker (the hashes) and the width of the marker to conceal (hashes
--- and one space), or nil when the line is no heading.
---@param line string
---@return string? hashes, integer? conceal
function M.heading(line)
  local hashes = line:match('^(#+)%s') or line:match('^(#+)$')
  if not hashes or #hashes > 6 then
    return nil
  end
  local demoted = ('#'):rep(math.min(6, #hashes + 2))
  return demoted, #demoted + (line:sub(#hashes + 1, #hashes + 1) == ' ' and 1 or 0), #hashes
end

--- The one-line summary of a tool call.
---@param t table the tool call (state.tools[id])
---@param root string the project root, left out of paths
function M.tool_summary(t, root)
  local status = t.status or methods.tool_status.pending
  local title = t.title or t.kind or 'tool'
  title = title:gsub('\n.*', ''):gsub(vim.pesc(root .. '/'), '')
  -- A subagent's call is marked as nested under its Agent call.
  local meta = type(t._meta) == 'table' and t._meta['agent-lsp']
  if type(meta) == 'table' and meta[methods.subagent_meta.parent_tool_call] then
    title = ('↳ [%s] %s'):format(meta[methods.subagent_meta.agent] or 'agent', title)
  end
  if t.awaiting and status == methods.tool_status.pending then
    return ('⚑ %s · waiting for your approval'):format(title)
  end
  return ('%s %s · %s'):format(status_icon[status] or '•', title, status_word[status] or (status:gsub('_', ' ')))
end

--- A tool's text content as chat lines. Text that starts with a code
--- fence is markdown from the agent (a Bash call's "```console" block) and
--- is shown as it is; other text is put in a code block of its own. Either
--- way no fence is left open, and at most `max` lines are kept.
---@param text string
---@param max integer
---@return string[]
function M.markdown_block(text, max)
  local lines = split(text)
  local out = {}
  local open
  if not (lines[1] and fence_of(lines[1])) then
    local f = fence_for(lines)
    table.insert(out, f)
    open = { char = '`', len = #f }
    -- The wrapping fence is added, not counted as a line of text.
    max = max + 1
  end
  for i, l in ipairs(lines) do
    if #out >= max + 1 and i < #lines then
      table.insert(out, ('… %d more lines'):format(#lines - i + 1))
      break
    end
    table.insert(out, l)
    if open then
      if closes(l, open) then
        open = nil
      end
    else
      open = fence_of(l)
    end
  end
  if open then
    table.insert(out, (open.char):rep(open.len))
  end
  return out
end

--- The folded details of a tool call.
---@param t table
---@param root string
---@return string[]
function M.tool_details(t, root)
  local max = config.get().chat.tool_output_lines
  local out = {}
  local input = t.rawInput
  local has_diff, has_block = false, false
  for _, c in ipairs(t.content or {}) do
    has_diff = has_diff or c.type == methods.content.diff
    if c.type == methods.content.content and type(c.content) == 'table' and type(c.content.text) == 'string' then
      has_block = has_block or fence_of(c.content.text) ~= nil
    end
  end
  if type(input) == 'table' and type(input.command) == 'string' then
    -- The agent's console block starts with the command itself.
    if not has_block then
      table.insert(out, inline_code('$ ' .. input.command:gsub('\n', ' ')))
    end
  elseif type(input) == 'table' and not vim.islist(input) then
    local keys = vim.tbl_keys(input)
    table.sort(keys)
    for _, k in ipairs(keys) do
      local v = input[k]
      -- An edit's file and strings are in its diff.
      local in_diff = k == 'file_path' or k == 'old_string' or k == 'new_string' or k == 'content' or k == 'edits'
      if not (has_diff and in_diff) then
        if type(v) == 'string' then
          v = v:gsub(vim.pesc(root .. '/'), '')
        else
          local ok, json = pcall(vim.json.encode, v)
          v = ok and json:gsub('\\/', '/') or vim.inspect(v)
        end
        v = v:gsub('\n', '⏎')
        if #v > 160 then
          v = vim.fn.strcharpart(v, 0, 160) .. '…'
        end
        -- As inline code: a glob's ** or a path's _ is not markdown.
        table.insert(out, ('%s: %s'):format(k, inline_code(v)))
      end
    end
  end
  for _, c in ipairs(t.content or {}) do
    if c.type == methods.content.diff then
      -- The file names the block (the fence's info string, shown as its
      -- label); the ---/+++ lines would only say it again.
      local diff = require('agent_lsp.permission').hunks(c)
      local f = fence_for(diff)
      local rel = tostring(c.path or ''):gsub('^' .. vim.pesc(root .. '/'), '')
      table.insert(out, f .. 'diff' .. (rel ~= '' and (' ' .. rel:gsub('%s', '_')) or ''))
      for i, l in ipairs(diff) do
        if i > max * 3 then
          table.insert(out, ('… %d more lines'):format(#diff - i + 1))
          break
        end
        table.insert(out, l)
      end
      table.insert(out, f)
    elseif c.type == methods.content.content and type(c.content) == 'table' and type(c.content.text) == 'string' then
      vim.list_extend(out, M.markdown_block(c.content.text, max))
    elseif c.type == methods.content.terminal then
      table.insert(out, '(terminal ' .. tostring(c.terminalId) .. ')')
    end
  end
  return out
end

local answer_word = {
  [methods.permission_answer.allowed] = 'Allowed',
  [methods.permission_answer.rejected] = 'Rejected',
  [methods.permission_answer.cancelled] = 'Cancelled',
}

--- The line recording the answer to a tool call's permission request,
--- under the tool's own row: "Allowed", or with the standing rule chosen
--- in the option's words ("Allowed: Always allow edits to calc.go"), or nil.
---@param p table? {outcome, optionId, name}
---@return string?, string? hl
function M.answer_line(p)
  if type(p) ~= 'table' or type(p.outcome) ~= 'string' then
    return nil
  end
  local word = answer_word[p.outcome] or p.outcome
  local hl = p.outcome == methods.permission_answer.allowed and 'DiagnosticOk' or 'DiagnosticWarn'
  -- The option's kind when answered here; the agent's update names the
  -- option by id (allow_always, reject_always).
  local which = p.kind or p.optionId
  local always = type(which) == 'string' and which:find('always', 1, true) ~= nil
  if always and type(p.name) == 'string' and p.name ~= '' and p.outcome ~= methods.permission_answer.cancelled then
    return ('%s: %s'):format(word, p.name), hl
  end
  return word, hl
end

--- A tool call's block: the summary, the answer to its permission
--- request, and once it ended its details (to fold).
---@param t table
---@param root string
---@return {lines: string[], fold: boolean, fold_from: integer, answer: string?, answer_hl: string?}
function M.tool(t, root)
  local lines = { M.tool_summary(t, root) }
  local perm, hl = M.answer_line(t.permission)
  if perm then
    table.insert(lines, '  ' .. perm)
  end
  local fold = state.final(t.status)
  if fold then
    vim.list_extend(lines, M.tool_details(t, root))
  end
  return { lines = lines, fold = fold, fold_from = perm and 1 or 0, answer = perm, answer_hl = hl }
end

--- The first line of a thinking block while it streams.
M.thinking = '💭 Thinking…'

--- A finished thinking block: "Thinking" (its collapsed line, as in VS
--- Code), then the text (to fold).
---@param item table a thought item
---@return string[]
function M.thought(item)
  local lines = split(state.text(item))
  table.insert(lines, 1, '💭 Thinking')
  return lines
end

local plan_mark = {
  completed = '- [x] ',
  in_progress = '- [ ] ',
  pending = '- [ ] ',
}

--- The plan as a checklist.
---@param entries table[]
---@return string[]
function M.plan(entries)
  local lines = { '**Plan**' }
  for _, e in ipairs(entries or {}) do
    local line = (plan_mark[e.status] or '- [ ] ') .. tostring(e.content or ''):gsub('\n', ' ')
    if e.status == methods.plan_status.in_progress then
      line = line .. ' ← in progress'
    end
    table.insert(lines, line)
  end
  return lines
end

--- A notice as quoted lines: an agent/status, an error (bold, with how to
--- fix a missing model), a turn that stopped early.
---@param item table a notice item
---@return string[]
function M.notice(item)
  if item.level == 'error' then
    local lines = { '> ✗ **' .. item.text .. '**' }
    if item.text:find(methods.no_provider_message, 1, true) or item.text:find('No model is configured', 1, true) then
      table.insert(lines, '> `:checkhealth agent_lsp` shows what is set and what is missing.')
    end
    return lines
  end
  if item.level == 'stop' then
    if item.text == methods.stop_reason.cancelled then
      return { '> ⏹ Cancelled.' }
    end
    return { ('> ⏹ stopped: %s'):format(item.text:gsub('_', ' ')) }
  end
  return { ('> %s %s'):format(item.level == 'info' and 'ℹ' or '⚠', item.text) }
end

--- The lines of a prompt's attachments under it.
---@param labels string[]
---@return string[]?
function M.labels(labels)
  if #labels == 0 then
    return nil
  end
  local lines = { '' }
  for _, l in ipairs(labels) do
    table.insert(lines, '📎 ' .. l)
  end
  return lines
end

--- Tokens as the usage shows them: 950, 53k.
local function tokens(n)
  return n < 1000 and tostring(math.floor(n)) or ('%dk'):format(math.floor(n / 1000 + 0.5))
end

--- The usage in the words of docs/editor-words.md (VS Code's usageText):
--- "53k / 200k tokens · 73% left · $0.05", a cost under a cent as
--- "<$0.01"; `narrow`: "53k / 200k · $0.05". Nil without a window size.
---@param u table? a usage_update {used, size, cost?}
---@param narrow boolean?
---@return string?
function M.usage(u, narrow)
  if type(u) ~= 'table' or type(u.used) ~= 'number' or type(u.size) ~= 'number' or u.size <= 0 then
    return nil
  end
  local text = ('%s / %s'):format(tokens(u.used), tokens(u.size))
  if not narrow then
    local left = math.max(0, math.floor(100 * (1 - u.used / u.size) + 0.5))
    text = text .. (' tokens · %d%% left'):format(left)
  end
  local cost = type(u.cost) == 'table' and tonumber(u.cost.amount)
  if cost and cost > 0 then
    local sym = (u.cost.currency == nil or u.cost.currency == 'USD') and '$' or (tostring(u.cost.currency) .. ' ')
    text = text .. (cost < 0.01 and (' · <%s0.01'):format(sym) or (' · %s%.2f'):format(sym, cost))
  end
  return text
end

--- Below this many columns the header is narrow (the short usage).
M.narrow_width = 90

--- The input header's text: state, mode, usage (virtual text chunks),
--- and the attachments of the next prompt (virtual lines), or nil.
---@param s agent_lsp.ChatState
---@param keys table the chat's keymaps
---@param width integer? the chat window's width (narrow: short usage)
---@return table[] parts, table[]? virt_lines
function M.header(s, keys, width)
  local parts = {}
  local awaiting = 0
  for _, t in pairs(s.tools or {}) do
    awaiting = awaiting + (t.awaiting == true and 1 or 0)
  end
  if s.busy and awaiting > 0 then
    -- The turn waits for the user, not for the model.
    table.insert(parts, { ('  Waiting for your approval (%d)'):format(awaiting), 'DiagnosticWarn' })
    if keys.permission then
      table.insert(parts, { (' (%s shows it)'):format(keys.permission), 'Comment', hint = true })
    end
  elseif s.busy then
    table.insert(parts, { '  Working…', 'DiagnosticWarn' })
    if keys.cancel then
      table.insert(parts, { (' (%s cancels)'):format(keys.cancel), 'Comment', hint = true })
    end
    if keys.send then
      table.insert(parts, { (' · %s adds to the turn'):format(keys.send), 'Comment', hint = true })
    end
  elseif s.problem_shown then
    -- Nothing can be sent until a model is configured: say how instead.
    table.insert(parts, { '  no model configured: set ANTHROPIC_API_KEY, then :AgentStop; :checkhealth agent_lsp', 'DiagnosticError' })
  elseif keys.send then
    table.insert(parts, { ('  %s sends'):format(keys.send), 'Comment' })
  end
  local mode = s.modes and s.modes.currentModeId
  if mode then
    table.insert(parts, { ' · mode: ' .. mode, 'Comment' })
  end
  local narrow = width ~= nil and width < M.narrow_width
  local usage = M.usage(s.usage, narrow)
  if usage then
    table.insert(parts, { ' · ' .. usage, 'Comment' })
  end
  if width then
    -- The header is one screen line: what does not fit goes, the key
    -- hints first, then the usage's long form.
    local function fits()
      local w = 6 -- "You" and its padding
      for _, p in ipairs(parts) do
        w = w + vim.fn.strdisplaywidth(p[1])
      end
      return w <= width
    end
    if not fits() then
      parts = vim.tbl_filter(function(p)
        return not p.hint
      end, parts)
    end
    if not fits() and usage and not narrow then
      parts[#parts] = { ' · ' .. M.usage(s.usage, true), 'Comment' }
    end
  end
  for _, p in ipairs(parts) do
    p.hint = nil
  end
  local virt_lines
  local ambient = s.ambient_labels or {}
  if #s.context_labels > 0 or #ambient > 0 then
    virt_lines = {}
    for i, l in ipairs(ambient) do
      local line = { { '◌ ' .. l, 'Comment' } }
      if i == 1 then
        table.insert(line, { '  (from the editor' .. (keys.drop_context and (', ' .. keys.drop_context .. ' leaves it out') or '') .. ')', 'NonText' })
      end
      table.insert(virt_lines, line)
    end
    for _, l in ipairs(s.context_labels) do
      table.insert(virt_lines, { { '📎 ' .. l, 'Comment' } })
    end
  end
  return parts, virt_lines
end

return M
