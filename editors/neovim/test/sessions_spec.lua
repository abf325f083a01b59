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

--- Loads the session of chat `first` again as a user does after a restart:
--- a new sidecar, the chat's buffer gone, the session picked in
--- :AgentSessions. Returns the loaded chat and what the picker showed.
local function reload(h, first)
  local session_id = first.session_id
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
  local chat = require('agent_lsp.chat').by_session(session_id)
  h.ok(chat, 'a chat for the loaded session')
  ---@cast chat -nil
  chat:flush()
  return chat, seen
end

--- The thumbnails drawn in a chat: {row, virt_lines} for each.
local function thumbnails(chat)
  local ns = vim.api.nvim_create_namespace('agent_lsp_chat_thumbnail')
  local out = {}
  for _, m in ipairs(vim.api.nvim_buf_get_extmarks(chat.buf, ns, 0, -1, { details = true })) do
    if m[4].virt_lines then
      table.insert(out, { row = m[2], lines = m[4].virt_lines })
    end
  end
  return out
end

--- Checks that the chat's one thumbnail is the 4 x 2 chart (red left,
--- blue right) under the line naming the image.
local function check_chart(h, chat, name)
  local thumbs = h.wait(function()
    local t = thumbnails(chat)
    return #t > 0 and t
  end, 10000, 'a thumbnail in the chat')
  h.eq(1, #thumbs, 'one thumbnail')
  local line = vim.api.nvim_buf_get_lines(chat.buf, thumbs[1].row, thumbs[1].row + 1, false)[1]
  h.contains(line, name, 'the thumbnail is under the line naming the image')
  local rows = thumbs[1].lines
  h.eq(1, #rows, 'a 4 x 2 image is one row of cells')
  local cells = rows[1]
  h.eq('▀▀', cells[2][1], 'two red cells: ' .. vim.inspect(cells))
  h.eq('▀▀', cells[3][1], 'two blue cells')
  local red, blue = vim.api.nvim_get_hl(0, { name = cells[2][2] }), vim.api.nvim_get_hl(0, { name = cells[3][2] })
  h.eq({ 0xff0000, 0xff0000 }, { red.fg, red.bg }, 'red above and below')
  h.eq({ 0x0000ff, 0x0000ff }, { blue.fg, blue.bg }, 'blue above and below')
end

return {
  {
    name = 'an image shows as a thumbnail under its line, and again when the session is loaded',
    fn = function(h)
      vim.o.termguicolors = true
      -- 4 x 2 pixels: the left half red, the right half blue.
      local png = 'iVBORw0KGgoAAAANSUhEUgAAAAQAAAACCAIAAADwyuo0AAAAGElEQVR4nGL5zwACjAwgmokBCQACAAD//yqFAgaOrSI8AAAAAElFTkSuQmCC'
      local root = h.workspace({ ['a.txt'] = 'a\n' })
      local f = assert(io.open(root .. '/chart.png', 'wb'))
      f:write(vim.base64.decode(png))
      f:close()
      h.fakemodel({ { { text = 'Red and blue.' } }, { { text = 'Still red and blue.' } } })
      h.setup()
      vim.cmd('Agent what colours are in @chart.png')
      h.expect_turn('end_turn')
      local first = require('agent_lsp').current_chat()
      ---@cast first -nil
      check_chart(h, first, '🖼 chart.png')
      h.eq(1, #h.sent_params('agent/thumbnail'), 'one thumbnail asked for')
      h.eq(png, h.sent_params('agent/thumbnail')[1].data, 'of the image sent')

      -- A new sidecar: the image comes back from the session file.
      local chat = reload(h, first)
      check_chart(h, chat, '🖼 image (image/png')

      -- Without true colour, the line naming the image is all there is.
      vim.o.termguicolors = false
      vim.cmd('AgentNew')
      vim.cmd('Agent and now? @chart.png')
      h.expect_turn('end_turn')
      local third = require('agent_lsp').current_chat()
      ---@cast third -nil
      h.contains(table.concat(h.chat_lines(), '\n'), '🖼 chart.png', 'the image is named')
      h.eq(0, #thumbnails(third), 'no thumbnail without true colour')
      h.eq(2, #h.sent_params('agent/thumbnail'), 'none asked for')
    end,
  },
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
      local chat, seen = reload(h, first)
      h.contains(seen.formatted or '', 'what is the answer?', 'the picker shows the session title')
      h.ok(#vim.fn.win_findbuf(chat.buf) > 0, 'the loaded chat is shown')
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
