-- Vanilla Neovim, no plugin: only vim.lsp.start. Requests code actions on a
-- diagnostic, executes "Agent: fix this", answers the approval, and waits
-- for the buffer to change. Writes "ok" or the failure to $RESULT.
for _, p in ipairs({ "python3", "node", "perl", "ruby" }) do
  vim.g["loaded_" .. p .. "_provider"] = 0
end

local result_path = os.getenv("RESULT")
local function finish(msg)
  local f = assert(io.open(result_path, "w"))
  f:write(msg)
  f:close()
  vim.cmd("qall!")
end

local ok, err = pcall(function()
  local file = os.getenv("FILE")
  vim.cmd.edit(file)
  local buf = vim.api.nvim_get_current_buf()

  -- The editor's answer to the approval request: "Allow". (Neovim's own
  -- handler asks with inputlist, which needs a person.)
  local asked = {}
  local turn_done = false
  local handlers = {
    ["window/showMessageRequest"] = function(_, params)
      table.insert(asked, params.message)
      return params.actions[1]
    end,
    ["window/logMessage"] = function(_, params)
      if params.message:find("agent: done", 1, true) then
        turn_done = true
      end
    end,
  }
  local id = vim.lsp.start({
    name = "agent-lsp",
    cmd = { os.getenv("AGENT_LSP") },
    root_dir = os.getenv("ROOT"),
    handlers = handlers,
  })
  assert(id, "vim.lsp.start failed")
  assert(vim.wait(15000, function()
    local c = vim.lsp.get_client_by_id(id)
    return c and c.initialized
  end, 20), "the client did not initialize")
  local client = vim.lsp.get_client_by_id(id)
  assert(client.server_capabilities.codeActionProvider, "no codeActionProvider for a client without the agent extension")

  local range = { start = { line = 1, character = 4 }, ["end"] = { line = 1, character = 26 } }
  local resp = client.request_sync("textDocument/codeAction", {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    range = range,
    context = { diagnostics = { { range = range, message = "average divides by 2", severity = 2 } } },
  }, 10000, buf)
  assert(resp and resp.result, "no code actions: " .. vim.inspect(resp))
  local action
  for _, a in ipairs(resp.result) do
    if a.title == "Agent: fix this" then
      action = a
    end
  end
  assert(action, "no 'Agent: fix this' action: " .. vim.inspect(resp.result))
  client.request("workspace/executeCommand", action.command, function() end, buf)

  local fixed = vim.wait(30000, function()
    local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
    return text:find("/ len(values)", 1, true) ~= nil
  end, 50)
  assert(fixed, "the buffer did not change: " .. table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n"))
  assert(#asked == 1, "approvals asked: " .. vim.inspect(asked))
  -- Let the turn finish (the model's last answer) before quitting.
  assert(vim.wait(30000, function()
    return turn_done
  end, 50), "the turn did not end (no 'agent: done' log message)")
end)
finish(ok and "ok" or tostring(err))
