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
    notify('that session is already open in this chat')
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
        chat:push({ kind = 'error', message = 'loading the session: ' .. message(err) })
        chat:flush()
        notify('loading the session: ' .. message(err), vim.log.levels.ERROR)
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

--- Days since 1970-01-01 of a civil date (proleptic Gregorian).
local function days(y, m, d)
  y = m <= 2 and y - 1 or y
  local era = math.floor(y / 400)
  local yoe = y - era * 400
  local doy = math.floor((153 * (m + (m > 2 and -3 or 9)) + 2) / 5) + d - 1
  local doe = yoe * 365 + math.floor(yoe / 4) - math.floor(yoe / 100) + doy
  return era * 146097 + doe - 719468
end

--- The seconds since the epoch of an RFC 3339 time, or nil.
---@param t string
---@return integer?
function M.epoch(t)
  local y, mo, d, h, mi, sec, rest = t:match('^(%d%d%d%d)%-(%d%d)%-(%d%d)[Tt ](%d%d):(%d%d):(%d%d)(.*)$')
  if not y then
    return nil
  end
  rest = rest:gsub('^%.%d+', '')
  local offset = 0
  local sign, oh, om = rest:match('^([+-])(%d%d):?(%d%d)$')
  if sign then
    offset = (tonumber(oh) * 3600 + tonumber(om) * 60) * (sign == '-' and -1 or 1)
  elseif rest ~= 'Z' and rest ~= 'z' and rest ~= '' then
    return nil
  end
  local secs = days(tonumber(y), tonumber(mo), tonumber(d)) * 86400 + tonumber(h) * 3600 + tonumber(mi) * 60 + tonumber(sec)
  return secs - offset
end

--- A chat's time in the history, in local time as docs/editor-words.md
--- says (the same as VS Code): "2026-11-28 14:05", or "today 14:05".
---@param t any an RFC 3339 time
---@param now integer? seconds since the epoch (tests)
function M.when(t, now)
  local secs = type(t) == 'string' and M.epoch(t)
  if not secs then
    return ('?'):rep(16)
  end
  local day = os.date('%Y-%m-%d', secs)
  if day == os.date('%Y-%m-%d', now or os.time()) then
    return os.date('today %H:%M', secs) --[[@as string]]
  end
  return os.date('%Y-%m-%d %H:%M', secs) --[[@as string]]
end
local when = M.when

--- The history picker's title.
M.title = 'Chat history'

--- What the history says when the folder has no saved chat yet: the
--- folder's name, not its path.
---@param root string
function M.empty_text(root)
  return ('No saved chats for %s yet'):format(vim.fs.basename((root:gsub('/+$', ''))))
end

--- A line of the session list: the date first, then the title cut to
--- fit the screen (a long title never pushes the date out of view).
---@param s table session/list entry
---@param is_open boolean? already open in a chat here
---@return string
function M.format_item(s, is_open)
  local title = (type(s.title) == 'string' and s.title ~= '') and s.title or s.sessionId
  title = vim.trim((tostring(title):gsub('%s+', ' ')))
  local max = math.max(20, vim.o.columns - 30)
  if vim.fn.strdisplaywidth(title) > max then
    title = vim.fn.strcharpart(title, 0, max - 1) .. '…'
  end
  return ('%s  %s%s'):format(when(s.updatedAt), title, is_open and '  (open)' or '')
end

--- :AgentSessions (:AgentHistory): pick a past chat of the project in
--- "Chat history" and load it.
---@param root string
function M.pick(root)
  M.list(root, function(err, sessions)
    if err then
      return notify('listing the chat history: ' .. message(err), vim.log.levels.ERROR)
    end
    if not sessions or #sessions == 0 then
      return notify(M.empty_text(root))
    end
    local open = {}
    for _, s in ipairs(sessions) do
      open[s.sessionId] = require('agent_lsp.chat').by_session(s.sessionId) ~= nil
    end
    vim.ui.select(sessions, {
      prompt = M.title,
      kind = 'agent_lsp_session',
      format_item = function(s)
        return M.format_item(s, open[s.sessionId])
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
