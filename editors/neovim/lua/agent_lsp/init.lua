--- agent-lsp for Neovim: a coding agent behind Neovim's own LSP client.
---
--- Public API (the user commands call these):
---   setup(opts)             configure (optional; vim.g.agent_lsp works too)
---   chat(opts)              open the chat
---   prompt(text)            send a prompt (:Agent)
---   ask(buf, l1, l2, text)  send or attach a selection (:AgentAsk)
---   cancel()                cancel the running turn (:AgentCancel)
---   sessions()              pick and load a past session (:AgentSessions)
---   rewind()                rewind the chat to before a prompt (:AgentRewind)
---   select_mode(id?)        switch mode (:AgentMode)
---   select_model(id?)       switch model (:AgentModel)
---   select_effort(level?)   switch effort (:AgentEffort)
---   permission()            show the pending permission prompt
---   new_chat()              start a new chat (:AgentNew)
---   stop()                  stop the sidecar (:AgentStop)
---   current_chat()          the chat object, for statuslines and tests
local M = {}

local function notify(msg, level)
  require('agent_lsp.util').notify(msg, level)
end

--- Configures the plugin. Raises an error naming a wrong option.
---@param opts agent_lsp.Config|table|nil
function M.setup(opts)
  require('agent_lsp.config').set(opts)
  -- Watch diagnostics from the start, so agent/diagnostics knows which
  -- buffers have a source (see diagnostics.lua).
  require('agent_lsp.diagnostics').setup()
end

---@return agent_lsp.Chat?
function M.current_chat()
  return require('agent_lsp.chat').current(false)
end

--- Opens (or focuses) the chat.
---@param opts {layout: string?, focus: boolean?}?
function M.chat(opts)
  local chat = require('agent_lsp.chat').current(true)
  ---@cast chat -nil
  local win = chat:show(opts)
  if opts == nil or opts.focus ~= false then
    vim.api.nvim_win_set_cursor(win, { vim.api.nvim_buf_line_count(chat.buf), 0 })
  end
  -- Start the sidecar now: a missing model is reported when the chat
  -- opens, not after the first prompt.
  local client = require('agent_lsp.client')
  if not client.get(chat.root) then
    client.with_client(chat.root, function() end, function() end)
  end
  return chat
end

--- Sends a prompt to the current chat (creating it if needed).
---@param text string
function M.prompt(text)
  local chat = require('agent_lsp.chat').current(true)
  ---@cast chat -nil
  if require('agent_lsp.config').get().chat.open_on_prompt then
    chat:show({ focus = false })
  end
  chat:send(text)
  return chat
end

local function mime(buf)
  local ft = vim.bo[buf].filetype
  if ft == '' then
    return 'text/plain'
  end
  return 'text/x-' .. ft
end

--- Sends lines l1..l2 (1-based, inclusive) of a buffer as a resource block
--- with the file and range; with no text, attaches them to the next prompt
--- and opens the chat to type it.
---@param buf integer
---@param l1 integer
---@param l2 integer
---@param text string?
function M.ask(buf, l1, l2, text)
  local lines = vim.api.nvim_buf_get_lines(buf, l1 - 1, l2, false)
  local name = vim.api.nvim_buf_get_name(buf)
  local uri = name ~= '' and vim.uri_from_fname(name) or ('untitled:buffer-%d'):format(buf)
  uri = ('%s#L%d-L%d'):format(uri, l1, l2)
  local block = {
    type = 'resource',
    resource = { uri = uri, mimeType = mime(buf), text = table.concat(lines, '\n') .. '\n' },
  }
  local label = ('%s#L%d-L%d'):format(name ~= '' and vim.fn.fnamemodify(name, ':~:.') or '[No Name]', l1, l2)
  local chat = require('agent_lsp.chat').current(true)
  ---@cast chat -nil
  if text and vim.trim(text) ~= '' then
    if require('agent_lsp.config').get().chat.open_on_prompt then
      chat:show({ focus = false })
    end
    chat:send(text, { blocks = { block }, labels = { label } })
  else
    chat:attach(block, label)
    M.chat()
    vim.cmd('startinsert!')
  end
  return chat
end

function M.cancel()
  local chat = require('agent_lsp.chat').current(false)
  if not chat then
    return notify('no chat')
  end
  return chat:cancel()
end

--- Starts a new chat, in the window of the chat on screen if there is one.
function M.new_chat()
  local chat_mod = require('agent_lsp.chat')
  local win = chat_mod.window_in_tab()
  local chat = chat_mod.new()
  chat:show({ win = win })
  return chat
end

function M.sessions()
  local chat = require('agent_lsp.chat').current(false)
  local root = chat and chat.root or require('agent_lsp.client').root()
  require('agent_lsp.sessions').pick(root)
end

--- :AgentRewind: rewind the current chat's session to before a prompt.
function M.rewind()
  require('agent_lsp.rewind').pick(require('agent_lsp.chat').current(false))
end

--- Items with the current one first, the rest in their order.
---@param items table[]
---@param is_current fun(item: table): boolean
local function current_first(items, is_current)
  local out = {}
  for _, it in ipairs(items) do
    if is_current(it) then
      table.insert(out, 1, it)
    else
      table.insert(out, it)
    end
  end
  return out
end

--- Switches the current chat's mode; picks one when id is nil.
---@param id string?
function M.select_mode(id)
  local chat = require('agent_lsp.chat').current(true)
  ---@cast chat -nil
  if id and id ~= '' then
    return chat:set_mode(id)
  end
  chat:with_session(function()
    local modes = (chat.modes and chat.modes.availableModes) or require('agent_lsp.methods').default_modes
    local cur = chat.modes and chat.modes.currentModeId
    modes = current_first(modes, function(m)
      return m.id == cur
    end)
    local width = 0
    for _, m in ipairs(modes) do
      width = math.max(width, vim.fn.strdisplaywidth(m.name or m.id))
    end
    vim.ui.select(modes, {
      prompt = 'Agent mode',
      kind = 'agent_lsp_mode',
      format_item = function(m)
        local name = m.name or m.id
        local pad = (' '):rep(width - vim.fn.strdisplaywidth(name))
        local mark = m.id == cur and ' ●' or '  '
        return ('%s%s%s  %s'):format(name, pad, mark, m.description or '')
      end,
    }, function(choice)
      if choice then
        chat:set_mode(choice.id)
      end
    end)
  end)
end

--- The models a chat can switch to, as {id, name, group, description}:
--- the session's `models` (display names, groups; docs/protocol.md), else
--- the model config option's values. Grouped, the current model first.
---@param chat agent_lsp.Chat
---@return table[] models, string? current
function M.model_items(chat)
  local methods = require('agent_lsp.methods')
  local util = require('agent_lsp.util')
  local items, current = {}, nil
  if chat.models and type(chat.models.availableModels) == 'table' and #chat.models.availableModels > 0 then
    current = chat.models.currentModelId
    for _, m in ipairs(chat.models.availableModels) do
      local group = util.meta(m)[methods.meta.group]
      table.insert(items, {
        id = m.modelId,
        name = (type(m.name) == 'string' and m.name ~= '') and m.name or m.modelId,
        group = type(group) == 'string' and group or nil,
        description = type(m.description) == 'string' and m.description or nil,
      })
    end
  else
    for _, o in ipairs(chat.config_options or {}) do
      if o.id == 'model' then
        current = o.currentValue
        for _, v in ipairs(o.options or {}) do
          table.insert(items, {
            id = v.value,
            name = (type(v.name) == 'string' and v.name ~= '') and v.name or v.value,
            group = type(v.group) == 'string' and v.group or nil,
            description = type(v.description) == 'string' and v.description or nil,
          })
        end
      end
    end
  end
  -- Stable grouping: groups in the order they first appear, the current
  -- model's group first and the current model at its top.
  local order, rank = {}, {}
  for _, it in ipairs(items) do
    local g = it.group or ''
    if rank[g] == nil then
      table.insert(order, g)
      rank[g] = #order
    end
    if it.id == current then
      rank[g] = 0
    end
  end
  for i, it in ipairs(items) do
    it.index = i
  end
  table.sort(items, function(a, b)
    if (a.id == current) ~= (b.id == current) then
      return a.id == current
    end
    local ra, rb = rank[a.group or ''], rank[b.group or '']
    if ra ~= rb then
      return ra < rb
    end
    return a.index < b.index
  end)
  for i, it in ipairs(items) do
    it.pos = i
  end
  return items, current
end

--- Switches the current chat's model; picks one when id is nil.
---@param id string?
function M.select_model(id)
  local chat = require('agent_lsp.chat').current(true)
  ---@cast chat -nil
  if id and id ~= '' then
    return chat:set_model(id)
  end
  chat:with_session(function()
    local items, current = M.model_items(chat)
    if #items == 0 then
      return notify('the agent lists no models; give one: :AgentModel <model-id>', vim.log.levels.WARN)
    end
    local gw, nw = 0, 0
    for _, it in ipairs(items) do
      gw = math.max(gw, vim.fn.strdisplaywidth(it.group or ''))
      nw = math.max(nw, vim.fn.strdisplaywidth(it.name))
    end
    vim.ui.select(items, {
      prompt = 'Agent model',
      kind = 'agent_lsp_model',
      format_item = function(it)
        local group = it.group or ''
        local parts = {}
        -- The built-in picker numbers its rows: from the tenth, "10: "
        -- is wider than "9: ", so rows 1-9 get a space to keep columns.
        if #items >= 10 and (it.pos or 10) < 10 then
          table.insert(parts, ' ')
        end
        if gw > 0 then
          table.insert(parts, group .. (' '):rep(gw - vim.fn.strdisplaywidth(group)) .. '  ')
        end
        table.insert(parts, it.name .. (' '):rep(nw - vim.fn.strdisplaywidth(it.name)))
        table.insert(parts, it.id == current and ' ●' or '  ')
        if it.description and it.description ~= '' then
          table.insert(parts, '  ' .. it.description)
        end
        return (table.concat(parts):gsub('%s+$', ''))
      end,
    }, function(choice)
      if choice then
        chat:set_model(choice.id)
      end
    end)
  end)
end

--- The chat's config option `id` (docs/protocol.md), or nil.
---@param chat agent_lsp.Chat
---@param id string
---@return table?
local function config_option(chat, id)
  for _, o in ipairs(chat.config_options or {}) do
    if o.id == id then
      return o
    end
  end
end

--- Switches the current chat's effort (the `effort` config option:
--- `auto` or a level); picks one when level is nil.
---@param level string?
function M.select_effort(level)
  local chat = require('agent_lsp.chat').current(true)
  ---@cast chat -nil
  if level and level ~= '' then
    return chat:set_config_option('effort', level, 'effort')
  end
  chat:with_session(function()
    local opt = config_option(chat, 'effort')
    if not opt or type(opt.options) ~= 'table' or #opt.options == 0 then
      return notify('the agent offers no effort choice; its model may not take one', vim.log.levels.WARN)
    end
    local nw = 0
    for _, v in ipairs(opt.options) do
      nw = math.max(nw, vim.fn.strdisplaywidth(v.name or v.value))
    end
    vim.ui.select(opt.options, {
      prompt = 'Agent effort',
      kind = 'agent_lsp_effort',
      format_item = function(v)
        local name = v.name or v.value
        local line = name .. (' '):rep(nw - vim.fn.strdisplaywidth(name)) .. (v.value == opt.currentValue and ' ●' or '  ')
        if type(v.description) == 'string' and v.description ~= '' then
          line = line .. '  ' .. v.description
        end
        return (line:gsub('%s+$', ''))
      end,
    }, function(choice)
      if choice then
        chat:set_config_option('effort', choice.value, 'effort')
      end
    end)
  end)
end

function M.permission()
  if not require('agent_lsp.permission').show({ focus = true }) then
    notify('no permission request is waiting')
  end
end

function M.stop()
  require('agent_lsp.client').stop()
end

return M
