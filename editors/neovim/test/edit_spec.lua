-- Edits through the editor: unsaved text reaches the agent, approved edits
-- land in buffers (saved only when the buffer was clean), rejected ones
-- do not land.
local CALC = 'def average(values):\n    return sum(values) / 2\n'

--- Turns: Read the file, Edit it, then say done.
local function read_edit_turns(path, old, new)
  return {
    { { text = "I'll read it." }, { tool_use = { id = 'toolu_read', name = 'Read', input = { file_path = path } } } },
    {
      {
        tool_use = {
          id = 'toolu_edit',
          name = 'Edit',
          input = { file_path = path, old_string = old, new_string = new },
        },
      },
    },
    { { text = 'Done.' } },
  }
end

--- The tool_result the model got for a tool_use id, as text.
local function tool_result(reqs, id)
  for _, req in ipairs(reqs) do
    for _, msg in ipairs(req.messages or {}) do
      if type(msg.content) == 'table' then
        for _, block in ipairs(msg.content) do
          if block.type == 'tool_result' and block.tool_use_id == id then
            local c = block.content
            if type(c) == 'table' then
              local parts = {}
              for _, p in ipairs(c) do
                table.insert(parts, p.text or '')
              end
              c = table.concat(parts)
            end
            return tostring(c), block.is_error
          end
        end
      end
    end
  end
end

--- Waits until the model got the result of a tool call (the fake model
--- writes its log every 50 ms).
local function wait_result(h, model, id)
  local result, is_error
  h.wait(function()
    result, is_error = tool_result(model.requests(), id)
    return result
  end, 5000, 'the model to get the result of ' .. id)
  return result, is_error
end

return {
  {
    name = 'unsaved text reaches the agent; an approved edit lands in the buffer, not on disk',
    fn = function(h)
      local root = h.workspace({ ['calc.py'] = CALC })
      local path = root .. '/calc.py'
      local model = h.fakemodel(read_edit_turns(path, '/ 2', '/ len(values)'))
      h.setup()
      local buf = h.edit('calc.py')
      -- Unsaved work: a line only the buffer has.
      vim.api.nvim_buf_set_lines(buf, 0, 0, false, { '# UNSAVED-MARKER' })
      h.ok(vim.bo[buf].modified, 'the buffer has unsaved changes')

      vim.cmd('Agent why is average wrong?')
      local req = h.wait_permission()
      h.eq('toolu_edit', req.params.toolCall.toolCallId, 'the permission is for the Edit')
      -- The Read saw the buffer, not the disk.
      local got = h.wait(function()
        return tool_result(model.requests(), 'toolu_read')
      end, 5000, 'the model to get the Read result')
      h.contains(got, 'UNSAVED-MARKER', 'the Read result holds the unsaved text')

      -- The prompt is a float showing the diff; approve with its key.
      local win = vim.api.nvim_get_current_win()
      h.ok(vim.api.nvim_win_get_config(win).relative ~= '', 'the permission float has the focus')
      local shown = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
      h.contains(shown, '+    return sum(values) / len(values)', 'the float shows the diff')
      vim.api.nvim_feedkeys('y', 'x', false)

      local turn = h.wait_turn()
      h.eq('end_turn', turn.stop_reason)
      local text = h.buf_text(buf)
      h.contains(text, '/ len(values)', 'the edit is in the buffer')
      h.contains(text, '# UNSAVED-MARKER', 'the unsaved line is still there')
      h.ok(vim.bo[buf].modified, 'the buffer still has unsaved changes (not saved)')
      h.eq(CALC, h.read(path), 'the disk is unchanged')
      local result, is_error = wait_result(h, model, 'toolu_edit')
      h.ok(result and not is_error, 'the Edit succeeded: ' .. tostring(result))

      local chat = table.concat(h.chat_lines(), '\n')
      h.contains(chat, '## You')
      h.contains(chat, 'why is average wrong?')
      h.contains(chat, "I'll read it.")
      h.contains(chat, '✓ Edit', 'the Edit tool call is summarized as completed')
      h.contains(chat, 'Done.')
    end,
  },
  {
    name = "the agent gets the editor's diagnostics of an edited buffer (agent/diagnostics)",
    fn = function(h)
      local root = h.workspace({ ['calc.py'] = CALC })
      local path = root .. '/calc.py'
      local model = h.fakemodel(read_edit_turns(path, '/ 2', '/ count'))
      h.setup()
      local buf = h.edit('calc.py')
      -- A linter that reports, a little after each change, names it does
      -- not know.
      local ns = vim.api.nvim_create_namespace('fake_linter')
      local function lint()
        local diags = {}
        for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
          local col = line:find('count', 1, true)
          if col then
            table.insert(diags, {
              lnum = i - 1,
              col = col - 1,
              severity = vim.diagnostic.severity.ERROR,
              message = '"count" is not defined',
              source = 'fakelint',
            })
          end
        end
        vim.diagnostic.set(ns, buf, diags)
      end
      lint()
      vim.api.nvim_buf_attach(buf, false, {
        on_lines = function()
          vim.defer_fn(lint, 100)
        end,
      })
      vim.cmd('Agent divide by the count')
      require('agent_lsp.permission').answer(h.wait_permission(), 'allow_once')
      h.expect_turn('end_turn')
      local result, is_error = wait_result(h, model, 'toolu_edit')
      h.ok(not is_error, 'the Edit succeeded')
      h.contains(result, 'calc.py:2:26: error: "count" is not defined [fakelint]', 'the Edit result carries the editor diagnostic')
    end,
  },
  {
    name = 'an approved edit of a clean buffer is saved',
    fn = function(h)
      local root = h.workspace({ ['calc.py'] = CALC })
      local path = root .. '/calc.py'
      local model = h.fakemodel(read_edit_turns(path, '/ 2', '/ len(values)'))
      h.setup()
      local buf = h.edit('calc.py')
      vim.cmd('Agent fix average')
      local req = h.wait_permission()
      require('agent_lsp.permission').answer(req, 'allow_once')
      h.expect_turn('end_turn')
      h.eq('def average(values):\n    return sum(values) / len(values)\n', h.read(path), 'the disk has the edit')
      h.ok(not vim.bo[buf].modified, 'the buffer is saved')
      h.eq(h.read(path), h.buf_text(buf), 'buffer and disk agree')
      local _, is_error = wait_result(h, model, 'toolu_edit')
      h.ok(not is_error, 'the Edit succeeded')
    end,
  },
  {
    name = 'an edit of a file not open in Neovim loads it, attaches it and saves it',
    fn = function(h)
      local root = h.workspace({ ['calc.py'] = CALC, ['main.py'] = 'print(1)\n' })
      local path = root .. '/calc.py'
      h.fakemodel(read_edit_turns(path, '/ 2', '/ len(values)'))
      h.setup()
      h.edit('main.py')
      vim.cmd('Agent fix average in calc.py')
      require('agent_lsp.permission').answer(h.wait_permission(), 'allow_once')
      h.expect_turn('end_turn')
      h.eq('def average(values):\n    return sum(values) / len(values)\n', h.read(path), 'the disk has the edit')
      local buf = vim.fn.bufnr(path)
      h.ok(buf > 0 and vim.api.nvim_buf_is_loaded(buf), 'the edited file has a loaded buffer')
      h.ok(not vim.bo[buf].modified, 'and it is saved')
      local client = h.client()
      h.ok(vim.lsp.buf_is_attached(buf, client.id), 'the edited buffer is attached to agent-lsp (didChange flows)')
    end,
  },
  {
    name = 'a rejected edit leaves the buffer alone and the model is told',
    fn = function(h)
      local root = h.workspace({ ['calc.py'] = CALC })
      local path = root .. '/calc.py'
      local model = h.fakemodel(read_edit_turns(path, '/ 2', '/ len(values)'))
      h.setup()
      local buf = h.edit('calc.py')
      vim.cmd('Agent fix average')
      h.wait_permission()
      vim.api.nvim_feedkeys('n', 'x', false)
      h.expect_turn('end_turn')
      h.eq(CALC, h.buf_text(buf), 'the buffer is unchanged')
      h.ok(not vim.bo[buf].modified, 'the buffer is not modified')
      h.eq(CALC, h.read(path), 'the disk is unchanged')
      local result, is_error = wait_result(h, model, 'toolu_edit')
      h.ok(is_error, 'the Edit result is an error')
      h.contains(result, 'rejected', 'the model is told the user rejected it')
      h.contains(table.concat(h.chat_lines(), '\n'), '✗ Edit', 'the chat shows the Edit failed')
    end,
  },
  {
    name = 'a proposal changed in the review is applied as edited text',
    fn = function(h)
      local root = h.workspace({ ['calc.py'] = CALC })
      local path = root .. '/calc.py'
      local model = h.fakemodel(read_edit_turns(path, '/ 2', '/ len(values)'))
      h.setup()
      h.edit('calc.py')
      vim.cmd('Agent fix average')
      h.wait_permission()
      vim.api.nvim_feedkeys('d', 'x', false) -- review: a diff tab
      h.ok(vim.wo.diff, 'the review is a diff')
      h.contains(vim.api.nvim_buf_get_name(0), 'calc.py (proposed)', 'the cursor is in the proposal, named for the tab label')
      vim.api.nvim_buf_set_lines(0, 1, 2, false, { '    return sum(values) / max(len(values), 1)' })
      vim.api.nvim_feedkeys('y', 'x', false)
      h.expect_turn('end_turn')
      h.eq('def average(values):\n    return sum(values) / max(len(values), 1)\n', h.read(path), 'the edited text is saved')
      local result = wait_result(h, model, 'toolu_edit')
      h.contains(result, 'changed', 'the model is told the user changed the edit')
    end,
  },
  {
    name = 'an edit made for an older version of a buffer is refused, not skipped',
    fn = function(h)
      local root = h.workspace({ ['calc.py'] = CALC })
      h.fakemodel({ { { text = 'hi' } } })
      h.setup()
      local buf = h.edit('calc.py')
      vim.cmd('Agent hi')
      h.expect_turn('end_turn')
      local client = h.client()
      local uri = vim.uri_from_fname(root .. '/calc.py')
      vim.api.nvim_buf_set_lines(buf, 0, 0, false, { '# typed after the agent read it' })
      local version = vim.lsp.util.buf_versions[buf]
      local edit = function(v)
        return {
          label = 'Agent: Edit calc.py',
          edit = {
            documentChanges = {
              {
                textDocument = { uri = uri, version = v },
                edits = { { range = { start = { line = 0, character = 0 }, ['end'] = { line = 0, character = 0 } }, newText = 'x = 1\n' } },
              },
            },
          },
        }
      end
      local res = require('agent_lsp.edits').apply(nil, edit(version - 1), { client_id = client.id, method = 'workspace/applyEdit' })
      h.eq(false, res.applied, 'refused')
      h.contains(res.failureReason, 'changed in the editor')
      h.eq('# typed after the agent read it', vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1], 'the buffer is untouched')
      res = require('agent_lsp.edits').apply(nil, edit(version), { client_id = client.id, method = 'workspace/applyEdit' })
      h.eq(true, res.applied, 'the current version applies')
      h.eq('x = 1', vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1])
      h.ok(vim.bo[buf].modified, 'unsaved work stays unsaved')
    end,
  },
  {
    name = 'a prompt without a model key ends with the error the agent gives',
    fn = function(h)
      h.workspace({ ['a.txt'] = 'a\n' })
      h.setup({ cmd_env = { ANTHROPIC_API_KEY = '' } })
      vim.cmd('Agent hello')
      local turn = h.wait_turn()
      h.ok(turn.error, 'the turn ended with an error')
      h.contains(turn.error, 'ANTHROPIC_API_KEY', 'the error says what to set')
      h.contains(table.concat(h.chat_lines(), '\n'), 'ANTHROPIC_API_KEY', 'the chat shows it')
      h.ok(not require('agent_lsp').current_chat().busy, 'the chat is ready again')
    end,
  },
  {
    name = 'keys typed while an edit waits for approval are not overwritten: the agent is told to read again',
    fn = function(h)
      local root = h.workspace({ ['calc.py'] = CALC })
      local path = root .. '/calc.py'
      local model = h.fakemodel(read_edit_turns(path, '/ 2', '/ len(values)'))
      h.setup()
      local buf = h.edit('calc.py')
      vim.cmd('Agent fix average')
      local req = h.wait_permission()
      -- Typed just now: still inside the client's didChange debounce.
      vim.api.nvim_buf_set_lines(buf, 0, 0, false, { '# typed while the prompt waited' })
      require('agent_lsp.permission').answer(req, 'allow_once')
      h.expect_turn('end_turn')
      local result, is_error = wait_result(h, model, 'toolu_edit')
      h.ok(is_error, 'the edit is refused: ' .. tostring(result))
      h.contains(result, 'changed', 'the model is told the file changed')
      h.eq('# typed while the prompt waited\n' .. CALC, h.buf_text(buf), 'the typed text is intact')
      h.eq(CALC, h.read(path), 'nothing written')
    end,
  },
}
