--- elicitation/create: the model's questions (AskUserQuestion), one form
--- whose choice fields are question_<n> (one option, or several for a
--- multiple choice) and whose question_<n>_custom fields are the "Other"
--- answers (docs/protocol.md, "The model's questions").
---
--- Each question is a vim.ui.select of its options plus "Other…", which
--- asks for the text with vim.ui.input. A multiple choice selects again,
--- without the options picked and with "Done", until Done. Cancelling any
--- select or input declines the questions: the agent tells the model the
--- user declined and the turn goes on. Both functions are the user's own
--- (telescope, fzf-lua, dressing override them).
local methods = require('agent_lsp.methods')

local M = {}

--- The entries added to each question's options.
M.other = 'Other…'
M.done = 'Done'

---@class agent_lsp.Question
---@field field string the choice field, question_<n>
---@field custom string? its "Other" field, question_<n>_custom
---@field header string the short label
---@field question string
---@field multi boolean several options may be picked
---@field options {const: string, title: string?, description: string?}[]

--- The form's questions in order: a single question's text is the
--- message; several carry theirs in their field's description.
---@param params table CreateElicitationParams
---@return agent_lsp.Question[]
function M.questions(params)
  local props = (params.requestedSchema or {}).properties or {}
  local out = {}
  for field, f in pairs(props) do
    local multi = f.type == 'array'
    local options = multi and (f.items or {}).anyOf or f.oneOf
    if options and #options > 0 then
      local custom = field .. '_custom'
      table.insert(out, {
        field = field,
        custom = props[custom] and custom or nil,
        header = f.title or '',
        question = (f.description and f.description ~= '') and f.description or params.message or '',
        multi = multi,
        options = options,
      })
    end
  end
  table.sort(out, function(a, b)
    local na, nb = tonumber(a.field:match('%d+$')), tonumber(b.field:match('%d+$'))
    if na and nb and na ~= nb then
      return na < nb
    end
    return a.field < b.field
  end)
  return out
end

--- Runs fn(done) and waits, inside the current coroutine, for done(value).
local function await(fn)
  local co = coroutine.running()
  fn(function(value)
    vim.schedule(function()
      coroutine.resume(co, value)
    end)
  end)
  return coroutine.yield()
end

local function prompt_of(q, chosen)
  local p = q.question
  if q.header ~= '' then
    p = ('[%s] %s'):format(q.header, p)
  end
  if q.multi then
    p = p .. (#chosen > 0 and (' (chosen: ' .. table.concat(chosen, ', ') .. ')') or ' (several allowed)')
  end
  return p
end

--- An option's line: its label and what it means.
local function format_item(item)
  if type(item) == 'table' then
    local label = item.title or item.const
    if item.description and item.description ~= '' then
      return label .. ' — ' .. item.description
    end
    return label
  end
  return item
end

--- Asks one question; returns its answer {picks, other} or nil when the
--- user cancelled.
---@param q agent_lsp.Question
local function ask(q)
  local picks, other = {}, nil
  while true do
    local items = {}
    for _, o in ipairs(q.options) do
      if not vim.tbl_contains(picks, o.const) then
        table.insert(items, o)
      end
    end
    if q.custom and not other then
      table.insert(items, M.other)
    end
    if q.multi then
      table.insert(items, M.done)
    end
    local choice = await(function(done)
      vim.ui.select(items, { prompt = prompt_of(q, picks), format_item = format_item, kind = 'agent_lsp.question' }, done)
    end)
    if choice == nil then
      return nil
    elseif choice == M.done then
      return { picks = picks, other = other }
    elseif choice == M.other then
      local text = await(function(done)
        vim.ui.input({ prompt = q.question .. ' ' }, done)
      end)
      if text == nil then
        return nil
      end
      other = vim.trim(text)
      if not q.multi then
        return { picks = picks, other = other }
      end
    else
      table.insert(picks, choice.const)
      if not q.multi then
        return { picks = picks }
      end
    end
  end
end

--- The elicitation/create handler. Runs inside the built-in client's
--- coroutine for the request and yields until the user answered.
---@param params table
---@return table result CreateElicitationResult
function M.request(params, _)
  local action = methods.elicitation_action
  local co, is_main = coroutine.running()
  if not co or is_main or params.mode ~= methods.elicitation_mode.form then
    return { action = action.decline }
  end
  require('agent_lsp.chat').on_question(params.sessionId)
  local content = vim.empty_dict()
  for _, q in ipairs(M.questions(params)) do
    local a = ask(q)
    if not a then
      return { action = action.decline }
    end
    if q.multi and #a.picks > 0 then
      content[q.field] = a.picks
    elseif not q.multi and a.picks[1] then
      content[q.field] = a.picks[1]
    end
    if a.other and a.other ~= '' and q.custom then
      content[q.custom] = a.other
    end
  end
  return { action = action.accept, content = content }
end

return M
