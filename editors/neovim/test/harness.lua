-- Child side of the tests: runs one case and writes {ok, message} to a
-- result file, then quits. Helpers fail with a message after a deadline
-- instead of hanging.
local H = {}

local env = {
  agent_lsp = assert(vim.env.AGENT_LSP_BIN, 'AGENT_LSP_BIN is not set'),
  fakemodel = assert(vim.env.FAKEMODEL_BIN, 'FAKEMODEL_BIN is not set'),
  tmp = assert(vim.env.TEST_TMP, 'TEST_TMP is not set'),
}

local cleanups = {}

--- Fails the case.
--- Feeds session/update notifications to a chat as the sidecar would, and
--- returns the chat buffer's lines once drawn.
function H.updates(chat, list)
  for _, u in ipairs(list) do
    require('agent_lsp.chat').on_update(0, { sessionId = chat.session_id, update = u })
  end
  chat:flush()
  return vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false)
end

function H.fail(msg)
  error(msg, 2)
end

function H.ok(cond, msg)
  if not cond then
    error('expected: ' .. (msg or 'true'), 2)
  end
  return cond
end

function H.eq(want, got, msg)
  if not vim.deep_equal(want, got) then
    error(('%s\n  want: %s\n  got:  %s'):format(msg or 'not equal', vim.inspect(want), vim.inspect(got)), 2)
  end
end

function H.contains(haystack, needle, msg)
  if type(haystack) == 'table' then
    haystack = table.concat(haystack, '\n')
  end
  if not tostring(haystack):find(needle, 1, true) then
    error(('%s\n  want to find: %s\n  in: %s'):format(msg or 'missing text', needle, haystack), 2)
  end
end

function H.not_contains(haystack, needle, msg)
  if type(haystack) == 'table' then
    haystack = table.concat(haystack, '\n')
  end
  if tostring(haystack):find(needle, 1, true) then
    error(('%s\n  did not want: %s\n  in: %s'):format(msg or 'unexpected text', needle, haystack), 2)
  end
end

--- Waits (running the event loop) until cond() is truthy; fails after ms.
function H.wait(cond, ms, what)
  local value
  local ok = vim.wait(ms or 10000, function()
    value = cond()
    return value
  end, 10)
  if not ok then
    error(('timed out after %d ms waiting for %s'):format(ms or 10000, what or 'a condition'), 2)
  end
  H.trace('got ' .. (what or 'a condition'))
  return value
end

--- With TEST_TRACE set, prints a timestamped line to stderr.
function H.trace(msg)
  if vim.env.TEST_TRACE then
    io.stderr:write(('[%.3f] %s\n'):format(vim.uv.hrtime() / 1e9, msg))
  end
end

--- Sleeps while running the event loop.
function H.sleep(ms)
  vim.wait(ms, function()
    return false
  end, 10)
end

function H.read(path)
  local f = io.open(path, 'r')
  if not f then
    return nil
  end
  local s = f:read('*a')
  f:close()
  return s
end

function H.write(path, text)
  vim.fn.mkdir(vim.fs.dirname(path), 'p')
  local f = assert(io.open(path, 'w'))
  f:write(text)
  f:close()
end

--- A fresh project directory (with a .git marker) holding `files`; the
--- current directory moves there.
---@param files table<string, string>?
---@return string root
function H.workspace(files)
  local root = vim.fs.normalize(vim.fn.tempname() .. '-ws')
  vim.fn.mkdir(root .. '/.git', 'p')
  for name, text in pairs(files or {}) do
    H.write(root .. '/' .. name, text)
  end
  root = vim.uv.fs_realpath(root)
  vim.cmd.cd(vim.fn.fnameescape(root))
  H.root = root
  return root
end

--- Starts the fake model with a script of turns; returns {url, log,
--- requests()}.
---@param turns table
function H.fakemodel(turns)
  local dir = vim.fn.tempname() .. '-model'
  vim.fn.mkdir(dir, 'p')
  local script = dir .. '/turns.json'
  H.write(script, vim.json.encode(turns))
  local log = dir .. '/requests.jsonl'
  local url
  local out = ''
  local proc = vim.system({ env.fakemodel, '-script', script, '-log', log }, {
    stdin = true,
    stdout = function(_, data)
      if data then
        out = out .. data
        url = url or out:match('URL=(%S+)')
      end
    end,
    stderr = function(_, data)
      if data and data ~= '' then
        io.stderr:write('fakemodel: ' .. data)
      end
    end,
  })
  table.insert(cleanups, function()
    pcall(function()
      proc:write(nil)
    end)
    pcall(function()
      proc:wait(2000)
    end)
    pcall(function()
      proc:kill(9)
    end)
  end)
  H.wait(function()
    return url
  end, 10000, 'the fake model to print its URL')
  local model = { url = url, log = log }
  --- The requests the model received, decoded.
  function model.requests()
    local text = H.read(log) or ''
    local reqs = {}
    -- Only whole lines: the model may be writing the last one as we read.
    for line in text:gmatch('([^\n]*)\n') do
      if line ~= '' then
        table.insert(reqs, vim.json.decode(line))
      end
    end
    return reqs
  end
  --- The raw JSON of the requests, one string.
  function model.raw()
    return H.read(log) or ''
  end
  --- Waits until the model got n requests.
  function model.wait_requests(n, ms)
    return H.wait(function()
      local reqs = model.requests()
      return #reqs >= n and reqs
    end, ms or 10000, ('%d model request(s)'):format(n))
  end
  H.model = model
  return model
end

--- Configures the plugin to start the built sidecar against the fake model.
---@param opts table? more options, merged over the test ones
function H.setup(opts)
  H.home = H.home or (vim.fn.tempname() .. '-home')
  local base = {
    cmd = { env.agent_lsp, '--stdio' },
    cmd_env = {
      ANTHROPIC_API_KEY = 'test',
      ANTHROPIC_BASE_URL = H.model and H.model.url or 'http://127.0.0.1:9',
      AGENT_LSP_HOME = H.home,
      AGENT_LSP_NO_USER_SETTINGS = '1',
      HOME = H.home,
    },
  }
  require('agent_lsp').setup(vim.tbl_deep_extend('force', base, opts or {}))
  -- Record what the plugin sends, to check the wire params.
  local client = require('agent_lsp.client')
  if not H.sent then
    H.sent = {}
    local request = client.request
    client.request = function(c, method, params, cb)
      table.insert(H.sent, { method = method, params = vim.deepcopy(params) })
      return request(c, method, params, cb)
    end
  end
end

--- The params of the requests the plugin sent with a method.
function H.sent_params(method)
  local out = {}
  for _, s in ipairs(H.sent or {}) do
    if s.method == method then
      table.insert(out, s.params)
    end
  end
  return out
end

--- Records turn ends and permission requests as they happen.
H.turns = {}
H.permissions = {}
vim.api.nvim_create_autocmd('User', {
  pattern = 'AgentLspTurnEnd',
  callback = function(ev)
    table.insert(H.turns, ev.data)
  end,
})
vim.api.nvim_create_autocmd('User', {
  pattern = 'AgentLspPermission',
  callback = function(ev)
    table.insert(H.permissions, ev.data)
  end,
})

--- Waits for the n-th turn to end (default: the next one) and returns its
--- {stop_reason, error, session_id}.
function H.wait_turn(n, ms)
  n = n or (#H.turns + 1)
  return H.wait(function()
    return H.turns[n]
  end, ms or 20000, ('turn %d to end'):format(n))
end

--- Waits for the next turn to end and checks its stop reason.
function H.expect_turn(stop_reason, ms)
  local turn = H.wait_turn(nil, ms)
  if turn.stop_reason ~= stop_reason then
    error(('turn ended with %s (error: %s), want %s'):format(
      tostring(turn.stop_reason),
      tostring(turn.error),
      stop_reason
    ), 2)
  end
  return turn
end

--- Waits for a pending permission request and returns it.
function H.wait_permission(ms)
  local permission = require('agent_lsp.permission')
  return H.wait(function()
    return permission.pending()[1]
  end, ms or 10000, 'a permission request')
end

--- The current chat's buffer lines.
function H.chat_lines()
  local chat = require('agent_lsp').current_chat()
  H.ok(chat, 'a chat exists')
  ---@cast chat -nil
  chat:flush()
  return vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false)
end

--- The 1-based number of the first of lines that contains text.
---@param lines string[]
---@param text string
---@return integer?
function H.line_of(lines, text)
  for i, l in ipairs(lines) do
    if l:find(text, 1, true) then
      return i
    end
  end
end

--- The agent-lsp client, once running.
function H.client()
  return H.wait(function()
    return vim.lsp.get_clients({ name = 'agent-lsp' })[1]
  end, 10000, 'the agent-lsp client')
end

--- Opens a file of the workspace in the current window.
function H.edit(name)
  vim.cmd.edit(vim.fn.fnameescape(H.root .. '/' .. name))
  return vim.api.nvim_get_current_buf()
end

function H.buf_text(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n') .. '\n'
end

--- Stops every agent-lsp client (as :AgentStop does) and waits until the
--- processes are gone.
function H.stop_clients()
  local ids = vim.tbl_map(function(c)
    return c.id
  end, vim.lsp.get_clients({ name = 'agent-lsp' }))
  require('agent_lsp').stop()
  local function gone()
    for _, id in ipairs(ids) do
      if vim.lsp.get_client_by_id(id) then
        return false
      end
    end
    return true
  end
  if not vim.wait(1000, gone, 20) then
    for _, id in ipairs(ids) do
      local c = vim.lsp.get_client_by_id(id)
      if c then
        require('agent_lsp.client')._call(c, 'stop', true)
      end
    end
    vim.wait(1000, gone, 20)
  end
  return gone()
end

local function write_result(path, ok, message)
  local f = io.open(path, 'w')
  if f then
    f:write(vim.json.encode({ ok = ok, message = message }))
    f:close()
  end
end

--- Runs the case `name` of spec `file`.
function H.run(file, name, result)
  local deadline = tonumber(vim.env.TEST_CASE_DEADLINE or '') or 60000
  local timer = vim.uv.new_timer()
  timer:start(deadline, 0, function()
    -- The case is stuck outside any H.wait: report and leave.
    write_result(result, false, ('case deadline of %d ms passed'):format(deadline))
    os.exit(1)
  end)
  local spec = dofile(file)
  local case
  for _, c in ipairs(spec) do
    if c.name == name then
      case = c
    end
  end
  local ok, err = false, 'no such case: ' .. name
  if case then
    ok, err = xpcall(case.fn, debug.traceback, H)
  end
  H.trace('case done')
  -- The sidecars end with this Neovim (their stdin closes); run.sh checks
  -- that none is left.
  H.trace('leaving')
  for i = #cleanups, 1, -1 do
    pcall(cleanups[i])
  end
  H.trace('cleanups done')
  timer:stop()
  write_result(result, ok, ok and nil or tostring(err))
  vim.cmd('qall!')
end

return H
