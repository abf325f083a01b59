-- The model's questions (AskUserQuestion, elicitation/create): each is a
-- vim.ui.select of its options plus "Other…" (vim.ui.input); a multiple
-- choice selects until "Done"; cancelling declines and the turn goes on.
local function ask_turns()
  return {
    {
      {
        tool_use = {
          id = 'toolu_ask',
          name = 'AskUserQuestion',
          input = {
            questions = {
              {
                question = 'Which database?',
                header = 'Database',
                multiSelect = false,
                options = { { label = 'Postgres', description = 'Relational' }, { label = 'Redis', description = 'Key-value' } },
              },
              {
                question = 'Which features?',
                header = 'Features',
                multiSelect = true,
                options = {
                  { label = 'Auth', description = 'Log in' },
                  { label = 'Search', description = 'Find things' },
                  { label = 'Export', description = 'CSV' },
                },
              },
            },
          },
        },
      },
    },
    { { text = 'Thanks.' } },
  }
end

--- Replaces vim.ui.select and vim.ui.input with a user who answers from a
--- script: each step names the entry to pick (by its shown line's start),
--- or the text to type; nil cancels. Returns the prompts and items seen.
local function script_user(h, steps)
  local seen = {}
  local i = 0
  vim.ui.select = function(items, opts, on_choice)
    i = i + 1
    local lines = {}
    for _, item in ipairs(items) do
      table.insert(lines, opts.format_item and opts.format_item(item) or item)
    end
    table.insert(seen, { prompt = opts.prompt, items = lines })
    local want = steps[i]
    -- Answer later, as a picker does.
    vim.defer_fn(function()
      if want == nil then
        return on_choice(nil, nil)
      end
      for idx, line in ipairs(lines) do
        if vim.startswith(line, want) then
          return on_choice(items[idx], idx)
        end
      end
      h.fail(('no entry %q in %s'):format(want, vim.inspect(lines)))
    end, 10)
  end
  vim.ui.input = function(opts, on_confirm)
    i = i + 1
    table.insert(seen, { prompt = opts.prompt, input = true })
    local text = steps[i]
    vim.defer_fn(function()
      on_confirm(text)
    end, 10)
  end
  return seen
end

--- The text of the tool result the model got for toolu_ask.
local function answer_sent(model)
  local reqs = model.wait_requests(2)
  local msgs = reqs[2].messages
  for _, block in ipairs(msgs[#msgs].content) do
    if block.type == 'tool_result' and block.tool_use_id == 'toolu_ask' then
      local text = block.content
      if type(text) == 'table' then
        local parts = {}
        for _, c in ipairs(text) do
          table.insert(parts, c.text or '')
        end
        text = table.concat(parts)
      end
      return text, block.is_error
    end
  end
end

return {
  {
    name = 'single, multiple and Other answers reach the model',
    fn = function(h)
      h.workspace({})
      local model = h.fakemodel(ask_turns())
      h.setup()
      local seen = script_user(h, { 'Redis', 'Auth', 'Other…', 'Dark mode', 'Export', 'Done' })
      vim.cmd('AgentChat')
      vim.cmd('Agent set it up')
      h.expect_turn('end_turn')
      local text, is_error = answer_sent(model)
      h.eq(
        'User has answered your questions: "Which database?"="Redis", "Which features?"="Auth, Export, Dark mode". You can now continue with the user\'s answers in mind.',
        text
      )
      h.ok(not is_error, 'not an error')
      h.eq('[Database] Which database?', seen[1].prompt)
      h.eq({ 'Postgres — Relational', 'Redis — Key-value', 'Other…' }, seen[1].items)
      h.eq('[Features] Which features? (several allowed)', seen[2].prompt)
      h.eq({ 'Auth — Log in', 'Search — Find things', 'Export — CSV', 'Other…', 'Done' }, seen[2].items)
      h.eq({ 'Search — Find things', 'Export — CSV', 'Other…', 'Done' }, seen[3].items, 'Auth is picked')
      h.ok(seen[4].input, 'Other asks for text')
      h.eq('[Features] Which features? (chosen: Auth)', seen[5].prompt)
      h.eq({ 'Search — Find things', 'Export — CSV', 'Done' }, seen[5].items, 'Other is typed once')
    end,
  },
  {
    name = 'an Other answer to a single choice',
    fn = function(h)
      h.workspace({})
      local model = h.fakemodel(ask_turns())
      h.setup()
      script_user(h, { 'Other…', 'SQLite', 'Done' })
      vim.cmd('Agent set it up')
      h.expect_turn('end_turn')
      local text = answer_sent(model)
      h.contains(text, 'User has answered your questions: "Which database?"="SQLite".')
    end,
  },
  {
    name = 'the built-in vim.ui.select and vim.ui.input ask them',
    fn = function(h)
      h.workspace({})
      local model = h.fakemodel(ask_turns())
      h.setup()
      -- Neovim's own vim.ui.select and vim.ui.input run; only the keys the
      -- user types at inputlist() and input() are scripted.
      local lists, typed = {}, {}
      local picks = { 2, 4, 1, 0 } -- Redis; Other…; Auth; Done (0: the last entry)
      vim.fn.inputlist = function(choices)
        table.insert(lists, choices)
        local n = table.remove(picks, 1)
        return n == 0 and #choices - 1 or n
      end
      vim.fn.input = function(opts)
        table.insert(typed, opts.prompt)
        return 'Dark mode'
      end
      vim.cmd('Agent set it up')
      h.expect_turn('end_turn')
      local text = answer_sent(model)
      h.contains(text, '"Which database?"="Redis", "Which features?"="Auth, Dark mode"')
      h.eq({ '[Database] Which database?', '1: Postgres — Relational', '2: Redis — Key-value', '3: Other…' }, lists[1])
      h.eq('[Features] Which features? (several allowed)', lists[2][1])
      h.eq({ 'Which features? ' }, typed)
      h.eq({ '[Features] Which features? (chosen: Auth)', '1: Search — Find things', '2: Export — CSV', '3: Done' }, lists[4])
    end,
  },
  {
    name = 'cancelling declines and the turn goes on',
    fn = function(h)
      h.workspace({})
      local model = h.fakemodel(ask_turns())
      h.setup()
      script_user(h, { 'Postgres', nil })
      vim.cmd('Agent set it up')
      h.expect_turn('end_turn')
      local text, is_error = answer_sent(model)
      h.contains(text, 'User declined to answer questions')
      h.ok(not is_error, 'not an error')
    end,
  },
}
