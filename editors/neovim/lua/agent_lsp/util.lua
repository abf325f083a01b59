--- Small helpers shared by the modules.
local M = {}

--- Notifies with the plugin's prefix.
---@param msg string
---@param level integer? vim.log.levels (default INFO)
function M.notify(msg, level)
  vim.notify('agent-lsp: ' .. msg, level or vim.log.levels.INFO)
end

--- An error the user must see at once, styled as one and kept in
--- :messages. A message wider than the command line would stop the screen
--- at a "Press ENTER" prompt (and hold back the redraw that shows the
--- chat), so a long one is cut to its first sentence there: the chat shows
--- it whole.
---@param msg string
---@param hint string? appended, kept when the message is cut
function M.error(msg, hint)
  hint = hint or ''
  local full = 'agent-lsp: ' .. msg .. hint
  if vim.fn.strdisplaywidth(full) >= vim.o.columns * math.max(1, vim.o.cmdheight) then
    full = 'agent-lsp: ' .. (msg:match('^(.-[.:])%s') or msg) .. hint
  end
  vim.notify(full, vim.log.levels.ERROR)
end

--- Fires a User autocommand with data.
---@param pattern string
---@param data table
function M.fire(pattern, data)
  vim.api.nvim_exec_autocmds('User', { pattern = pattern, modeline = false, data = data })
end

--- The message of a JSON-RPC error (or any error value), in the user's
--- words: an older agent's "session/prompt: " prefix (a protocol method
--- name) is left out.
---@param err any
---@return string
function M.message(err)
  local msg
  if type(err) == 'table' then
    msg = type(err.message) == 'string' and err.message or vim.inspect(err)
  else
    msg = tostring(err)
  end
  msg = msg:gsub('^[%a_]+/[%a_]+: ', '', 1)
  return msg
end

--- Text for a plain-text surface (a float's title or footer, the command
--- line, vim.ui.select): markdown code spans lose their backticks, so
--- "Run `go test ./...`" reads "Run go test ./...".
---@param s string
---@return string
function M.plain(s)
  return (s:gsub('(`+)(.-)%1', function(_, code)
    return vim.trim(code)
  end))
end

--- The `_meta["agent-lsp"]` table of a protocol object, or an empty table.
---@param obj any
---@return table
function M.meta(obj)
  local m = type(obj) == 'table' and type(obj._meta) == 'table' and obj._meta['agent-lsp']
  return type(m) == 'table' and m or {}
end

--- Splits text into lines; a final newline ends the last line rather than
--- starting an empty one.
---@param s string?
---@return string[]
function M.lines(s)
  if s == nil or s == '' then
    return {}
  end
  local lines = vim.split(s, '\n', { plain = true })
  if lines[#lines] == '' then
    lines[#lines] = nil
  end
  return lines
end

return M
