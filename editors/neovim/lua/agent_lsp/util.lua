--- Small helpers shared by the modules.
local M = {}

--- Notifies with the plugin's prefix.
---@param msg string
---@param level integer? vim.log.levels (default INFO)
function M.notify(msg, level)
  vim.notify('agent-lsp: ' .. msg, level or vim.log.levels.INFO)
end

--- Fires a User autocommand with data.
---@param pattern string
---@param data table
function M.fire(pattern, data)
  vim.api.nvim_exec_autocmds('User', { pattern = pattern, modeline = false, data = data })
end

--- The message of a JSON-RPC error (or any error value).
---@param err any
---@return string
function M.message(err)
  if type(err) == 'table' then
    return err.message or vim.inspect(err)
  end
  return tostring(err)
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
