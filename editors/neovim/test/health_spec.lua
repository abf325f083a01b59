-- :checkhealth agent_lsp reports Neovim, the binary, its version, the
-- provider configuration and the running client.
return {
  {
    name = 'installed as the lazy.nvim spec does (build = "make build"): the plugin runs its own bin/agent-lsp, and :checkhealth shows the doctor',
    fn = function(h)
      local lazy = assert(vim.env.LAZY_PLUGIN_DIR, 'LAZY_PLUGIN_DIR is not set')
      h.ok(vim.fn.exepath('agent-lsp') == '', 'agent-lsp is not on PATH')
      -- What the README's lazy spec does in config().
      for name in pairs(package.loaded) do
        if name:match('^agent_lsp') then
          package.loaded[name] = nil
        end
      end
      vim.opt.rtp:prepend(lazy .. '/editors/neovim')
      vim.cmd.runtime('plugin/agent_lsp.lua')
      h.workspace({ ['a.txt'] = 'a\n' })
      h.fakemodel({ { { text = 'hello from the bundled binary' } } })
      local home = vim.fn.tempname() .. '-home'
      require('agent_lsp').setup({
        cmd_env = {
          ANTHROPIC_API_KEY = 'test',
          ANTHROPIC_BASE_URL = h.model.url,
          AGENT_LSP_HOME = home,
          AGENT_LSP_NO_USER_SETTINGS = '1',
          HOME = home,
        },
      })
      local cmd, source = require('agent_lsp.config').command()
      h.ok(source == 'plugin' and cmd[1] == lazy .. '/bin/agent-lsp', 'cmd is the built binary: ' .. vim.inspect(cmd) .. ' ' .. source)
      vim.cmd('AgentChat')
      vim.cmd('Agent hi')
      h.expect_turn('end_turn')
      vim.cmd('checkhealth agent_lsp')
      local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
      h.contains(text, 'binary: ' .. lazy .. '/bin/agent-lsp (from plugin)')
      h.contains(text, 'agent-lsp doctor')
      h.contains(text, 'provider: anthropic, model claude-sonnet-4-5')
      h.contains(text, 'ripgrep: ')
      h.contains(text, 'sessions: ' .. home .. ' is writable')
      h.contains(text, 'trust: ')
    end,
  },
  {
    name = ':checkhealth agent_lsp reports the binary, its version and the provider',
    fn = function(h)
      h.workspace({ ['a.txt'] = 'a\n' })
      h.fakemodel({ { { text = 'hi' } } })
      h.setup()
      vim.cmd('Agent hi')
      h.expect_turn('end_turn')
      vim.cmd('checkhealth agent_lsp')
      local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
      h.contains(text, 'Neovim 0.10')
      h.contains(text, 'binary: ' .. vim.env.AGENT_LSP_BIN)
      h.contains(text, 'version: agent-lsp')
      h.contains(text, 'ANTHROPIC_API_KEY is set')
      h.contains(text, 'ANTHROPIC_BASE_URL = ' .. h.model.url)
      h.contains(text, 'protocol 1')
      h.not_contains(text, 'ERROR')
    end,
  },
  {
    name = 'a missing binary is an error in :checkhealth, and :Agent says what failed',
    fn = function(h)
      h.workspace({ ['a.txt'] = 'a\n' })
      local notes = {}
      local orig = vim.notify
      vim.notify = function(msg, level)
        table.insert(notes, { msg = msg, level = level })
      end
      require('agent_lsp').setup({ cmd = { '/nonexistent/agent-lsp' } })
      vim.cmd('checkhealth agent_lsp')
      local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
      h.contains(text, '/nonexistent/agent-lsp not found')
      vim.cmd('Agent hi')
      h.wait(function()
        for _, n in ipairs(notes) do
          if n.level == vim.log.levels.ERROR then
            return true
          end
        end
      end, 5000, 'an error notification')
      vim.notify = orig
      local turn = h.wait_turn(1, 5000)
      h.ok(turn.error, 'the turn ends with an error')
      h.ok(not require('agent_lsp').current_chat().busy, 'the chat is not left busy')
    end,
  },
  {
    name = 'setup() rejects wrong option types with the option name',
    fn = function(h)
      local ok, err = pcall(require('agent_lsp').setup, { chat = { layout = 'sideways' } })
      h.ok(not ok, 'setup fails')
      h.contains(tostring(err), 'chat.layout')
      ok, err = pcall(require('agent_lsp').setup, { cmd = 'agent-lsp' })
      h.ok(not ok, 'setup fails')
      h.contains(tostring(err), 'cmd')
      -- Lists replace the default whole.
      require('agent_lsp').setup({ cmd = { '/opt/agent-lsp' } })
      h.eq({ '/opt/agent-lsp' }, require('agent_lsp.config').get().cmd)
    end,
  },
}
