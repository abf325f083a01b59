--- The protocol's vocabulary, mirrored from docs/protocol.md.
---
--- Every method name, update kind and enum value the plugin sends or reads
--- lives here; those the Go side has constants for come from
--- methods_gen.lua, generated from schema/.
local M = {}

--- The tables generated from the Go schema (methods_gen.lua, checked by
--- internal/protocheck): method names, update kinds, stop reasons, tool
--- statuses and kinds, permission option kinds, content types and
--- agent/status kinds. The rest of this file has no Go constants to come
--- from.
local gen = require('agent_lsp.methods_gen')

--- Requests and notifications (editor -> agent, agent -> editor).
M.method = gen.method

--- `update.sessionUpdate` of a session/update notification.
M.update = gen.update

--- `stopReason` of a session/prompt result.
M.stop_reason = gen.stop_reason

--- Tool call `status`: pending -> in_progress -> completed | failed.
M.tool_status = gen.tool_status

--- Tool call `kind`.
M.tool_kind = gen.tool_kind

--- Permission option `kind`.
M.permission_kind = gen.permission_kind

--- `restore` of session/rewind: code, conversation or both.
M.rewind_restore = gen.rewind_restore

--- `changes[].action` of a session/rewind result.
M.rewind_action = gen.rewind_action

--- `mode` of elicitation/create (the model's questions come as `form`).
M.elicitation_mode = gen.elicitation_mode

--- `action` of an elicitation/create answer.
M.elicitation_action = gen.elicitation_action

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
M.status_kind = gen.status_kind

--- Content block `type` in prompts and updates, and tool call content
--- `type` (content, diff, terminal).
M.content = vim.tbl_extend('error', gen.content_block, gen.tool_content)

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
