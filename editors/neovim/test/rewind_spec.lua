-- :AgentRewind: a checkpoint picked from session/checkpoints, the restore
-- picked, the preview confirmed, then session/rewind; a conversation
-- rewind drops the rewound turns from the chat.

--- Stubs vim.ui.select: each call takes the next of picks, a function
--- that returns the item to choose (nil cancels). Records what was shown.
local function stub_selects(h, picks)
  local seen = {}
  vim.ui.select = function(items, opts, on_choice)
    local pick = table.remove(picks, 1)
    if not pick then
      h.fail('an unexpected picker: ' .. tostring(opts.prompt))
    end
    local shown = {}
    for _, it in ipairs(items) do
      table.insert(shown, opts.format_item and opts.format_item(it) or tostring(it))
    end
    table.insert(seen, { prompt = opts.prompt, kind = opts.kind, items = shown })
    local choice = pick(items)
    local idx
    for i, it in ipairs(items) do
      if it == choice then
        idx = i
      end
    end
    vim.schedule(function()
      on_choice(choice, idx)
    end)
  end
  return seen
end

--- Two prompts: the first answers, the second creates b.txt.
local function two_turns(h, path)
  h.fakemodel({
    { { text = 'The first answer.' } },
    { { tool_use = { id = 'toolu_write', name = 'Write', input = { file_path = path, content = 'two\n' } } } },
    { { text = 'Written.' } },
  })
  h.setup()
  vim.cmd('Agent first question')
  h.expect_turn('end_turn')
  vim.cmd('Agent write it please')
  require('agent_lsp.permission').answer(h.wait_permission(), 'allow_once')
  h.expect_turn('end_turn')
  h.eq('two\n', h.read(path), 'the Write landed')
end

local function checkpoint(n)
  return function(items)
    for _, it in ipairs(items) do
      if it.checkpoint == n then
        return it
      end
    end
  end
end

local function restore(r)
  return function(items)
    for _, it in ipairs(items) do
      if it.restore == r then
        return it
      end
    end
  end
end

local function first(items)
  return items[1]
end

local function wait_rewound(h)
  local done
  vim.api.nvim_create_autocmd('User', {
    pattern = 'AgentLspRewound',
    once = true,
    callback = function(ev)
      done = ev.data
    end,
  })
  return function()
    return h.wait(function()
      return done
    end, 10000, 'the rewind to be applied')
  end
end

return {
  {
    name = 'rewinds code and conversation to before a prompt after a preview',
    fn = function(h)
      local root = h.workspace({ ['a.txt'] = 'one\n' })
      local path = root .. '/b.txt'
      two_turns(h, path)
      local seen = stub_selects(h, { checkpoint(2), restore('both'), first })
      local rewound = wait_rewound(h)
      vim.cmd('AgentRewind')
      local data = rewound()
      h.eq(2, data.checkpoint)
      h.eq(nil, vim.uv.fs_stat(path), 'b.txt is gone')

      -- The picker: newest first, number, time and the prompt's first line.
      h.eq('agent_lsp_checkpoint', seen[1].kind)
      h.contains(seen[1].items[1], 'write it please')
      h.ok(seen[1].items[1]:match('^2  %d%d%d%d%-%d%d%-%d%d %d%d:%d%d  write it please$'), seen[1].items[1])
      h.ok(seen[1].items[2]:match('^1  .*first question$'), seen[1].items[2])
      h.eq({ 'code and conversation', 'code only', 'conversation only' }, seen[2].items)
      -- The confirmation lists the file it will change.
      h.contains(seen[3].prompt, 'delete b.txt', 'the preview lists b.txt')
      h.eq({ 'Rewind', 'Cancel' }, seen[3].items)

      local sent = h.sent_params('session/rewind')
      h.eq(2, #sent, 'a preview then the rewind')
      h.eq(true, sent[1].preview)
      h.eq('both', sent[1].restore)
      h.eq(nil, sent[2].preview)
      h.eq(nil, sent[2].force, 'no force without conflicts')

      -- The chat dropped the rewound turn, kept the first, and the rewound
      -- prompt waits in the input.
      local chat = require('agent_lsp').current_chat()
      ---@cast chat -nil
      h.wait(function()
        return not chat.busy
      end, 10000, 'the reload')
      local lines = h.chat_lines()
      local text = table.concat(lines, '\n')
      h.contains(text, 'The first answer.')
      h.not_contains(text, 'Written.', 'the rewound answer is gone')
      local header = h.line_of(lines, '## You')
      local last_you
      for i, l in ipairs(lines) do
        if l == '## You' then
          last_you = i
        end
      end
      h.ok(header and last_you, 'an input header')
      h.eq('write it please', lines[last_you + 1], 'the rewound prompt is the draft')
      h.eq(1, #vim.tbl_filter(function(l)
        return l:find('first question', 1, true) ~= nil
      end, lines), 'the kept prompt shows once')
    end,
  },
  {
    name = 'a conflict is shown and overwritten only with force; code only keeps the chat',
    fn = function(h)
      local root = h.workspace({ ['a.txt'] = 'one\n' })
      local path = root .. '/b.txt'
      two_turns(h, path)
      h.write(path, 'mine\n')
      local seen = stub_selects(h, { checkpoint(2), restore('code'), first })
      local rewound = wait_rewound(h)
      vim.cmd('AgentRewind')
      rewound()
      h.eq(nil, vim.uv.fs_stat(path), 'b.txt is gone')
      h.contains(seen[3].prompt, 'Changed since by you')
      h.eq('Rewind, overwriting those changes', seen[3].items[1])
      local sent = h.sent_params('session/rewind')
      h.eq(true, sent[2].force, 'force after the user confirmed')
      h.eq('code', sent[2].restore)
      h.contains(table.concat(h.chat_lines(), '\n'), 'Written.', 'a code rewind keeps the conversation')
    end,
  },
  {
    name = 'cancelling the confirmation changes nothing',
    fn = function(h)
      local root = h.workspace({ ['a.txt'] = 'one\n' })
      local path = root .. '/b.txt'
      two_turns(h, path)
      local done = false
      stub_selects(h, {
        checkpoint(1),
        restore('both'),
        function()
          done = true
          return nil
        end,
      })
      vim.cmd('AgentRewind')
      h.wait(function()
        return done
      end, 10000, 'the confirmation')
      h.sleep(200)
      h.eq(1, #h.sent_params('session/rewind'), 'only the preview')
      h.eq('two\n', h.read(path))
      h.contains(table.concat(h.chat_lines(), '\n'), 'Written.')
    end,
  },
}
