-- What the user reads (issue 26): approvals in the agent's words and
-- recorded in the chat, tool output as markdown that never breaks the
-- chat's highlighting, the agent's headings under the role headers, the
-- no-model state at start, errors without protocol method names, one chat
-- window, pickers with display names. Most cases feed the contract's
-- messages (docs/protocol.md) straight to the plugin, so they hold whatever
-- the sidecar of the day sends.

-- engine.NoProviderMessage (the runner loads specs before the plugin is on
-- the runtimepath).
local NO_MODEL = 'No model is configured. Set ANTHROPIC_API_KEY, or OPENAI_API_KEY with OPENAI_BASE_URL'
  .. ' for an OpenAI-compatible server; `agent-lsp doctor` checks the setup.'

--- A chat bound to a made-up session, shown in a window.
local function bound_chat(h, id)
  h.workspace({ ['calc.go'] = 'package calc\n' })
  h.setup()
  local chat = require('agent_lsp.chat').new(h.root)
  chat:_bind(id or 's1')
  chat:show()
  return chat
end

local updates = require('harness').updates


--- The fence lines (``` or ~~~ runs at the start) of lines.
local function fences(lines)
  local out = {}
  for _, l in ipairs(lines) do
    local f = l:match('^(```+)') or l:match('^(~~~+)')
    if f then
      table.insert(out, l)
    end
  end
  return out
end

--- A permission request as the contract words it.
local function edit_request(root)
  return {
    sessionId = 's1',
    toolCall = {
      toolCallId = 'toolu_edit',
      title = 'Edit calc.go',
      kind = 'edit',
      status = 'pending',
      locations = { { path = root .. '/calc.go' } },
      content = { { type = 'diff', path = root .. '/calc.go', oldText = 'a - b\n', newText = 'a + b\n' } },
      _meta = { ['agent-lsp'] = { description = 'Fix the sign in Add' } },
    },
    options = {
      { optionId = 'allow_once', name = 'Allow', kind = 'allow_once' },
      {
        optionId = 'allow_always',
        name = 'Always allow edits to calc.go',
        kind = 'allow_always',
        _meta = { ['agent-lsp'] = { rule = 'Edit(/calc.go)' } },
      },
      { optionId = 'reject_once', name = 'Reject', kind = 'reject_once' },
    },
  }
end

--- Runs the plugin's session/request_permission handler as the built-in
--- client does (in a coroutine); returns a function giving the answer.
local function request(params)
  local result
  local co = coroutine.create(function()
    result = require('agent_lsp.permission').request(params, { client_id = 0, method = 'session/request_permission' })
  end)
  assert(coroutine.resume(co))
  return function()
    return result
  end
end

local function float_config(h)
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    local cfg = vim.api.nvim_win_get_config(w)
    if cfg.relative ~= '' then
      local function text(v)
        if type(v) == 'table' then
          return table.concat(vim.tbl_map(function(c)
            return c[1]
          end, v))
        end
        return tostring(v)
      end
      return { title = text(cfg.title), footer = text(cfg.footer), win = w, buf = vim.api.nvim_win_get_buf(w) }
    end
  end
  h.fail('no permission float')
end

return {
  {
    name = 'the approval float shows the action, the description and the option names exactly',
    fn = function(h)
      local chat = bound_chat(h)
      local answer = request(edit_request(h.root))
      local f = float_config(h)
      h.eq(' Edit calc.go ', f.title, 'the title is the action as the agent words it')
      h.not_contains(f.title, 'wants to')
      h.contains(f.footer, 'y Allow ')
      h.contains(f.footer, 'a Always allow edits to calc.go')
      h.contains(f.footer, 'n Reject')
      h.not_contains(f.footer, 'Edit(/calc.go)', 'the rule is not a button label')
      local lines = vim.api.nvim_buf_get_lines(f.buf, 0, -1, false)
      h.eq('Fix the sign in Add', lines[1], "the model's description is the secondary line")
      h.contains(lines, '+a + b', 'the diff follows')
      h.not_contains(table.concat(lines, '\n'), '--- a/', 'no raw diff header: the title names the file')
      h.not_contains(table.concat(lines, '\n'), '+++ b/', 'no raw diff header')
      vim.api.nvim_set_current_win(f.win)
      vim.api.nvim_feedkeys('a', 'x', false)
      h.wait(answer, 2000, 'the answer')
      h.eq({ outcome = 'selected', optionId = 'allow_always' }, answer().outcome)
      -- Recorded in the chat at once, from the local answer.
      local text = table.concat(updates(chat, {}), '\n')
      h.contains(text, '  Allowed: Always allow edits to calc.go')
    end,
  },
  {
    name = 'a plan to approve shows the plan, not its raw input as JSON',
    fn = function(h)
      bound_chat(h)
      local plan = '## Add Mul\n\n1. Write `Mul`\n'
      request({
        sessionId = 's1',
        toolCall = {
          toolCallId = 'toolu_plan',
          title = 'Ready to code?',
          kind = 'switch_mode',
          rawInput = { plan = plan },
          content = { { type = 'content', content = { type = 'text', text = plan } } },
        },
        options = {
          { optionId = 'default', name = 'Yes, and manually approve edits', kind = 'allow_once' },
          { optionId = 'plan', name = 'No, keep planning', kind = 'reject_once' },
        },
      })
      local f = float_config(h)
      local lines = vim.api.nvim_buf_get_lines(f.buf, 0, -1, false)
      h.eq('## Add Mul', lines[1], 'the plan comes first')
      h.not_contains(lines, '{"plan"', 'no raw input')
      -- Drawn as the chat draws markdown: `Mul` without its backticks.
      local row = h.line_of(lines, '1. Write `Mul`') - 1
      local hidden = vim.tbl_filter(function(m)
        return m[4].conceal == ''
      end, vim.api.nvim_buf_get_extmarks(f.buf, require('agent_lsp.chat.decor').ns, { row, 0 }, { row, -1 }, { details = true }))
      h.eq(2, #hidden, 'the backticks of `Mul` are concealed')
      -- The heading reads as a title, without its "## ".
      local ns = vim.api.nvim_get_namespaces()['agent_lsp_permission']
      local heading = vim.api.nvim_buf_get_extmarks(f.buf, ns, { 0, 0 }, { 0, -1 }, { details = true })
      local concealed, titled
      for _, m in ipairs(heading) do
        if m[4].conceal == '' and m[3] == 0 and m[4].end_col == 3 then
          concealed = true
        end
        if m[4].hl_group == 'Title' and m[3] == 3 then
          titled = true
        end
      end
      h.ok(concealed and titled, 'the heading\'s "## " is concealed and its text a title: ' .. vim.inspect(heading))
    end,
  },
  {
    name = 'plain-text surfaces show a title without its code-span backticks',
    fn = function(h)
      h.workspace({})
      local action = require('agent_lsp.permission').action
      h.eq('Run go test ./...', action({ title = 'Run `go test ./...`' }))
      h.eq('Run echo `x`', action({ title = 'Run ``echo `x` ``' }))
      h.eq('Edit calc.go', action({ title = 'Edit calc.go\nmore' }))
      -- The float: title and footer as plain text.
      bound_chat(h)
      request({
        sessionId = 's1',
        toolCall = { toolCallId = 't', title = 'Run `go test ./...`', kind = 'execute', rawInput = { command = 'go test ./...' } },
        options = {
          { optionId = 'allow_once', name = 'Allow', kind = 'allow_once' },
          { optionId = 'allow_always', name = 'Always allow `go test …` commands', kind = 'allow_always' },
        },
      })
      local f = float_config(h)
      h.eq(' Run go test ./... ', f.title)
      h.contains(f.footer, 'a Always allow go test … commands')
      h.not_contains(f.footer, '`')
    end,
  },
  {
    name = 'the review tab is named after the file, and its hint is cleared after the answer',
    fn = function(h)
      bound_chat(h)
      local echoed = {}
      local echo = vim.api.nvim_echo
      vim.api.nvim_echo = function(chunks, history, opts)
        table.insert(echoed, { text = table.concat(vim.tbl_map(function(c)
          return c[1]
        end, chunks)), history = history })
        return echo(chunks, history, opts)
      end
      local answer = request(edit_request(h.root))
      vim.api.nvim_set_current_win(float_config(h).win)
      vim.api.nvim_feedkeys('d', 'x', false) -- review
      h.eq('calc.go (proposed)', vim.fn.bufname('%'), 'the proposal is named for the tab label, relative')
      local hint = echoed[#echoed]
      h.contains(hint.text, 'y Allow  a Always allow edits to calc.go  n Reject', 'the hint names the options')
      h.eq(false, hint.history, 'the hint stays out of :messages')
      vim.api.nvim_feedkeys('n', 'x', false)
      h.wait(answer, 2000, 'the answer')
      vim.api.nvim_echo = echo
      h.eq('', echoed[#echoed].text, 'the hint is cleared')
    end,
  },
  {
    name = 'the answer from the agent is recorded in the chat, live and replayed alike',
    fn = function(h)
      local chat = bound_chat(h)
      local console = '```console\n$ go test ./...\nok  \tcalc\t0.01s\n```'
      local lines = updates(chat, {
        {
          sessionUpdate = 'tool_call',
          toolCallId = 't1',
          title = 'Run `go test ./...`',
          kind = 'execute',
          status = 'pending',
          rawInput = { command = 'go test ./...', description = 'Run the Go tests' },
        },
        {
          sessionUpdate = 'tool_call_update',
          toolCallId = 't1',
          _meta = {
            ['agent-lsp'] = { permission = { outcome = 'allowed', optionId = 'allow_once', name = 'Allow' } },
          },
        },
        {
          sessionUpdate = 'tool_call_update',
          toolCallId = 't1',
          status = 'completed',
          content = { { type = 'content', content = { type = 'text', text = console } } },
        },
        {
          sessionUpdate = 'tool_call',
          toolCallId = 't2',
          title = 'Write notes.md',
          kind = 'edit',
          status = 'pending',
        },
        {
          sessionUpdate = 'tool_call_update',
          toolCallId = 't2',
          status = 'failed',
          _meta = {
            ['agent-lsp'] = {
              permission = { outcome = 'rejected', optionId = 'reject_always', name = 'Always reject Write' },
            },
          },
        },
      })
      local run = h.line_of(lines, '✓ Run `go test ./...` · done')
      h.ok(run, 'the summary: ' .. table.concat(lines, '\n'))
      h.eq('  Allowed', lines[run + 1], 'the approval under the summary: the row names the action')
      h.eq('```console', lines[run + 2], "the agent's console block, as it is")
      h.eq('$ go test ./...', lines[run + 3])
      h.eq('```', lines[run + 5])
      h.eq(2, #fences(vim.list_slice(lines, run, run + 6)), 'one code block, no fence around it')
      local write = h.line_of(lines, '✗ Write notes.md · failed')
      h.eq('  Rejected: Always reject Write', lines[write + 1])
      local win = vim.fn.win_findbuf(chat.buf)[1]
      vim.api.nvim_win_call(win, function()
        h.eq(run + 1, vim.fn.foldclosed(run + 2), 'the output is folded under the approval line')
        h.eq(-1, vim.fn.foldclosed(run), 'the summary stays out of the fold')
      end)
    end,
  },
  {
    name = 'tool text never nests or leaves a fence open; plain output gets a fence longer than its backticks',
    fn = function(h)
      local block = require('agent_lsp.chat').markdown_block
      h.eq({ '```', 'plain', '```' }, block('plain\n', 50), 'plain text in a code block')
      h.eq({ '````', 'a ``` b', '````' }, block('a ``` b', 50), 'a longer fence than the text has')
      h.eq({ '```console', '$ ls', 'x', '```' }, block('```console\n$ ls\nx\n```\n', 50), 'markdown as it is')
      h.eq({ '```console', '$ ls', '```' }, block('```console\n$ ls', 50), 'an open fence is closed')
      local long = '```console\n' .. table.concat(vim.fn.range(1, 30), '\n') .. '\n```'
      local cut = block(long, 5)
      h.eq('```', cut[#cut], 'cut output still closes its block')
      h.contains(cut, 'more lines')
      h.ok(#cut < 12, 'cut to about max lines: ' .. #cut)
      -- In the chat: an old agent's console text is not fenced again, and
      -- the agent's text after the call keeps its highlighting.
      local chat = bound_chat(h)
      local lines = updates(chat, {
        {
          sessionUpdate = 'tool_call',
          toolCallId = 't1',
          title = 'Bash',
          kind = 'execute',
          status = 'completed',
          rawInput = { command = 'cat x.md' },
          content = { { type = 'content', content = { type = 'text', text = '````console\n$ cat x.md\n```go\nx\n```\n````' } } },
        },
        { sessionUpdate = 'agent_message_chunk', content = { type = 'text', text = 'Done with **bold**.' } },
      })
      local fl = fences(lines)
      h.eq({ '````console', '```go', '```', '````' }, fl, 'the fences of the output, balanced')
      local ok, parser = pcall(vim.treesitter.get_parser, chat.buf, 'markdown')
      if ok and parser then
        parser:parse()
        local row = h.line_of(lines, 'Done with') - 1
        local node = parser:parse()[1]:root():named_descendant_for_range(row, 0, row, 1)
        h.eq('inline', node:type(), 'the text after the output is prose, not code')
      end
    end,
  },
  {
    name = "the agent's headings sit under the role headers; code blocks are left alone",
    fn = function(h)
      local chat = bound_chat(h)
      local lines = updates(chat, {
        { sessionUpdate = 'agent_message_chunk', content = { type = 'text', text = '#' } },
        { sessionUpdate = 'agent_message_chunk', content = { type = 'text', text = '# Summary\nFixed it.\n```sh\n# a comment\n```\n' } },
        { sessionUpdate = 'agent_message_chunk', content = { type = 'text', text = '# Top\n```' } },
      })
      h.eq(1, #vim.tbl_filter(function(l)
        return l == '## Agent'
      end, lines), 'one role header')
      h.ok(h.line_of(lines, '#### Summary'), 'the ## heading became ####: ' .. table.concat(lines, '\n'))
      h.ok(h.line_of(lines, '# a comment'), 'the code comment is unchanged')
      h.not_contains(lines, '### a comment')
      h.ok(h.line_of(lines, '### Top'), 'the # heading became ###')
      -- Their markers are concealed, and so are the role headers' (drawn
      -- as styled headers, chat/decor.lua).
      local function concealed(row)
        for _, m in ipairs(vim.api.nvim_buf_get_extmarks(chat.buf, -1, { row - 1, 0 }, { row - 1, -1 }, { details = true })) do
          if m[4].conceal == '' and m[3] == 0 and m[4].end_col then
            return m[4].end_col
          end
        end
      end
      h.eq(5, concealed(h.line_of(lines, '#### Summary')), '"#### " is concealed')
      local role = vim.api.nvim_buf_get_extmarks(chat.buf, -1, { h.line_of(lines, '## Agent') - 1, 0 }, { h.line_of(lines, '## Agent') - 1, -1 }, { details = true })
      h.ok(#vim.tbl_filter(function(m)
        return m[4].virt_text_pos == 'overlay' and m[4].virt_text[1][1] == 'Agent'
      end, role) == 1, 'the role header reads as a header, not "## Agent"')
      -- The turn ends with a fence open: it is closed.
      require('agent_lsp.chat').on_update(0, { sessionId = 's1', update = { sessionUpdate = 'agent_message_chunk', content = { type = 'text', text = 'go\nx := 1\n' } } })
      chat:push({ kind = 'stop', reason = 'end_turn' })
      chat:flush()
      lines = vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false)
      h.eq({ '```sh', '```', '```go', '```' }, fences(lines), 'every block closed')
      local win = vim.fn.win_findbuf(chat.buf)[1]
      h.eq(2, vim.wo[win].conceallevel, 'markdown markers are concealed')
    end,
  },
  {
    name = 'inline code is not broken across wrapped lines, at any width',
    fn = function(h)
      local chat = bound_chat(h)
      local win = vim.fn.win_findbuf(chat.buf)[1]
      vim.api.nvim_win_set_width(win, 40)
      -- 'linebreak' alone would wrap inside the span (at the space, '-',
      -- '.' or '/').
      local prose = 'Run the whole suite with `go test -race ./...` and `a b` then ``x ` y``.'
      local lines = updates(chat, {
        { sessionUpdate = 'agent_message_chunk', content = { type = 'text', text = prose .. '\n```sh\ngo test ./...\n```\n' } },
      })
      local row = h.line_of(lines, 'Run the whole suite')
      h.eq(prose, lines[row], 'the text itself is unchanged: a yank or a search finds it')
      local s = prose:find('`go', 1, true)
      local e = prose:find('./...`', 1, true) + 5
      -- (screenpos puts a character right after padding that fills a
      -- screen line at the end of that line, past the window's width, so
      -- the span is checked from its first character inside the backticks.)
      local function one_line(what)
        local first = vim.fn.screenpos(win, row, s + 1)
        local last = vim.fn.screenpos(win, row, e)
        h.ok(first.row > 0 and last.row > 0, 'the span is on screen')
        h.eq(first.row, last.row, what .. ': the code span sits on one screen line')
      end
      one_line('at 40 columns')
      h.ok(vim.fn.screenpos(win, row, s - 1).row < vim.fn.screenpos(win, row, s + 1).row, 'the span starts a new screen line')
      -- Other widths: the padding is worked out again (as WinResized does).
      for _, width in ipairs({ 33, 52, 80 }) do
        vim.api.nvim_win_set_width(win, width)
        chat:_keep_visible_spans(win)
        one_line(('at %d columns'):format(width))
      end
      vim.api.nvim_win_set_width(win, 80)
      chat:_keep_visible_spans(win)
      h.eq(vim.fn.screenpos(win, row, 1).row, vim.fn.screenpos(win, row, e).row, 'no padding where nothing wraps')
      local spans = require('agent_lsp.chat')._code_spans
      h.eq({}, spans('no code here'), 'a line without spans')
      h.eq({}, spans('a ` lone backtick'), 'an unclosed backtick is literal')
      h.eq({ { 3, 13 } }, spans('a `` x ` y `` b'), 'a span holds shorter backtick runs')
    end,
  },
  {
    name = 'no model at start: an error in :messages that points at :checkhealth, and a notice in the chat',
    fn = function(h)
      h.workspace({ ['a.txt'] = 'a\n' })
      -- A sidecar that only answers initialize, as the contract says when
      -- no provider is configured.
      local function fake_sidecar(dispatchers)
        local closing = false
        return {
          request = function(method, params, callback)
            if method == 'initialize' then
              vim.schedule(function()
                callback(nil, {
                  capabilities = { experimental = { agent = {} } },
                  _meta = { ['agent-lsp'] = { providerProblem = NO_MODEL } },
                })
              end)
            end
            return true, 1
          end,
          notify = function()
            return true
          end,
          is_closing = function()
            return closing
          end,
          terminate = function()
            closing = true
          end,
        }
      end
      vim.o.columns = 220 -- the whole message fits the command line
      require('agent_lsp').setup({ cmd = fake_sidecar })
      local notes = {}
      local notify = vim.notify
      vim.notify = function(msg, level)
        table.insert(notes, { msg = msg, level = level })
        return notify(msg, level)
      end
      vim.cmd('AgentChat')
      local chat = require('agent_lsp').current_chat()
      ---@cast chat -nil
      h.wait(function()
        return #notes > 0
      end, 5000, 'a notification at start')
      vim.notify = notify
      h.eq(vim.log.levels.ERROR, notes[1].level, 'styled as an error')
      h.contains(notes[1].msg, NO_MODEL, 'the whole message when it fits')
      h.contains(notes[1].msg, ':checkhealth agent_lsp')
      h.contains(vim.fn.execute('messages'), NO_MODEL, 'logged in :messages')
      -- On a narrower screen it is cut to one line (no "Press ENTER" prompt
      -- over the chat); the chat has it whole.
      vim.o.columns = 100
      notes = {}
      vim.notify = function(msg, level)
        table.insert(notes, { msg = msg, level = level })
      end
      require('agent_lsp.util').error(NO_MODEL, ' See :checkhealth agent_lsp.')
      vim.notify = notify
      h.eq('agent-lsp: No model is configured. See :checkhealth agent_lsp.', notes[1].msg)
      local text = table.concat(h.chat_lines(), '\n')
      h.contains(text, '> ✗ **' .. NO_MODEL .. '**', 'the chat shows it')
      h.contains(text, ':checkhealth agent_lsp')
    end,
  },
  {
    name = 'a prompt with no model: the error has no method name, is an error, and is in :messages',
    fn = function(h)
      h.workspace({ ['a.txt'] = 'a\n' })
      h.setup({ cmd_env = { ANTHROPIC_API_KEY = '' } })
      local notes = {}
      local notify = vim.notify
      vim.notify = function(msg, level)
        table.insert(notes, { msg = msg, level = level })
        return notify(msg, level)
      end
      vim.cmd('Agent hello')
      local turn = h.wait_turn()
      vim.notify = notify
      h.ok(turn.error, 'the turn failed')
      h.ok(not turn.error:match('^session/'), 'no method name: ' .. turn.error)
      local text = table.concat(h.chat_lines(), '\n')
      h.not_contains(text, 'session/prompt')
      local errors = vim.tbl_filter(function(n)
        return n.level == vim.log.levels.ERROR
      end, notes)
      h.ok(#errors > 0, 'an ERROR notification: ' .. vim.inspect(notes))
      h.not_contains(errors[#errors].msg, 'session/prompt')
      h.contains(vim.fn.execute('messages'), 'agent-lsp: ' .. turn.error:sub(1, 20), 'logged in :messages')
      h.contains(text, turn.error, 'the chat has it whole')
    end,
  },
  {
    name = ':checkhealth with no key uses the words of the error',
    fn = function(h)
      h.workspace({ ['a.txt'] = 'a\n' })
      h.setup({ cmd_env = { ANTHROPIC_API_KEY = '' } })
      vim.cmd('checkhealth agent_lsp')
      local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
      h.contains(text, NO_MODEL)
      h.not_contains(text, 'auth required')
    end,
  },
  {
    name = ':AgentNew reuses the chat window; picking the open session says so',
    fn = function(h)
      local chat = bound_chat(h, 's-open')
      local wins = #vim.api.nvim_list_wins()
      local win = vim.fn.win_findbuf(chat.buf)[1]
      vim.cmd('wincmd p')
      vim.cmd('AgentNew')
      local other = require('agent_lsp').current_chat()
      ---@cast other -nil
      h.ok(other.buf ~= chat.buf, 'a new chat')
      h.eq(wins, #vim.api.nvim_list_wins(), 'no new window')
      h.eq(other.buf, vim.api.nvim_win_get_buf(win), 'in the old chat window')
      local notes = {}
      local notify = vim.notify
      vim.notify = function(msg)
        table.insert(notes, msg)
      end
      require('agent_lsp.sessions').load(h.root, 's-open')
      vim.notify = notify
      h.contains(notes, 'already open', 'feedback for the open session')
      h.eq(chat.buf, vim.api.nvim_win_get_buf(0), 'and it is shown')
    end,
  },
  {
    name = 'the model picker keeps its columns from the tenth row on',
    fn = function(h)
      local chat = bound_chat(h)
      local available = {}
      for i = 1, 12 do
        table.insert(available, { modelId = 'm' .. i, name = 'Model ' .. i, description = 'm' .. i, _meta = { ['agent-lsp'] = { group = 'G' } } })
      end
      chat.models = { currentModelId = 'm1', availableModels = available }
      chat.with_session = function(_, cb)
        cb()
      end
      local rows
      vim.ui.select = function(items, opts)
        rows = {}
        for i, it in ipairs(items) do
          -- As the built-in picker (inputlist) shows them.
          table.insert(rows, ('%d: %s'):format(i, opts.format_item(it)))
        end
      end
      vim.cmd('AgentModel')
      h.ok(rows and #rows == 12, 'the picker opened with 12 rows')
      local col = rows[1]:find('Model')
      for _, r in ipairs(rows) do
        h.eq(col, r:find('Model'), 'the name starts in the same column: ' .. r)
      end
    end,
  },
  {
    name = 'the model picker shows display names grouped with the current one first; modes have descriptions',
    fn = function(h)
      local chat = bound_chat(h)
      local function model(id, name, group)
        return { modelId = id, name = name, description = '', _meta = { ['agent-lsp'] = { group = group } } }
      end
      chat.models = {
        currentModelId = 'gpt-5',
        availableModels = {
          model('claude-opus-4-5', 'Claude Opus 4.5', 'Anthropic'),
          model('claude-sonnet-4-5', 'Claude Sonnet 4.5', 'Anthropic'),
          model('gpt-4.1', 'GPT-4.1', 'OpenAI-compatible'),
          model('gpt-5', 'GPT-5', 'OpenAI-compatible'),
        },
      }
      chat.modes = {
        currentModeId = 'plan',
        availableModes = require('agent_lsp.methods').default_modes,
      }
      -- No sidecar here: the pickers run on what the session announced.
      chat.with_session = function(_, cb)
        cb()
      end
      local shown = {}
      vim.ui.select = function(items, opts)
        shown[opts.prompt] = vim.tbl_map(opts.format_item, items)
      end
      vim.cmd('AgentModel')
      vim.cmd('AgentMode')
      local models = shown['Agent model']
      h.ok(models, 'the model picker opened')
      h.eq(4, #models)
      h.ok(models[1]:find('^OpenAI%-compatible%s+GPT%-5%s+●'), 'current first: ' .. models[1])
      h.ok(models[2]:find('GPT-4.1', 1, true), 'its group next: ' .. models[2])
      h.ok(models[3]:find('^Anthropic%s+Claude Opus 4.5'), 'then the other group: ' .. models[3])
      h.not_contains(models, 'claude-opus-4-5', 'no raw ids')
      local modes = shown['Agent mode']
      h.ok(modes[1]:find('^Plan%s+●%s+Read%-only'), 'the current mode first, with its description: ' .. modes[1])
      h.contains(modes[2], 'Ask before anything that changes state')
    end,
  },
  {
    name = 'the history list keeps the date in view whatever the title',
    fn = function(h)
      vim.o.columns = 80
      local item = require('agent_lsp.sessions').format_item({
        sessionId = 's',
        updatedAt = '2026-11-26T10:55:21.123Z',
        title = ('a very long title '):rep(20),
      })
      h.eq('2026-11-26 10:55  ', item:sub(1, 18), 'the date first')
      h.ok(vim.fn.strdisplaywidth(item) <= 80, 'fits the screen: ' .. vim.fn.strdisplaywidth(item))
      h.contains(item, '…')
    end,
  },
}
