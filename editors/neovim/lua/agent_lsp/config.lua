--- Configuration: defaults, validation and the merged result.
---
--- Options come from `require('agent_lsp').setup(opts)` or, for users who
--- never call setup, from `vim.g.agent_lsp` (read on first use).
local M = {}

---@class agent_lsp.ChatKeymaps
---@field send string|false       normal mode: send the text under the last "## You"
---@field send_insert string|false insert mode: send
---@field cancel string|false     cancel the running turn
---@field close string|false      close the chat window
---@field permission string|false show the pending permission prompt
---@field mode string|false       pick a mode

---@class agent_lsp.PermissionKeymaps
---@field allow_once string
---@field allow_always string
---@field allow_outside string run a command outside the sandbox, when offered
---@field reject_once string
---@field reject_always string
---@field review string
---@field later string

---@class agent_lsp.Config
M.defaults = {
  --- Command that starts the sidecar (the LSP door).
  cmd = { 'agent-lsp', '--stdio' },
  --- Extra environment for the sidecar, e.g. { ANTHROPIC_BASE_URL = '...' }.
  cmd_env = nil,
  --- Files or directories that mark a project root (searched upward).
  root_markers = { '.git', '.hg', '.jj', 'go.mod', 'package.json', 'Cargo.toml', 'pyproject.toml' },
  --- Sent as initializationOptions: model, provider, baseURL, maxTurns,
  --- permissions, hooks, ... (see docs/protocol.md).
  init_options = {},
  --- Attach every file buffer under the root to the client, so the agent
  --- reads what you see (unsaved changes included).
  auto_attach = true,
  --- After the agent's edit is applied, save the buffers that had no unsaved
  --- changes before it (buffers with your unsaved work are never saved).
  save_clean_buffers = true,
  chat = {
    --- 'vsplit', 'split', 'float' or 'tab'.
    layout = 'vsplit',
    --- Fraction of the editor (or columns/lines when > 1).
    width = 0.4,
    height = 0.4,
    --- Minimum time between two renders of streamed output (ms): 33 is
    --- about 30 redraws a second at most.
    render_interval_ms = 33,
    --- Lines of a tool's output kept in its folded details.
    tool_output_lines = 40,
    --- Open the chat window when :Agent sends a prompt.
    open_on_prompt = true,
    --- Send the file last worked in and its last selection with each
    --- prompt, as Claude Code's IDE integration does (shown above the input).
    editor_context = true,
    --- Draw a prompt's images as thumbnails in the chat (true colour only).
    thumbnails = true,
    keymaps = {
      send = '<CR>',
      send_insert = '<C-s>',
      cancel = '<C-c>',
      close = 'q',
      permission = 'gp',
      mode = 'gm',
      --- Leave the editor context out of the next prompts, until it changes.
      drop_context = 'gx',
    },
  },
  permission = {
    --- 'float' (non-blocking prompt with the diff) or 'select' (vim.ui.select;
    --- only non-blocking with an asynchronous vim.ui.select).
    ui = 'float',
    --- Put the cursor in the prompt when it opens (never while you type in
    --- insert or command-line mode).
    focus = true,
    keymaps = {
      allow_once = 'y',
      allow_always = 'a',
      allow_outside = 'o',
      reject_once = 'n',
      reject_always = 'N',
      review = 'd',
      later = 'q',
    },
  },
  --- Show agent/status notices (retries, warnings) with vim.notify.
  notify_status = true,
}

---@type agent_lsp.Config?
local current

--- Merges like vim.tbl_deep_extend('force') but replaces lists whole: a
--- user's `cmd = { '/opt/agent-lsp' }` must not inherit '--stdio' at index 2.
local function merge(base, override)
  if type(base) ~= 'table' or type(override) ~= 'table' or vim.islist(override) or vim.islist(base) then
    if override == nil then
      return vim.deepcopy(base)
    end
    return vim.deepcopy(override)
  end
  local out = vim.deepcopy(base)
  for k, v in pairs(override) do
    out[k] = merge(base[k], v)
  end
  return out
end

local function optional_key(v)
  return v == false or type(v) == 'string'
end

--- Validates a merged configuration; raises an error naming the field.
---@param c agent_lsp.Config
function M.validate(c)
  vim.validate({
    cmd = {
      c.cmd,
      function(v)
        return (type(v) == 'table' and #v > 0) or type(v) == 'function'
      end,
      'a non-empty list (or an rpc function)',
    },
    cmd_env = { c.cmd_env, 'table', true },
    root_markers = { c.root_markers, 'table' },
    init_options = { c.init_options, 'table', true },
    auto_attach = { c.auto_attach, 'boolean' },
    save_clean_buffers = { c.save_clean_buffers, 'boolean' },
    chat = { c.chat, 'table' },
    permission = { c.permission, 'table' },
    notify_status = { c.notify_status, 'boolean' },
  })
  local ch = c.chat
  vim.validate({
    ['chat.layout'] = {
      ch.layout,
      function(v)
        return vim.tbl_contains({ 'vsplit', 'split', 'float', 'tab' }, v)
      end,
      "'vsplit', 'split', 'float' or 'tab'",
    },
    ['chat.width'] = { ch.width, 'number' },
    ['chat.height'] = { ch.height, 'number' },
    ['chat.render_interval_ms'] = {
      ch.render_interval_ms,
      function(v)
        return type(v) == 'number' and v >= 1
      end,
      'a number >= 1',
    },
    ['chat.tool_output_lines'] = { ch.tool_output_lines, 'number' },
    ['chat.open_on_prompt'] = { ch.open_on_prompt, 'boolean' },
    ['chat.editor_context'] = { ch.editor_context, 'boolean' },
    ['chat.thumbnails'] = { ch.thumbnails, 'boolean' },
    ['chat.keymaps'] = { ch.keymaps, 'table' },
  })
  for name, v in pairs(ch.keymaps) do
    vim.validate({ ['chat.keymaps.' .. name] = { v, optional_key, 'a key string or false' } })
  end
  local p = c.permission
  vim.validate({
    ['permission.ui'] = {
      p.ui,
      function(v)
        return v == 'float' or v == 'select'
      end,
      "'float' or 'select'",
    },
    ['permission.focus'] = { p.focus, 'boolean' },
    ['permission.keymaps'] = { p.keymaps, 'table' },
  })
  for name, v in pairs(p.keymaps) do
    vim.validate({ ['permission.keymaps.' .. name] = { v, 'string' } })
  end
end

--- Sets the configuration from user options (merged over the defaults).
--- Raises an error when an option has the wrong type.
---@param opts table?
function M.set(opts)
  vim.validate({ opts = { opts, 'table', true } })
  local c = merge(M.defaults, opts or {})
  M.validate(c)
  current = c
end

--- The configuration in force.
---@return agent_lsp.Config
function M.get()
  if not current then
    local ok, err = pcall(M.set, vim.g.agent_lsp)
    if not ok then
      vim.notify('agent-lsp: vim.g.agent_lsp: ' .. tostring(err), vim.log.levels.ERROR)
      current = vim.deepcopy(M.defaults)
    end
  end
  return current
end

--- The directories that may hold a binary built by the plugin manager's
--- build step (`make build` puts bin/agent-lsp at the repository root):
--- the repository root (lazy.nvim's plugin dir), then editors/neovim.
---@return string[]
function M.plugin_bin_dirs()
  local src = debug.getinfo(1, 'S').source:gsub('^@', '')
  local nvim_dir = vim.fn.fnamemodify(src, ':p:h:h:h') -- editors/neovim
  local root = vim.fn.fnamemodify(nvim_dir, ':h:h')
  return { root .. '/bin', nvim_dir .. '/bin' }
end

--- The command that starts the sidecar: cmd as configured, except that the
--- default bare name `agent-lsp` is `<plugin dir>/bin/agent-lsp` when the
--- build step made it, before PATH.
---@param c agent_lsp.Config?
---@return string[]|function cmd, string source  "plugin", "cmd" or "PATH"
function M.command(c)
  c = c or M.get()
  local cmd = c.cmd
  if type(cmd) ~= 'table' or cmd[1] ~= 'agent-lsp' then
    return cmd, 'cmd'
  end
  local exe = vim.fn.has('win32') == 1 and 'agent-lsp.exe' or 'agent-lsp'
  for _, dir in ipairs(M.plugin_bin_dirs()) do
    local p = dir .. '/' .. exe
    if vim.fn.executable(p) == 1 then
      local out = vim.deepcopy(cmd)
      out[1] = p
      return out, 'plugin'
    end
  end
  return cmd, 'PATH'
end

return M
