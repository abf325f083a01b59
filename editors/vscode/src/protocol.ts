// The agent-lsp protocol as this extension speaks it: a mirror of
// docs/protocol.md (session methods in ACP v1's shapes, carried over LSP
// framing next to the usual LSP lifecycle and document sync).
//
// This file imports nothing at run time (no `vscode`, no jsonrpc library):
// the extension, the webview bundle and the tests (which drive the real
// sidecar with vscode-jsonrpc) all use it.

// ---- initialize ------------------------------------------------------------

/** The client capability that turns on the session methods. */
export const AGENT_CAPABILITY = 'agent';

/** `initializationOptions` the agent reads (Claude Code settings keys too). */
export interface InitializationOptions {
  model?: string;
  provider?: 'anthropic' | 'openai' | string;
  baseURL?: string;
  maxTurns?: number;
  /** Whether VS Code trusts the workspace (`vscode.workspace.isTrusted`): a trusted folder's own settings load in full. */
  workspaceTrusted?: boolean;
  permissions?: { defaultMode?: ModeId; allow?: string[]; deny?: string[]; ask?: string[] };
  [key: string]: unknown;
}

/** What the agent returns under `capabilities.experimental.agent`. */
export interface AgentInitializeInfo {
  protocolVersion: number;
  agentCapabilities: {
    loadSession: boolean;
    promptCapabilities: { image: boolean; audio: boolean; embeddedContext: boolean };
    mcpCapabilities?: { http: boolean; sse: boolean };
    sessionCapabilities?: { list?: object; resume?: object; close?: object; fork?: object };
  };
  agentInfo?: { name: string; title?: string; version: string };
  authMethods?: { id: string; name: string; description?: string }[];
  _meta?: ProviderMeta;
}

/**
 * agent-lsp extension on the initialize result and the session/new,
 * session/load and session/resume results: `_meta["agent-lsp"].providerProblem`
 * says why no model can answer (no key configured); absent when one can.
 */
export interface ProviderMeta { 'agent-lsp'?: { providerProblem?: string } }

/** The provider problem an initialize or session result reports, if any. */
export function providerProblemOf(result: unknown): string | undefined {
  const meta = (result as { _meta?: ProviderMeta } | undefined)?._meta?.['agent-lsp'];
  return typeof meta?.providerProblem === 'string' && meta.providerProblem ? meta.providerProblem : undefined;
}

// ---- content ---------------------------------------------------------------

/**
 * What every content block may carry: ACP's annotations (audience,
 * priority, ...) and `_meta`; in a prompt, `_meta["agent-lsp"].ambient`
 * marks the editor's own context (docs/protocol.md, "Editor context").
 */
export interface BlockAnnotations { annotations?: Record<string, unknown>; _meta?: BlockMeta }
export interface BlockMeta { 'agent-lsp'?: { ambient?: 'open' | 'selection' } }
export interface TextBlock extends BlockAnnotations { type: 'text'; text: string }
export interface ImageBlock extends BlockAnnotations { type: 'image'; data: string; mimeType: string; uri?: string }
export interface AudioBlock extends BlockAnnotations { type: 'audio'; data: string; mimeType: string }
export interface ResourceLinkBlock extends BlockAnnotations {
  type: 'resource_link'; uri: string; name: string; title?: string; description?: string; mimeType?: string; size?: number;
}
export interface EmbeddedResourceBlock extends BlockAnnotations {
  type: 'resource';
  resource: { uri: string; mimeType?: string; text?: string; blob?: string };
}
export type ContentBlock = TextBlock | ImageBlock | AudioBlock | ResourceLinkBlock | EmbeddedResourceBlock;

// ---- sessions --------------------------------------------------------------

export type ModeId = 'default' | 'acceptEdits' | 'plan' | 'bypassPermissions' | string;

export interface Mode { id: ModeId; name: string; description?: string }
export interface ModeState { currentModeId: ModeId; availableModes: Mode[] }

export interface ConfigValue { value: string; name: string; description?: string }
export interface ConfigOption {
  id: string; name: string; description?: string; category?: string;
  type: 'select' | string; currentValue: string; options: ConfigValue[];
}

export interface McpServer {
  type?: 'stdio' | 'http' | 'sse';
  name: string;
  command?: string; args?: string[]; env?: { name: string; value: string }[];
  url?: string; headers?: { name: string; value: string }[];
}

export interface NewSessionParams { cwd: string; mcpServers: McpServer[]; model?: string }
/** A model the user can pick; `_meta["agent-lsp"].group` names its provider ("Anthropic", "OpenAI-compatible"). */
export interface ModelInfo { modelId: string; name: string; description?: string; _meta?: { 'agent-lsp'?: { group?: string } } }
export interface ModelState { currentModelId: string; availableModels: ModelInfo[] }

export interface NewSessionResult {
  sessionId: string; modes?: ModeState; models?: ModelState; configOptions?: ConfigOption[]; _meta?: ProviderMeta;
}

export interface PromptParams { sessionId: string; prompt: ContentBlock[] }
export type StopReason = 'end_turn' | 'max_tokens' | 'max_turn_requests' | 'refusal' | 'cancelled';
export interface PromptResult { stopReason: StopReason }

export interface SessionIdParams { sessionId: string }
export interface SetModeParams { sessionId: string; modeId: ModeId }
export interface SetModelParams { sessionId: string; modelId: string }
export interface SetConfigOptionParams { sessionId: string; configId: string; value: string }
export interface SetConfigOptionResult { configOptions: ConfigOption[] }

export interface ListSessionsParams { cwd?: string; cursor?: string }
/** A stored session; `_meta["agent-lsp"]` says where it comes from ("agent-lsp" or "claude-code") and whether it is read-only. */
export interface SessionInfo {
  sessionId: string; cwd: string; title?: string; updatedAt?: string;
  _meta?: { 'agent-lsp'?: { source?: string; readOnly?: boolean } };
}
export interface ListSessionsResult { sessions: SessionInfo[]; nextCursor?: string }
/**
 * session/load, session/resume and session/fork; `_meta["agent-lsp"].fork` on load or resume continues a copy under a new id,
 * and `checkpoint` with a fork starts the copy from before that prompt (session/checkpoints).
 */
export interface LoadSessionParams { sessionId: string; cwd: string; mcpServers: McpServer[]; _meta?: { 'agent-lsp'?: { fork?: boolean; checkpoint?: number } } }

// ---- checkpoints and rewind ------------------------------------------------

/** One checkpoint per prompt of the session, numbered from 1: the workspace and conversation before it. */
export interface Checkpoint { checkpoint: number; prompt: string; time: string }
export interface CheckpointsParams { sessionId: string }
export interface CheckpointsResult { checkpoints: Checkpoint[] }
/** What a rewind restores. */
export type RewindRestore = 'code' | 'conversation' | 'both';
/** What a rewind does to a file. */
export type RewindAction = 'write' | 'create' | 'delete';
export interface RewindParams { sessionId: string; checkpoint: number; restore: RewindRestore; force?: boolean; preview?: boolean }
export interface RewindChange { path: string; action: RewindAction }
/** applied is false for a preview and when conflicts (files changed since by someone other than the agent) stopped it. */
export interface RewindResult { applied: boolean; changes: RewindChange[]; conflicts?: string[]; warnings?: string[] }

// ---- MCP resources -----------------------------------------------------------

/** A resource an MCP server of the session lists; `@server:uri` in a prompt attaches it. */
export interface MCPResource { server: string; uri: string; name: string; mimeType?: string; description?: string }
export interface MCPResourcesParams { sessionId: string }
export interface MCPResourcesResult { resources: MCPResource[] }

// ---- session/update --------------------------------------------------------

export type ToolKind = 'read' | 'edit' | 'delete' | 'move' | 'search' | 'execute' | 'think' | 'fetch' | 'switch_mode' | 'other';
export type ToolStatus = 'pending' | 'in_progress' | 'completed' | 'failed';

export interface DiffContent { type: 'diff'; path: string; oldText?: string | null; newText: string }
export interface ToolContentBlock { type: 'content'; content: ContentBlock }
export interface TerminalContent { type: 'terminal'; terminalId: string }
export type ToolCallContent = DiffContent | ToolContentBlock | TerminalContent;

export interface Location { path: string; line?: number }

/** A tool call; in a tool_call_update every field but toolCallId is optional. */
export interface ToolCall {
  toolCallId: string;
  title?: string;
  kind?: ToolKind;
  status?: ToolStatus;
  content?: ToolCallContent[];
  locations?: Location[];
  rawInput?: unknown;
  rawOutput?: unknown;
  /** agent-lsp extension: subagent, description and permission (see ToolCallMeta). */
  _meta?: ToolCallMeta;
}

/**
 * agent-lsp extension: a subagent's tool calls and permission requests carry
 * `_meta["agent-lsp"]` naming the Agent tool call they belong to
 * (docs/protocol.md, "Subagents").
 */
export interface SubagentMeta { 'agent-lsp'?: { parentToolCallId?: string; agent?: string; agentId?: string } }

/** How a permission request for a tool call was answered (sent live and on replay). */
export interface PermissionRecord { outcome: 'allowed' | 'rejected' | 'cancelled' | string; optionId?: string; name?: string }

/**
 * `_meta["agent-lsp"]` of a tool call: the subagent it belongs to, the
 * model's own description of the call (secondary text under the title),
 * and, in a tool_call_update, how its permission request was answered.
 */
export interface ToolCallMeta {
  'agent-lsp'?: { parentToolCallId?: string; agent?: string; agentId?: string; description?: string; permission?: PermissionRecord };
}

/** The model's description of a tool call, if the agent sent one. */
export function descriptionOf(call: ToolCall): string | undefined {
  const d = call._meta?.['agent-lsp']?.description;
  return typeof d === 'string' && d ? d : undefined;
}

/** The answer to a tool call's permission request that a tool_call_update records, if any. */
export function permissionOf(call: ToolCall): PermissionRecord | undefined {
  const p = call._meta?.['agent-lsp']?.permission;
  return p && typeof p === 'object' && typeof p.outcome === 'string' ? p : undefined;
}

/** The id of the Agent tool call a subagent's tool call belongs to, if any. */
export function parentToolCallId(meta?: SubagentMeta): string | undefined {
  return meta?.['agent-lsp']?.parentToolCallId;
}

export interface PlanEntry { content: string; priority: 'high' | 'medium' | 'low'; status: 'pending' | 'in_progress' | 'completed' }
export interface AvailableCommand { name: string; description: string; input?: { hint: string } }

export type SessionUpdate =
  | { sessionUpdate: 'user_message_chunk'; content: ContentBlock }
  | { sessionUpdate: 'agent_message_chunk'; content: ContentBlock }
  | { sessionUpdate: 'agent_thought_chunk'; content: ContentBlock }
  | ({ sessionUpdate: 'tool_call' } & ToolCall)
  | ({ sessionUpdate: 'tool_call_update' } & ToolCall)
  | { sessionUpdate: 'plan'; entries: PlanEntry[] }
  | { sessionUpdate: 'available_commands_update'; availableCommands: AvailableCommand[] }
  | { sessionUpdate: 'current_mode_update'; currentModeId: ModeId }
  | { sessionUpdate: 'usage_update'; used: number; size: number; cost?: { amount: number; currency: string } }
  | { sessionUpdate: 'config_option_update'; configOptions: ConfigOption[] };

export interface SessionNotification { sessionId: string; update: SessionUpdate }

// ---- session/request_permission -------------------------------------------

export type PermissionOptionKind = 'allow_once' | 'allow_always' | 'reject_once' | 'reject_always';
/** An answer the user can give; `_meta["agent-lsp"].rule` is the settings rule it adds ("Edit(/calc.go)"), said in words by alwaysWords. */
export interface PermissionOption { optionId: string; name: string; kind: PermissionOptionKind; _meta?: { 'agent-lsp'?: { rule?: string } } }

/**
 * What a standing answer does, in words, for the picker's detail line and
 * the button's tooltip (docs/editor-words.md): "Edits to calc.go will not
 * ask again in this chat". The agent keeps an allowed Bash rule in the
 * folder's local settings, so that one names the rule (the user may want to
 * find it there); every other standing answer lasts for the chat. Undefined
 * for an option that is not an "Always allow/reject …" with a rule.
 */
export function alwaysWords(o: PermissionOption): string | undefined {
  const rule = ruleOf(o);
  const m = /^Always (?:allow|reject) (.+)$/s.exec(o.name);
  if (!rule || !m || (o.kind !== 'allow_always' && o.kind !== 'reject_always')) return undefined;
  // Code stays as it is, in quotes ("“go test …” commands"); words start with a capital.
  let what = m[1].replace(/`+([^`]*)`+/g, '“$1”').replace(/`/g, '');
  if (!/\s/.test(what)) what = `all ${what} calls`; // a rule naming a whole tool: "Edit"
  what = what[0].toUpperCase() + what.slice(1);
  if (o.kind === 'reject_always') return `${what} will be rejected without asking in this chat`;
  if (/^Bash\(/.test(rule)) return `${what} will run without asking in this folder (saved to its local settings as ${rule})`;
  return `${what} will not ask again in this chat`;
}

/** The settings rule an option adds, if the agent names one. */
export function ruleOf(o: PermissionOption): string | undefined {
  const r = o._meta?.['agent-lsp']?.rule;
  return typeof r === 'string' && r ? r : undefined;
}
export interface RequestPermissionParams { sessionId: string; toolCall: ToolCall; options: PermissionOption[]; _meta?: PermissionRequestMeta }

/** agent-lsp extension: `_meta["agent-lsp"].kind === "folderTrust"` marks a request to trust a folder. */
export interface PermissionRequestMeta { 'agent-lsp'?: { kind?: string; folder?: string; parentToolCallId?: string; agent?: string; agentId?: string } }

/** The `_meta` kind of a folder trust request. */
export const FOLDER_TRUST_KIND = 'folderTrust';

/** Whether a permission request asks to trust a folder rather than to run a tool call. */
export function isTrustRequest(p: RequestPermissionParams): boolean {
  return p._meta?.['agent-lsp']?.kind === FOLDER_TRUST_KIND;
}

/** The answer to a folder trust request: its allow option when trusted, else its reject option. */
export function trustAnswer(p: RequestPermissionParams, trusted: boolean): RequestPermissionResult {
  const kinds: PermissionOptionKind[] = trusted ? ['allow_always', 'allow_once'] : ['reject_once', 'reject_always'];
  for (const k of kinds) {
    const opt = p.options.find(o => o.kind === k);
    if (opt) return { outcome: { outcome: 'selected', optionId: opt.optionId } };
  }
  return { outcome: { outcome: 'cancelled' } };
}

/** agent-lsp extension: the proposed text as the user edited it. */
export interface PermissionMeta { editedText?: string }
export type PermissionOutcome =
  | { outcome: 'selected'; optionId: string; _meta?: PermissionMeta }
  | { outcome: 'cancelled' };
export interface RequestPermissionResult { outcome: PermissionOutcome }

// ---- elicitation/create ----------------------------------------------------

/**
 * ACP's elicitation/create in form mode: the model's questions
 * (AskUserQuestion). Each question is a choice field `question_<n>` (a
 * string with `oneOf`, or an array whose `items.anyOf` allows several) and
 * a free-text field `question_<n>_custom` titled "Other".
 */
export type ElicitationMode = 'form' | 'url';
export interface EnumOption { const: string; title?: string; description?: string }
export interface ElicitationItems { anyOf: EnumOption[] }
export interface ElicitationProperty { type: 'string' | 'array' | string; title?: string; description?: string; oneOf?: EnumOption[]; items?: ElicitationItems }
export interface ElicitationSchema { type: 'object' | string; properties: Record<string, ElicitationProperty>; required?: string[] }
export interface CreateElicitationParams { sessionId: string; toolCallId?: string; mode: ElicitationMode; message: string; requestedSchema: ElicitationSchema; _meta?: Record<string, unknown> }
export type ElicitationAction = 'accept' | 'decline' | 'cancel';
export interface CreateElicitationResult { action: ElicitationAction; content?: Record<string, string | string[]> }

/** One question of a form: its choice field, its "Other" field, and what to show. */
export interface FormQuestion {
  field: string;
  customField?: string;
  header: string;
  question: string;
  multiSelect: boolean;
  options: EnumOption[];
}

/**
 * The questions of a form, in order (question_0, question_1, ...): the
 * single question's text is the message, several carry theirs in their
 * field's description.
 */
export function formQuestions(p: CreateElicitationParams): FormQuestion[] {
  const props = p.requestedSchema?.properties ?? {};
  const names = Object.keys(props)
    .filter(k => (props[k].oneOf?.length ?? 0) > 0 || (props[k].items?.anyOf?.length ?? 0) > 0)
    .sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
  return names.map(field => {
    const f = props[field];
    const custom = `${field}_custom`;
    return {
      field,
      customField: props[custom] ? custom : undefined,
      header: f.title ?? '',
      question: f.description || p.message,
      multiSelect: f.type === 'array',
      options: f.type === 'array' ? f.items?.anyOf ?? [] : f.oneOf ?? [],
    };
  });
}

/** An answer to one question: the options picked and the text typed as "Other". */
export interface FormAnswer { picks: string[]; other?: string }

/** The accepted form holding answers, one per question (keyed by field). */
export function formAnswer(questions: FormQuestion[], answers: Record<string, FormAnswer>): CreateElicitationResult {
  const content: Record<string, string | string[]> = {};
  for (const q of questions) {
    const a = answers[q.field];
    if (!a) continue;
    if (q.multiSelect) content[q.field] = a.picks;
    else if (a.picks.length > 0) content[q.field] = a.picks[0];
    const other = a.other?.trim();
    if (other && q.customField) content[q.customField] = other;
  }
  return { action: 'accept', content };
}

export const DECLINED: CreateElicitationResult = { action: 'decline' };

// ---- agent/status ----------------------------------------------------------

export interface AgentStatusParams { sessionId?: string; kind: 'retry' | 'warning' | 'info' | string; message: string; retryInMs?: number }

// ---- agent/diagnostics -----------------------------------------------------

/** What the client announces under experimental.agent to answer agent/diagnostics. */
export const DIAGNOSTICS_CAPABILITY = 'diagnostics';

export interface AgentDiagnosticsParams { uri: string; version?: number; timeoutMs?: number }

export interface LspDiagnostic {
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  severity?: 1 | 2 | 3 | 4;
  code?: string | number;
  source?: string;
  message: string;
}

// ---- agent/thumbnail -------------------------------------------------------

/**
 * agent/thumbnail: an image scaled to a grid of colours, for editors that draw
 * with characters (Neovim). VS Code shows images itself and does not send it.
 */
export interface ThumbnailParams { data: string; mimeType?: string; cols: number; rows: number }
/** Rows of pixels, two per cell row; a pixel is "#rrggbb" or "" (transparent). */
export interface ThumbnailResult { width: number; height: number; pixels: string[][] }

// ---- errors ----------------------------------------------------------------

export const ErrorCodes = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  ServerNotInitialized: -32002,
  /** Also what session/prompt answers when no model provider is configured (NO_PROVIDER_MESSAGE). */
  AuthRequired: -32000,
  RequestFailed: -32803,
} as const;

/** engine.NoProviderMessage: what the agent says when no model is configured. */
export const NO_PROVIDER_MESSAGE = 'No model is configured. Set ANTHROPIC_API_KEY, or OPENAI_API_KEY with OPENAI_BASE_URL for an OpenAI-compatible server; `agent-lsp doctor` checks the setup.';

/**
 * An error message as the user should read it: without a leading protocol
 * method ("session/prompt: ...") that older agents put first.
 */
export function userMessage(message: string): string {
  const m = /^(?:session|agent|textDocument|workspace)\/[\w/]+:\s*(.*)$/s.exec(message);
  if (!m) return message;
  const rest = m[1];
  return rest ? rest[0].toUpperCase() + rest.slice(1) : message;
}

// ---- method table ----------------------------------------------------------

export const Methods = {
  sessionNew: 'session/new',
  sessionPrompt: 'session/prompt',
  sessionCancel: 'session/cancel',
  sessionSetMode: 'session/set_mode',
  sessionSetModel: 'session/set_model',
  sessionSetConfigOption: 'session/set_config_option',
  sessionList: 'session/list',
  sessionLoad: 'session/load',
  sessionResume: 'session/resume',
  sessionFork: 'session/fork',
  sessionClose: 'session/close',
  sessionCheckpoints: 'session/checkpoints',
  sessionRewind: 'session/rewind',
  sessionMCPResources: 'session/mcp_resources',
  sessionUpdate: 'session/update',
  requestPermission: 'session/request_permission',
  elicitationCreate: 'elicitation/create',
  agentStatus: 'agent/status',
  agentDiagnostics: 'agent/diagnostics',
  agentThumbnail: 'agent/thumbnail',
} as const;

/** A request method with its params and result types. */
export interface RequestMethod<P, R> { readonly method: string; readonly _types?: [P, R] }
/** A notification method with its params type. */
export interface NotificationMethod<P> { readonly method: string; readonly _types?: [P] }
const request = <P, R>(method: string): RequestMethod<P, R> => ({ method });
const notification = <P>(method: string): NotificationMethod<P> => ({ method });

export const NewSessionRequest = request<NewSessionParams, NewSessionResult>(Methods.sessionNew);
/**
 * session/prompt. Sent while a turn runs in the same session, it steers that
 * turn: the agent echoes it as user_message_chunk when the model gets it and
 * answers when that turn ends (docs/protocol.md, "Steering a running turn").
 */
export const PromptRequest = request<PromptParams, PromptResult>(Methods.sessionPrompt);
export const CancelNotification = notification<SessionIdParams>(Methods.sessionCancel);
export const SetModeRequest = request<SetModeParams, object>(Methods.sessionSetMode);
export const SetModelRequest = request<SetModelParams, object>(Methods.sessionSetModel);
export const SetConfigOptionRequest = request<SetConfigOptionParams, SetConfigOptionResult>(Methods.sessionSetConfigOption);
export const ListSessionsRequest = request<ListSessionsParams, ListSessionsResult>(Methods.sessionList);
export const LoadSessionRequest = request<LoadSessionParams, NewSessionResult>(Methods.sessionLoad);
export const ResumeSessionRequest = request<LoadSessionParams, NewSessionResult>(Methods.sessionResume);
export const CheckpointsRequest = request<CheckpointsParams, CheckpointsResult>(Methods.sessionCheckpoints);
export const MCPResourcesRequest = request<MCPResourcesParams, MCPResourcesResult>(Methods.sessionMCPResources);
/** session/rewind: the code, the conversation or both back to before a checkpoint's prompt; all or nothing. */
export const RewindRequest = request<RewindParams, RewindResult>(Methods.sessionRewind);
/** session/fork: continues a copy of a stored session under the result's new sessionId. */
export const ForkSessionRequest = request<LoadSessionParams, NewSessionResult>(Methods.sessionFork);
export const CloseSessionRequest = request<SessionIdParams, object>(Methods.sessionClose);
export const SessionUpdateNotification = notification<SessionNotification>(Methods.sessionUpdate);
export const RequestPermissionRequest = request<RequestPermissionParams, RequestPermissionResult>(Methods.requestPermission);
/** elicitation/create: the model's questions as a form; answer, decline or cancel. */
export const CreateElicitationRequest = request<CreateElicitationParams, CreateElicitationResult>(Methods.elicitationCreate);
export const AgentStatusNotification = notification<AgentStatusParams>(Methods.agentStatus);
export const AgentDiagnosticsRequest = request<AgentDiagnosticsParams, LspDiagnostic[]>(Methods.agentDiagnostics);
export const ThumbnailRequest = request<ThumbnailParams, ThumbnailResult>(Methods.agentThumbnail);

// ---- helpers ---------------------------------------------------------------

/** The modes docs/protocol.md lists, for agents that do not send theirs. */
export const DEFAULT_MODES: Mode[] = [
  { id: 'default', name: 'Default', description: 'Ask before anything that changes state' },
  { id: 'acceptEdits', name: 'Accept edits', description: 'File edits in the workspace are allowed; shell commands still ask' },
  { id: 'plan', name: 'Plan', description: 'Read-only tools only: the agent plans, nothing changes' },
  { id: 'bypassPermissions', name: 'Bypass permissions', description: 'Never ask; deny rules still hold' },
];

/**
 * The single-file diff a permission request proposes, if it proposes exactly
 * one: the case where the user may edit the proposal (`_meta.editedText`).
 */
export function singleDiff(call: ToolCall): DiffContent | undefined {
  const diffs = (call.content ?? []).filter((c): c is DiffContent => c.type === 'diff');
  return diffs.length === 1 ? diffs[0] : undefined;
}

/** The option of a kind, if the request offers one. */
export function optionOfKind(options: PermissionOption[], kind: PermissionOptionKind): PermissionOption | undefined {
  return options.find(o => o.kind === kind);
}

/**
 * The answer that selects an option. `editedText` is sent only when the user
 * changed the proposal: the agent applies it instead and tells the model.
 */
export function selectOutcome(optionId: string, proposed?: string, edited?: string): RequestPermissionResult {
  const outcome: PermissionOutcome = { outcome: 'selected', optionId };
  if (edited !== undefined && proposed !== undefined && edited !== proposed) {
    outcome._meta = { editedText: edited };
  }
  return { outcome };
}

export const CANCELLED: RequestPermissionResult = { outcome: { outcome: 'cancelled' } };

/**
 * The plan of an ExitPlanMode permission request (docs/protocol.md, "Plan
 * review"): a switch_mode call whose raw input holds the plan's markdown.
 */
export function planOf(call: ToolCall): string | undefined {
  if (call.kind !== 'switch_mode') return undefined;
  const plan = (call.rawInput as { plan?: unknown } | undefined)?.plan;
  return typeof plan === 'string' ? plan : undefined;
}

/** The command line of a Bash call, if its raw input carries one. */
export function commandOf(call: ToolCall): string | undefined {
  const input = call.rawInput as { command?: unknown } | undefined;
  return input && typeof input.command === 'string' ? input.command : undefined;
}
