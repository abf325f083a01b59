--- :AgentRewind: session/checkpoints in a picker, then session/rewind of
--- the code, the conversation or both, previewed before it is applied.
local client = require('agent_lsp.client')
local methods = require('agent_lsp.methods')
local util = require('agent_lsp.util')
local notify, message = util.notify, util.message

local M = {}

--- What a rewind can restore, in the order the picker offers it.
M.restore_items = {
  { restore = methods.rewind_restore.both, label = 'code and conversation' },
  { restore = methods.rewind_restore.code, label = 'code only' },
  { restore = methods.rewind_restore.conversation, label = 'conversation only' },
}

--- The clock time of an RFC 3339 time ("2026-11-28 13:01").
---@param t any
local function when(t)
  if type(t) ~= 'string' then
    return '?'
  end
  return (t:gsub('T', ' '):gsub('%.%d+', ''):gsub('Z$', ''):gsub('[+-]%d%d:%d%d$', ''):sub(1, 16))
end

--- A line of the checkpoint picker: the prompt's number, its time and the
--- first line of its text.
---@param cp agent_lsp.proto.Checkpoint
---@return string
function M.format_checkpoint(cp)
  local first = vim.trim(((cp.prompt or ''):match('^%s*([^\n]*)')) or '')
  local max = math.max(20, vim.o.columns - 30)
  if vim.fn.strdisplaywidth(first) > max then
    first = vim.fn.strcharpart(first, 0, max - 1) .. '…'
  end
  return ('%d  %s  %s'):format(cp.checkpoint, when(cp.time), first)
end

--- The path of a change as the user reads it: relative to the root.
local function rel(root, path)
  if vim.startswith(path, root .. '/') then
    return path:sub(#root + 2)
  end
  return vim.fn.fnamemodify(path, ':~')
end

--- The confirmation's text: what the rewind will change, and the files
--- it would overwrite that were changed since by someone else.
---@param root string
---@param cp agent_lsp.proto.Checkpoint
---@param item table a restore_items entry
---@param preview agent_lsp.proto.RewindResult
---@return string[]
function M.preview_lines(root, cp, item, preview)
  local lines = { ('Rewind to before prompt %d (%s): %s'):format(cp.checkpoint, item.label, M.format_checkpoint(cp)) }
  if item.restore ~= methods.rewind_restore.conversation then
    local changes = preview.changes or {}
    if #changes == 0 then
      table.insert(lines, 'No file changes.')
    else
      table.insert(lines, 'Files it will change:')
      for _, ch in ipairs(changes) do
        table.insert(lines, ('  %-6s %s'):format(ch.action, rel(root, ch.path)))
      end
    end
  end
  if item.restore ~= methods.rewind_restore.code then
    table.insert(lines, 'The conversation goes back to before that prompt.')
  end
  local conflicts = preview.conflicts or {}
  if #conflicts > 0 then
    table.insert(lines, 'Changed since by you or another program (the rewind overwrites them):')
    for _, p in ipairs(conflicts) do
      table.insert(lines, '  ' .. rel(root, p))
    end
  end
  return lines
end

--- Applies a rewind and reports it; a conversation rewind reloads the
--- chat's transcript.
local function apply(chat, c, cp, item, force)
  local params = { sessionId = chat.session_id, checkpoint = cp.checkpoint, restore = item.restore }
  if force then
    params.force = true
  end
  client.request(c, methods.method.session_rewind, params, function(err, result)
    if err then
      return notify('rewinding: ' .. message(err), vim.log.levels.ERROR)
    end
    result = result or {}
    if not result.applied then
      local conflicts = vim.tbl_map(function(p)
        return rel(chat.root, p)
      end, result.conflicts or {})
      return notify(
        'nothing rewound: files changed since the preview: ' .. table.concat(conflicts, ', '),
        vim.log.levels.WARN
      )
    end
    for _, w in ipairs(result.warnings or {}) do
      notify('rewind: ' .. w, vim.log.levels.WARN)
    end
    local n = #(result.changes or {})
    notify(('rewound to before prompt %d (%s)%s'):format(
      cp.checkpoint,
      item.label,
      item.restore ~= methods.rewind_restore.conversation and (', %d file%s restored'):format(n, n == 1 and '' or 's')
        or ''
    ))
    if item.restore ~= methods.rewind_restore.code then
      chat:reload(cp.prompt)
    end
    util.fire('AgentLspRewound', {
      buf = chat.buf,
      session_id = chat.session_id,
      checkpoint = cp.checkpoint,
      restore = item.restore,
      changes = result.changes or {},
    })
  end)
end

--- Previews a rewind, asks to confirm it, then applies it.
local function preview_and_confirm(chat, c, cp, item)
  client.request(c, methods.method.session_rewind, {
    sessionId = chat.session_id,
    checkpoint = cp.checkpoint,
    restore = item.restore,
    preview = true,
  }, function(err, preview)
    if err then
      return notify('rewinding: ' .. message(err), vim.log.levels.ERROR)
    end
    preview = preview or {}
    local conflicts = #(preview.conflicts or {}) > 0
    local choices = conflicts and { 'Rewind, overwriting those changes', 'Cancel' } or { 'Rewind', 'Cancel' }
    vim.ui.select(choices, {
      prompt = table.concat(M.preview_lines(chat.root, cp, item, preview), '\n'),
      kind = 'agent_lsp_rewind_confirm',
    }, function(choice, idx)
      if not choice or idx ~= 1 then
        return
      end
      apply(chat, c, cp, item, conflicts)
    end)
  end)
end

--- :AgentRewind: pick a prompt of the chat's session, what to restore,
--- then confirm the preview.
---@param chat agent_lsp.Chat?
function M.pick(chat)
  if not chat or not chat.session_id then
    return notify('no session to rewind: this chat has sent no prompt yet')
  end
  if chat.busy then
    return notify('a turn is running: cancel it (:AgentCancel) before rewinding', vim.log.levels.WARN)
  end
  chat:with_session(function(c)
    client.request(c, methods.method.session_checkpoints, { sessionId = chat.session_id }, function(err, result)
      if err then
        return notify('listing the checkpoints: ' .. message(err), vim.log.levels.ERROR)
      end
      local cps = vim.deepcopy((result and result.checkpoints) or {})
      if #cps == 0 then
        return notify('no checkpoints yet: one is taken before each prompt')
      end
      -- Newest first: the usual rewind is to a recent prompt.
      table.sort(cps, function(a, b)
        return a.checkpoint > b.checkpoint
      end)
      vim.ui.select(cps, {
        prompt = 'Rewind to before which prompt?',
        kind = 'agent_lsp_checkpoint',
        format_item = M.format_checkpoint,
      }, function(cp)
        if not cp then
          return
        end
        vim.ui.select(M.restore_items, {
          prompt = 'Restore what?',
          kind = 'agent_lsp_rewind_restore',
          format_item = function(it)
            return it.label
          end,
        }, function(item)
          if item then
            preview_and_confirm(chat, c, cp, item)
          end
        end)
      end)
    end)
  end)
end

return M
