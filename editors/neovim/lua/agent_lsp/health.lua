--- :checkhealth agent_lsp
local M = {}

local health = vim.health

local levels = { ok = health.ok, warning = health.warn, error = health.error, skipped = health.info }

--- Runs `agent-lsp doctor --json` in the project and shows each check,
--- with its fix as advice. Returns whether the doctor found a problem
--- with the model provider (so it is not reported twice).
---@param exe string
---@param cfg agent_lsp.Config
---@return boolean provider_problem
function M.doctor(exe, cfg)
  health.start('agent-lsp doctor')
  local root = vim.fs.root(0, cfg.root_markers or {}) or vim.fn.getcwd()
  -- The sidecar's environment: Neovim's plus cmd_env.
  local ok, res = pcall(function()
    return vim.system({ exe, 'doctor', '--json', '-C', root }, { text = true, env = cfg.cmd_env }):wait(60000)
  end)
  if not ok then
    health.error('doctor did not run: ' .. tostring(res))
    return false
  end
  local decoded, report = pcall(vim.json.decode, res.stdout or '')
  if not decoded or type(report) ~= 'table' or type(report.checks) ~= 'table' then
    health.error(('`%s doctor --json` failed (code %s): %s'):format(exe, tostring(res.code), vim.trim(res.stderr or '')))
    return false
  end
  health.info(('workspace %s (%s/%s)'):format(tostring(report.workspace), tostring(report.os), tostring(report.arch)))
  local provider_problem = false
  for _, c in ipairs(report.checks) do
    -- An agent that follows docs/protocol.md reports the prompt's own
    -- words ("No model is configured…"); an older one does not, and the
    -- section below says them.
    if c.name == 'provider' and tostring(c.message):find('No model is configured', 1, true) then
      provider_problem = true
    end
    local report_fn = levels[c.status] or health.info
    local msg = ('%s: %s'):format(c.name, c.message)
    if c.fix and c.fix ~= '' then
      report_fn(msg, { c.fix })
    else
      report_fn(msg)
    end
  end
  return provider_problem
end

function M.check()
  local doctor_exe
  health.start('Neovim')
  local v = vim.version()
  local vs = ('%d.%d.%d'):format(v.major, v.minor, v.patch)
  if vim.fn.has('nvim-0.10') == 1 then
    health.ok('Neovim ' .. vs)
  else
    health.error('Neovim ' .. vs .. ': agent-lsp needs 0.10 or newer')
  end
  if jit then
    health.ok('LuaJIT (permission prompts wait in a coroutine without blocking)')
  else
    health.warn('not LuaJIT: permission prompts may fail (they yield across pcall)')
  end

  health.start('Configuration')
  local ok, err = pcall(function()
    local config = require('agent_lsp.config')
    config.validate(config.get())
  end)
  if ok then
    health.ok('options are valid')
  else
    health.error('invalid options: ' .. tostring(err))
  end
  local cfg = require('agent_lsp.config').get()

  health.start('Sidecar')
  if type(cfg.cmd) == 'function' then
    health.info('cmd is a function (custom transport)')
  else
    local cmd, source = require('agent_lsp.config').command(cfg)
    local exe = vim.fn.exepath(cmd[1])
    if exe == '' then
      health.error(
        ('%s not found (cmd = %s)'):format(cmd[1], vim.inspect(cmd)),
        {
          'with lazy.nvim, add build = "make build" to the spec (it makes <plugin dir>/bin/agent-lsp)',
          'or go install github.com/agent-lsp/agent-lsp/cmd/agent-lsp@latest',
          'or set cmd to its absolute path',
        }
      )
    else
      health.ok(('binary: %s (from %s)'):format(exe, source))
      doctor_exe = exe
      local res = vim.system({ exe, 'version' }, { text = true }):wait(5000)
      if res.code == 0 then
        health.ok('version: ' .. vim.trim(res.stdout or ''))
      else
        health.warn(('`%s version` failed (code %s): %s'):format(exe, tostring(res.code), vim.trim(res.stderr or '')))
      end
    end
  end

  local doctor_said = false
  if doctor_exe then
    doctor_said = M.doctor(doctor_exe, cfg)
  end

  health.start('Model provider')
  local env = vim.tbl_extend('force', vim.fn.environ(), cfg.cmd_env or {})
  local init = cfg.init_options or {}
  if init.provider then
    health.info('provider (init_options): ' .. tostring(init.provider))
  end
  if init.model then
    health.info('model (init_options): ' .. tostring(init.model))
  elseif env.ANTHROPIC_MODEL then
    health.info('model (ANTHROPIC_MODEL): ' .. env.ANTHROPIC_MODEL)
  end
  local any = false
  for _, name in ipairs({ 'ANTHROPIC_API_KEY', 'OPENAI_API_KEY' }) do
    if env[name] and env[name] ~= '' then
      health.ok(name .. ' is set')
      any = true
    end
  end
  for _, name in ipairs({ 'ANTHROPIC_BASE_URL', 'OPENAI_BASE_URL' }) do
    if env[name] and env[name] ~= '' then
      health.info(name .. ' = ' .. env[name])
    end
  end
  if init.baseURL then
    health.info('baseURL (init_options): ' .. tostring(init.baseURL))
  end
  -- The same words as the error a prompt gets (engine.NoProviderMessage).
  local problem
  for _, c in ipairs(vim.lsp.get_clients({ name = 'agent-lsp' })) do
    problem = problem or require('agent_lsp.client').provider_problem(c.id)
  end
  local advice = {
    'export ANTHROPIC_API_KEY (or OPENAI_API_KEY with OPENAI_BASE_URL) before starting Neovim',
    'or set cmd_env = { ANTHROPIC_API_KEY = ... } in the options, then :AgentStop',
  }
  if problem and not doctor_said then
    health.error(problem, advice)
  elseif not any and not doctor_said then
    health.warn(require('agent_lsp.methods').no_provider_message, advice)
  elseif problem or (not any and doctor_said) then
    health.info('see "provider" in the doctor above; in Neovim the key can also go in cmd_env (then :AgentStop)')
  end

  health.start('Running')
  local clients = vim.lsp.get_clients({ name = 'agent-lsp' })
  if #clients == 0 then
    health.info('not started (it starts on :AgentChat, :Agent, ...)')
  end
  for _, c in ipairs(clients) do
    local info = c.server_capabilities and c.server_capabilities.experimental
    local agent = info and info.agent
    if agent then
      health.ok(('client %d, root %s, agent %s, protocol %s'):format(
        c.id,
        tostring(c.root_dir),
        agent.agentInfo and agent.agentInfo.version or '?',
        tostring(agent.protocolVersion)
      ))
    else
      health.warn(('client %d did not announce experimental.agent (not initialized yet, or an old sidecar)'):format(c.id))
    end
    local n = 0
    for _ in pairs(c.attached_buffers or {}) do
      n = n + 1
    end
    health.info(('%d buffer(s) attached'):format(n))
  end
  local pending = #require('agent_lsp.permission').pending()
  if pending > 0 then
    health.warn(('%d permission request(s) waiting: :AgentPermission'):format(pending))
  end
end

return M
