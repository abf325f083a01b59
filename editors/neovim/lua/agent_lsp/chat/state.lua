--- The chat's model and the one function that changes it.
---
--- Pure: no buffers, windows or timers. `apply` takes one message (a
--- session/update's `update`, or one of the chat's own events below),
--- changes the state and returns what changed, in order, for the view
--- (chat.lua) to draw; render.lua turns the state's parts into lines.
--- Tested headless in test/chat_state_spec.lua.
---
--- The chat's own events (`kind` instead of `sessionUpdate`):
---   {kind='user', text, labels}              a prompt sent from this editor
---   {kind='status', message, status_kind}    agent/status
---   {kind='error', message}                  an error to show
---   {kind='provider_problem', message}       no model is configured
---   {kind='awaiting', tool}                  a permission request is waiting
---   {kind='answered', tool_call_id, permission}  the user answered it here
---   {kind='stop', reason?, error?}           the turn ended
local methods = require('agent_lsp.methods')
local util = require('agent_lsp.util')

local U = methods.update
local M = {}

---@class agent_lsp.ChatState
---@field session_id string?
---@field busy boolean          a prompt (or a load) is running
---@field items table[]         the transcript: user, agent, thought, tool, plan, notice
---@field tools table<string, table> tool calls by toolCallId (merged fields, permission, awaiting)
---@field thought table?        the thinking item being streamed
---@field plan table?           the plan item of this turn
---@field modes table?          {currentModeId, availableModes}
---@field models table?         {currentModelId, availableModels}
---@field config_options table[]?
---@field commands table[]?     available slash commands
---@field usage table?          the last usage_update
---@field stop_reason string?   of the last turn
---@field problem_shown string? the provider problem already shown
---@field context table[]       content blocks attached to the next prompt
---@field context_labels string[]
---@field ambient_labels string[]? the editor's context shown above the input (ambient.lua)

---@return agent_lsp.ChatState
function M.new()
  return { busy = false, items = {}, tools = {}, context = {}, context_labels = {} }
end

--- Whether a tool status is final.
function M.final(status)
  return status == methods.tool_status.completed or status == methods.tool_status.failed
end

--- The text of a streamed item (agent, user or thought): its parts are
--- kept as a list while it streams, so a long answer is not copied at
--- every chunk.
function M.text(item)
  if #item.parts > 1 then
    item.parts = { table.concat(item.parts) }
  end
  return item.parts[1] or ''
end

--- The text a chunk's content block shows.
---@param c table?
---@return string
function M.chunk_text(c)
  if type(c) ~= 'table' then
    return ''
  end
  if type(c.text) == 'string' then
    return c.text
  end
  if c.type == methods.content.resource_link then
    return ('\n📎 %s\n'):format(c.name or c.uri)
  end
  if c.type == methods.content.image and type(c.data) == 'string' then
    -- An image of the user's message (a loaded session replays it).
    return ('\n🖼 image (%s, %d KB)\n'):format(c.mimeType or '?', math.max(1, math.floor(#c.data * 3 / 4 / 1024 + 0.5)))
  end
  return ''
end

local function push(s, item)
  table.insert(s.items, item)
  return item
end

--- Reports streamed text: a run of chunks into one item is one change
--- whose parts the view joins (a long stream is thousands of chunks).
local function add_text(out, op, item, text)
  local prev = out[#out]
  if prev and prev.op == op and prev.item == item then
    table.insert(prev.parts, text)
  else
    table.insert(out, { op = op, item = item, parts = { text } })
  end
end

--- Ends the thinking item, if one is streaming.
local function end_thought(s, out)
  local th = s.thought
  if th then
    s.thought = nil
    th.done = true
    table.insert(out, { op = 'thought_end', item = th })
  end
end

local function chunk(s, kind, text, out)
  if text == '' then
    return
  end
  if kind == 'thought' then
    local th = s.thought
    if not th then
      th = push(s, { kind = 'thought', parts = {} })
      s.thought = th
    end
    table.insert(th.parts, text)
    add_text(out, 'thought_text', th, text)
    return
  end
  end_thought(s, out)
  local last = s.items[#s.items]
  if not (last and last.kind == kind) then
    last = push(s, { kind = kind, parts = {}, labels = {} })
  end
  table.insert(last.parts, text)
  add_text(out, kind == 'agent' and 'agent_text' or 'user_text', last, text)
end

--- Merges a tool_call or tool_call_update into the tool's item.
local function tool(s, u, out)
  end_thought(s, out)
  local id = u.toolCallId or ''
  local t = s.tools[id]
  local new = not t
  if new then
    t = vim.deepcopy(u)
    t.sessionUpdate = nil
    s.tools[id] = t
    push(s, { kind = 'tool', id = id, tool = t })
  else
    for k, v in pairs(u) do
      if k ~= 'sessionUpdate' and v ~= vim.NIL then
        t[k] = v
      end
    end
  end
  -- The answer to its permission request, live and replayed alike.
  local answered = util.meta(u)[methods.meta.permission]
  if type(answered) == 'table' then
    t.permission = answered
  end
  if u.status and u.status ~= methods.tool_status.pending then
    t.awaiting = nil
  end
  table.insert(out, { op = 'tool', tool = t, new = new })
  return t
end

local function notice(s, level, text, out)
  end_thought(s, out)
  local item = push(s, { kind = 'notice', level = level, text = tostring(text or ''):gsub('\n', ' ') })
  table.insert(out, { op = 'notice', item = item })
end

local handlers = {}

handlers[U.agent_message_chunk] = function(s, u, out)
  chunk(s, 'agent', M.chunk_text(u.content), out)
end
handlers[U.user_message_chunk] = function(s, u, out)
  chunk(s, 'user', M.chunk_text(u.content), out)
  local c = u.content
  if type(c) == 'table' and c.type == methods.content.image and type(c.data) == 'string' then
    table.insert(out, { op = 'image', block = c })
  end
end
handlers[U.agent_thought_chunk] = function(s, u, out)
  chunk(s, 'thought', M.chunk_text(u.content), out)
end
handlers[U.tool_call] = tool
handlers[U.tool_call_update] = tool
handlers[U.plan] = function(s, u, out)
  end_thought(s, out)
  local entries = type(u.entries) == 'table' and u.entries or {}
  local new = not s.plan
  if new then
    s.plan = push(s, { kind = 'plan', entries = entries })
  else
    s.plan.entries = entries
  end
  table.insert(out, { op = 'plan', item = s.plan, new = new })
end
handlers[U.available_commands_update] = function(s, u, out)
  s.commands = u.availableCommands
  table.insert(out, { op = 'header' })
end
handlers[U.current_mode_update] = function(s, u, out)
  s.modes = s.modes or { availableModes = methods.default_modes }
  s.modes.currentModeId = u.currentModeId
  table.insert(out, { op = 'header' })
end
handlers[U.usage_update] = function(s, u, out)
  s.usage = u
  table.insert(out, { op = 'header' })
end
handlers[U.config_option_update] = function(s, u, out)
  s.config_options = u.configOptions
  table.insert(out, { op = 'header' })
end

function handlers.user(s, u, out)
  end_thought(s, out)
  s.plan = nil
  -- A new prompt always opens its own item, even right after a replayed
  -- user message.
  local item = push(s, { kind = 'user', parts = { u.text }, labels = u.labels or {}, images = u.images, prompt = true })
  table.insert(out, { op = 'prompt', item = item })
end

function handlers.status(s, u, out)
  notice(s, u.status_kind == methods.status_kind.info and 'info' or 'warning', u.message, out)
end

function handlers.error(s, u, out)
  notice(s, 'error', u.message, out)
end

function handlers.provider_problem(s, u, out)
  if s.problem_shown == u.message then
    return
  end
  s.problem_shown = u.message
  notice(s, 'error', u.message, out)
end

function handlers.awaiting(s, u, out)
  local call = u.tool
  local id = type(call) == 'table' and call.toolCallId
  local t = id and s.tools[id]
  if not t then
    t = tool(s, vim.tbl_extend('force', call or {}, { sessionUpdate = U.tool_call }), out)
  end
  if not M.final(t.status) then
    t.awaiting = true
    table.insert(out, { op = 'tool', tool = t })
  end
end

function handlers.answered(s, u, out)
  local t = u.tool_call_id and s.tools[u.tool_call_id]
  -- The agent's own record (a tool_call_update's permission) wins; it
  -- replaces this one when it comes.
  if t and not t.permission then
    t.permission = u.permission
    t.awaiting = nil
    table.insert(out, { op = 'tool', tool = t })
  end
end

function handlers.stop(s, u, out)
  end_thought(s, out)
  table.insert(out, { op = 'end_text' })
  local ids = vim.tbl_keys(s.tools)
  table.sort(ids)
  for _, id in ipairs(ids) do
    local t = s.tools[id]
    if t.awaiting then
      t.awaiting = nil
      table.insert(out, { op = 'tool', tool = t })
    end
  end
  if u.error then
    notice(s, 'error', util.message(u.error), out)
  elseif u.reason and u.reason ~= methods.stop_reason.end_turn then
    notice(s, 'stop', u.reason, out)
  end
  s.busy = false
  s.stop_reason = u.reason
  table.insert(out, { op = 'stop', reason = u.reason, error = u.error })
end

--- Applies one message to the state; returns what changed, in order:
--- {op = 'thought_text'|'thought_end'|'agent_text'|'user_text'|'prompt'|
--- 'image'|'tool'|'plan'|'notice'|'end_text'|'stop'|'header', ...}; streamed
--- text comes as {op, item, parts}. The changes are appended to `out`
--- when given (the view applies a batch of updates into one list). An
--- unknown message changes nothing.
---@param s agent_lsp.ChatState
---@param u table
---@param out table[]?
---@return table[]
function M.apply(s, u, out)
  out = out or {}
  local fn = handlers[u.sessionUpdate or u.kind]
  if fn then
    fn(s, u, out)
  end
  return out
end

--- A session result (session/new, load, resume): its modes, models and
--- config options.
---@param s agent_lsp.ChatState
---@param result table?
function M.bind(s, session_id, result)
  s.session_id = session_id
  if type(result) == 'table' then
    s.modes = result.modes or s.modes
    s.models = result.models or s.models
    s.config_options = result.configOptions or s.config_options
  end
end

--- A prompt is being sent: the attachments go with it.
---@return table[] blocks, string[] labels
function M.take_context(s)
  local blocks, labels = s.context, s.context_labels
  s.context, s.context_labels = {}, {}
  s.busy = true
  s.stop_reason = nil
  return blocks, labels
end

return M
