-- The chat: cancel, tool calls folded, thinking collapsed, the plan as a
-- checklist, selections and @file as context, modes, notices.

--- The chat window (showing the current chat).
local function chat_win(h)
  local chat = require('agent_lsp').current_chat()
  h.ok(chat, 'a chat exists')
  ---@cast chat -nil
  local win = vim.fn.win_findbuf(chat.buf)[1]
  h.ok(win, 'the chat is shown in a window')
  return win, chat
end


--- The text of a model request's last user message.
local function last_user_text(req)
  for i = #req.messages, 1, -1 do
    local m = req.messages[i]
    if m.role == 'user' then
      if type(m.content) == 'string' then
        return m.content
      end
      local parts = {}
      for _, b in ipairs(m.content) do
        table.insert(parts, b.text or '')
      end
      return table.concat(parts, '\n')
    end
  end
  return ''
end

return {
  {
    name = 'cancel mid-stream returns stopReason cancelled',
    fn = function(h)
      h.workspace({ ['a.txt'] = 'a\n' })
      h.fakemodel({ { { text = 'waiting for the model...' }, { hang = true } } })
      h.setup()
      vim.cmd('Agent take your time')
      h.wait(function()
        return table.concat(h.chat_lines(), '\n'):find('waiting for the model', 1, true)
      end, 10000, 'the streamed text in the chat')
      h.ok(require('agent_lsp').current_chat().busy, 'the chat is busy')
      vim.cmd('AgentCancel')
      local turn = h.wait_turn(1, 10000)
      h.eq('cancelled', turn.stop_reason)
      h.ok(not require('agent_lsp').current_chat().busy, 'the chat is idle again')
      h.contains(h.chat_lines(), 'Cancelled.', 'the chat says the turn was cancelled')
    end,
  },
  {
    name = 'typing while a turn runs steers it',
    fn = function(h)
      local root = h.workspace({ ['a.txt'] = 'alpha\n' })
      local model = h.fakemodel({
        { { tool_use = { id = 'toolu_bash', name = 'Bash', input = { command = 'touch made-by-bash', description = 'Make a file' } } } },
        { { text = 'Made it, and hello.' } },
      })
      h.setup()
      vim.cmd('AgentChat')
      local chat = require('agent_lsp').current_chat()
      ---@cast chat -nil
      vim.api.nvim_buf_set_lines(chat.buf, -1, -1, false, { 'make a file' })
      vim.api.nvim_feedkeys(vim.keycode('<CR>'), 'x', false)
      -- The turn waits on a permission: type in the chat meanwhile.
      h.wait_permission()
      vim.api.nvim_feedkeys('q', 'x', false) -- answer later
      vim.api.nvim_set_current_win(vim.fn.win_findbuf(chat.buf)[1])
      vim.api.nvim_buf_set_lines(chat.buf, -1, -1, false, { 'also say hello' })
      vim.api.nvim_feedkeys(vim.keycode('<CR>'), 'x', false)
      h.wait(function()
        return table.concat(h.chat_lines(), '\n'):find('your message will be given', 1, true)
      end, 5000, 'the message queued')
      vim.cmd('AgentPermission')
      vim.api.nvim_feedkeys('y', 'x', false)
      h.expect_turn('end_turn', 15000)
      model.wait_requests(2)
      h.eq(2, #model.requests(), 'one turn: the message joined it')
      h.ok(vim.json.encode(model.requests()[2].messages):find('also say hello', 1, true), 'the message reached the model')
      h.wait(function()
        return table.concat(h.chat_lines(), '\n'):find('## You\nalso say hello', 1, true)
      end, 5000, 'the message shown as the user\'s')
      h.ok(vim.uv.fs_stat(root .. '/made-by-bash'), 'the command ran')
    end,
  },
  {
    name = 'the cancel key in the chat buffer cancels',
    fn = function(h)
      h.workspace({ ['a.txt'] = 'a\n' })
      h.fakemodel({ { { text = 'streaming...' }, { hang = true } } })
      h.setup()
      vim.cmd('AgentChat')
      vim.api.nvim_buf_set_lines(0, -1, -1, false, { 'a prompt typed in the chat' })
      vim.api.nvim_feedkeys(vim.keycode('<CR>'), 'x', false)
      h.wait(function()
        return table.concat(h.chat_lines(), '\n'):find('streaming...', 1, true)
      end, 10000, 'the streamed text')
      vim.api.nvim_feedkeys(vim.keycode('<C-c>'), 'x', false)
      h.expect_turn('cancelled', 10000)
      local lines = h.chat_lines()
      h.contains(lines, 'a prompt typed in the chat')
      h.eq('## You', lines[#lines - 1], 'a fresh input header at the end')
      h.eq('', lines[#lines], 'an empty input')
    end,
  },
  {
    name = 'tool calls are folded one-line summaries, thinking is collapsed, the plan is a checklist',
    fn = function(h)
      local root = h.workspace({ ['calc.py'] = 'x = 1\n' })
      h.fakemodel({
        {
          { thinking = 'Let me think.\nStep one.\nStep two.', signature = 'sig' },
          {
            tool_use = {
              id = 'toolu_todo',
              name = 'TodoWrite',
              input = {
                todos = {
                  { content = 'Read calc.py', status = 'completed', activeForm = 'Reading calc.py' },
                  { content = 'Fix the bug', status = 'in_progress', activeForm = 'Fixing the bug' },
                  { content = 'Run the tests', status = 'pending', activeForm = 'Running the tests' },
                },
              },
            },
          },
          -- Two calls in one message: updates of the first must not land
          -- on the second's lines.
          { tool_use = { id = 'toolu_read', name = 'Read', input = { file_path = root .. '/calc.py' } } },
        },
        { { text = 'All done.' } },
      })
      h.setup()
      vim.cmd('Agent plan it')
      h.expect_turn('end_turn')
      local win = chat_win(h)
      local lines = h.chat_lines()
      local text = table.concat(lines, '\n')
      h.contains(text, '- [x] Read calc.py')
      h.contains(text, '- [ ] Fix the bug ← in progress')
      h.contains(text, '- [ ] Run the tests')
      local thought = h.line_of(lines, '💭 Thinking')
      h.ok(thought, 'a thinking summary line')
      h.contains(text, 'Step two.', 'the thinking text is in the buffer')
      local read = h.line_of(lines, '✓ Read')
      h.ok(read, 'a Read summary line with its status: ' .. text)
      local todo = h.line_of(lines, '✓ Update plan')
      h.ok(todo, 'a TodoWrite summary line: ' .. text)
      h.ok(todo < read, 'the calls in their order')
      local count = 0
      for _, l in ipairs(lines) do
        if l:find('· done', 1, true) then
          count = count + 1
        end
      end
      h.eq(2, count, 'one summary line per tool call')
      h.contains(lines[read + 1], 'file_path: `calc.py`', 'the Read details follow its summary, the value as inline code')
      vim.api.nvim_win_call(win, function()
        h.eq(todo, vim.fn.foldclosed(todo), 'the TodoWrite details are folded closed')
        h.eq(read - 1, vim.fn.foldclosedend(todo), 'its fold ends before the Read')
        h.eq(thought, vim.fn.foldclosed(thought), 'the thinking is folded closed')
        h.eq(read, vim.fn.foldclosed(read), 'the Read details are folded closed')
        h.ok(vim.fn.foldclosedend(read) > read, 'the fold holds the details')
      end)
      h.contains(text, 'All done.')
    end,
  },
  {
    name = ':AgentAsk sends the selection as a resource with file and range; @file attaches a resource_link',
    fn = function(h)
      local root = h.workspace({
        ['calc.py'] = 'def total(v):\n    return sum(v)\n\ndef average(v):\n    return total(v) / 2\n',
        ['README.md'] = '# readme\n',
      })
      local model = h.fakemodel({ { { text = 'It divides by 2.' } }, { { text = 'Read it.' } } })
      h.setup()
      h.edit('calc.py')
      vim.cmd('4,5AgentAsk why is this wrong?')
      h.expect_turn('end_turn')
      local sent = h.sent_params('session/prompt')[1].prompt
      h.eq({ type = 'text', text = 'why is this wrong?' }, sent[1])
      h.eq({
        type = 'resource',
        resource = {
          uri = vim.uri_from_fname(root .. '/calc.py') .. '#L4-L5',
          mimeType = 'text/x-python',
          text = 'def average(v):\n    return total(v) / 2\n',
        },
      }, sent[2], 'the selection is a resource block with file and range')
      local got = last_user_text(model.wait_requests(1)[1])
      h.contains(got, 'why is this wrong?')
      h.contains(got, 'return total(v) / 2', 'the selection text reaches the model')

      vim.cmd('Agent see @README.md please')
      h.expect_turn('end_turn')
      local sent2 = h.sent_params('session/prompt')[2].prompt
      h.eq({
        type = 'resource_link',
        uri = vim.uri_from_fname(root .. '/README.md'),
        name = 'README.md',
      }, sent2[2], '@README.md is a resource_link')
      h.contains(last_user_text(model.wait_requests(2)[2]), 'README.md', 'the resource_link reaches the model')
      h.contains(table.concat(h.chat_lines(), '\n'), '📎 README.md', 'the chat shows the attachment')
      h.contains(table.concat(h.chat_lines(), '\n'), '📎 calc.py#L4-L5', 'and the selection')
    end,
  },
  {
    name = '@ mentions a folder and a line range; completion offers folders',
    fn = function(h)
      local root = h.workspace({ ['calc.py'] = 'a = 1\nb = 2\nc = 3\n', ['src/lib.py'] = 'x = 1\n' })
      local model = h.fakemodel({ { { text = 'ok' } } })
      h.setup()
      vim.cmd('AgentChat')
      local words = vim.tbl_map(function(it)
        return it.word
      end, require('agent_lsp.chat').omnifunc(0, 's'))
      h.contains(words, 'src/', 'completion offers the folder')
      h.contains(words, 'src/lib.py', 'and its files')
      vim.cmd('Agent see @src/ and @calc.py:2-3 please')
      h.expect_turn('end_turn')
      local sent = h.sent_params('session/prompt')[1].prompt
      local folder, lines
      for _, b in ipairs(sent) do
        if b.type == 'resource_link' and b.name == 'src/' then
          folder = b
        elseif b.type == 'resource' and b.resource.uri:find('#L2%-L3$') then
          lines = b
        end
      end
      h.ok(folder and folder.uri == vim.uri_from_fname(root .. '/src'), 'the folder is a resource_link: ' .. vim.inspect(sent))
      h.eq('b = 2\nc = 3', lines and lines.resource.text, 'the line range is a resource with those lines')
      local got = last_user_text(model.wait_requests(1)[1])
      h.contains(got, 'b = 2', 'the lines reach the model')
    end,
  },
  {
    name = '@shot.png sends the image file as an image',
    fn = function(h)
      local png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='
      local root = h.workspace({ ['a.txt'] = 'a\n' })
      local f = assert(io.open(root .. '/shot.png', 'wb'))
      f:write(vim.base64.decode(png))
      f:close()
      local model = h.fakemodel({ { { text = 'A pixel.' } } })
      h.setup()
      vim.cmd('Agent what is @shot.png')
      h.expect_turn('end_turn')
      local req = model.wait_requests(1)[1]
      local image
      for _, c in ipairs(req.messages[#req.messages].content) do
        if c.type == 'image' then
          image = c
        end
      end
      h.ok(image, 'the model got an image block: ' .. vim.inspect(req.messages[#req.messages].content))
      h.eq('image/png', image.source.media_type)
      h.eq(png, image.source.data)
      h.contains(table.concat(h.chat_lines(), '\n'), '🖼 shot.png (1 KB)', 'the chat names the image')
    end,
  },
  {
    name = ':AgentAsk without text attaches the selection to the next prompt typed in the chat',
    fn = function(h)
      h.workspace({ ['calc.py'] = 'a = 1\nb = 2\n' })
      local model = h.fakemodel({ { { text = 'ok' } } })
      h.setup()
      h.edit('calc.py')
      vim.cmd('2AgentAsk')
      local chat = require('agent_lsp').current_chat()
      h.eq(chat.buf, vim.api.nvim_get_current_buf(), 'the chat has the focus')
      vim.cmd('stopinsert')
      vim.api.nvim_buf_set_lines(0, -2, -1, false, { 'what is b?' })
      chat:submit_input()
      h.expect_turn('end_turn')
      local got = last_user_text(model.wait_requests(1)[1])
      h.contains(got, 'what is b?')
      h.contains(got, 'b = 2')
      local sent = h.sent_params('session/prompt')[1].prompt
      h.eq('what is b?', sent[1].text)
      h.eq('resource', sent[2].type)
      h.contains(sent[2].resource.uri, 'calc.py#L2-L2', 'the attached selection names file and range')
    end,
  },
  {
    name = ':AgentMode switches the mode with session/set_mode',
    fn = function(h)
      h.workspace({ ['a.txt'] = 'a\n' })
      h.fakemodel({})
      h.setup()
      vim.cmd('AgentMode plan')
      local chat = require('agent_lsp').current_chat()
      h.wait(function()
        return chat.modes and chat.modes.currentModeId == 'plan'
      end, 5000, 'the mode to be plan (session/set_mode answered)')
    end,
  },
  {
    name = ':AgentModel switches the model with session/set_model',
    fn = function(h)
      h.workspace({ ['a.txt'] = 'a\n' })
      local model = h.fakemodel({ { { text = 'hi' } } })
      h.setup()
      vim.cmd('AgentModel claude-opus-4-1')
      h.wait(function()
        return #h.sent_params('session/set_model') == 1
      end, 5000, 'session/set_model')
      vim.cmd('Agent hello')
      h.expect_turn('end_turn')
      h.eq('claude-opus-4-1', model.wait_requests(1)[1].model, 'the model call uses the new model')
    end,
  },
  {
    name = "the file and selection worked on go with the prompt, shown above the input; gx leaves them out",
    fn = function(h)
      local root = h.workspace({ ['calc.py'] = 'x = 1\ny = 2\nprint(x + y)\n' })
      local model = h.fakemodel({ { { text = 'one' } }, { { text = 'two' } }, { { text = 'three' } } })
      h.setup()
      h.edit('calc.py')
      vim.api.nvim_feedkeys('ggVj\27', 'x', false) -- select two lines, as typed
      vim.cmd('AgentChat')
      local chat = require('agent_lsp').current_chat()
      ---@cast chat -nil
      local function above_input()
        local out = {}
        for _, m in ipairs(vim.api.nvim_buf_get_extmarks(chat.buf, -1, 0, -1, { details = true })) do
          for _, vl in ipairs(m[4].virt_lines or {}) do
            table.insert(out, vl[1][1])
          end
        end
        return out
      end
      h.wait(function()
        return vim.tbl_contains(above_input(), '◌ calc.py:1-2')
      end, 5000, 'the selection to show above the input')
      h.contains(above_input(), '◌ calc.py', 'the open file shows above the input')
      local function first_message(i)
        local texts = {}
        for _, c in ipairs(model.wait_requests(i)[i].messages[#model.wait_requests(i)[i].messages].content) do
          table.insert(texts, c.text or '')
        end
        return table.concat(texts, '\n')
      end
      vim.cmd('Agent what does this do?')
      h.expect_turn('end_turn')
      local sent = first_message(1)
      h.ok(sent:find('The user opened the file ' .. root .. '/calc.py in the IDE', 1, true), sent)
      h.ok(sent:find('The user selected the lines 1 to 2 from ' .. root .. '/calc.py:\nx = 1\ny = 2', 1, true), sent)
      vim.cmd('Agent and now?')
      h.expect_turn('end_turn')
      sent = first_message(2)
      h.ok(sent:find('opened the file', 1, true), 'the open file goes again: ' .. sent)
      h.ok(not sent:find('selected the lines', 1, true), 'a selection goes once: ' .. sent)
      vim.api.nvim_set_current_win(vim.fn.win_findbuf(chat.buf)[1])
      vim.api.nvim_feedkeys('gx', 'x', false)
      h.not_contains(above_input(), '◌ calc.py', 'gx clears the chips')
      vim.cmd('Agent last one')
      h.expect_turn('end_turn')
      sent = first_message(3)
      h.ok(not sent:find('opened the file', 1, true), 'gx left the context out: ' .. sent)
    end,
  },
  {
    name = ':AgentEffort picks the effort the next model call asks',
    fn = function(h)
      h.workspace({ ['a.txt'] = 'a\n' })
      local model = h.fakemodel({ { { text = 'hi' } } })
      h.setup()
      vim.cmd('AgentModel claude-opus-4-6')
      local chat = require('agent_lsp').current_chat()
      local shown
      local select = vim.ui.select
      vim.ui.select = function(items, opts, on_choice)
        shown = vim.tbl_map(opts.format_item, items)
        for _, it in ipairs(items) do
          if it.value == 'low' then
            on_choice(it)
          end
        end
      end
      vim.cmd('AgentEffort')
      h.wait(function()
        return #h.sent_params('session/set_config_option') == 1
      end, 5000, 'session/set_config_option')
      vim.ui.select = select
      h.eq({ configId = 'effort', value = 'low' }, {
        configId = h.sent_params('session/set_config_option')[1].configId,
        value = h.sent_params('session/set_config_option')[1].value,
      })
      h.ok(shown and shown[1]:find('^Auto%s+●'), 'auto is current until picked: ' .. vim.inspect(shown))
      h.contains(shown, 'Extra high')
      h.wait(function()
        for _, o in ipairs(chat.config_options or {}) do
          if o.id == 'effort' then
            return o.currentValue == 'low'
          end
        end
      end, 5000, 'the effort option to say low')
      vim.cmd('Agent hello')
      h.expect_turn('end_turn')
      local req = model.wait_requests(1)[1]
      h.eq('low', (req.output_config or {}).effort, 'the model call asks the picked effort: ' .. vim.inspect({ model = req.model, thinking = req.thinking }))
    end,
  },
  {
    name = 'the mode and model pickers list what session/new announced',
    fn = function(h)
      h.workspace({ ['a.txt'] = 'a\n' })
      h.fakemodel({})
      h.setup()
      local chat = require('agent_lsp.chat').current(true)
      ---@cast chat -nil
      local done = false
      chat:with_session(function()
        done = true
      end)
      h.wait(function()
        return done
      end, 5000, 'session/new')
      h.ok(chat.modes and chat.modes.availableModes, 'session/new announced the modes (docs/protocol.md)')
      local ids = vim.tbl_map(function(m)
        return m.id
      end, chat.modes.availableModes)
      h.eq({ 'default', 'acceptEdits', 'plan', 'bypassPermissions', 'dontAsk' }, ids)
      h.eq('default', chat.modes.currentModeId)
      local models
      for _, o in ipairs(chat.config_options or {}) do
        if o.id == 'model' then
          models = o
        end
      end
      h.ok(models and #models.options > 0, 'session/new announced the model option (docs/protocol.md)')
    end,
  },
  {
    name = 'a retried model call shows an agent/status notice',
    fn = function(h)
      h.workspace({ ['a.txt'] = 'a\n' })
      h.fakemodel({ { { error = 529, retry_after = '0' } }, { { text = 'after the retry' } } })
      local notices = {}
      local orig = vim.notify
      vim.notify = function(msg, level)
        table.insert(notices, { msg = msg, level = level })
        return orig(msg, level)
      end
      h.setup()
      vim.cmd('Agent hello')
      h.expect_turn('end_turn', 20000)
      vim.notify = orig
      local text = table.concat(h.chat_lines(), '\n')
      h.contains(text, 'after the retry')
      h.contains(text, '⚠', 'the retry notice is in the chat')
      local warned = false
      for _, n in ipairs(notices) do
        if n.level == vim.log.levels.WARN and n.msg:find('retry', 1, true) then
          warned = true
        end
      end
      h.ok(warned, 'a WARN notification about the retry: ' .. vim.inspect(notices))
    end,
  },
  {
    name = ':AgentChat opens the chat in each layout; :AgentNew starts another chat',
    fn = function(h)
      h.workspace({ ['a.txt'] = 'a\n' })
      h.setup()
      local chat = require('agent_lsp').chat({ layout = 'float' })
      h.ok(vim.api.nvim_win_get_config(0).relative ~= '', 'a float')
      h.eq(chat.buf, vim.api.nvim_get_current_buf())
      vim.cmd('close')
      vim.cmd('AgentChat split')
      h.eq(chat.buf, vim.api.nvim_get_current_buf(), 'the same chat again')
      h.eq(vim.o.columns, vim.api.nvim_win_get_width(0), 'a horizontal split')
      vim.cmd('close')
      local tabs = #vim.api.nvim_list_tabpages()
      vim.cmd('AgentChat tab')
      h.eq(tabs + 1, #vim.api.nvim_list_tabpages(), 'a tab')
      vim.cmd('tabclose')
      vim.cmd('AgentNew')
      local other = require('agent_lsp').current_chat()
      h.ok(other and other.buf ~= chat.buf, 'a new chat buffer')
      h.eq({ '## You', '' }, vim.api.nvim_buf_get_lines(other.buf, 0, -1, false), 'an empty chat')
    end,
  },
}
