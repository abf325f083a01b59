-- agent-lsp: a coding agent behind Neovim's built-in LSP client.
-- Defines the user commands and two autocommands; every module loads on
-- first use.
if vim.g.loaded_agent_lsp then
  return
end
vim.g.loaded_agent_lsp = true

if vim.fn.has('nvim-0.10') ~= 1 then
  vim.notify('agent-lsp needs Neovim 0.10 or newer', vim.log.levels.ERROR)
  return
end

local function api()
  return require('agent_lsp')
end

local command = vim.api.nvim_create_user_command

-- The editor's context that goes with a prompt (lua/agent_lsp/ambient.lua):
-- the last selection is noted when visual mode ends; entering a buffer
-- refreshes the chat's chips once the module is loaded.
local ambient_group = vim.api.nvim_create_augroup('agent_lsp_ambient', { clear = true })
vim.api.nvim_create_autocmd('ModeChanged', {
  group = ambient_group,
  pattern = '[vV\22]*:*',
  callback = function(args)
    if not (vim.v.event.new_mode or ''):match('^[vV\22]') then
      require('agent_lsp.ambient').left_visual(args.buf)
    end
  end,
})
vim.api.nvim_create_autocmd('BufEnter', {
  group = ambient_group,
  callback = function()
    if package.loaded['agent_lsp.ambient'] then
      require('agent_lsp.ambient').entered()
    end
  end,
})

command('AgentChat', function(o)
  api().chat({ layout = o.args ~= '' and o.args or nil })
end, {
  nargs = '?',
  complete = function()
    return { 'vsplit', 'split', 'float', 'tab' }
  end,
  desc = 'agent-lsp: open the chat (layout: vsplit, split, float, tab)',
})

command('Agent', function(o)
  api().prompt(o.args)
end, { nargs = '+', desc = 'agent-lsp: send a prompt (@path attaches a file)' })

command('AgentAsk', function(o)
  api().ask(vim.api.nvim_get_current_buf(), o.line1, o.line2, o.args)
end, {
  nargs = '*',
  range = true,
  desc = 'agent-lsp: ask about the selected lines (without text: attach them to the next prompt)',
})

command('AgentCancel', function()
  api().cancel()
end, { desc = 'agent-lsp: cancel the running turn' })

command('AgentNew', function()
  api().new_chat()
end, { desc = 'agent-lsp: start a new chat' })

command('AgentSessions', function()
  api().sessions()
end, { desc = 'agent-lsp: load a past chat from the Chat history' })

command('AgentHistory', function()
  api().sessions()
end, { desc = 'agent-lsp: load a past chat from the Chat history (same as :AgentSessions)' })

command('AgentRewind', function()
  api().rewind()
end, { desc = 'agent-lsp: rewind the code, the conversation or both to before a prompt' })

command('AgentMode', function(o)
  api().select_mode(o.args)
end, {
  nargs = '?',
  complete = function()
    local chat = api().current_chat()
    local modes = (chat and chat.modes and chat.modes.availableModes) or require('agent_lsp.methods').default_modes
    return vim.tbl_map(function(m)
      return m.id
    end, modes)
  end,
  desc = 'agent-lsp: switch the session mode',
})

command('AgentModel', function(o)
  api().select_model(o.args)
end, { nargs = '?', desc = 'agent-lsp: switch the model' })

command('AgentEffort', function(o)
  api().select_effort(o.args)
end, {
  nargs = '?',
  complete = function()
    return { 'auto', 'low', 'medium', 'high', 'xhigh', 'max' }
  end,
  desc = 'agent-lsp: switch how much effort the model spends',
})

command('AgentPermission', function()
  api().permission()
end, { desc = 'agent-lsp: show the pending permission request' })

command('AgentStop', function()
  api().stop()
end, { desc = 'agent-lsp: stop the sidecar' })
