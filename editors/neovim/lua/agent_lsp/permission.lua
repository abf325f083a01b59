--- session/request_permission: a queue of pending requests and a prompt
--- that never blocks the editor.
---
--- The built-in client runs a server request's handler in a coroutine and
--- answers with what the handler returns. The handler here queues the
--- request and yields; a key in the prompt (or `M.answer`) resumes it with
--- the user's choice. Nothing waits on the event loop, so typing, other
--- windows and the agent's streamed output go on while a prompt is open,
--- and closing the prompt or the chat leaves the request pending
--- (:AgentPermission shows it again).
local config = require('agent_lsp.config')
local methods = require('agent_lsp.methods')
local util = require('agent_lsp.util')

local M = {}

local kind = methods.permission_kind

---@class agent_lsp.PermissionRequest
---@field id integer           local id (the built-in client hides the JSON-RPC id)
---@field client_id integer
---@field session_id string
---@field params table         the request's params
---@field done boolean
---@field resume fun(result: table)
---@field plan_buf integer?   the buffer a plan is changed in (edit_plan)

---@type agent_lsp.PermissionRequest[]
local queue = {}
local next_id = 0

--- The prompt on screen: {req, win, buf}.
local shown

local fire, split = util.fire, util.lines
local clear_hint
local prompt_ns = vim.api.nvim_create_namespace('agent_lsp_permission')

--- Option of a given kind in a request.
---@param req agent_lsp.PermissionRequest
---@param k string
---@return table?
local function option(req, k)
  for _, o in ipairs(req.params.options or {}) do
    if o.kind == k or o.optionId == k then
      return o
    end
  end
end

--- The requests waiting for an answer, oldest first.
---@return agent_lsp.PermissionRequest[]
function M.pending()
  return vim.list_slice(queue)
end

local function close_prompt()
  if shown then
    local s = shown
    shown = nil
    if s.win and vim.api.nvim_win_is_valid(s.win) then
      pcall(vim.api.nvim_win_close, s.win, true)
    end
    if s.buf and vim.api.nvim_buf_is_valid(s.buf) then
      pcall(vim.api.nvim_buf_delete, s.buf, { force = true })
    end
  end
end

--- The plan of an ExitPlanMode request (docs/protocol.md, "Plan review"):
--- a switch_mode call whose raw input holds the plan's markdown.
---@param tool table the request's toolCall
---@return string?
function M.plan_of(tool)
  if tool.kind ~= 'switch_mode' or type(tool.rawInput) ~= 'table' then
    return nil
  end
  local plan = tool.rawInput.plan
  return type(plan) == 'string' and plan or nil
end

--- The plan as the user left it in its buffer, or nil when unchanged
--- (or never opened).
---@param req agent_lsp.PermissionRequest
---@return string?
local function edited_plan(req)
  local plan = M.plan_of(req.params.toolCall or {})
  local buf = req.plan_buf
  if not plan or not buf or not vim.api.nvim_buf_is_valid(buf) then
    return nil
  end
  local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
  if text == table.concat(split(plan), '\n') then
    return nil
  end
  return text .. '\n'
end

--- Closes a plan's buffer and the windows (or the tab) showing it.
---@param buf integer?
local function close_plan(buf)
  if not buf or not vim.api.nvim_buf_is_valid(buf) then
    return
  end
  for _, win in ipairs(vim.fn.win_findbuf(buf)) do
    local tab = vim.api.nvim_win_get_tabpage(win)
    if #vim.api.nvim_list_tabpages() > 1 and #vim.api.nvim_tabpage_list_wins(tab) == 1 then
      pcall(vim.cmd, vim.api.nvim_tabpage_get_number(tab) .. 'tabclose')
    else
      pcall(vim.api.nvim_win_close, win, true)
    end
  end
  if vim.api.nvim_buf_is_valid(buf) then
    pcall(vim.api.nvim_buf_delete, buf, { force = true })
  end
end

--- Answers a request. `choice` is an option kind or optionId
--- ('allow_once', 'allow_always', 'reject_once', 'reject_always'), or
--- 'cancelled'. `edited_text` (allow only) asks the agent to apply that text
--- instead of its proposal (docs/protocol.md, `_meta.editedText`).
---@param req agent_lsp.PermissionRequest|integer
---@param choice string
---@param edited_text string?
---@return boolean answered
function M.answer(req, choice, edited_text)
  if type(req) == 'number' then
    for _, r in ipairs(queue) do
      if r.id == req then
        req = r
        break
      end
    end
  end
  if type(req) ~= 'table' or req.done then
    return false
  end
  local outcome
  if choice == methods.permission_outcome.cancelled then
    outcome = { outcome = methods.permission_outcome.cancelled }
  else
    local o = option(req, choice)
    if not o then
      vim.notify(('agent-lsp: this request has no %q option'):format(choice), vim.log.levels.WARN)
      return false
    end
    outcome = { outcome = methods.permission_outcome.selected, optionId = o.optionId }
    -- An approved plan goes back as the user left it in its buffer.
    edited_text = edited_text or edited_plan(req)
    if edited_text and o.kind:match('^allow') then
      outcome._meta = { editedText = edited_text }
    end
  end
  req.done = true
  require('agent_lsp.chat').on_answered(req, choice ~= methods.permission_outcome.cancelled and option(req, choice) or nil)
  for i, r in ipairs(queue) do
    if r == req then
      table.remove(queue, i)
      break
    end
  end
  if shown and shown.req == req then
    close_prompt()
  end
  close_plan(req.plan_buf)
  fire('AgentLspPermissionAnswered', { id = req.id, session_id = req.session_id, outcome = outcome })
  -- The agent applies an allowed edit to the text it has: send the user's
  -- latest keystrokes (held back by the client's didChange debounce) first.
  local c = vim.lsp.get_client_by_id(req.client_id)
  local ok, changetracking = pcall(require, 'vim.lsp._changetracking')
  if c and ok and type(changetracking.flush) == 'function' then
    pcall(changetracking.flush, c)
  end
  req.resume({ outcome = outcome })
  if #queue > 0 then
    vim.schedule(function()
      M.show()
    end)
  end
  return true
end

--- Resolves every pending request of a session as cancelled (the turn
--- ended or was cancelled; the agent no longer waits for them).
---@param session_id string
function M.drop_session(session_id)
  for _, r in ipairs(vim.list_slice(queue)) do
    if r.session_id == session_id then
      M.answer(r, methods.permission_outcome.cancelled)
    end
  end
end

---@param client_id integer
function M.drop_client(client_id)
  for _, r in ipairs(vim.list_slice(queue)) do
    if r.client_id == client_id then
      M.answer(r, methods.permission_outcome.cancelled)
    end
  end
end

--- The diff content of a tool call, if it has one.
---@param tool table
---@return table?
local function diff_of(tool)
  for _, c in ipairs(tool.content or {}) do
    if c.type == methods.content.diff then
      return c
    end
  end
end

--- A unified diff of a diff content block, as lines.
---@param d table {path, oldText?, newText}
---@return string[]
function M.unified(d)
  local rel = vim.fn.fnamemodify(d.path or '', ':~:.')
  local old, new = d.oldText or '', d.newText or ''
  if old ~= '' and not old:match('\n$') then
    old = old .. '\n'
  end
  if new ~= '' and not new:match('\n$') then
    new = new .. '\n'
  end
  local body = vim.diff(old, new, { result_type = 'unified', ctxlen = 3 }) --[[@as string]]
  local lines = { (d.oldText and ('--- a/' .. rel) or '--- /dev/null'), '+++ b/' .. rel }
  vim.list_extend(lines, split(body))
  return lines
end

--- The hunks of a diff content block, without the ---/+++ header: where
--- the file is named already (the float's title, the chat's label).
---@param d table {path, oldText?, newText}
---@return string[]
function M.hunks(d)
  return vim.list_slice(M.unified(d), 3)
end

--- The model's own words for a tool call (its Bash `description`, ...):
--- secondary text under the action. The agent sends it in
--- `_meta["agent-lsp"].description`; an older agent only has it in rawInput.
---@param tool table
---@return string?
function M.description(tool)
  local d = util.meta(tool)[methods.meta.description]
  if type(d) ~= 'string' and type(tool.rawInput) == 'table' then
    d = tool.rawInput.description
  end
  if type(d) == 'string' and vim.trim(d) ~= '' then
    return (vim.trim(d):gsub('\n.*', ''))
  end
end

--- The action a request asks for, in the user's words ("Edit calc.go",
--- "Run `go test ./...`"): the tool call's title, one line, with the
--- project's path left out.
---@param tool table
---@return string
function M.action(tool)
  local title = type(tool.title) == 'string' and tool.title ~= '' and tool.title or (tool.kind or 'Use a tool')
  title = title:gsub('\n.*', ''):gsub(vim.pesc((vim.uv.cwd() or '') .. '/'), '')
  -- A float title is plain text: "Run `go test`" reads "Run go test".
  return util.plain(title)
end

--- Lines describing a tool call for the prompt; `is_diff` when they are a diff.
---@param tool table
---@return string[] lines, boolean is_diff
local function describe(tool)
  local d = diff_of(tool)
  if d then
    -- The title names the file ("Edit calc.go"): the hunks are all it adds.
    return M.hunks(d), true
  end
  local input = tool.rawInput
  local lines = {}
  local has_text = false
  for _, c in ipairs(tool.content or {}) do
    has_text = has_text or (c.type == methods.content.content and c.content and c.content.text) ~= nil
  end
  if type(input) == 'table' and type(input.command) == 'string' then
    -- The agent's content shows the command in full, with what does not
    -- show written out, and where it will run: shown below instead.
    if not has_text then
      vim.list_extend(lines, split('$ ' .. input.command))
    end
  elseif M.plan_of(tool) and has_text then
    -- A plan (ExitPlanMode): the plan's markdown below is all it says.
  elseif input ~= nil then
    local ok, json = pcall(vim.json.encode, input)
    lines = split(ok and json or vim.inspect(input))
  end
  for _, c in ipairs(tool.content or {}) do
    if c.type == methods.content.content and c.content and c.content.text then
      vim.list_extend(lines, split(c.content.text))
    end
  end
  return lines, false
end

local function keys()
  return config.get().permission.keymaps
end

--- Whether a request asks to trust a folder (docs/protocol.md, "Folder
--- trust") rather than to run a tool call.
---@param req agent_lsp.PermissionRequest
---@return boolean
function M.is_trust(req)
  local meta = type(req.params._meta) == 'table' and req.params._meta['agent-lsp']
  return type(meta) == 'table' and meta.kind == methods.folder_trust
end

--- An option's name as the agent words it ("Allow", "Always allow edits
--- to calc.go"); an older agent's bare option gets its kind in words.
---@param o table
---@return string
function M.option_name(o)
  if type(o.name) == 'string' and o.name ~= '' then
    return o.name
  end
  return ((o.kind or o.optionId or '?'):gsub('_once$', ''):gsub('_', ' '):gsub('^%l', string.upper))
end

--- The prompt's footer: the keys this request offers, with the options'
--- names exactly as the agent gives them.
---@param req agent_lsp.PermissionRequest
local function footer(req)
  local k = keys()
  local parts = {}
  local function add(key, k2)
    local o = option(req, k2)
    if o then
      table.insert(parts, ('%s %s'):format(key, util.plain(M.option_name(o))))
    end
  end
  add(k.allow_once, kind.allow_once)
  add(k.allow_always, kind.allow_always)
  add(k.allow_outside, 'allow_outside')
  add(k.reject_once, kind.reject_once)
  add(k.reject_always, kind.reject_always)
  if diff_of(req.params.toolCall or {}) then
    table.insert(parts, k.review .. ' review')
  elseif M.plan_of(req.params.toolCall or {}) then
    table.insert(parts, k.review .. ' edit plan')
  end
  table.insert(parts, k.later .. ' later')
  return ' ' .. table.concat(parts, '  ') .. ' '
end

--- Clears a hint left in the command line.
clear_hint = function()
  vim.api.nvim_echo({ { '', 'Normal' } }, false, {})
end

--- Opens a review of an edit: the buffer against the proposal side by side
--- in a new tab. The proposal can be changed before accepting it; the
--- changed text is sent back as `_meta.editedText`.
---@param req agent_lsp.PermissionRequest
function M.review(req)
  local d = diff_of(req.params.toolCall or {})
  if not d or not d.path then
    return
  end
  close_prompt()
  vim.cmd('tab split')
  vim.cmd.edit(vim.fn.fnameescape(d.path))
  local ft = vim.bo.filetype
  vim.cmd('diffthis')
  vim.cmd('rightbelow vnew')
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].swapfile = false
  -- The tab is labelled with this name: "calc.go (proposed)", beside the
  -- file itself (a scratch buffer: never written, never attached).
  -- Relative: a scratch buffer's name is shown as it was given.
  local rel = vim.fn.fnamemodify(d.path, ':~:.')
  local name = rel .. ' (proposed)'
  if vim.fn.bufexists(name) == 1 then
    name = ('%s (proposed %d)'):format(rel, req.id)
  end
  pcall(vim.api.nvim_buf_set_name, buf, name)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, split(d.newText))
  vim.bo[buf].filetype = ft
  vim.cmd('diffthis')
  local proposal = table.concat(split(d.newText), '\n')

  local function decide(choice)
    local edited
    if vim.api.nvim_buf_is_valid(buf) then
      local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
      if text ~= proposal then
        edited = text .. '\n'
      end
    end
    if M.answer(req, choice, edited) then
      pcall(vim.cmd, 'tabclose')
      clear_hint()
    end
  end
  local k = keys()
  local function map(lhs, fn, desc)
    vim.keymap.set('n', lhs, fn, { buffer = buf, nowait = true, desc = desc })
  end
  local hint = {}
  for _, pair in ipairs({
    { k.allow_once, kind.allow_once },
    { k.allow_always, kind.allow_always },
    { k.reject_once, kind.reject_once },
    { k.reject_always, kind.reject_always },
  }) do
    local o = option(req, pair[2])
    if o and pair[1] then
      local name = M.option_name(o)
      local rule = util.meta(o)[methods.meta.rule]
      map(pair[1], function()
        decide(pair[2])
      end, 'agent-lsp: ' .. util.plain(name) .. (type(rule) == 'string' and (' (' .. rule .. ')') or ''))
      table.insert(hint, ('%s %s'):format(pair[1], util.plain(name)))
    end
  end
  map(k.later, function()
    pcall(vim.cmd, 'tabclose')
    clear_hint()
  end, 'agent-lsp: close the review (the request stays pending)')
  table.insert(hint, k.later .. ' close')
  -- A hint, not a message: it stays out of :messages and is cleared once
  -- the request is answered. It fits the command line (a longer one would
  -- ask to press ENTER over the review).
  local keys_text = table.concat(hint, '  ')
  local lead = 'Review the edit (your changes to the right are applied): '
  local room = vim.o.columns - 12
  if vim.fn.strdisplaywidth(lead .. keys_text) > room then
    lead = ''
  end
  if vim.fn.strdisplaywidth(keys_text) > room then
    keys_text = vim.fn.strcharpart(keys_text, 0, room - 1) .. '…'
  end
  vim.api.nvim_echo({ { lead, 'Normal' }, { keys_text, 'MoreMsg' } }, false, {})
end

--- Opens a plan to review in a markdown buffer of its own tab: the user
--- changes it, then `:w` brings the question back (or :AgentPermission);
--- an approval sends the plan as the buffer holds it.
---@param req agent_lsp.PermissionRequest
function M.edit_plan(req)
  local plan = M.plan_of(req.params.toolCall or {})
  if not plan then
    return
  end
  close_prompt()
  if req.plan_buf and vim.api.nvim_buf_is_valid(req.plan_buf) then
    local win = vim.fn.win_findbuf(req.plan_buf)[1]
    if win then
      vim.api.nvim_set_current_win(win)
    else
      vim.cmd('tab sbuffer ' .. req.plan_buf)
    end
    return
  end
  vim.cmd('tabnew')
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].buftype = 'acwrite'
  vim.bo[buf].bufhidden = 'hide'
  vim.bo[buf].swapfile = false
  local name = 'plan.md'
  if vim.fn.bufexists(name) == 1 then
    name = ('plan %d.md'):format(req.id)
  end
  pcall(vim.api.nvim_buf_set_name, buf, name)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, split(plan))
  vim.bo[buf].modified = false
  vim.bo[buf].filetype = 'markdown'
  req.plan_buf = buf
  vim.api.nvim_create_autocmd('BufWriteCmd', {
    buffer = buf,
    callback = function()
      vim.bo[buf].modified = false
      -- After :write is done with the buffer: the question takes the focus.
      vim.schedule(function()
        if not req.done then
          M.show({ focus = true })
        end
      end)
    end,
  })
  vim.api.nvim_echo({
    { 'Change the plan as you want it followed, then ', 'Normal' },
    { ':w', 'MoreMsg' },
    { ' to approve it or keep planning', 'Normal' },
  }, false, {})
end

--- Whether the user is typing somewhere (insert, command line, ...), so a
--- prompt must not take the keys.
local function typing()
  local mode = vim.api.nvim_get_mode().mode
  return not (mode == 'n' or mode == 'nt')
end

--- Shows the oldest pending request in a float (or with vim.ui.select).
---@param opts {focus: boolean?}?
function M.show(opts)
  opts = opts or {}
  local req = queue[1]
  if not req then
    close_prompt()
    return false
  end
  local cfg = config.get().permission
  if cfg.ui == 'select' then
    if shown and shown.req == req then
      return true
    end
    shown = { req = req }
    local items = req.params.options or {}
    local tool = req.params.toolCall or {}
    local desc = M.description(tool)
    vim.ui.select(items, {
      prompt = M.action(tool) .. (desc and (' (' .. desc .. ')') or ''),
      format_item = function(o)
        return util.plain(M.option_name(o))
      end,
    }, function(choice)
      if shown and shown.req == req then
        shown = nil
      end
      if choice then
        M.answer(req, choice.optionId)
      end
    end)
    return true
  end

  if shown and shown.req == req and shown.win and vim.api.nvim_win_is_valid(shown.win) then
    if opts.focus then
      vim.api.nvim_set_current_win(shown.win)
    end
    return true
  end
  close_prompt()

  local tool = req.params.toolCall or {}
  local lines, is_diff = describe(tool)
  if req.plan_buf and vim.api.nvim_buf_is_valid(req.plan_buf) then
    -- The plan as the user changed it: what an approval sends.
    lines = vim.api.nvim_buf_get_lines(req.plan_buf, 0, -1, false)
  end
  -- The model's description is secondary text above the details.
  local desc = not M.is_trust(req) and M.description(tool) or nil
  if desc then
    table.insert(lines, 1, desc)
  end
  if #lines == 0 then
    lines = { '(no details)' }
  end
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = 'wipe'
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  -- The agent's details are markdown (a ```sh block and what the choice
  -- means in prose); a bare command is shell.
  local markdown = M.plan_of(tool) ~= nil
  for _, l in ipairs(lines) do
    markdown = markdown or l:match('^ ? ? ?```') ~= nil
  end
  vim.bo[buf].filetype = is_diff and 'diff' or markdown and 'markdown' or 'sh'
  if desc then
    vim.api.nvim_buf_set_extmark(buf, prompt_ns, 0, 0, { end_col = #lines[1], hl_group = 'Comment', priority = 200 })
  end

  local more = #queue > 1 and (' (%d more waiting)'):format(#queue - 1) or ''
  -- The action itself, as the agent words it: "Edit calc.go", "Run `go test ./...`".
  local title = (' %s%s '):format(M.action(tool), more)
  if M.is_trust(req) then
    -- "Trust the folder /p? Its .claude/settings.json has 3 hooks that run code"
    title = (' %s%s '):format((tool.title or 'Trust this folder?'):gsub('\n.*', ''), more)
  end
  local foot = footer(req)
  local max_width = math.max(20, vim.o.columns - 4)
  local width = math.max(60, vim.fn.strdisplaywidth(title) + 4, vim.fn.strdisplaywidth(foot) + 4)
  for _, l in ipairs(lines) do
    width = math.max(width, vim.fn.strdisplaywidth(l) + 2)
  end
  width = math.min(width, max_width)
  local height = math.max(1, math.min(#lines, math.floor(vim.o.lines * 0.6)))
  local enter = opts.focus or (cfg.focus and not typing())
  local win = vim.api.nvim_open_win(buf, enter, {
    relative = 'editor',
    row = math.floor((vim.o.lines - height) / 2) - 1,
    col = math.floor((vim.o.columns - width) / 2),
    width = width,
    height = height,
    style = 'minimal',
    border = 'rounded',
    title = title,
    title_pos = 'center',
    footer = foot,
    footer_pos = 'center',
    zindex = 60,
  })
  vim.wo[win].wrap = false
  vim.wo[win].cursorline = true
  if markdown and not is_diff then
    -- Drawn as the chat draws markdown: fences as rules, no backticks.
    vim.wo[win].conceallevel = 2
    vim.wo[win].concealcursor = 'n'
    require('agent_lsp.chat.decor').decorate(buf, 0, #lines - 1)
  end
  if M.plan_of(tool) then
    -- A plan reads as a document: markdown's markers concealed (a
    -- heading's "## " too, the heading drawn as a title), its lines
    -- wrapped.
    for row, l in ipairs(lines) do
      local marker = l:match('^#+%s+')
      if marker and not (desc and row == 1) then
        vim.api.nvim_buf_set_extmark(buf, prompt_ns, row - 1, 0, { end_col = #marker, conceal = '' })
        vim.api.nvim_buf_set_extmark(buf, prompt_ns, row - 1, #marker, { end_col = #l, hl_group = 'Title', priority = 200 })
      end
    end
    vim.wo[win].conceallevel = 2
    vim.wo[win].wrap = true
    vim.wo[win].linebreak = true
    vim.wo[win].cursorline = false
  end
  if desc and #lines > 1 then
    -- The cursor line is for the details; the description stays quiet.
    vim.api.nvim_win_set_cursor(win, { 2, 0 })
  end
  shown = { req = req, win = win, buf = buf }

  local k = keys()
  local function map(lhs, fn, desc)
    vim.keymap.set('n', lhs, fn, { buffer = buf, nowait = true, desc = desc })
  end
  for name, key in pairs({
    allow_once = k.allow_once,
    allow_always = k.allow_always,
    allow_outside = k.allow_outside,
    reject_once = k.reject_once,
    reject_always = k.reject_always,
  }) do
    map(key, function()
      M.answer(req, name)
    end, 'agent-lsp: ' .. name:gsub('_', ' '))
  end
  if M.plan_of(tool) then
    map(k.review, function()
      M.edit_plan(req)
    end, 'agent-lsp: change the plan in a buffer')
  else
    map(k.review, function()
      M.review(req)
    end, 'agent-lsp: review the edit in a diff')
  end
  local function later()
    close_prompt()
    vim.notify(
      ('agent-lsp: %d permission request(s) pending; :AgentPermission to answer'):format(#queue),
      vim.log.levels.INFO
    )
  end
  map(k.later, later, 'agent-lsp: answer later')
  map('<Esc>', later, 'agent-lsp: answer later')
  vim.api.nvim_create_autocmd('WinClosed', {
    pattern = tostring(win),
    once = true,
    callback = function()
      if shown and shown.win == win then
        shown = nil
      end
    end,
  })
  if not enter then
    vim.notify(
      ('agent-lsp: waiting for approval: %s; :AgentPermission to answer'):format(M.action(tool)),
      vim.log.levels.WARN
    )
  end
  return true
end

--- The session/request_permission handler. Runs inside the built-in
--- client's coroutine for the request and yields until answered.
---@param params table
---@param ctx lsp.HandlerContext
---@return table result
function M.request(params, ctx)
  local co, is_main = coroutine.running()
  if not co or is_main then
    -- Not inside the client's coroutine: nothing to wait in without
    -- blocking. Decline rather than freeze the editor.
    return { outcome = { outcome = methods.permission_outcome.cancelled } }
  end
  next_id = next_id + 1
  local req = {
    id = next_id,
    client_id = ctx.client_id,
    session_id = params.sessionId,
    params = params,
    done = false,
  }
  req.resume = function(result)
    vim.schedule(function()
      local ok, err = coroutine.resume(co, result)
      if not ok then
        vim.notify('agent-lsp: answering a permission request failed: ' .. tostring(err), vim.log.levels.ERROR)
      end
    end)
  end
  table.insert(queue, req)
  require('agent_lsp.chat').on_permission(ctx.client_id, req)
  fire('AgentLspPermission', { id = req.id, session_id = req.session_id, tool = params.toolCall })
  if not (shown and shown.win and vim.api.nvim_win_is_valid(shown.win)) then
    M.show()
  end
  return coroutine.yield()
end

return M
