-- The chat's state (lua/agent_lsp/chat/state.lua) without a buffer, a
-- window or a sidecar: each case feeds the contract's messages
-- (docs/protocol.md) to state.apply and reads the model and the changes it
-- reports, as the VS Code side tests its reducer (test/unit/state.test.ts).
-- render.lua's lines of the same state are checked where they say what
-- the user reads.

local function new()
  return require('agent_lsp.chat.state').new()
end

--- Applies messages; returns every change reported, as "op" names.
local function apply(s, list)
  local state = require('agent_lsp.chat.state')
  local ops = {}
  for _, u in ipairs(list) do
    for _, op in ipairs(state.apply(s, u)) do
      table.insert(ops, op.op)
    end
  end
  return ops
end

local function chunk(kind, text)
  return { sessionUpdate = kind, content = { type = 'text', text = text } }
end

--- The transcript as {kind, text} pairs.
local function transcript(s)
  local state = require('agent_lsp.chat.state')
  local out = {}
  for _, item in ipairs(s.items) do
    local text = item.parts and state.text(item) or item.text or item.id or ''
    table.insert(out, item.kind .. ': ' .. text)
  end
  return out
end

return {
  {
    name = 'the input header says when the turn waits for an approval, and how to get a model when there is none',
    fn = function(h)
      local render = require('agent_lsp.chat.render')
      local keys = { send = '<CR>', cancel = '<C-c>', permission = 'gp' }
      local function header(s)
        local parts = render.header(s, keys)
        return table.concat(vim.tbl_map(function(p)
          return p[1]
        end, parts))
      end
      local s = new()
      h.contains(header(s), '<CR> sends')
      s.busy = true
      h.eq('  Working…', header(s):match('^[^(]*'):gsub(' $', ''), 'the turn\'s state in the words of docs/editor-words.md')
      apply(s, { { kind = 'awaiting', tool = { toolCallId = 't1', title = 'Run ls', kind = 'execute' } } })
      local text = header(s)
      h.contains(text, 'Waiting for your approval (1) (gp shows it)')
      h.ok(not text:find('Working', 1, true), 'not "Working…" while it waits: ' .. text)
      local none = new()
      apply(none, { { kind = 'provider_problem', message = 'No model is configured.' } })
      text = header(none)
      h.contains(text, 'no model configured')
      h.ok(not text:find('sends', 1, true), 'no "<CR> sends" when nothing can be sent: ' .. text)
    end,
  },
  {
    name = "a replayed user message shows its image as a line",
    fn = function(h)
      local s = new()
      apply(s, {
        chunk('user_message_chunk', 'what is this?'),
        { sessionUpdate = 'user_message_chunk', content = { type = 'image', mimeType = 'image/png', data = ('A'):rep(4096) } },
      })
      h.eq({ 'user: what is this?\n🖼 image (image/png, 3 KB)\n' }, transcript(s))
    end,
  },
  {
    name = 'streamed text joins one item per speaker, and thinking ends when the answer starts',
    fn = function(h)
      local s = new()
      local ops = apply(s, {
        chunk('agent_thought_chunk', 'Let me '),
        chunk('agent_thought_chunk', 'look.'),
        chunk('agent_message_chunk', 'The answer '),
        chunk('agent_message_chunk', 'is 4.'),
        { sessionUpdate = 'agent_message_chunk', content = { type = 'resource_link', name = 'calc.go', uri = 'file:///w/calc.go' } },
      })
      h.eq({ 'thought: Let me look.', 'agent: The answer is 4.\n📎 calc.go\n' }, transcript(s))
      h.eq({ 'thought_text', 'thought_text', 'thought_end', 'agent_text', 'agent_text', 'agent_text' }, ops)
      h.ok(s.items[1].done, 'the thought is done')
      h.eq(nil, s.thought)
      h.eq({ '💭 Thinking', 'Let me look.' }, require('agent_lsp.chat.render').thought(s.items[1]))
      -- Empty text changes nothing.
      h.eq({}, apply(s, { chunk('agent_message_chunk', '') }))
    end,
  },
  {
    name = 'a long stream keeps its text as parts until read',
    fn = function(h)
      local s = new()
      local list = {}
      for i = 1, 5000 do
        list[i] = chunk('agent_message_chunk', 'x')
      end
      apply(s, list)
      h.eq(5000, #s.items[1].parts)
      h.eq(('x'):rep(5000), require('agent_lsp.chat.state').text(s.items[1]))
      h.eq(1, #s.items[1].parts, 'reading joins the parts once')
    end,
  },
  {
    name = 'tool calls: the updates merge into the call, null fields are ignored, the end is final',
    fn = function(h)
      local s = new()
      local ops = apply(s, {
        chunk('agent_thought_chunk', 'hm'),
        { sessionUpdate = 'tool_call', toolCallId = 't1', title = 'Run `go test`', kind = 'execute', status = 'pending', rawInput = { command = 'go test' } },
        { sessionUpdate = 'tool_call_update', toolCallId = 't1', status = 'in_progress', title = vim.NIL },
        {
          sessionUpdate = 'tool_call_update',
          toolCallId = 't1',
          status = 'completed',
          content = { { type = 'content', content = { type = 'text', text = 'ok' } } },
        },
      })
      h.eq({ 'thought_text', 'thought_end', 'tool', 'tool', 'tool' }, ops)
      local t = s.tools.t1
      h.eq('Run `go test`', t.title, 'a null title keeps the old one')
      h.eq('completed', t.status)
      h.eq('ok', t.content[1].content.text)
      h.eq(nil, t.sessionUpdate)
      h.eq({ 'thought: hm', 'tool: t1' }, transcript(s))
      h.ok(require('agent_lsp.chat.state').final(t.status))
      local r = require('agent_lsp.chat.render').tool(t, '/w')
      h.eq('✓ Run `go test` · done', r.lines[1])
      h.ok(r.fold, 'a finished call folds its details')
    end,
  },
  {
    name = 'a subagent call is marked nested under its Agent call',
    fn = function(h)
      local s = new()
      apply(s, {
        {
          sessionUpdate = 'tool_call',
          toolCallId = 't2',
          title = 'Read /w/a.go',
          status = 'in_progress',
          _meta = { ['agent-lsp'] = { parentToolCallId = 't1', agent = 'reader' } },
        },
      })
      h.eq('◐ ↳ [reader] Read a.go · running', require('agent_lsp.chat.render').tool_summary(s.tools.t2, '/w'))
    end,
  },
  {
    name = 'permission requests: waiting, answered here, then the agent record wins',
    fn = function(h)
      local s = new()
      local render = require('agent_lsp.chat.render')
      local call = { toolCallId = 'e1', title = 'Edit calc.go', kind = 'edit', status = 'pending' }
      -- A request for a call the chat has not seen creates it.
      h.eq({ 'tool', 'tool' }, apply(s, { { kind = 'awaiting', tool = call } }))
      h.ok(s.tools.e1.awaiting)
      h.eq('⚑ Edit calc.go · waiting for your approval', render.tool_summary(s.tools.e1, '/w'))
      apply(s, {
        {
          kind = 'answered',
          tool_call_id = 'e1',
          permission = { outcome = 'allowed', optionId = 'allow_always', kind = 'allow_always', name = 'Always allow edits to calc.go' },
        },
      })
      h.eq(nil, s.tools.e1.awaiting)
      h.eq('Allowed: Always allow edits to calc.go', (render.answer_line(s.tools.e1.permission)))
      -- The agent's own record replaces the one made here.
      apply(s, {
        {
          sessionUpdate = 'tool_call_update',
          toolCallId = 'e1',
          status = 'in_progress',
          _meta = { ['agent-lsp'] = { permission = { outcome = 'allowed', optionId = 'allow_once', name = 'Allow' } } },
        },
      })
      h.eq('Allowed', (render.answer_line(s.tools.e1.permission)))
      -- An answer after the record changes nothing.
      h.eq({}, apply(s, { { kind = 'answered', tool_call_id = 'e1', permission = { outcome = 'rejected' } } }))
      -- A request for a finished call does not mark it waiting.
      apply(s, { { sessionUpdate = 'tool_call_update', toolCallId = 'e1', status = 'completed' } })
      h.eq({}, apply(s, { { kind = 'awaiting', tool = call } }))
    end,
  },
  {
    name = 'a rejected or cancelled answer reads as such, whatever option id the agent used',
    fn = function(h)
      local answer = require('agent_lsp.chat.render').answer_line
      h.eq('Rejected: Always reject `rm` commands', (answer({ outcome = 'rejected', optionId = 'reject_always', name = 'Always reject `rm` commands' })))
      h.eq('Rejected', (answer({ outcome = 'rejected', optionId = 'reject_once', name = 'Reject' })))
      h.eq('Cancelled', (answer({ outcome = 'cancelled', optionId = 'allow_always', name = 'x' })))
      -- An option id the plugin does not know is shown generically.
      h.eq('Allowed', (answer({ outcome = 'allowed', optionId = 'allow_outside_sandbox', name = 'Run outside the sandbox' })))
      h.eq(nil, (answer(nil)))
    end,
  },
  {
    name = 'plan updates replace the turn plan; a new prompt starts another',
    fn = function(h)
      local s = new()
      local render = require('agent_lsp.chat.render')
      local ops = apply(s, {
        { sessionUpdate = 'plan', entries = { { content = 'Read', priority = 'high', status = 'in_progress' }, { content = 'Fix', priority = 'high', status = 'pending' } } },
        { sessionUpdate = 'plan', entries = { { content = 'Read', priority = 'high', status = 'completed' }, { content = 'Fix', priority = 'high', status = 'in_progress' } } },
      })
      h.eq({ 'plan', 'plan' }, ops)
      h.eq(1, #s.items, 'one plan item per turn')
      h.eq({ '**Plan**', '- [x] Read', '- [ ] Fix ← in progress' }, render.plan(s.plan.entries))
      apply(s, { { kind = 'user', text = 'next', labels = {} }, { sessionUpdate = 'plan', entries = {} } })
      h.eq({ 'plan: plan', 'user: next', 'plan: plan' }, vim.tbl_map(function(i)
        return i.kind .. ': ' .. (i.kind == 'user' and require('agent_lsp.chat.state').text(i) or i.kind)
      end, s.items))
    end,
  },
  {
    name = 'usage, mode, commands and config options go to the header, not the transcript',
    fn = function(h)
      local s = new()
      local ops = apply(s, {
        { sessionUpdate = 'usage_update', used = 12345, size = 200000, cost = { amount = 0.0123, currency = 'USD' } },
        { sessionUpdate = 'current_mode_update', currentModeId = 'plan' },
        { sessionUpdate = 'available_commands_update', availableCommands = { { name = 'compact', description = 'Compact' } } },
        { sessionUpdate = 'config_option_update', configOptions = { { id = 'model', currentValue = 'm' } } },
      })
      h.eq({ 'header', 'header', 'header', 'header' }, ops)
      h.eq({}, s.items)
      h.eq('plan', s.modes.currentModeId)
      h.ok(#s.modes.availableModes == 4, 'the default modes when the agent sent none')
      h.eq('compact', s.commands[1].name)
      h.eq('m', s.config_options[1].currentValue)
      local parts = require('agent_lsp.chat.render').header(s, { send = '<CR>', cancel = '<C-c>' })
      local text = table.concat(vim.tbl_map(function(p)
        return p[1]
      end, parts))
      h.eq('  <CR> sends · mode: plan · 12k / 200k tokens · 94% left · $0.01', text)
      s.busy = true
      s.context_labels = { 'calc.go:1-3' }
      local busy, lines = require('agent_lsp.chat.render').header(s, { send = '<CR>', cancel = '<C-c>' })
      h.eq('  Working…', busy[1][1])
      h.eq({ { { '📎 calc.go:1-3', 'Comment' } } }, lines)
    end,
  },
  {
    name = 'errors and stops: notices in the transcript, the turn ends, waiting calls stop waiting',
    fn = function(h)
      local s = new()
      local render = require('agent_lsp.chat.render')
      s.context, s.context_labels = { { type = 'text', text = 'sel' } }, { 'sel' }
      local blocks, labels = require('agent_lsp.chat.state').take_context(s)
      h.eq({ 'sel' }, labels)
      h.eq(1, #blocks)
      h.eq({}, s.context)
      h.ok(s.busy, 'sending makes the chat busy')
      apply(s, {
        { kind = 'user', text = 'fix it', labels = { 'sel' } },
        { kind = 'awaiting', tool = { toolCallId = 'b1', title = 'Run `rm -rf x`', status = 'pending' } },
      })
      local ops = apply(s, { { kind = 'stop', error = { code = -32000, message = 'session/prompt: No model is configured. Set it.' } } })
      h.eq({ 'end_text', 'tool', 'notice', 'stop' }, ops)
      h.eq(false, s.busy)
      h.eq(nil, s.tools.b1.awaiting)
      local notice = s.items[#s.items]
      h.eq('error', notice.level)
      local lines = render.notice(notice)
      h.contains(lines[1], '> ✗ **')
      h.contains(lines[2] or '', ':checkhealth agent_lsp')
      apply(s, { { kind = 'stop', reason = 'max_turn_requests' } })
      h.eq({ '> ⏹ stopped: max turn requests' }, render.notice(s.items[#s.items]))
      h.eq('max_turn_requests', s.stop_reason)
      -- An end_turn adds no notice.
      local n = #s.items
      apply(s, { { kind = 'stop', reason = 'end_turn' } })
      h.eq(n, #s.items)
      -- agent/status and the no-model problem (shown once).
      apply(s, {
        { kind = 'status', status_kind = 'retry', message = 'overloaded;\nretrying' },
        { kind = 'provider_problem', message = 'No model is configured.' },
        { kind = 'provider_problem', message = 'No model is configured.' },
      })
      h.eq({ '> ⚠ overloaded; retrying' }, render.notice(s.items[n + 1]))
      h.eq(n + 2, #s.items, 'the same provider problem is shown once')
    end,
  },
  {
    name = 'replayed history: user and agent turns, a tool call with its recorded answer',
    fn = function(h)
      local s = new()
      apply(s, {
        chunk('user_message_chunk', 'What is '),
        chunk('user_message_chunk', '2+2?'),
        chunk('agent_message_chunk', 'Let me run it.'),
        { sessionUpdate = 'tool_call', toolCallId = 'r1', title = 'Run `echo 4`', kind = 'execute', status = 'pending' },
        {
          sessionUpdate = 'tool_call_update',
          toolCallId = 'r1',
          _meta = { ['agent-lsp'] = { permission = { outcome = 'allowed', optionId = 'allow_once', name = 'Allow' } } },
        },
        { sessionUpdate = 'tool_call_update', toolCallId = 'r1', status = 'completed' },
        chunk('agent_message_chunk', 'It is 4.'),
        chunk('user_message_chunk', 'Thanks'),
      })
      h.eq({ 'user: What is 2+2?', 'agent: Let me run it.', 'tool: r1', 'agent: It is 4.', 'user: Thanks' }, transcript(s))
      h.eq('allowed', s.tools.r1.permission.outcome)
      h.eq(false, s.busy, 'a replay is no turn of this editor')
    end,
  },
  {
    name = 'a session result binds its modes, models and config options',
    fn = function(h)
      local s = new()
      local state = require('agent_lsp.chat.state')
      state.bind(s, 's1', {
        modes = { currentModeId = 'default', availableModes = { { id = 'default', name = 'Default' } } },
        models = { currentModelId = 'a', availableModels = { { modelId = 'a', name = 'A' } } },
        configOptions = { { id = 'model', currentValue = 'a' } },
      })
      h.eq('s1', s.session_id)
      h.eq('default', s.modes.currentModeId)
      h.eq('a', s.models.currentModelId)
      -- A result without them keeps what the chat had.
      state.bind(s, 's1', {})
      h.eq('default', s.modes.currentModeId)
      -- Unknown messages change nothing.
      h.eq({}, apply(s, { { sessionUpdate = 'something_new' }, { kind = 'nope' } }))
    end,
  },
}
