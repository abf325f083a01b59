-- Past sessions: listed with session/list, loaded with session/load (the
-- history replayed into a new chat), and a chat that outlives a sidecar
-- restart goes on with session/resume.

--- Whether any message of a model request holds text.
local function request_has(req, text)
  return vim.json.encode(req.messages or {}):find(text, 1, true) ~= nil
end

--- Stubs vim.ui.select to pick the first item for which pick(item) holds.
local function stub_select(h, pick)
  local seen = {}
  vim.ui.select = function(items, opts, on_choice)
    seen.items, seen.opts = items, opts
    for _, it in ipairs(items) do
      if pick(it) then
        seen.formatted = opts.format_item and opts.format_item(it)
        return vim.schedule(function()
          on_choice(it)
        end)
      end
    end
    h.fail('nothing to pick among ' .. vim.inspect(items))
  end
  return seen
end

return {
  {
    name = ':AgentSessions lists past sessions and loads one with its history',
    fn = function(h)
      h.workspace({ ['a.txt'] = 'a\n' })
      local model = h.fakemodel({ { { text = 'The answer is 42.' } }, { { text = 'Still 42.' } } })
      h.setup()
      vim.cmd('Agent what is the answer?')
      h.expect_turn('end_turn')
      local first = require('agent_lsp').current_chat()
      ---@cast first -nil
      local session_id = first.session_id
      h.ok(session_id, 'the first chat has a session')

      -- A new sidecar process: the session comes from disk.
      h.stop_clients()
      local old = vim.api.nvim_get_current_buf()
      vim.api.nvim_buf_delete(first.buf, { force = true })
      vim.api.nvim_set_current_buf(old)
      local loaded = false
      vim.api.nvim_create_autocmd('User', {
        pattern = 'AgentLspSessionLoaded',
        once = true,
        callback = function()
          loaded = true
        end,
      })
      local seen = stub_select(h, function(s)
        return s.sessionId == session_id
      end)
      vim.cmd('AgentSessions')
      h.wait(function()
        return loaded
      end, 10000, 'session/load to answer')
      h.contains(seen.formatted or '', 'what is the answer?', 'the picker shows the session title')
      local chat = require('agent_lsp.chat').by_session(session_id)
      h.ok(chat, 'a chat for the loaded session')
      ---@cast chat -nil
      h.ok(#vim.fn.win_findbuf(chat.buf) > 0, 'the loaded chat is shown')
      chat:flush()
      local text = table.concat(vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false), '\n')
      h.contains(text, 'what is the answer?', 'the replayed user message')
      h.contains(text, 'The answer is 42.', 'the replayed agent message')

      -- The loaded session goes on with its history.
      vim.cmd('Agent are you sure?')
      h.expect_turn('end_turn')
      local reqs = model.wait_requests(2)
      h.ok(request_has(reqs[2], 'The answer is 42.'), 'the model got the loaded history')
      h.contains(table.concat(h.chat_lines(), '\n'), 'Still 42.')
    end,
  },
  {
    name = 'a chat goes on after the sidecar restarts (session/resume)',
    fn = function(h)
      h.workspace({ ['a.txt'] = 'a\n' })
      local model = h.fakemodel({ { { text = 'First answer.' } }, { { text = 'Second answer.' } } })
      h.setup()
      vim.cmd('Agent first question')
      h.expect_turn('end_turn')
      local chat = require('agent_lsp').current_chat()
      ---@cast chat -nil
      local session_id = chat.session_id
      h.stop_clients()
      vim.cmd('Agent second question')
      h.expect_turn('end_turn')
      h.eq(session_id, chat.session_id, 'the same session')
      h.eq(1, #h.sent_params('session/resume'), 'resumed once')
      local reqs = model.wait_requests(2)
      h.ok(request_has(reqs[2], 'First answer.'), 'the model got the history')
      h.contains(table.concat(h.chat_lines(), '\n'), 'Second answer.')
    end,
  },
}
