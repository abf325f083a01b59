-- CodeCompanion (Neovim) with agent-lsp as its ACP agent: put this in
-- your CodeCompanion setup (lazy.nvim: the plugin spec's `opts`).
-- agent-lsp reads ANTHROPIC_API_KEY (or OPENAI_API_KEY) from the
-- environment Neovim started with; `agent-lsp doctor` checks the setup.
require('codecompanion').setup({
  adapters = {
    acp = {
      agent_lsp = function()
        return require('codecompanion.adapters').extend('claude_code', {
          name = 'agent_lsp',
          formatted_name = 'agent-lsp',
          commands = {
            default = { 'agent-lsp', 'acp' },
          },
          defaults = {
            auth_method = nil,
          },
          env = {},
        })
      end,
    },
  },
  strategies = {
    chat = { adapter = 'agent_lsp' },
  },
})
