--- Past sessions: session/list in a picker, session/load into a new chat.
local client = require('agent_lsp.client')
local methods = require('agent_lsp.methods')

local M = {}

local util = require('agent_lsp.util')
local notify, message = util.notify, util.message

--- Lists the sessions of a root; cb(err, sessions).
---@param root string
---@param cb fun(err: any, sessions: table[]?)
function M.list(root, cb)
  client.with_client(root, function(c)
    local all = {}
    local function page(cursor)
      client.request(c, methods.method.session_list, { cwd = root, cursor = cursor }, function(err, result)
        if err then
          return cb(err)
        end
        vim.list_extend(all, (result and result.sessions) or {})
        if result and type(result.nextCursor) == 'string' and result.nextCursor ~= '' and #all < 1000 then
          return page(result.nextCursor)
        end
        table.sort(all, function(a, b)
          return (a.updatedAt or '') > (b.updatedAt or '')
        end)
        cb(nil, all)
      end)
    end
    page(nil)
  end, cb)
end

--- Loads a session into a new chat: the agent replays its history as
--- session/update notifications, rendered like a live turn.
---@param root string
---@param session_id string
---@param cb fun(err: any, chat: agent_lsp.Chat?)?
function M.load(root, session_id, cb)
  cb = cb or function() end
  local chat_mod = require('agent_lsp.chat')
  local existing = chat_mod.by_session(session_id)
  if existing then
    existing:show()
    return cb(nil, existing)
  end
  client.with_client(root, function(c)
    local chat = chat_mod.new(root)
    chat.client_id = c.id
    -- Bind first: the replay arrives before the answer.
    chat:_bind(session_id)
    chat.busy = true
    chat:_refresh_header()
    client.request(c, methods.method.session_load, {
      sessionId = session_id,
      cwd = root,
      mcpServers = {},
    }, function(err, result)
      chat.busy = false
      chat:flush()
      if err then
        chat:push({ kind = 'error', message = 'session/load: ' .. message(err) })
        chat:flush()
        notify('session/load: ' .. message(err), vim.log.levels.ERROR)
        return cb(err, chat)
      end
      chat:_bind(session_id, result)
      vim.api.nvim_exec_autocmds('User', {
        pattern = 'AgentLspSessionLoaded',
        modeline = false,
        data = { buf = chat.buf, session_id = session_id },
      })
      cb(nil, chat)
    end)
  end, cb)
end

--- :AgentSessions: pick a past session of the project and load it.
---@param root string
function M.pick(root)
  M.list(root, function(err, sessions)
    if err then
      return notify('session/list: ' .. message(err), vim.log.levels.ERROR)
    end
    if not sessions or #sessions == 0 then
      return notify('no past sessions for ' .. vim.fn.fnamemodify(root, ':~'))
    end
    vim.ui.select(sessions, {
      prompt = 'Agent sessions',
      kind = 'agent_lsp_session',
      format_item = function(s)
        local when = type(s.updatedAt) == 'string' and s.updatedAt:gsub('T', ' '):gsub('Z$', '') or ''
        local title = (type(s.title) == 'string' and s.title ~= '') and s.title or s.sessionId
        return ('%s  %s'):format(when, (title:gsub('\n', ' ')))
      end,
    }, function(choice)
      if not choice then
        return
      end
      M.load(root, choice.sessionId, function(_, chat)
        if chat then
          chat:show()
        end
      end)
    end)
  end)
end

return M
