// AgentController: one chat (the panel's, or one in an editor tab). It owns
// the chat's session and view state (the webview only mirrors it), answers
// its session's permission requests and questions, and keeps pending
// approvals until the user decides, whatever happens to the chat's webview.
// The language client and what every chat shares are in connection.ts,
// which routes the agent's messages here by sessionId.

import * as os from 'os';
import * as vscode from 'vscode';
import { type CancellationToken, type LanguageClient, ResponseError } from 'vscode-languageclient/node';
import {
  CheckpointsRequest, type RewindRestore, RewindRequest, type RewindResult, type AgentStatusParams, CANCELLED, commandOf, planOf, CancelNotification, CloseSessionRequest, type ConfigOption,
  DEFAULT_MODES, type DiffContent, ErrorCodes, ListSessionsRequest, LoadSessionRequest, NewSessionRequest, ResumeSessionRequest, type NewSessionResult,
  type PermissionOptionKind, PromptRequest, type RequestMethod, type RequestPermissionParams, type RequestPermissionResult,
  selectOutcome, type SessionIdParams, type SessionNotification, SetConfigOptionRequest, SetModelRequest, SetModeRequest,
  singleDiff, descriptionOf, providerProblemOf, alwaysWords,
} from './protocol';
import type { CreateElicitationParams, CreateElicitationResult } from './protocol';
import { type AgentConnection, type ConnectedChat, errorMessage } from './connection';
import { askQuestions, type QuestionUI } from './question';
import { relPath, rewindPreviewText } from './shared/rewind';
import { chatTime, HISTORY_TITLE, noChatsText } from './shared/history';
import { type MCPResource, MCPResourcesRequest } from './protocol';
import { ambientAttachments, imageAttachment, selectionSpan } from './shared/context';
import { type Attachment, checkpointOf, emptyState, imageURL, modelGroups, type PermissionState, pendingPermissions, reduce, type ViewEvent, type ViewState } from './shared/state';

/** Where the controller's events go (the chat's webview). */
export interface ViewSink {
  push(e: ViewEvent): void;
  readonly visible: boolean;
  reveal(): Promise<void>;
}

interface Pending {
  id: string;
  params: RequestPermissionParams;
  diff?: DiffContent;
  /** ExitPlanMode's plan, reviewed (and changed) in a markdown editor. */
  plan?: string;
  resolve: (r: RequestPermissionResult) => void;
}

/** A typed request through the language client. */
function call<P, R>(client: LanguageClient, m: RequestMethod<P, R>, params: P): Promise<R> {
  return client.sendRequest<R>(m.method, params);
}

/** The editor the chat's context comes from: the active text editor, or the one last active while a chat tab has the focus. */
let lastEditor: vscode.TextEditor | undefined;
function contextEditor(): vscode.TextEditor | undefined {
  const ed = vscode.window.activeTextEditor;
  if (ed) return (lastEditor = ed);
  if (lastEditor && vscode.window.visibleTextEditors.includes(lastEditor)) return lastEditor;
  return (lastEditor = undefined);
}

export class AgentController implements vscode.Disposable, ConnectedChat {
  readonly state: ViewState = emptyState();
  private sinks: ViewSink[] = [];
  private pending = new Map<string, Pending>();
  private disposables: vscode.Disposable[] = [];
  private readonly onChange = new vscode.EventEmitter<ViewState>();
  /** Fires after every event. */
  readonly onDidChange = this.onChange.event;
  private readonly log: vscode.LogOutputChannel;
  private disposed = false;

  constructor(private readonly conn: AgentConnection) {
    this.log = conn.log;
    // The editor's context chips follow the active editor and its selection.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const later = () => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => { timer = undefined; this.updateAmbient(); }, 150);
    };
    this.disposables.push(
      this.onChange,
      vscode.window.onDidChangeActiveTextEditor(later),
      vscode.window.onDidChangeTextEditorSelection(later),
      vscode.workspace.onDidChangeConfiguration(e => { if (e.affectsConfiguration('agentLsp.editorContext')) later(); }),
      { dispose: () => { if (timer) clearTimeout(timer); } },
    );
    conn.add(this);
    later();
  }

  private settings() {
    return this.conn.settings();
  }

  addSink(s: ViewSink): void {
    this.sinks.push(s);
  }

  /** Whether the chat's webview shows. */
  get visible(): boolean {
    return this.sinks.some(s => s.visible);
  }

  /** Reveals the chat's webview. */
  reveal(): Promise<void> {
    return this.sinks[0]?.reveal() ?? Promise.resolve();
  }

  private emit(e: ViewEvent): void {
    const before = this.state.sessionId;
    reduce(this.state, e);
    // The agent's messages for the chat's session come here.
    if (this.state.sessionId !== before) {
      const other = this.conn.routes.move(this, before, this.state.sessionId);
      if (other) this.log.warn(`session ${this.state.sessionId} is shown in another chat already`);
    }
    for (const s of this.sinks) s.push(e);
    this.onChange.fire(this.state);
    this.conn.changed();
  }

  /** A connection-wide event (the connection's state, the no-model problem, tab sizes). */
  connectionEvent(e: ViewEvent): void {
    this.emit(e);
  }

  private get cwd(): string {
    return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? os.homedir();
  }

  // ---- the agent starting and stopping ------------------------------------------

  /**
   * The agent runs (at start, or again after a crash or a settings change):
   * go on with the same chat, since sessions are stored and session/resume
   * reopens one without replay; a chat without one starts a session.
   */
  async onRunning(): Promise<void> {
    const load = this.toLoad;
    this.toLoad = undefined;
    if (load && !this.state.sessionId) {
      await this.loadSession(load.sessionId, load.title);
      return;
    }
    const previous = this.state.sessionId;
    if (previous) {
      try {
        const res = await call(this.conn.ready(), ResumeSessionRequest, { sessionId: previous, cwd: this.cwd, mcpServers: [] });
        this.sessionEvent(previous, res, this.state.title, true);
        if (this.state.items.length) this.notice('info', 'agent-lsp restarted; this chat goes on.');
        return;
      } catch (e) {
        this.log.info(`could not resume session ${previous} (${errorMessage(e)}); starting a new one`);
        this.emit({ type: 'session', sessionId: undefined, keepItems: true });
      }
    }
    try {
      await this.newSession();
    } catch (e) {
      this.notice('error', `Could not start a session: ${errorMessage(e)}`);
    }
  }

  /** A stored chat to load once the agent runs (a tab opened before it did). */
  private toLoad: { sessionId: string; title?: string } | undefined;

  /**
   * Starts a chat just opened: a stored session loaded (its history
   * replayed), else a new session; once the agent runs if it does not yet.
   */
  async open(load?: { sessionId: string; title?: string }): Promise<void> {
    if (!this.conn.running) {
      this.toLoad = load;
      return;
    }
    try {
      if (load) await this.loadSession(load.sessionId, load.title);
      else await this.newSession();
    } catch (e) {
      this.notice('error', `Could not start a session: ${errorMessage(e)}`);
    }
  }

  /** The agent stopped: what waits for it is cancelled, no turn runs. */
  onStopped(): void {
    for (const id of [...this.pending.keys()]) this.settle(id, CANCELLED, 'cancelled');
    if (this.state.busy) this.emit({ type: 'busy', busy: false });
  }

  /** Errors also go to the output channel, so the log tells what the user saw. */
  notice(level: 'info' | 'warning' | 'error', text: string): void {
    if (level === 'error') this.log.error(text);
    this.emit({ type: 'notice', level, text });
  }

  // ---- sessions --------------------------------------------------------------

  private sessionEvent(sessionId: string, res: NewSessionResult, title?: string, keepItems = false): void {
    const s = this.settings();
    let config: ConfigOption[] | undefined = res.configOptions;
    if (!config && s.model) config = [{ id: 'model', name: 'Model', type: 'select', currentValue: s.model, options: [{ value: s.model, name: s.model }] }];
    this.emit({
      type: 'session', sessionId, title, keepItems, cwd: this.cwd,
      modes: res.modes?.availableModes ?? DEFAULT_MODES,
      currentModeId: res.modes?.currentModeId ?? s.permissionMode ?? 'default',
      models: res.models,
      configOptions: config,
    });
    const problem = providerProblemOf(res);
    if (problem || this.conn.initializeProblem() === undefined) this.conn.setProviderProblem(problem);
  }

  async newSession(): Promise<void> {
    const client = this.conn.ready();
    if (this.state.busy) throw new Error('a turn is running: cancel it first');
    this.closeCurrent(client);
    const model = this.settings().model || undefined;
    const res = await call(client, NewSessionRequest, { cwd: this.cwd, mcpServers: [], ...(model ? { model } : {}) });
    this.sessionEvent(res.sessionId, res);
  }

  /** Frees the sidecar's memory for the current session (it stays on disk). */
  private closeCurrent(client: LanguageClient): void {
    const id = this.state.sessionId;
    if (!id) return;
    call(client, CloseSessionRequest, { sessionId: id }).catch(e => this.log.debug(`session/close: ${errorMessage(e)}`));
  }

  /** The MCP resources the chat's session offers, for the `@` picker: none without a session, or when the agent cannot list them (logged). */
  async mcpResources(): Promise<MCPResource[]> {
    const sessionId = this.state.sessionId;
    if (!sessionId) return [];
    try {
      return (await call(this.conn.ready(), MCPResourcesRequest, { sessionId })).resources;
    } catch (e) {
      this.log.debug(`session/mcp_resources: ${errorMessage(e)}`);
      return [];
    }
  }

  /** The history picker: the chat chosen, if any (chats.ts decides where it opens). */
  async pickHistory(): Promise<{ sessionId: string; title: string } | undefined> {
    let client: LanguageClient;
    try {
      client = this.conn.ready();
    } catch (e) {
      void vscode.window.showErrorMessage(errorMessage(e));
      return undefined;
    }
    const pick = vscode.window.createQuickPick<vscode.QuickPickItem & { sessionId: string }>();
    pick.title = HISTORY_TITLE;
    pick.placeholder = 'Pick a chat to load';
    pick.busy = true;
    pick.show();
    try {
      const res = await call(client, ListSessionsRequest, { cwd: this.cwd });
      // The date on its own line: a long title would push it out of view.
      pick.items = res.sessions.map(s => ({
        label: s.title || '(untitled chat)',
        detail: [s.updatedAt ? chatTime(s.updatedAt) : '', s.sessionId === this.state.sessionId ? 'current chat' : this.conn.routes.owner(s.sessionId) ? 'open in another chat' : ''].filter(Boolean).join(' · ') || undefined,
        sessionId: s.sessionId,
      }));
      if (!res.sessions.length) pick.placeholder = noChatsText(this.cwd);
    } catch (e) {
      pick.hide();
      void vscode.window.showErrorMessage(`Could not list chats: ${errorMessage(e)}`);
      return undefined;
    } finally {
      pick.busy = false;
    }
    const chosen = await new Promise<(vscode.QuickPickItem & { sessionId: string }) | undefined>(resolve => {
      pick.onDidAccept(() => resolve(pick.selectedItems[0]));
      pick.onDidHide(() => resolve(undefined));
    });
    pick.dispose();
    return chosen && { sessionId: chosen.sessionId, title: chosen.label };
  }

  /** Loads a stored session: its history replays as session/update notifications. */
  async loadSession(sessionId: string, title?: string): Promise<void> {
    const client = this.conn.ready();
    if (this.state.busy) {
      void vscode.window.showWarningMessage('A turn is running: cancel it before loading another chat.');
      return;
    }
    this.closeCurrent(client);
    // Set the id first: the replayed updates arrive before the response.
    this.emit({ type: 'session', sessionId, title, cwd: this.cwd, modes: this.state.modes });
    try {
      const res = await call(client, LoadSessionRequest, { sessionId, cwd: this.cwd, mcpServers: [] });
      this.sessionEvent(res.sessionId || sessionId, res, title, true);
    } catch (e) {
      this.notice('error', `Could not load the chat: ${errorMessage(e)}`);
    }
  }

  // ---- rewind ------------------------------------------------------------------

  /**
   * "Rewind to here" on a user message: pick what to restore, preview the
   * files it will change (and the conflicts), confirm, then apply; a
   * conversation rewind drops the message and what followed from the chat.
   */
  async rewind(itemId: string): Promise<void> {
    const sessionId = this.state.sessionId;
    let client: LanguageClient;
    try {
      client = this.conn.ready();
      if (!sessionId) throw new Error('this chat has no session to rewind');
      if (this.state.busy) throw new Error('a turn is running: cancel it before rewinding');
    } catch (e) {
      void vscode.window.showWarningMessage(errorMessage(e));
      return;
    }
    const item = this.state.items.find(i => i.id === itemId);
    let cp;
    try {
      const res = await call(client, CheckpointsRequest, { sessionId });
      cp = checkpointOf(this.state.items, itemId, res.checkpoints);
    } catch (e) {
      void vscode.window.showErrorMessage(`Could not list the checkpoints: ${errorMessage(e)}`);
      return;
    }
    if (!cp || item?.kind !== 'user') {
      void vscode.window.showWarningMessage('This message has no checkpoint to rewind to (a slash command, a message sent during a turn, or a turn rewound or compacted since).');
      return;
    }
    const choices: (vscode.QuickPickItem & { restore: RewindRestore })[] = [
      { label: 'Code and conversation', description: 'files and chat back to before this message', restore: 'both' },
      { label: 'Code only', description: 'files back; the chat stays', restore: 'code' },
      { label: 'Conversation only', description: 'the chat back; the files stay', restore: 'conversation' },
    ];
    const first = cp.prompt.split('\n')[0];
    const choice = await vscode.window.showQuickPick(choices, { title: `Rewind to before prompt ${cp.checkpoint}: ${first}`, placeHolder: 'What to restore' });
    if (!choice) return;
    const params = { sessionId, checkpoint: cp.checkpoint, restore: choice.restore };
    let preview: RewindResult;
    try {
      preview = await call(client, RewindRequest, { ...params, preview: true });
    } catch (e) {
      void vscode.window.showErrorMessage(`Could not rewind: ${errorMessage(e)}`);
      return;
    }
    const conflicts = preview.conflicts ?? [];
    const button = conflicts.length ? 'Rewind and overwrite' : 'Rewind';
    const answer = await vscode.window.showWarningMessage(
      `Rewind to before "${first}" (${choice.label.toLowerCase()})?`,
      { modal: true, detail: rewindPreviewText(this.cwd, choice.restore, preview) },
      button,
    );
    if (answer !== button) return;
    if (this.state.sessionId !== sessionId || this.state.busy) {
      void vscode.window.showWarningMessage('The chat changed meanwhile: nothing was rewound.');
      return;
    }
    let res: RewindResult;
    try {
      res = await call(client, RewindRequest, conflicts.length ? { ...params, force: true } : params);
    } catch (e) {
      void vscode.window.showErrorMessage(`Could not rewind: ${errorMessage(e)}`);
      return;
    }
    if (!res.applied) {
      void vscode.window.showWarningMessage(`Nothing was rewound: files changed since the preview: ${(res.conflicts ?? []).map(p => relPath(this.cwd, p)).join(', ')}`);
      return;
    }
    if (choice.restore !== 'code') this.emit({ type: 'rewound', itemId });
    for (const w of res.warnings ?? []) this.notice('warning', `Rewind: ${w}`);
    const n = res.changes.length;
    this.notice('info', choice.restore === 'conversation'
      ? `Rewound the conversation to before prompt ${cp.checkpoint}.`
      : `Rewound to before prompt ${cp.checkpoint}: ${n} file${n === 1 ? '' : 's'} restored${choice.restore === 'both' ? ', and the conversation' : ''}.`);
  }

  // ---- prompts -----------------------------------------------------------------

  async prompt(text: string): Promise<void> {
    let client: LanguageClient;
    try {
      client = this.conn.ready();
      if (!this.state.sessionId) await this.newSession();
    } catch (e) {
      this.notice('error', errorMessage(e));
      return;
    }
    const sessionId = this.state.sessionId!;
    if (this.state.busy) {
      // Steering: the running turn takes the text at its next step; the
      // agent echoes it as user_message_chunk then, and answers this
      // request when that turn ends (docs/protocol.md).
      try {
        await call(client, PromptRequest, { sessionId, prompt: [{ type: 'text', text }] });
      } catch (e) {
        this.notice('error', errorMessage(e));
      }
      return;
    }
    const attachments = [...this.ambientNow(), ...this.state.attachments];
    const prompt = [{ type: 'text' as const, text }, ...attachments.map(a => a.block)];
    const images = attachments.flatMap(a => a.block.type === 'image' ? [imageURL(a.block.mimeType, a.block.data)] : []);
    this.emit({ type: 'userPrompt', text, attachments: attachments.filter(a => a.block.type !== 'image').map(a => a.label), images });
    this.emit({ type: 'attachments', attachments: [] });
    this.updateAmbient();
    this.emit({ type: 'busy', busy: true });
    try {
      const res = await call(client, PromptRequest, { sessionId, prompt });
      if (this.state.sessionId === sessionId) this.emit({ type: 'turnEnded', stopReason: res.stopReason });
    } catch (e) {
      // No model configured: the notice with its buttons says it, once.
      if (e instanceof ResponseError && e.code === ErrorCodes.AuthRequired) this.conn.setProviderProblem(errorMessage(e));
      else this.notice('error', errorMessage(e));
    } finally {
      if (this.state.sessionId === sessionId) this.emit({ type: 'busy', busy: false });
    }
  }

  cancel(): void {
    const id = this.state.sessionId;
    if (!id || !this.conn.running) return;
    void this.conn.ready().sendNotification(CancelNotification.method, { sessionId: id } satisfies SessionIdParams);
  }

  async setMode(modeId: string): Promise<void> {
    const sessionId = this.state.sessionId;
    if (!sessionId) return;
    try {
      await call(this.conn.ready(), SetModeRequest, { sessionId, modeId });
      this.emit({ type: 'update', update: { sessionUpdate: 'current_mode_update', currentModeId: modeId } });
    } catch (e) {
      this.notice('error', `Could not switch mode: ${errorMessage(e)}`);
      // Put the picker back.
      this.emit({ type: 'update', update: { sessionUpdate: 'current_mode_update', currentModeId: this.state.currentModeId ?? 'default' } });
    }
  }

  /** The mode picker: each mode with its description, the current one marked. */
  async pickMode(): Promise<void> {
    const items = this.state.modes.map(m => ({
      label: m.name, description: m.id === this.state.currentModeId ? 'current' : undefined, detail: m.description, id: m.id,
    }));
    const cur = items.findIndex(i => i.id === this.state.currentModeId);
    if (cur > 0) items.unshift(...items.splice(cur, 1));
    const chosen = await vscode.window.showQuickPick(items, { title: 'Agent mode', placeHolder: 'What the agent may do without asking' });
    if (chosen && chosen.id !== this.state.currentModeId) await this.setMode(chosen.id);
  }

  /** The model picker: display names grouped by provider, the current model first. */
  async pickModel(): Promise<void> {
    type Item = vscode.QuickPickItem & { id?: string };
    const items: Item[] = [];
    for (const g of modelGroups(this.state)) {
      if (g.group) items.push({ label: g.group, kind: vscode.QuickPickItemKind.Separator });
      for (const m of g.models) {
        items.push({
          label: m.name, id: m.value,
          // The id once: beside the name unless the description says it.
          description: [m.value === this.state.currentModel ? 'current' : '', m.name !== m.value && !m.description?.includes(m.value) ? m.value : ''].filter(Boolean).join(' · ') || undefined,
          detail: m.description,
        });
      }
    }
    const chosen = await vscode.window.showQuickPick(items, { title: 'Agent model', placeHolder: 'The model that answers in this chat', matchOnDescription: true });
    if (chosen?.id && chosen.id !== this.state.currentModel) await this.setModel(chosen.id);
  }

  /** The effort picker: auto (the settings' level) and each level, the current one marked. */
  async pickEffort(): Promise<void> {
    const effort = this.state.effort;
    if (!effort) return;
    const items = effort.options.map(o => ({
      label: o.name, id: o.value,
      description: [o.value === effort.current ? 'current' : '', o.description ?? ''].filter(Boolean).join(' · ') || undefined,
    }));
    const chosen = await vscode.window.showQuickPick(items, { title: 'Agent effort', placeHolder: 'How much effort the model spends (thinking and output)' });
    if (chosen && chosen.id !== effort.current) await this.setEffort(chosen.id);
  }

  async setEffort(value: string): Promise<void> {
    const sessionId = this.state.sessionId;
    if (!sessionId) return;
    try {
      const res = await call(this.conn.ready(), SetConfigOptionRequest, { sessionId, configId: 'effort', value });
      if (res?.configOptions) this.emit({ type: 'config', configOptions: res.configOptions });
    } catch (e) {
      this.notice('error', `Could not set the effort: ${errorMessage(e)}`);
    }
  }

  async setModel(model: string): Promise<void> {
    const sessionId = this.state.sessionId;
    if (!sessionId) return;
    const client = this.conn.ready();
    try {
      const res = await call(client, SetConfigOptionRequest, { sessionId, configId: 'model', value: model });
      this.emit({ type: 'model', currentModel: model, configOptions: res?.configOptions });
    } catch (e) {
      if (!(e instanceof ResponseError && e.code === ErrorCodes.MethodNotFound)) {
        this.notice('error', `Could not switch model: ${errorMessage(e)}`);
        return;
      }
      try {
        await call(client, SetModelRequest, { sessionId, modelId: model });
        this.emit({ type: 'model', currentModel: model });
      } catch (e2) {
        this.notice('error', `Could not switch model: ${errorMessage(e2)}`);
      }
    }
  }

  // ---- attachments -------------------------------------------------------------

  addAttachment(a: Attachment): void {
    this.emit({ type: 'attachments', attachments: [...this.state.attachments, a] });
    this.updateAmbient();
  }

  /** A pasted or dropped image: an attachment, or a notice saying why not. */
  attachImage(name: string, mimeType: string, data: string): void {
    const a = imageAttachment(name, mimeType, data);
    if (typeof a === 'string') this.notice('warning', `Image not attached: ${a}`);
    else this.addAttachment(a);
  }

  removeAttachment(id: string): void {
    const ambient = this.state.ambient.find(a => a.id === id);
    if (ambient) {
      // Left out while the editor shows the same thing.
      this.dismissed.add(ambient.label);
      this.updateAmbient();
      return;
    }
    this.emit({ type: 'attachments', attachments: this.state.attachments.filter(a => a.id !== id) });
  }

  /** Labels of ambient chips the user removed; forgotten once the editor shows something else. */
  private dismissed = new Set<string>();

  /**
   * The editor's context as it is now (agentLsp.editorContext): the active
   * file and its selection, less what the user removed or attached already.
   */
  private ambientNow(): Attachment[] {
    const ed = contextEditor();
    if (!vscode.workspace.getConfiguration('agentLsp').get<boolean>('editorContext', true) || !ed || ed.document.uri.scheme !== 'file') {
      this.dismissed.clear();
      return [];
    }
    const sel = ed.selection;
    const chips = ambientAttachments(ed.document.uri.toString(), ed.document.languageId,
      sel.isEmpty ? undefined : { span: selectionSpan(sel.start, sel.end), text: ed.document.getText(sel) });
    const labels = new Set(chips.map(c => c.label));
    for (const d of [...this.dismissed]) if (!labels.has(d)) this.dismissed.delete(d);
    const attached = new Set(this.state.attachments.map(a => a.label));
    return chips.filter(c => !this.dismissed.has(c.label) && !attached.has(c.label));
  }

  /** Shows the editor's context as chips when it changed. */
  updateAmbient(): void {
    const now = this.ambientNow();
    const same = now.length === this.state.ambient.length && now.every((a, i) => a.label === this.state.ambient[i].label);
    if (!same) this.emit({ type: 'ambient', ambient: now });
  }

  // ---- notifications from the agent ------------------------------------------------

  /** A session/update of the chat's session (the connection routes it here). */
  onUpdate(p: SessionNotification): void {
    if (p.sessionId !== this.state.sessionId) {
      this.log.debug(`ignoring an update for session ${p.sessionId}`);
      return;
    }
    this.emit({ type: 'update', update: p.update });
  }

  onStatus(p: AgentStatusParams): void {
    if (p.sessionId && p.sessionId !== this.state.sessionId) return;
    const level = p.kind === 'retry' ? 'retry' : p.kind === 'warning' ? 'warning' : 'info';
    this.emit({ type: 'notice', level, text: p.message });
    if (level === 'warning') this.log.warn(p.message);
  }

  /** The model's questions, asked when the chat's session asks them (one quick pick at a time over all chats). */
  ask(params: CreateElicitationParams, token: CancellationToken): Promise<CreateElicitationResult> {
    return askQuestions(quickPickUI(token, this.conn.chatCount() > 1 ? this.state.title : undefined), params);
  }

  // ---- permissions ---------------------------------------------------------------

  /** A permission request of the chat's session; id is unique over all chats. */
  onPermission(params: RequestPermissionParams, token: CancellationToken, id: string): Promise<RequestPermissionResult> {
    if (params.sessionId !== this.state.sessionId) return Promise.resolve(CANCELLED);
    const call = params.toolCall;
    const diff = call.kind === 'edit' || call.kind === undefined ? singleDiff(call) : undefined;
    const plan = planOf(call);
    const title = call.title || 'a tool call';
    return new Promise<RequestPermissionResult>(resolve => {
      this.pending.set(id, { id, params, diff, plan, resolve });
      this.emit({
        type: 'permission',
        item: {
          id, toolCallId: call.toolCallId, title, description: descriptionOf(call), toolKind: call.kind,
          detail: commandOf(call) ?? diff?.path ?? call.locations?.[0]?.path,
          content: (call.content ?? []).flatMap(c => c.type === 'content' && c.content.type === 'text' ? [c.content.text] : []),
          review: diff ? 'diff' : plan !== undefined ? 'plan' : undefined, options: params.options,
        },
      });
      token.onCancellationRequested(() => this.settle(id, CANCELLED, 'cancelled'));
      if (diff) {
        this.conn.reviews.open(id, diff).then(undefined, e => this.log.error(`opening the diff: ${errorMessage(e)}`));
      } else if (plan !== undefined) {
        this.conn.reviews.openPlan(id, plan).then(undefined, e => this.log.error(`opening the plan: ${errorMessage(e)}`));
      } else if (!this.sinks.some(s => s.visible)) {
        void vscode.window.showInformationMessage(`The agent asks: ${title.replace(/`+/g, '')}`, 'Show').then(choice => {
          if (choice) void this.reveal();
        });
      }
    });
  }

  hasPending(id: string): boolean {
    return this.pending.has(id);
  }

  /** The oldest pending request of this chat. */
  oldestPending(): string | undefined {
    return pendingPermissions(this.state)[0]?.id;
  }

  /** Answers with the option of a kind (the diff editor's title actions). */
  decideKind(id: string | undefined, kinds: PermissionOptionKind[]): void {
    const p = id ? this.pending.get(id) : undefined;
    if (!p) {
      void vscode.window.showInformationMessage('No pending agent request.');
      return;
    }
    for (const k of kinds) {
      const opt = p.params.options.find(o => o.kind === k);
      if (opt) {
        this.decide(p.id, opt.optionId);
        return;
      }
    }
  }

  /**
   * The diff editor's "Always allow or reject…" action: the request's standing answers
   * ("Always allow edits to calc.go", "Always reject …") by their names,
   * with the settings rule each adds.
   */
  async chooseAlways(id: string | undefined): Promise<void> {
    const p = id ? this.pending.get(id) : undefined;
    if (!p) {
      void vscode.window.showInformationMessage('No pending agent request.');
      return;
    }
    const items = p.params.options.filter(o => o.kind === 'allow_always' || o.kind === 'reject_always').map(o => ({
      label: o.name.replace(/`+/g, ''), detail: alwaysWords(o), optionId: o.optionId,
    }));
    if (!items.length) {
      void vscode.window.showInformationMessage('This request offers no standing answer: allow or reject it once.');
      return;
    }
    const chosen = await vscode.window.showQuickPick(items, { title: (p.params.toolCall.title || 'Agent request').replace(/`+/g, ''), placeHolder: 'Answer this and later requests like it' });
    if (chosen && this.pending.has(p.id)) this.decide(p.id, chosen.optionId);
  }

  /**
   * The user's answer: for an allowed reviewed edit, the right side's text
   * goes back as editedText; for an approved plan, the plan as the user
   * left it in its editor.
   */
  decide(id: string, optionId: string): void {
    const p = this.pending.get(id);
    if (!p) return;
    const opt = p.params.options.find(o => o.optionId === optionId);
    if (!opt) return;
    const allow = opt.kind === 'allow_once' || opt.kind === 'allow_always';
    const proposed = p.diff?.newText ?? p.plan;
    const edited = allow && proposed !== undefined ? this.conn.reviews.editedText(id) : undefined;
    const result = selectOutcome(optionId, proposed, edited);
    const wasEdited = result.outcome.outcome === 'selected' && result.outcome._meta?.editedText !== undefined;
    this.settle(id, result, allow ? 'allowed' : 'rejected', optionId, wasEdited);
  }

  async review(id: string): Promise<void> {
    const p = this.pending.get(id);
    if (p?.diff) await this.conn.reviews.open(id, p.diff);
    else if (p?.plan !== undefined) await this.conn.reviews.openPlan(id, p.plan);
  }

  private settle(id: string, result: RequestPermissionResult, state: PermissionState, chosen?: string, edited?: boolean): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    p.resolve(result);
    this.emit({ type: 'permissionResolved', id, state, chosen, edited });
    this.conn.reviews.close(id).then(undefined, e => this.log.warn(`closing the diff: ${errorMessage(e)}`));
  }

  pendingCount(): number {
    return this.pending.size;
  }

  /**
   * Closes the chat (its editor tab closed): a running turn is cancelled,
   * what waits for the user is cancelled, and the session is closed in the
   * agent. The session file keeps everything: the history reopens it.
   */
  close(): void {
    if (this.disposed) return;
    if (this.state.busy) this.cancel();
    for (const id of [...this.pending.keys()]) this.settle(id, CANCELLED, 'cancelled');
    if (this.conn.running) this.closeCurrent(this.conn.ready());
    this.dispose();
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.conn.remove(this);
    this.sinks = [];
    this.disposables.forEach(d => d.dispose());
  }
}

/** The model's questions through VS Code's quick pick and input box; the agent's cancel closes them. */
function quickPickUI(token: CancellationToken, chat?: string): QuestionUI {
  // With several chats open, the title says which one asks.
  const t = (title: string) => chat ? `${title} · ${chat}` : title;
  return {
    async pick(items, opts) {
      if (opts.many) {
        return vscode.window.showQuickPick(items, { title: t(opts.title), placeHolder: opts.placeHolder, canPickMany: true, ignoreFocusOut: true }, token);
      }
      const one = await vscode.window.showQuickPick(items, { title: t(opts.title), placeHolder: opts.placeHolder, ignoreFocusOut: true }, token);
      return one && [one];
    },
    async input(opts) {
      return vscode.window.showInputBox({ title: t(opts.title), prompt: opts.prompt, ignoreFocusOut: true }, token);
    },
  };
}
