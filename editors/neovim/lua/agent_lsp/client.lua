--- The sidecar as a client of Neovim's built-in LSP client.
---
--- One client per project root. The built-in client does the framing, the
--- document sync (didOpen/didChange with the buffer's unsaved text) and
--- workspace/applyEdit; this module adds the agent's handlers, attaches the
--- project's file buffers and gives the rest of the plugin request helpers
--- that wait for initialize.
local config = require('agent_lsp.config')
local methods = require('agent_lsp.methods')
local util = require('agent_lsp.util')

local M = {}

local NAME = 'agent-lsp'
local method = methods.method
local augroup = vim.api.nvim_create_augroup('agent_lsp_client', { clear = true })

--- Per client: initialized yet, the callbacks waiting for it, its root,
--- and whether it is being stopped (a stopping sidecar takes no new work).
---@type table<integer, {ready: boolean, waiting: fun(client: vim.lsp.Client)[], root: string, stopping: boolean?}>
local state = {}

local has_011 = vim.fn.has('nvim-0.11') == 1

--- Calls a client method in the style of the running Neovim (0.10 binds
--- methods as closures; 0.11 deprecates the dot form).
local function call(client, name, ...)
  if has_011 then
    return client[name](client, ...)
  end
  return client[name](...)
end

--- Whether a buffer holds a real file the agent can see.
---@param buf integer
---@return string? path
local function file_of(buf)
  if not vim.api.nvim_buf_is_valid(buf) or vim.bo[buf].buftype ~= '' then
    return nil
  end
  local name = vim.api.nvim_buf_get_name(buf)
  if name == '' or name:match('^%a[%w+.-]*://') then
    return nil
  end
  return vim.fs.normalize(name)
end

---@param path string
---@param root string
local function under(path, root)
  return path == root or vim.startswith(path, root:gsub('/$', '') .. '/')
end

--- The project root for a buffer: the nearest directory with a root
--- marker, else the current directory.
---@param buf integer?
---@return string
function M.root(buf)
  buf = buf or vim.api.nvim_get_current_buf()
  local markers = config.get().root_markers
  local root
  local path = file_of(buf)
  if path then
    root = vim.fs.root(path, markers)
  end
  root = root or vim.fs.root(vim.uv.cwd() or '.', markers) or vim.uv.cwd()
  return vim.fs.normalize(assert(root))
end

--- The running client for a root, if any.
---@param root string?
---@return vim.lsp.Client?
function M.get(root)
  for _, client in ipairs(vim.lsp.get_clients({ name = NAME })) do
    local st = state[client.id]
    if st and not st.stopping and (root == nil or st.root == root) and not call(client, 'is_stopped') then
      return client
    end
  end
end

--- A client by id, if it is running and not being stopped.
---@param id integer
---@return vim.lsp.Client?
function M.get_by_id(id)
  local c = vim.lsp.get_client_by_id(id)
  local st = state[id]
  if c and st and not st.stopping and not call(c, 'is_stopped') then
    return c
  end
end

--- Attaches a buffer to the client when it is a file under the client's root.
---@param buf integer
---@param client vim.lsp.Client
function M.attach(buf, client)
  local path = file_of(buf)
  local st = state[client.id]
  if not path or not st or not vim.api.nvim_buf_is_loaded(buf) or not under(path, st.root) then
    return false
  end
  if vim.lsp.buf_is_attached(buf, client.id) then
    return true
  end
  return vim.lsp.buf_attach_client(buf, client.id)
end

local function attach_all(client)
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    M.attach(buf, client)
  end
end

--- Handlers of the agent's messages, for this client only (per-client
--- handlers leave other language servers alone).
local function handlers()
  return {
    [method.session_update] = function(_, params, ctx)
      require('agent_lsp.chat').on_update(ctx.client_id, params)
    end,
    [method.session_request_permission] = function(_, params, ctx)
      return require('agent_lsp.permission').request(params, ctx)
    end,
    [method.elicitation_create] = function(_, params, ctx)
      return require('agent_lsp.question').request(params, ctx)
    end,
    [method.agent_status] = function(_, params, ctx)
      require('agent_lsp.chat').on_status(ctx.client_id, params)
    end,
    [method.agent_diagnostics] = function(err, params, ctx)
      return require('agent_lsp.diagnostics').answer(err, params, ctx)
    end,
    [method.workspace_apply_edit] = function(err, params, ctx)
      return require('agent_lsp.edits').apply(err, params, ctx)
    end,
    -- The agent withdraws a permission request when the turn is cancelled;
    -- the built-in client does not tell which request, so pending prompts
    -- are dropped when the turn ends (see chat.lua).
    [method.cancel_request] = function() end,
  }
end

local function capabilities()
  local caps = vim.lsp.protocol.make_client_capabilities()
  caps.experimental = caps.experimental or {}
  -- Any object says "this editor speaks the session methods"; diagnostics
  -- says it answers agent/diagnostics with vim.diagnostic.get, so the agent
  -- starts no language server of its own for the open buffers.
  caps.experimental.agent = { diagnostics = vim.empty_dict() }
  require('agent_lsp.diagnostics').setup()
  return caps
end

---@param root string
---@return integer? client_id
local function start(root)
  local cfg = config.get()
  local init_options = cfg.init_options
  if init_options and vim.tbl_isempty(init_options) then
    init_options = nil
  end
  local lsp_config = {
    name = NAME,
    cmd = (config.command(cfg)),
    cmd_env = cfg.cmd_env,
    cmd_cwd = root,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = vim.fs.basename(root) } },
    capabilities = capabilities(),
    init_options = init_options,
    handlers = handlers(),
    on_init = function(client, result)
      local st = state[client.id]
      if not st then
        return
      end
      st.ready = true
      st.failed = {}
      local problem = util.meta(result)[methods.meta.provider_problem]
      if type(problem) == 'string' and problem ~= '' then
        st.provider_problem = problem
        vim.schedule(function()
          -- At start, before any prompt: an error in :messages that says
          -- what to set and where to look.
          util.error(problem, ' See :checkhealth agent_lsp.')
          require('agent_lsp.chat').on_provider_problem(client.id, problem)
        end)
      end
      if cfg.auto_attach then
        attach_all(client)
      end
      local waiting = st.waiting
      st.waiting = {}
      for _, cb in ipairs(waiting) do
        cb(client)
      end
    end,
    on_exit = function(code, signal, client_id)
      local st = state[client_id]
      state[client_id] = nil
      vim.schedule(function()
        for _, fail in ipairs(st and st.failed or {}) do
          fail(('agent-lsp exited before it was ready (code %d)'):format(code))
        end
        require('agent_lsp.permission').drop_client(client_id)
        require('agent_lsp.chat').on_exit(client_id, code, signal)
        if st and not st.ready then
          vim.notify(
            ('agent-lsp: the sidecar exited before it was ready (code %d); see :checkhealth agent_lsp'):format(code),
            vim.log.levels.ERROR
          )
        end
      end)
    end,
  }
  -- Start on a file buffer of the project if the current one is one (so
  -- vim.lsp.start attaches it); else start without attaching the current
  -- buffer, which may be the chat.
  local buf = vim.api.nvim_get_current_buf()
  local path = file_of(buf)
  local id
  if path and under(path, root) then
    id = vim.lsp.start(lsp_config, {
      bufnr = buf,
      reuse_client = function()
        return false
      end,
    })
  elseif has_011 then
    id = vim.lsp.start(lsp_config, { attach = false })
  else
    id = vim.lsp.start_client(lsp_config)
  end
  if not id then
    vim.notify('agent-lsp: could not start ' .. vim.inspect(cfg.cmd), vim.log.levels.ERROR)
    return nil
  end
  -- on_init runs from the event loop, after this returns: the state is
  -- there in time.
  state[id] = { ready = false, waiting = {}, failed = {}, root = root }
  return id
end

--- Calls `cb(client)` once the client for `root` has answered initialize,
--- starting the sidecar if needed. `on_error(message)` runs instead when
--- the sidecar cannot start or exits before it is ready.
---@param root string
---@param cb fun(client: vim.lsp.Client)
---@param on_error fun(err: string)?
function M.with_client(root, cb, on_error)
  local c = M.get(root)
  local id = c and c.id or start(root)
  if not id then
    if on_error then
      on_error('could not start agent-lsp (see :checkhealth agent_lsp)')
    end
    return
  end
  local st = state[id]
  if st.ready then
    cb(assert(vim.lsp.get_client_by_id(id)))
  else
    table.insert(st.waiting, cb)
    if on_error then
      table.insert(st.failed, on_error)
    end
  end
end

--- The "no model is configured" message the client's sidecar gave at
--- initialize, if any.
---@param client_id integer
---@return string?
function M.provider_problem(client_id)
  local st = state[client_id]
  return st and st.provider_problem
end

--- The root a client serves.
---@param client_id integer
---@return string?
function M.client_root(client_id)
  local st = state[client_id]
  return st and st.root
end

--- Sends a request; `cb(err, result)` runs on the main loop. Returns the
--- request id, or nil when the client is gone (then cb has been called).
---@param client vim.lsp.Client
---@param name string
---@param params table
---@param cb fun(err: lsp.ResponseError?, result: any)
---@return integer?
function M.request(client, name, params, cb)
  local ok, id = call(client, 'request', name, params, function(err, result)
    cb(err, result)
  end)
  if not ok then
    cb({ code = -32603, message = 'agent-lsp is not running' }, nil)
    return nil
  end
  return id
end

--- Sends a notification.
---@param client vim.lsp.Client
---@param name string
---@param params table
function M.notify(client, name, params)
  return call(client, 'notify', name, params)
end

--- Stops the client(s) of a root (all when root is nil). The next use
--- starts a new sidecar; chats resume their sessions there.
---@param root string?
function M.stop(root)
  for _, client in ipairs(vim.lsp.get_clients({ name = NAME })) do
    local st = state[client.id]
    if root == nil or (st and st.root == root) then
      if st then
        st.stopping = true
      end
      call(client, 'stop')
    end
  end
end

--- Attach newly read file buffers of a project whose client runs.
vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile', 'BufFilePost' }, {
  group = augroup,
  callback = function(ev)
    if not config.get().auto_attach then
      return
    end
    for _, client in ipairs(vim.lsp.get_clients({ name = NAME })) do
      if state[client.id] and state[client.id].ready then
        M.attach(ev.buf, client)
      end
    end
  end,
})

M.name = NAME
M._file_of = file_of
M._call = call

return M
