// The chat view's state and the one reducer that changes it.
//
// The extension owns the state (so nothing is lost when the webview is
// hidden and destroyed); the webview keeps a copy. Both apply the same
// events with `reduce`: the extension sends the webview a snapshot when it
// (re)loads and then batches of events. `reduce` mutates in place (a long
// stream appends thousands of chunks) and returns what changed, so the
// webview re-renders only those parts, once per animation frame.
//
// No `vscode` or DOM imports: the unit tests run this in plain Node.

import {
  type AvailableCommand, type Checkpoint, type ConfigOption, type ContentBlock, type Mode, type ModeId, type ModelState, type PermissionOption,
  permissionOf, type PlanEntry, type SessionUpdate, type StopReason, type ToolCall,
} from '../protocol';

export type ConnectionState = 'starting' | 'ready' | 'error' | 'stopped';

/** Something attached to the next prompt (a selection, a file, diagnostics). */
export interface Attachment {
  id: string;
  /** Short label for the chip: "calc.py:8-11", "README.md", "2 diagnostics". */
  label: string;
  block: ContentBlock;
}

export interface UserItem {
  kind: 'user'; id: string; text: string; attachments: string[];
  /** The images sent with the message, as data: URLs (thumbnails). */
  images?: string[];
}
export interface AgentItem { kind: 'agent'; id: string; text: string }
export interface ThoughtItem { kind: 'thought'; id: string; text: string }
export interface ToolItem { kind: 'tool'; id: string; call: ToolCall }
export interface PlanItem { kind: 'plan'; id: string; entries: PlanEntry[] }
export type PermissionState = 'pending' | 'allowed' | 'rejected' | 'cancelled';
export interface PermissionItem {
  kind: 'permission';
  id: string;
  toolCallId: string;
  /** The action in the user's words ("Edit calc.go", "Run `go test ./...`"). */
  title: string;
  /** The model's own description of the call, shown as secondary text. */
  description?: string;
  toolKind?: string;
  /** For Bash: the command line; for edits: the file. */
  detail?: string;
  /** The request's text content as the agent words it (markdown): a command in full, where it will run. Shown instead of detail. */
  content?: string[];
  /** What the request opens for review: a single-file diff (the diff editor) or a plan (a markdown editor). */
  review?: 'diff' | 'plan';
  options: PermissionOption[];
  state: PermissionState;
  /** The option chosen, once decided. */
  chosen?: string;
  /** The chosen option's name as the agent recorded it (a reloaded session has no options). */
  chosenName?: string;
  edited?: boolean;
}
export type NoticeLevel = 'info' | 'warning' | 'error' | 'retry';
export interface NoticeItem { kind: 'notice'; id: string; level: NoticeLevel; text: string }
export interface StopItem { kind: 'stop'; id: string; reason: StopReason | string }
export type Item = UserItem | AgentItem | ThoughtItem | ToolItem | PlanItem | PermissionItem | NoticeItem | StopItem;

export interface Usage { used: number; size: number; cost?: { amount: number; currency: string } }

/** The effort config option: the current value and the values to pick from. */
export interface EffortChoice { current: string; options: { value: string; name: string; description?: string }[] }

/** A model in the picker: its id, display name, description and provider group. */
export interface ModelChoice { value: string; name: string; description?: string; group?: string }

export interface ViewState {
  connection: ConnectionState;
  connectionMessage?: string;
  sessionId?: string;
  title?: string;
  /** The session's working directory (paths under it are shown relative). */
  cwd?: string;
  busy: boolean;
  items: Item[];
  modes: Mode[];
  currentModeId?: ModeId;
  models: ModelChoice[];
  currentModel?: string;
  /** The effort picker (the `effort` config option); unset when the agent offers none. */
  effort?: EffortChoice;
  /** Why no model can answer (no key configured), from the agent; unset when one can. */
  providerProblem?: string;
  /** editor.tabSize by language id ("go", "python"), and "" for the default. */
  tabSizes?: Record<string, number>;
  commands: AvailableCommand[];
  usage?: Usage;
  attachments: Attachment[];
  /** The editor's context that goes with the next prompt (the active file, its selection), shown as chips. */
  ambient: Attachment[];
  /** Counter for item ids; part of the state so both copies agree. */
  seq: number;
}

export function emptyState(): ViewState {
  return { connection: 'starting', busy: false, items: [], modes: [], models: [], commands: [], attachments: [], ambient: [], seq: 0 };
}

export type ViewEvent =
  | { type: 'update'; update: SessionUpdate }
  | { type: 'connection'; state: ConnectionState; message?: string }
  | { type: 'session'; sessionId?: string; title?: string; cwd?: string; modes?: Mode[]; currentModeId?: ModeId; configOptions?: ConfigOption[]; models?: ModelState; keepItems?: boolean }
  | { type: 'userPrompt'; text: string; attachments: string[]; images?: string[] }
  | { type: 'busy'; busy: boolean }
  | { type: 'turnEnded'; stopReason: StopReason | string }
  | { type: 'notice'; level: NoticeLevel; text: string }
  | { type: 'permission'; item: Omit<PermissionItem, 'kind' | 'state'> }
  | { type: 'permissionResolved'; id: string; state: PermissionState; chosen?: string; edited?: boolean }
  | { type: 'attachments'; attachments: Attachment[] }
  | { type: 'model'; currentModel: string; configOptions?: ConfigOption[] }
  /** The session's config options as set_config_option answered them. */
  | { type: 'config'; configOptions: ConfigOption[] }
  | { type: 'ambient'; ambient: Attachment[] }
  | { type: 'providerProblem'; message?: string }
  | { type: 'tabSizes'; tabSizes: Record<string, number> }
  /** A conversation rewind: the user message `itemId` and everything after it leave the transcript. */
  | { type: 'rewound'; itemId: string };

/**
 * What an event changed: item ids, and the parts of the view outside the
 * transcript. `structure` means items were added or removed.
 */
export interface Changes {
  items: Set<string>;
  structure: boolean;
  header: boolean;
  footer: boolean;
}

export function noChanges(): Changes {
  return { items: new Set(), structure: false, header: false, footer: false };
}

export function mergeChanges(into: Changes, c: Changes): Changes {
  c.items.forEach(id => into.items.add(id));
  into.structure ||= c.structure;
  into.header ||= c.header;
  into.footer ||= c.footer;
  return into;
}

/** A data: URL of an image block, for a thumbnail. */
export function imageURL(mimeType: string, data: string): string {
  return `data:${mimeType};base64,${data}`;
}

function blockText(b: ContentBlock | undefined): string {
  if (!b) return '';
  switch (b.type) {
    case 'text': return b.text;
    case 'resource_link': return `[${b.name}](${b.uri})`;
    case 'resource': return b.resource.text !== undefined ? '\n```\n' + b.resource.text + '\n```\n' : '';
    case 'image': return '[image]';
  }
  return '';
}

function nextId(s: ViewState, prefix: string): string {
  s.seq += 1;
  return `${prefix}${s.seq}`;
}

function push(s: ViewState, item: Item, ch: Changes): void {
  s.items.push(item);
  ch.items.add(item.id);
  ch.structure = true;
}

/** Appends streamed text to the last item if it is of the same kind. */
function appendChunk(s: ViewState, kind: 'agent' | 'thought' | 'user', text: string, ch: Changes): void {
  if (!text) return;
  const last = s.items[s.items.length - 1];
  if (last && last.kind === kind) {
    last.text += text;
    ch.items.add(last.id);
    return;
  }
  if (kind === 'user') push(s, { kind, id: nextId(s, 'u'), text, attachments: [] }, ch);
  else push(s, { kind, id: nextId(s, kind === 'agent' ? 'a' : 't'), text }, ch);
}

function mergeToolCall(into: ToolCall, from: ToolCall): void {
  for (const key of ['title', 'kind', 'status', 'content', 'locations', 'rawInput', 'rawOutput'] as const) {
    if (from[key] !== undefined) (into as unknown as Record<string, unknown>)[key] = from[key];
  }
  // An update's _meta adds to the call's (a permission record keeps the
  // subagent and description fields).
  if (from._meta) {
    into._meta = { ...into._meta, ...from._meta, 'agent-lsp': { ...into._meta?.['agent-lsp'], ...from._meta['agent-lsp'] } };
  }
}

function applyConfig(s: ViewState, options: ConfigOption[] | undefined): void {
  const effort = options?.find(o => o.id === 'effort');
  if (effort) s.effort = { current: effort.currentValue, options: effort.options.map(o => ({ value: o.value, name: o.name || o.value, description: o.description })) };
  const model = options?.find(o => o.id === 'model');
  if (!model) return;
  s.currentModel = model.currentValue;
  // The richer list from `models` (display names, groups) wins over the
  // config option's when both name the same models.
  const known = new Map(s.models.map(m => [m.value, m]));
  s.models = model.options.map(o => ({ ...known.get(o.value), value: o.value, name: known.get(o.value)?.name ?? o.name, description: o.description ?? known.get(o.value)?.description }));
}

function applyModels(s: ViewState, models: ModelState | undefined): void {
  if (!models?.availableModels?.length) return;
  s.models = models.availableModels.map(m => ({
    value: m.modelId, name: m.name || m.modelId, description: m.description, group: m._meta?.['agent-lsp']?.group,
  }));
  if (models.currentModelId) s.currentModel = models.currentModelId;
}

/**
 * The models for a picker: grouped by provider, the current model's group
 * first and the current model first in it; the other groups keep the
 * agent's order.
 */
export function modelGroups(s: Pick<ViewState, 'models' | 'currentModel'>): { group: string; models: ModelChoice[] }[] {
  const groups = new Map<string, ModelChoice[]>();
  let models = s.models.slice();
  if (s.currentModel && !models.some(m => m.value === s.currentModel)) models = [{ value: s.currentModel, name: s.currentModel }, ...models];
  const cur = models.find(m => m.value === s.currentModel);
  if (cur) models = [cur, ...models.filter(m => m !== cur)];
  for (const m of models) {
    const g = m.group ?? '';
    if (!groups.has(g)) groups.set(g, []);
    groups.get(g)!.push(m);
  }
  return [...groups].map(([group, ms]) => ({ group, models: ms }));
}

/** The display name of the current model. */
/** The current effort's display name ("Auto", "High"), when the agent offers an effort. */
export function currentEffortName(s: Pick<ViewState, 'effort'>): string | undefined {
  if (!s.effort) return undefined;
  return s.effort.options.find(o => o.value === s.effort!.current)?.name ?? s.effort.current;
}

export function currentModelName(s: Pick<ViewState, 'models' | 'currentModel'>): string | undefined {
  if (!s.currentModel) return undefined;
  return s.models.find(m => m.value === s.currentModel)?.name ?? s.currentModel;
}

const OUTCOME_STATE: Record<string, PermissionState> = { allowed: 'allowed', rejected: 'rejected', cancelled: 'cancelled' };

/**
 * A tool_call_update recording how a permission was answered: the pending
 * or resolved item of that call takes it (live), or a resolved item is added
 * after the call's row (a reloaded session has no request to update).
 */
function recordPermission(s: ViewState, call: ToolCall, ch: Changes): void {
  const rec = permissionOf(call);
  if (!rec) return;
  const state = OUTCOME_STATE[rec.outcome] ?? 'cancelled';
  let item: PermissionItem | undefined;
  for (let i = s.items.length - 1; i >= 0; i--) {
    const it = s.items[i];
    if (it.kind === 'permission' && it.toolCallId === call.toolCallId) { item = it; break; }
  }
  if (item) {
    if (item.state === 'pending' || item.state === state) {
      item.state = state;
      item.chosen ??= rec.optionId;
      item.chosenName = rec.name ?? item.chosenName;
      ch.items.add(item.id);
      ch.items.add(toolItemId(call.toolCallId));
      ch.footer = true;
    }
    return;
  }
  // Only a call the chat shows gets a line (not a folder trust request).
  const tool = s.items.find(i => i.id === toolItemId(call.toolCallId));
  if (tool?.kind !== 'tool') return;
  push(s, {
    kind: 'permission', id: nextId(s, 'r'), toolCallId: call.toolCallId, title: tool.call.title || 'Tool call', toolKind: tool.call.kind,
    options: [], state, chosen: rec.optionId, chosenName: rec.name,
  }, ch);
}

/** The id of the tool item of a tool call. */
export function toolItemId(toolCallId: string): string {
  return `tool:${toolCallId}`;
}

/** Applies one event to the state; returns what changed. */
export function reduce(s: ViewState, e: ViewEvent): Changes {
  const ch = noChanges();
  switch (e.type) {
    case 'update':
      reduceUpdate(s, e.update, ch);
      break;
    case 'connection':
      s.connection = e.state;
      s.connectionMessage = e.message;
      ch.header = ch.footer = true;
      break;
    case 'session':
      s.sessionId = e.sessionId;
      s.title = e.title;
      if (e.cwd) s.cwd = e.cwd;
      if (!e.keepItems) {
        s.items = [];
        s.usage = undefined;
        ch.structure = true;
      }
      if (e.modes) s.modes = e.modes;
      if (e.currentModeId) s.currentModeId = e.currentModeId;
      applyModels(s, e.models);
      applyConfig(s, e.configOptions);
      s.busy = false;
      ch.header = ch.footer = true;
      break;
    case 'userPrompt':
      push(s, { kind: 'user', id: nextId(s, 'u'), text: e.text, attachments: e.attachments, ...(e.images?.length ? { images: e.images } : {}) }, ch);
      if (!s.title) {
        s.title = e.text.slice(0, 80);
        ch.header = true;
      }
      break;
    case 'busy':
      s.busy = e.busy;
      ch.footer = ch.header = true;
      break;
    case 'turnEnded':
      if (e.stopReason !== 'end_turn') push(s, { kind: 'stop', id: nextId(s, 's'), reason: e.stopReason }, ch);
      break;
    case 'notice':
      push(s, { kind: 'notice', id: nextId(s, 'n'), level: e.level, text: e.text }, ch);
      break;
    case 'permission':
      push(s, { ...e.item, kind: 'permission', state: 'pending' }, ch);
      ch.items.add(toolItemId(e.item.toolCallId)); // its row says "waiting for your approval"
      ch.footer = true;
      break;
    case 'permissionResolved': {
      const it = s.items.find(i => i.id === e.id);
      if (it && it.kind === 'permission') {
        it.state = e.state;
        it.chosen = e.chosen;
        it.edited = e.edited;
        ch.items.add(it.id);
        ch.items.add(toolItemId(it.toolCallId));
        ch.footer = true;
      }
      break;
    }
    case 'attachments':
      s.attachments = e.attachments;
      ch.footer = true;
      break;
    case 'model':
      s.currentModel = e.currentModel;
      applyConfig(s, e.configOptions);
      ch.header = true;
      break;
    case 'config':
      applyConfig(s, e.configOptions);
      ch.header = true;
      break;
    case 'ambient':
      s.ambient = e.ambient;
      ch.footer = true;
      break;
    case 'providerProblem':
      s.providerProblem = e.message || undefined;
      ch.header = ch.footer = true;
      break;
    case 'rewound': {
      const at = s.items.findIndex(i => i.id === e.itemId && i.kind === 'user');
      if (at < 0) break;
      s.items.splice(at);
      ch.structure = true;
      ch.footer = true;
      break;
    }
    case 'tabSizes':
      s.tabSizes = e.tabSizes;
      // Code blocks take the new width: re-render everything.
      s.items.forEach(i => ch.items.add(i.id));
      break;
  }
  return ch;
}

function reduceUpdate(s: ViewState, u: SessionUpdate, ch: Changes): void {
  switch (u.sessionUpdate) {
    case 'agent_message_chunk':
      appendChunk(s, 'agent', blockText(u.content), ch);
      break;
    case 'agent_thought_chunk':
      appendChunk(s, 'thought', blockText(u.content), ch);
      break;
    case 'user_message_chunk':
      if (u.content?.type === 'image') {
        // An image of the user's message (a loaded session replays it).
        let last = s.items[s.items.length - 1];
        if (!last || last.kind !== 'user') {
          last = { kind: 'user', id: nextId(s, 'u'), text: '', attachments: [] };
          push(s, last, ch);
        }
        last.images = [...(last.images ?? []), imageURL(u.content.mimeType, u.content.data)];
        ch.items.add(last.id);
        break;
      }
      appendChunk(s, 'user', blockText(u.content), ch);
      break;
    case 'tool_call':
    case 'tool_call_update': {
      const id = toolItemId(u.toolCallId);
      const existing = s.items.find(i => i.id === id);
      const { sessionUpdate: _, ...call } = u;
      if (existing && existing.kind === 'tool') {
        mergeToolCall(existing.call, call);
        ch.items.add(id);
      } else if (u.sessionUpdate === 'tool_call_update' && permissionOf(call) && !call.title && !call.kind) {
        // Only the answer to a request for a call the chat does not show
        // (a folder trust request): no row for it.
        recordPermission(s, call, ch);
        break;
      } else {
        push(s, { kind: 'tool', id, call: { ...call } }, ch);
      }
      recordPermission(s, call, ch);
      break;
    }
    case 'plan': {
      // One checklist per turn, updated in place: find a plan since the
      // last user message.
      let plan: PlanItem | undefined;
      for (let i = s.items.length - 1; i >= 0; i--) {
        const it = s.items[i];
        if (it.kind === 'user') break;
        if (it.kind === 'plan') { plan = it; break; }
      }
      if (plan) {
        plan.entries = u.entries;
        ch.items.add(plan.id);
      } else {
        push(s, { kind: 'plan', id: nextId(s, 'p'), entries: u.entries }, ch);
      }
      break;
    }
    case 'available_commands_update':
      s.commands = u.availableCommands;
      ch.footer = true;
      break;
    case 'current_mode_update':
      s.currentModeId = u.currentModeId;
      ch.header = true;
      break;
    case 'usage_update':
      s.usage = { used: u.used, size: u.size, cost: u.cost };
      ch.footer = true;
      break;
    case 'config_option_update':
      applyConfig(s, u.configOptions);
      ch.header = true;
      break;
  }
}

/**
 * The checkpoint of a user message: the session's checkpoints (one per
 * prompt, oldest first) paired in order with the user messages whose text
 * starts with the checkpoint's prompt; messages that took no checkpoint (a
 * slash command, text that steered a running turn) are skipped.
 */
export function checkpointOf(items: Item[], itemId: string, checkpoints: Checkpoint[]): Checkpoint | undefined {
  const cps = checkpoints.slice().sort((a, b) => a.checkpoint - b.checkpoint);
  let next = 0;
  for (const it of items) {
    if (it.kind !== 'user') continue;
    const cp = cps[next];
    const paired = cp !== undefined && it.text.trim().startsWith(cp.prompt.trim());
    if (paired) next++;
    if (it.id === itemId) return paired ? cp : undefined;
  }
  return undefined;
}

/** Whether the tool call of this tool item waits for the user's approval. */
export function awaitsApproval(s: ViewState, itemId: string): boolean {
  return s.items.some(i => i.kind === 'permission' && i.state === 'pending' && toolItemId(i.toolCallId) === itemId);
}

/**
 * The turn's state in the words of docs/editor-words.md: "Working…",
 * "Waiting for your approval (N)" while N requests wait, '' when idle.
 */
export function turnWords(busy: boolean, waiting: number): string {
  if (waiting > 0) return `Waiting for your approval (${waiting})`;
  return busy ? 'Working…' : '';
}

/** Pending permission items, oldest first. */
export function pendingPermissions(s: ViewState): PermissionItem[] {
  return s.items.filter((i): i is PermissionItem => i.kind === 'permission' && i.state === 'pending');
}

/** The slash commands matching what the prompt box holds ("/com" → compact). */
export function matchCommands(commands: AvailableCommand[], input: string): AvailableCommand[] {
  const m = /^\/(\S*)$/.exec(input);
  if (!m) return [];
  const prefix = m[1].toLowerCase();
  return commands.filter(c => c.name.toLowerCase().startsWith(prefix));
}

/** "53k / 200k tokens · 73% left · $0.05" */
export function usageText(u: Usage | undefined): string {
  if (!u || !u.size) return '';
  const k = (n: number) => (n >= 1000 ? `${Math.round(n / 1000)}k` : String(n));
  const left = Math.max(0, Math.round(100 * (1 - u.used / u.size)));
  let s = `${k(u.used)} / ${k(u.size)} tokens · ${left}% left`;
  if (u.cost && u.cost.amount > 0) {
    const sym = u.cost.currency === 'USD' ? '$' : `${u.cost.currency} `;
    s += u.cost.amount < 0.01 ? ` · <${sym}0.01` : ` · ${sym}${u.cost.amount.toFixed(2)}`;
  }
  return s;
}

/**
 * The usage as the footer shows it, short enough for a narrow pane
 * ("114 / 200k · <$0.01"): the meter beside it shows what is left, and
 * usageText is its tooltip.
 */
export function usageShort(u: Usage | undefined): string {
  const full = usageText(u);
  return full.replace(' tokens', '').replace(/ · \d+% left/, '');
}

/** Fraction of the context window still free, 0..1. */
export function contextLeft(u: Usage | undefined): number {
  if (!u || !u.size) return 1;
  return Math.max(0, Math.min(1, 1 - u.used / u.size));
}
