--- agent/diagnostics: the editor's own diagnostics of a buffer, for the
--- agent's edit results (docs/protocol.md, "agent/diagnostics").
---
--- The agent sends a version right after an edit, which Neovim has already
--- applied when the request arrives: the answer waits, at most timeoutMs,
--- until a DiagnosticChanged event for the buffer came at or after the
--- buffer's changedtick at that moment (LSP versions and changedticks do
--- not always agree, so the version itself only says "wait"). A buffer no
--- diagnostic source ever reported on is answered at once.
local M = {}

--- bufnr -> changedtick at the buffer's last DiagnosticChanged.
local diagnosed = {}
local group

function M.setup()
  if group then
    return
  end
  group = vim.api.nvim_create_augroup('agent_lsp_diagnostics', { clear = true })
  vim.api.nvim_create_autocmd('DiagnosticChanged', {
    group = group,
    callback = function(args)
      if vim.api.nvim_buf_is_valid(args.buf) then
        diagnosed[args.buf] = vim.api.nvim_buf_get_changedtick(args.buf)
      end
    end,
  })
  vim.api.nvim_create_autocmd({ 'BufDelete', 'BufWipeout' }, {
    group = group,
    callback = function(args)
      diagnosed[args.buf] = nil
    end,
  })
end

--- Whether the diagnostics of buf reflect its text at changedtick tick.
---@param buf integer
---@param tick integer
---@return boolean
function M.ready(buf, tick)
  local d = diagnosed[buf]
  return d == nil or d >= tick
end

--- A vim.diagnostic in LSP's shape (severities are the same numbers).
local function to_lsp(d)
  local out = {
    range = {
      start = { line = d.lnum, character = d.col },
      ['end'] = { line = d.end_lnum or d.lnum, character = d.end_col or d.col },
    },
    severity = d.severity,
    message = d.message,
    source = d.source,
  }
  if d.code ~= nil then
    out.code = d.code
  end
  return out
end

--- The handler of agent/diagnostics.
function M.answer(_, params)
  M.setup()
  local fname = vim.uri_to_fname(params.uri)
  local buf = vim.fn.bufnr(fname)
  if buf == -1 or not vim.api.nvim_buf_is_loaded(buf) then
    return {}
  end
  if params.version ~= nil and params.version ~= vim.NIL then
    local tick = vim.api.nvim_buf_get_changedtick(buf)
    vim.wait(params.timeoutMs or 1500, function()
      return M.ready(buf, tick)
    end, 10)
  end
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(out, to_lsp(d))
  end
  return out
end

return M
