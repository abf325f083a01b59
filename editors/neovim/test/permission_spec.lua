-- Permission prompts never block and never get lost: the editor runs on
-- while one waits, typing is not interrupted, and a request outlives its
-- float and the chat window.
local function bash_turns()
  return {
    { { tool_use = { id = 'toolu_bash', name = 'Bash', input = { command = 'touch made-by-bash', description = 'Make a file' } } } },
    { { text = 'Made it.' } },
  }
end

return {
  {
    name = 'a pending request survives closing its float and the chat window',
    fn = function(h)
      local root = h.workspace({ ['a.txt'] = 'a\n' })
      h.fakemodel(bash_turns())
      h.setup()
      vim.cmd('AgentChat')
      vim.cmd('Agent make a file')
      local req = h.wait_permission()
      h.eq('toolu_bash', req.params.toolCall.toolCallId)
      local float = vim.api.nvim_get_current_win()
      h.ok(vim.api.nvim_win_get_config(float).relative ~= '', 'the float has the focus')
      h.contains(vim.api.nvim_buf_get_lines(0, 0, -1, false), 'touch made-by-bash', 'the float shows the command (from the agent content)')
      vim.api.nvim_feedkeys('q', 'x', false) -- answer later
      h.ok(not vim.api.nvim_win_is_valid(float), 'the float is closed')
      local chat = require('agent_lsp').current_chat()
      ---@cast chat -nil
      for _, win in ipairs(vim.fn.win_findbuf(chat.buf)) do
        vim.api.nvim_win_close(win, true)
      end
      -- The editor goes on: a timer fires, buffers can be edited.
      local fired = false
      vim.defer_fn(function()
        fired = true
      end, 50)
      h.wait(function()
        return fired
      end, 2000, 'a timer while the request waits')
      h.eq(1, #require('agent_lsp.permission').pending(), 'the request is still pending')
      h.ok(chat.busy, 'the turn is still running')
      h.contains(table.concat(vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false), '\n'), 'waiting for your approval')

      vim.cmd('AgentPermission')
      h.ok(vim.api.nvim_win_get_config(0).relative ~= '', 'the prompt is back, focused')
      vim.api.nvim_feedkeys('y', 'x', false)
      h.expect_turn('end_turn')
      h.ok(vim.uv.fs_stat(root .. '/made-by-bash'), 'the command ran')
    end,
  },
  {
    name = 'a request arriving while typing in insert mode does not take the keys',
    fn = function(h)
      h.workspace({ ['notes.txt'] = '' })
      h.fakemodel(bash_turns())
      h.setup()
      local buf = h.edit('notes.txt')
      local win = vim.api.nvim_get_current_win()
      -- A headless case cannot sit in insert mode while the event loop runs;
      -- the plugin asks nvim_get_mode, so that is what the user "does".
      local get_mode = vim.api.nvim_get_mode
      vim.api.nvim_get_mode = function()
        return { mode = 'i', blocking = false }
      end
      local notes = {}
      local notify = vim.notify
      vim.notify = function(msg, level)
        table.insert(notes, msg)
      end
      vim.cmd('Agent make a file')
      h.wait(function()
        return #require('agent_lsp.permission').pending() > 0
      end, 10000, 'a permission request')
      vim.api.nvim_get_mode = get_mode
      vim.notify = notify
      h.eq(win, vim.api.nvim_get_current_win(), 'the focus stays where the user types')
      h.contains(table.concat(notes, '\n'), ':AgentPermission', 'the user is told how to answer')
      local float
      for _, w in ipairs(vim.api.nvim_list_wins()) do
        if vim.api.nvim_win_get_config(w).relative ~= '' then
          float = w
        end
      end
      h.ok(float, 'the prompt is shown, without the focus')
      vim.api.nvim_feedkeys('ihello world', 'tx', false)
      h.eq({ 'hello world' }, vim.api.nvim_buf_get_lines(buf, 0, -1, false), 'typing went to the buffer')
      h.eq(1, #require('agent_lsp.permission').pending(), 'still pending: the typed keys answered nothing')
      require('agent_lsp.permission').answer(require('agent_lsp.permission').pending()[1], 'reject_once')
      h.expect_turn('end_turn')
    end,
  },
  {
    name = 'cancelling the turn resolves its pending request',
    fn = function(h)
      h.workspace({ ['a.txt'] = 'a\n' })
      h.fakemodel(bash_turns())
      h.setup()
      vim.cmd('Agent make a file')
      h.wait_permission()
      vim.cmd('AgentCancel')
      h.expect_turn('cancelled')
      h.eq(0, #require('agent_lsp.permission').pending(), 'no request left pending')
      h.eq('', vim.api.nvim_win_get_config(0).relative, 'the float is gone')
    end,
  },
  {
    name = "permission.ui = 'select' answers through vim.ui.select",
    fn = function(h)
      local root = h.workspace({ ['a.txt'] = 'a\n' })
      h.fakemodel(bash_turns())
      h.setup({ permission = { ui = 'select' } })
      local offered
      vim.ui.select = function(items, opts, on_choice)
        offered = vim.tbl_map(opts.format_item, items)
        vim.schedule(function()
          on_choice(items[1])
        end)
      end
      vim.cmd('Agent make a file')
      h.expect_turn('end_turn')
      h.ok(offered and offered[1] == 'Allow', 'the options are offered by name: ' .. vim.inspect(offered))
      h.ok(vim.uv.fs_stat(root .. '/made-by-bash'), 'the command ran')
    end,
  },
  {
    name = 'a folder trust request shows its question; trusting turns the folder hooks on',
    fn = function(h)
      local root = h.workspace({
        ['.claude/settings.json'] = vim.json.encode({
          hooks = { UserPromptSubmit = { { hooks = { { type = 'command', command = 'touch hook-ran' } } } } },
        }),
      })
      h.fakemodel({ { { text = 'Hello.' } } })
      h.setup()
      vim.cmd('Agent hello')
      local req = h.wait_permission()
      h.ok(require('agent_lsp.permission').is_trust(req), 'marked as a trust request')
      local float = vim.api.nvim_get_current_win()
      local cfg = vim.api.nvim_win_get_config(float)
      local title = type(cfg.title) == 'table' and cfg.title[1][1] or tostring(cfg.title)
      h.contains(title, 'Trust the folder ' .. root .. '? Its .claude/settings.json has 1 hook that runs code', 'the float title is the question')
      local footer = type(cfg.footer) == 'table' and cfg.footer[1][1] or tostring(cfg.footer)
      h.contains(footer, 'a Trust this folder', 'the footer names the trust option')
      h.contains(footer, 'n Not now', 'the footer names the refusal')
      h.ok(not vim.uv.fs_stat(root .. '/hook-ran'), 'no hook ran before trust')
      vim.api.nvim_feedkeys('a', 'x', false)
      h.expect_turn('end_turn')
      h.ok(vim.uv.fs_stat(root .. '/hook-ran'), 'the hook ran once trusted')
    end,
  },
  {
    name = 'a plan is changed in its buffer and approved: the model follows it as changed',
    fn = function(h)
      h.workspace({ ['a.txt'] = 'a\n' })
      local model = h.fakemodel({
        { { tool_use = { id = 'toolu_plan', name = 'ExitPlanMode', input = { plan = '1. Rename a.\n2. Test it.' } } } },
        { { text = 'Following the plan.' } },
      })
      h.setup()
      vim.cmd('AgentMode plan')
      local chat = require('agent_lsp').current_chat()
      ---@cast chat -nil
      h.wait(function()
        return chat.modes and chat.modes.currentModeId == 'plan'
      end, 5000, 'plan mode')
      vim.cmd('Agent plan the rename')
      local req = h.wait_permission()
      h.eq('switch_mode', req.params.toolCall.kind)
      h.contains(vim.api.nvim_buf_get_lines(0, 0, -1, false), '1. Rename a.', 'the float shows the plan')
      vim.api.nvim_feedkeys('d', 'x', false)
      local buf = vim.api.nvim_get_current_buf()
      h.eq('markdown', vim.bo[buf].filetype, 'the plan is a markdown buffer')
      h.eq({ '1. Rename a.', '2. Test it.' }, vim.api.nvim_buf_get_lines(buf, 0, -1, false))
      vim.api.nvim_buf_set_lines(buf, -1, -1, false, { '3. USER STEP: update the docs.' })
      vim.cmd('write')
      h.wait(function()
        return vim.api.nvim_win_get_config(0).relative ~= ''
      end, 5000, 'writing the plan to bring the question back, focused')
      h.contains(vim.api.nvim_buf_get_lines(0, 0, -1, false), '3. USER STEP: update the docs.', 'the question shows the changed plan')
      vim.api.nvim_feedkeys('y', 'x', false)
      h.expect_turn('end_turn')
      local reqs = model.wait_requests(2)
      h.ok(vim.json.encode(reqs[2].messages):find('USER STEP', 1, true), 'the model got the plan as changed')
      h.wait(function()
        return chat.modes.currentModeId == 'default'
      end, 5000, 'the approval to switch to default mode')
      h.ok(not vim.api.nvim_buf_is_valid(buf), 'the plan buffer is gone')
    end,
  },
}
