-- Streaming: renders are batched (at most ~30 buffer updates a second
-- whatever the chunk rate) and a 100k-token answer does not freeze the
-- editor.

--- An answer in n fragments of about 40 bytes, with a newline every 4th.
local function fragments(n)
  local out = {}
  for i = 1, n do
    local s = ('word%06d lorem ipsum dolor sit amet. '):format(i)
    if i % 4 == 0 then
      s = s .. '\n'
    end
    out[i] = s
  end
  return out
end

--- Streams `frags` through the chat while measuring: the number of event
--- loop iterations that changed the chat buffer (each is at most one
--- redraw), the longest stall of a 5 ms timer (is the editor responsive?)
--- and the streaming time.
local function measure(h, frags, opts)
  h.workspace({ ['a.txt'] = 'a\n' })
  h.fakemodel({ { { text = frags } } })
  h.setup(opts)
  vim.cmd('AgentChat')
  local chat = require('agent_lsp').current_chat()
  ---@cast chat -nil
  local ticks, first, last = {}, nil, nil
  local nticks = 0
  vim.api.nvim_buf_attach(chat.buf, false, {
    on_lines = function()
      local now = vim.uv.now() -- cached per loop iteration
      if not ticks[now] then
        ticks[now] = true
        nticks = nticks + 1
      end
      first = first or vim.uv.hrtime()
      last = vim.uv.hrtime()
    end,
  })
  local stall, prev = 0, nil
  local timer = assert(vim.uv.new_timer())
  timer:start(5, 5, function()
    local now = vim.uv.hrtime()
    if prev and first then
      stall = math.max(stall, (now - prev) / 1e6)
    end
    prev = now
  end)
  local renders0 = require('agent_lsp.chat').stats.renders
  vim.cmd('Agent write a lot')
  -- The prompt itself changes the buffer: count only the answer.
  nticks, ticks, first = 0, {}, nil
  h.expect_turn('end_turn', 60000)
  timer:stop()
  timer:close()
  local seconds = (last - first) / 1e9
  return {
    ticks = nticks,
    seconds = seconds,
    stall_ms = stall,
    renders = require('agent_lsp.chat').stats.renders - renders0,
    chat = chat,
  }
end

--- The agent's text in the chat (between "## Agent" and the input).
local function answer_text(h)
  local lines = h.chat_lines()
  local start
  for i, l in ipairs(lines) do
    if l == '## Agent' then
      start = i + 1
    end
  end
  h.ok(start, 'an agent section')
  return table.concat(vim.list_slice(lines, start, #lines - 3), '\n')
end

return {
  {
    name = 'a fast stream of small chunks is rendered in batches of at most ~30 a second',
    fn = function(h)
      local frags = fragments(3000)
      local m = measure(h, frags)
      local bound = math.ceil(m.seconds * 1000 / 33) + 3
      h.trace(('3000 chunks: %d buffer updates in %.2fs (bound %d), %d renders, stall %.0f ms'):format(
        m.ticks,
        m.seconds,
        bound,
        m.renders,
        m.stall_ms
      ))
      h.ok(m.ticks <= bound, ('%d buffer updates in %.2fs is more than %d'):format(m.ticks, m.seconds, bound))
      h.ok(m.ticks < 3000 / 10, ('%d buffer updates for 3000 chunks: not batched'):format(m.ticks))
      h.eq(table.concat(frags), answer_text(h), 'the whole answer is in the chat, in order')
    end,
  },
  {
    name = 'a 100k-token answer streams without freezing the editor',
    fn = function(h)
      -- 10000 fragments of ~40 bytes: ~400 KB, about 100k tokens.
      local frags = fragments(10000)
      local m = measure(h, frags)
      h.trace(('100k tokens: %d buffer updates in %.2fs, %d renders, longest stall %.0f ms'):format(
        m.ticks,
        m.seconds,
        m.renders,
        m.stall_ms
      ))
      h.ok(m.stall_ms < 500, ('the editor stalled for %.0f ms'):format(m.stall_ms))
      local bound = math.ceil(m.seconds * 1000 / 33) + 3
      h.ok(m.ticks <= bound, ('%d buffer updates in %.2fs is more than %d'):format(m.ticks, m.seconds, bound))
      local text = answer_text(h)
      h.eq(#table.concat(frags), #text, 'the whole answer is in the chat')
      h.contains(text:sub(-200), 'word010000', 'the last fragment is there')
      -- The editor answers at once after the stream.
      local t0 = vim.uv.hrtime()
      vim.cmd('normal! G')
      h.ok((vim.uv.hrtime() - t0) / 1e6 < 200, 'moving in the chat is immediate')
    end,
  },
}
