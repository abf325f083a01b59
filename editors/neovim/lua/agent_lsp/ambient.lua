--- The editor's own context for a prompt (docs/protocol.md, "Editor
--- context"): the file of the last window the user worked in and the lines
--- they last selected in it, sent with each prompt as blocks marked
--- `_meta["agent-lsp"].ambient`, as Claude Code's IDE integration sends
--- them. The chat shows them above the input; `chat.keymaps.drop_context`
--- leaves them out until the editor shows something else, and
--- `chat.editor_context = false` turns them off.
---
--- The file is the current window's, else the file buffer used last. A
--- selection is kept from the moment visual mode ends until its buffer
--- changes or it was sent: typing a prompt in the chat ends visual mode,
--- so "the last selection" stands for "what is selected" in an editor
--- where focus leaves the code. plugin/agent_lsp.lua reports visual mode
--- ending and buffers entered; nothing else runs until then.
local M = {}

local config = require('agent_lsp.config')
local methods = require('agent_lsp.methods')

---@class agent_lsp.Ambient
---@field sel {buf: integer, lines: integer[], tick: integer}? the last selection
---@field dropped string?     the labels the user left out, joined
local cur = {}
local listeners = {}

--- Whether buf is a file the user edits (not the chat, a help page, a
--- scratch or terminal buffer).
---@param buf integer
local function is_file(buf)
  return vim.api.nvim_buf_is_valid(buf) and vim.bo[buf].buftype == '' and vim.api.nvim_buf_get_name(buf) ~= ''
end

local function changed()
  for _, fn in pairs(listeners) do
    pcall(fn)
  end
end

--- The file buffer last worked in: the current window's, else the one
--- used most recently.
---@return integer?
local function last_file()
  local buf = vim.api.nvim_get_current_buf()
  if is_file(buf) then
    return buf
  end
  local best, at = nil, -1
  for _, info in ipairs(vim.fn.getbufinfo({ buflisted = 1 })) do
    if is_file(info.bufnr) and info.lastused > at then
      best, at = info.bufnr, info.lastused
    end
  end
  return best
end

--- Visual mode ended in buf (plugin/agent_lsp.lua's ModeChanged): its
--- selection becomes the one sent, once its '< and '> marks are set.
---@param buf integer
function M.left_visual(buf)
  if not is_file(buf) then
    return
  end
  vim.schedule(function()
    if not vim.api.nvim_buf_is_valid(buf) then
      return
    end
    local a, b = vim.api.nvim_buf_get_mark(buf, '<')[1], vim.api.nvim_buf_get_mark(buf, '>')[1]
    if a > 0 and b >= a then
      cur = { sel = { buf = buf, lines = { a, b }, tick = vim.api.nvim_buf_get_changedtick(buf) } }
      changed()
    end
  end)
end

--- Another buffer was entered (plugin/agent_lsp.lua): the chips follow.
function M.entered()
  changed()
end

--- Calls fn whenever the context changes; returns a function that stops.
---@param fn fun()
---@return fun()
function M.on_change(fn)
  local key = {}
  listeners[key] = fn
  return function()
    listeners[key] = nil
  end
end

--- The context as blocks and labels, without what the user left out.
---@return table[] blocks, string[] labels
function M.current()
  local blocks, labels = {}, {}
  local buf = last_file()
  if not config.get().chat.editor_context or not buf then
    return blocks, labels
  end
  local name = vim.api.nvim_buf_get_name(buf)
  local rel = vim.fn.fnamemodify(name, ':~:.')
  local uri = vim.uri_from_fname(name)
  table.insert(blocks, {
    type = methods.content.resource_link,
    uri = uri,
    name = vim.fn.fnamemodify(name, ':t'),
    _meta = { ['agent-lsp'] = { ambient = 'open' } },
  })
  table.insert(labels, rel)
  local sel = cur.sel
  -- The selection of this file, while its text is as it was.
  if sel and sel.buf == buf and vim.api.nvim_buf_get_changedtick(buf) == sel.tick then
    local a, b = sel.lines[1], sel.lines[2]
    local lines = vim.api.nvim_buf_get_lines(buf, a - 1, b, false)
    table.insert(blocks, {
      type = methods.content.resource,
      resource = { uri = ('%s#L%d-L%d'):format(uri, a, b), text = table.concat(lines, '\n') },
      _meta = { ['agent-lsp'] = { ambient = 'selection' } },
    })
    table.insert(labels, ('%s:%d-%d'):format(rel, a, b))
  end
  if cur.dropped == table.concat(labels, '\n') then
    return {}, {}
  end
  return blocks, labels
end

--- Leaves the current context out of the next prompts, until it changes.
function M.drop()
  local _, labels = M.current()
  cur.dropped = table.concat(labels, '\n')
  changed()
end

--- The context went with a prompt: its selection is done.
function M.sent()
  if cur.sel then
    cur.sel = nil
    changed()
  end
end

return M
