--- workspace/applyEdit for the agent's client.
---
--- Wraps the built-in handler (vim.lsp.handlers['workspace/applyEdit'], or
--- the user's override of it) with what docs/protocol.md asks of editors:
---  * every buffer the edit touches is loaded and attached to the client
---    first, so the agent's overlay follows it (didOpen, then didChange);
---  * an edit made against an older version of a buffer is refused
---    (applied=false) instead of being skipped while reported as applied;
---  * afterwards, buffers that had no unsaved changes before the edit are
---    written, so builds and tests the agent runs see the change; a buffer
---    holding the user's unsaved work is never written.
local config = require('agent_lsp.config')

local M = {}

---@param buf integer
---@return integer?
local function buf_version(buf)
  local versions = vim.lsp.util.buf_versions
  local v = versions and versions[buf]
  if v == nil then
    v = vim.b[buf].changedtick
  end
  return v
end

--- The documents an edit touches: uri -> {version?, create?}.
---@param edit lsp.WorkspaceEdit
---@return table<string, {version: integer?, create: boolean?}>, string[] order
local function targets(edit)
  local out, order = {}, {}
  local function add(uri)
    if not out[uri] then
      out[uri] = {}
      table.insert(order, uri)
    end
    return out[uri]
  end
  for _, change in ipairs(edit.documentChanges or {}) do
    if change.kind == 'create' then
      add(change.uri).create = true
    elseif change.kind == nil and change.textDocument then
      local t = add(change.textDocument.uri)
      local v = change.textDocument.version
      if type(v) == 'number' and t.version == nil then
        t.version = v
      end
    end
  end
  for uri in pairs(edit.changes or {}) do
    add(uri)
  end
  return out, order
end

--- Loads a file's buffer (without showing it) and attaches it to the client.
---@param uri string
---@param client vim.lsp.Client
---@return integer buf
local function load(uri, client)
  local buf = vim.uri_to_bufnr(uri)
  if not vim.api.nvim_buf_is_loaded(buf) then
    vim.fn.bufload(buf)
    vim.bo[buf].buflisted = true
  end
  require('agent_lsp.client').attach(buf, client)
  return buf
end

---@param buf integer
local function save(buf)
  if vim.bo[buf].readonly then
    vim.notify(
      ('agent-lsp: %s is read-only: the agent\'s edit is in the buffer, not saved'):format(vim.api.nvim_buf_get_name(buf)),
      vim.log.levels.WARN
    )
    return
  end
  -- `!`: the buffer is the truth here (the agent edited what the buffer
  -- held), so no "file changed since reading" question may block the edit.
  local ok, err = pcall(vim.api.nvim_buf_call, buf, function()
    vim.cmd('silent keepalt update!')
  end)
  if not ok then
    vim.notify(
      ('agent-lsp: could not save %s: %s'):format(vim.api.nvim_buf_get_name(buf), err),
      vim.log.levels.WARN
    )
  end
end

--- The handler for workspace/applyEdit.
---@param err any
---@param params lsp.ApplyWorkspaceEditParams
---@param ctx lsp.HandlerContext
---@return lsp.ApplyWorkspaceEditResult
function M.apply(err, params, ctx)
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  if not client or type(params) ~= 'table' or type(params.edit) ~= 'table' then
    return { applied = false, failureReason = 'agent-lsp: malformed workspace/applyEdit' }
  end
  local docs, order = targets(params.edit)

  -- Buffers that were clean before the edit (or did not exist yet).
  local clean = {} ---@type table<integer, boolean>
  local created = {} ---@type string[]
  for _, uri in ipairs(order) do
    local t = docs[uri]
    local path = vim.uri_to_fname(uri)
    if t.create and not vim.uv.fs_stat(path) then
      table.insert(created, uri)
    else
      local buf = load(uri, client)
      clean[buf] = not vim.bo[buf].modified
      if t.version and t.version > 0 then
        local have = buf_version(buf)
        if have and have ~= t.version then
          return {
            applied = false,
            failureReason = ('%s changed in the editor since the agent read it (version %d, edit for %d)'):format(
              vim.fn.fnamemodify(path, ':~:.'),
              have,
              t.version
            ),
          }
        end
      end
    end
  end

  -- The built-in handler prints the label; the label is for an undo history
  -- Neovim does not name, so leave it out.
  local plain = vim.deepcopy(params)
  plain.label = nil
  local handler = vim.lsp.handlers['workspace/applyEdit']
  local result = handler(err, plain, ctx)
  if type(result) ~= 'table' then
    result = { applied = false, failureReason = 'the editor did not apply the edit' }
  end
  if not result.applied then
    if type(result.failureReason) ~= 'string' then
      result.failureReason = tostring(result.failureReason)
    end
    return result
  end
  result.failureReason = nil

  for _, uri in ipairs(created) do
    local buf = load(uri, client)
    clean[buf] = true
  end
  for buf, was_clean in pairs(clean) do
    if vim.api.nvim_buf_is_valid(buf) then
      require('agent_lsp.client').attach(buf, client)
      if was_clean and config.get().save_clean_buffers and vim.bo[buf].modified then
        save(buf)
      end
    end
  end
  return result
end

M._targets = targets

return M
