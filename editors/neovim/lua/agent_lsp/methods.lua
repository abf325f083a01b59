--- The protocol's vocabulary, mirrored from docs/protocol.md.
---
--- Every method name, update kind and enum value the plugin sends or reads
--- lives here, so a change of the contract is a change of this one file.
local M = {}

--- Requests and notifications.
M.method = {
  -- editor -> agent
  session_new = 'session/new',
  session_prompt = 'session/prompt',
  session_cancel = 'session/cancel', -- notification
  session_set_mode = 'session/set_mode',
  session_set_model = 'session/set_model',
  session_set_config_option = 'session/set_config_option',
  session_list = 'session/list',
  session_load = 'session/load',
  session_resume = 'session/resume',
  session_fork = 'session/fork',
  session_close = 'session/close',
  cancel_request = '$/cancelRequest', -- notification, both directions

  -- agent -> editor
  session_update = 'session/update', -- notification
  session_request_permission = 'session/request_permission', -- request
  agent_status = 'agent/status', -- notification
  agent_diagnostics = 'agent/diagnostics', -- request: the editor's diagnostics of a buffer
  workspace_apply_edit = 'workspace/applyEdit', -- request
}

--- `update.sessionUpdate` of a session/update notification.
M.update = {
  user_message_chunk = 'user_message_chunk',
  agent_message_chunk = 'agent_message_chunk',
  agent_thought_chunk = 'agent_thought_chunk',
  tool_call = 'tool_call',
  tool_call_update = 'tool_call_update',
  plan = 'plan',
  available_commands_update = 'available_commands_update',
  current_mode_update = 'current_mode_update',
  usage_update = 'usage_update',
  config_option_update = 'config_option_update',
}

--- `stopReason` of a session/prompt result.
M.stop_reason = {
  end_turn = 'end_turn',
  max_tokens = 'max_tokens',
  max_turn_requests = 'max_turn_requests',
  refusal = 'refusal',
  cancelled = 'cancelled',
}

--- Tool call `status`: pending -> in_progress -> completed | failed.
M.tool_status = {
  pending = 'pending',
  in_progress = 'in_progress',
  completed = 'completed',
  failed = 'failed',
}

--- Tool call `kind`.
M.tool_kind = {
  read = 'read',
  edit = 'edit',
  delete = 'delete',
  move = 'move',
  search = 'search',
  execute = 'execute',
  think = 'think',
  fetch = 'fetch',
  other = 'other',
}

--- Permission option `kind`.
M.permission_kind = {
  allow_once = 'allow_once',
  allow_always = 'allow_always',
  reject_once = 'reject_once',
  reject_always = 'reject_always',
}

--- `_meta["agent-lsp"].kind` of a request to trust a folder.
M.folder_trust = 'folderTrust'

--- `_meta["agent-lsp"]` keys of a subagent's tool calls and permission
--- requests: the Agent tool call they belong to, the agent's type and run.
M.subagent_meta = {
  parent_tool_call = 'parentToolCallId',
  agent = 'agent',
  agent_id = 'agentId',
}

--- `_meta["agent-lsp"]` keys of the agent's UX fields (docs/protocol.md):
--- a tool call's secondary text (the model's own description), the
--- settings rule of a permission option, the answer to a permission request
--- (on the tool_call_update that follows it, live and replayed), a model's
--- group, and the "no model is configured" problem on the initialize and
--- session/new results.
M.meta = {
  key = 'agent-lsp',
  description = 'description',
  rule = 'rule',
  permission = 'permission',
  group = 'group',
  provider_problem = 'providerProblem',
}

--- `_meta["agent-lsp"].permission.outcome` of an answered request.
M.permission_answer = {
  allowed = 'allowed',
  rejected = 'rejected',
  cancelled = 'cancelled',
}

--- The agent's error when no model provider is configured (engine.NoProviderMessage,
--- JSON-RPC code -32000); :checkhealth uses the same words.
M.no_provider_message = 'No model is configured. Set ANTHROPIC_API_KEY, or OPENAI_API_KEY with OPENAI_BASE_URL'
  .. ' for an OpenAI-compatible server; `agent-lsp doctor` checks the setup.'

--- A session/prompt sent while a turn runs steers it: the agent echoes it
--- as user_message_chunk when the model gets it and answers when that
--- turn ends (docs/protocol.md, "Steering a running turn").
M.steers = true

--- Permission `outcome.outcome`.
M.permission_outcome = {
  selected = 'selected',
  cancelled = 'cancelled',
}

--- Plan entry `status`.
M.plan_status = {
  pending = 'pending',
  in_progress = 'in_progress',
  completed = 'completed',
}

--- agent/status `kind`.
M.status_kind = {
  retry = 'retry',
  warning = 'warning',
  info = 'info',
}

--- Content block `type` in prompts and updates.
M.content = {
  text = 'text',
  image = 'image',
  resource = 'resource',
  resource_link = 'resource_link',
  -- tool call content
  content = 'content',
  diff = 'diff',
  terminal = 'terminal',
}

--- JSON-RPC error codes the agent answers with.
M.error_code = {
  parse_error = -32700,
  invalid_request = -32600,
  method_not_found = -32601,
  invalid_params = -32602,
  server_not_initialized = -32002,
  auth_required = -32000,
  request_failed = -32803,
}

--- The modes of docs/protocol.md, used when the agent does not list its own.
M.default_modes = {
  { id = 'default', name = 'Default', description = 'Ask before anything that changes state' },
  {
    id = 'acceptEdits',
    name = 'Accept edits',
    description = 'File edits in the workspace are allowed; shell commands still ask',
  },
  { id = 'plan', name = 'Plan', description = 'Read-only tools only: the agent plans, nothing changes' },
  { id = 'bypassPermissions', name = 'Bypass permissions', description = 'Never ask; deny rules still hold' },
}

return M
