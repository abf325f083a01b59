--- agent-lsp for Neovim: a coding agent behind Neovim's own LSP client.
---
--- Public API (the user commands call these):
---   setup(opts)             configure (optional; vim.g.agent_lsp works too)
---   chat(opts)              open the chat
---   prompt(text)            send a prompt (:Agent)
---   ask(buf, l1, l2, text)  send or attach a selection (:AgentAsk)
---   cancel()                cancel the running turn (:AgentCancel)
---   sessions()              pick and load a past session (:AgentSessions)
---   select_mode(id?)        switch mode (:AgentMode)
---   select_model(id?)       switch model (:AgentModel)
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

function M.new_chat()
  local chat = require('agent_lsp.chat').new()
  chat:show()
  return chat
end

function M.sessions()
  local chat = require('agent_lsp.chat').current(false)
  local root = chat and chat.root or require('agent_lsp.client').root()
  require('agent_lsp.sessions').pick(root)
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
    vim.ui.select(modes, {
      prompt = 'Agent mode',
      format_item = function(m)
        local cur = chat.modes and chat.modes.currentModeId == m.id and ' (current)' or ''
        return ('%s%s: %s'):format(m.name or m.id, cur, m.description or '')
      end,
    }, function(choice)
      if choice then
        chat:set_mode(choice.id)
      end
    end)
  end)
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
    local options = {}
    for _, o in ipairs(chat.config_options or {}) do
      if o.id == 'model' then
        options = o.options or {}
      end
    end
    if #options == 0 then
      return notify('the agent lists no models; give one: :AgentModel <model-id>', vim.log.levels.WARN)
    end
    vim.ui.select(options, {
      prompt = 'Agent model',
      format_item = function(o)
        return o.name and (o.name .. ' (' .. o.value .. ')') or o.value
      end,
    }, function(choice)
      if choice then
        chat:set_model(choice.value)
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
