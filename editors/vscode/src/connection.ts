// AgentConnection: the part of the extension every chat shares. It owns the
// one language client (one agent-lsp process serves every chat, each its
// own session on the same connection), starts, stops and restarts it, and
// routes what the agent sends by sessionId to the chat showing that session:
// session/update, agent/status, permission requests and the model's
// questions. The diff and plan reviews, the editor's diagnostics and the
// folder trust request are shared too. Each chat (controller.ts) keeps its
// own session and view state.

import * as vscode from 'vscode';
import { type CancellationToken, type LanguageClient, ResponseError, State } from 'vscode-languageclient/node';
import { createClient } from './client';
import {
  AgentDiagnosticsRequest, type AgentDiagnosticsParams, type AgentStatusParams, AgentStatusNotification, type LspDiagnostic, CANCELLED,
  CreateElicitationRequest, type CreateElicitationParams, type CreateElicitationResult, DECLINED, isTrustRequest, trustAnswer, providerProblemOf,
  type RequestPermissionParams, RequestPermissionRequest, type RequestPermissionResult, SessionUpdateNotification, type SessionNotification, userMessage,
} from './protocol';
import { answerDiagnostics, DiagnosticsTracker } from './diagnostics';
import { EditReviews } from './review';
import { findServer, initializationOptions, serverEnv, type Settings, withSecretKey } from './settings';
import { SerialQueue, SessionRoutes } from './shared/chats';
import type { ConnectionState, ViewEvent, ViewState } from './shared/state';

/** An error as the user reads it: never starting with a protocol method name. */
export function errorMessage(e: unknown): string {
  if (e instanceof ResponseError) return userMessage(e.message);
  if (e instanceof Error) return userMessage(e.message);
  return userMessage(String(e));
}

/** What the extension gives the connection beyond settings. */
export interface ControllerHost {
  /** The binary bundled in the platform package, if any. */
  bundledServer?: string;
  /** The model key kept in SecretStorage, if any. */
  apiKey?: () => Thenable<string | undefined>;
}

/** A chat as the connection sees it (AgentController). */
export interface ConnectedChat {
  readonly state: ViewState;
  /** A connection-wide event (connection state, no-model problem, tab sizes). */
  connectionEvent(e: ViewEvent): void;
  /** The agent (re)started: resume the chat's session or start one. */
  onRunning(): Promise<void>;
  /** The agent stopped: pending requests are cancelled, no turn runs. */
  onStopped(): void;
  onUpdate(p: SessionNotification): void;
  onStatus(p: AgentStatusParams): void;
  /** A permission request of the chat's session; id is unique over all chats (the reviews are shared). */
  onPermission(params: RequestPermissionParams, token: CancellationToken, id: string): Promise<RequestPermissionResult>;
  /** The model's questions for the chat's session. */
  ask(params: CreateElicitationParams, token: CancellationToken): Promise<CreateElicitationResult>;
  hasPending(id: string): boolean;
}

export class AgentConnection implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private starting: Promise<void> | undefined;
  private readonly chats: ConnectedChat[] = [];
  /** Which chat shows which session: where the agent's messages go. */
  readonly routes = new SessionRoutes<ConnectedChat>();
  /** One question (a quick pick) at a time over all chats. */
  private readonly questions = new SerialQueue();
  private permSeq = 0;
  readonly reviews = new EditReviews();
  private readonly diagnostics = new DiagnosticsTracker();
  /** The connection-wide part of every chat's state, for chats opened later. */
  private connection: { state: ConnectionState; message?: string } = { state: 'starting' };
  private providerProblem: string | undefined;
  private tabSizes: Record<string, number> | undefined;
  private readonly onChange = new vscode.EventEmitter<void>();
  /** Fires after any chat's state changed (the status bar listens). */
  readonly onDidChange = this.onChange.event;
  private disposables: vscode.Disposable[] = [
    this.reviews,
    this.diagnostics,
    this.onChange,
    vscode.languages.onDidChangeDiagnostics(e => e.uris.forEach(u => this.diagnostics.diagnosticsChanged(u.fsPath))),
    vscode.workspace.onDidChangeTextDocument(e => this.diagnostics.documentChanged(e.document.uri.fsPath, e.document.version)),
    vscode.workspace.onDidCloseTextDocument(d => this.diagnostics.documentClosed(d.uri.fsPath)),
  ];

  constructor(readonly log: vscode.LogOutputChannel, readonly settings: () => Settings, private readonly host: ControllerHost = {}) {}

  /** The binary to start and the environment to start it in, as doStart and the doctor use them. */
  async serverCommand(): Promise<{ command: string; env: NodeJS.ProcessEnv }> {
    const s = this.settings();
    const found = findServer(s.serverPath, vscode.workspace.workspaceFolders?.[0]?.uri.fsPath, process.env.PATH, this.host.bundledServer);
    this.log.info(`agent-lsp binary: ${found.path} (from ${found.source})`);
    const key = await this.host.apiKey?.();
    return { command: found.path, env: withSecretKey(serverEnv(process.env, s.env), s.provider, key) };
  }

  // ---- chats -------------------------------------------------------------------

  /** Adds a chat: it gets the connection's state now, and a session once the agent runs. */
  add(chat: ConnectedChat): void {
    this.chats.push(chat);
    chat.connectionEvent({ type: 'connection', state: this.connection.state, message: this.connection.message });
    if (this.tabSizes) chat.connectionEvent({ type: 'tabSizes', tabSizes: this.tabSizes });
    if (this.providerProblem) chat.connectionEvent({ type: 'providerProblem', message: this.providerProblem });
  }

  /** Removes a closed chat; its sessions get no more messages. */
  remove(chat: ConnectedChat): void {
    const i = this.chats.indexOf(chat);
    if (i >= 0) this.chats.splice(i, 1);
    this.routes.releaseAll(chat);
    this.changed();
  }

  chatCount(): number {
    return this.chats.length;
  }

  /** Every chat's state, the first chat (the panel's) first. */
  states(): ViewState[] {
    return this.chats.map(c => c.state);
  }

  /** Called by a chat after each of its events. */
  changed(): void {
    this.onChange.fire();
  }

  private broadcast(e: ViewEvent): void {
    if (e.type === 'connection') this.connection = { state: e.state, message: e.message };
    if (e.type === 'providerProblem') this.providerProblem = e.message;
    if (e.type === 'tabSizes') this.tabSizes = e.tabSizes;
    for (const c of [...this.chats]) c.connectionEvent(e);
  }

  /** The chat with the pending request id (a diff or plan under review). */
  chatOfPending(id: string | undefined): ConnectedChat | undefined {
    return id === undefined ? undefined : this.chats.find(c => c.hasPending(id));
  }

  /** A permission id unique over all chats. */
  nextPermissionId(): string {
    return `perm${++this.permSeq}`;
  }

  // ---- client lifecycle ----------------------------------------------------

  /** Starts the sidecar. Never awaited by activate(): a slow or broken binary must not block the view. */
  start(): Promise<void> {
    this.starting ??= this.doStart().finally(() => { this.starting = undefined; });
    return this.starting;
  }

  private async doStart(): Promise<void> {
    const s = this.settings();
    this.broadcast({ type: 'connection', state: 'starting' });
    let command: string;
    let env: NodeJS.ProcessEnv;
    try {
      ({ command, env } = await this.serverCommand());
    } catch (e) {
      this.log.error(errorMessage(e));
      this.broadcast({ type: 'connection', state: 'error', message: errorMessage(e) });
      return;
    }
    this.log.info(`starting ${command}`);
    const { client } = createClient({
      command,
      env,
      cwd: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
      initializationOptions: initializationOptions(s, vscode.workspace.isTrusted),
      log: this.log,
    });
    this.client = client;
    client.onRequest(RequestPermissionRequest.method, (p: RequestPermissionParams, token: CancellationToken) => this.onPermission(p, token));
    client.onRequest(CreateElicitationRequest.method, (p: CreateElicitationParams, token: CancellationToken) => this.onQuestion(p, token));
    client.onNotification(SessionUpdateNotification.method, (p: SessionNotification) => this.onUpdate(p));
    client.onNotification(AgentStatusNotification.method, (p: AgentStatusParams) => this.onStatus(p));
    client.onRequest(AgentDiagnosticsRequest.method, (p: AgentDiagnosticsParams) => answerDiagnostics(this.diagnostics, {
      uriToKey: u => vscode.Uri.parse(u).fsPath,
      currentVersion: u => vscode.workspace.textDocuments.find(d => d.uri.fsPath === vscode.Uri.parse(u).fsPath)?.version,
      getDiagnostics: u => vscode.languages.getDiagnostics(vscode.Uri.parse(u)).map(toLspDiagnostic),
    }, p));
    client.onDidChangeState(e => {
      if (client !== this.client) return;
      if (e.newState === State.Running) void this.onRunning();
      if (e.newState === State.Stopped) this.onStopped();
    });
    try {
      await client.start();
    } catch (e) {
      this.log.error(`agent-lsp did not start: ${errorMessage(e)}`);
      this.broadcast({ type: 'connection', state: 'error', message: `agent-lsp did not start: ${errorMessage(e)}` });
    }
  }

  private async onRunning(): Promise<void> {
    this.up = true;
    this.broadcast({ type: 'connection', state: 'ready' });
    // No model configured: the agent says so in initialize; show it now,
    // not at the first prompt.
    this.setProviderProblem(this.initializeProblem());
    await Promise.all([...this.chats].map(c => c.onRunning()));
  }

  private onStopped(): void {
    this.up = false;
    for (const c of [...this.chats]) c.onStopped();
    this.broadcast({ type: 'connection', state: 'stopped', message: 'agent-lsp stopped' });
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  async stop(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    this.up = false;
    for (const chat of [...this.chats]) chat.onStopped();
    if (c) {
      try {
        await c.stop(3000);
      } catch (e) {
        this.log.warn(`stopping agent-lsp: ${errorMessage(e)}`);
      }
    }
    this.broadcast({ type: 'connection', state: 'stopped' });
  }

  /** The running client, or an error saying it is not running. */
  ready(): LanguageClient {
    if (!this.client || !this.client.isRunning()) throw new Error('agent-lsp is not running (see the "agent-lsp" output).');
    return this.client;
  }

  /** Set once the running client's chats were started: a chat opened now starts its own session. */
  private up = false;

  /** Whether the agent runs and serves the chats (a chat opened now can start its session at once). */
  get running(): boolean {
    return this.up && !!this.client?.isRunning();
  }

  /** The no-model problem initialize reported (in result._meta, or the agent capability's). */
  initializeProblem(): string | undefined {
    const r = this.client?.initializeResult as { capabilities?: { experimental?: { agent?: unknown } } } | undefined;
    return providerProblemOf(r) ?? providerProblemOf(r?.capabilities?.experimental?.agent);
  }

  /** Shows (or clears) the no-model notice in every chat; logged once per change. */
  setProviderProblem(message: string | undefined): void {
    if (message === this.providerProblem) return;
    if (message) this.log.error(message);
    this.broadcast({ type: 'providerProblem', message });
  }

  /** editor.tabSize per language, for the chats' code blocks. */
  setTabSizes(tabSizes: Record<string, number>): void {
    this.broadcast({ type: 'tabSizes', tabSizes });
  }

  // ---- what the agent sends, routed by session --------------------------------

  private onUpdate(p: SessionNotification): void {
    const chat = this.routes.owner(p.sessionId);
    if (!chat) {
      this.log.debug(`ignoring an update for session ${p.sessionId}`);
      return;
    }
    chat.onUpdate(p);
  }

  private onStatus(p: AgentStatusParams): void {
    if (!p.sessionId) {
      for (const c of [...this.chats]) c.onStatus(p);
      return;
    }
    this.routes.owner(p.sessionId)?.onStatus(p);
  }

  private onPermission(params: RequestPermissionParams, token: CancellationToken): Promise<RequestPermissionResult> {
    if (isTrustRequest(params)) return this.onTrustRequest(params, token);
    const chat = this.routes.owner(params.sessionId);
    if (!chat) return Promise.resolve(CANCELLED);
    return chat.onPermission(params, token, this.nextPermissionId());
  }

  private onQuestion(params: CreateElicitationParams, token: CancellationToken): Promise<CreateElicitationResult> {
    const chat = this.routes.owner(params.sessionId);
    if (!chat) return Promise.resolve(DECLINED);
    return this.questions.run(() => token.isCancellationRequested ? Promise.resolve(DECLINED) : chat.ask(params, token));
  }

  /** Resolves the folder trust request waiting for VS Code's workspace trust, if any. */
  private trustWaiter: ((trusted: boolean) => void) | undefined;

  /**
   * Answers the agent's folder trust request with VS Code's own workspace
   * trust: an already trusted workspace says yes at once; otherwise the
   * user is sent to VS Code's trust editor (workbench.trust.manage) and
   * the answer is whether the workspace is trusted afterwards.
   */
  private async onTrustRequest(params: RequestPermissionParams, token: CancellationToken): Promise<RequestPermissionResult> {
    if (vscode.workspace.isTrusted) return trustAnswer(params, true);
    const title = params.toolCall.title || 'Trust this folder?';
    const manage = 'Manage Workspace Trust…';
    const choice = await vscode.window.showWarningMessage(title, {
      modal: true,
      detail: 'Until VS Code trusts this workspace, the agent leaves the folder\'s hooks, MCP servers, language servers and settings that loosen its rules off. Trusting the workspace in VS Code turns them on.',
    }, manage);
    if (choice !== manage || token.isCancellationRequested) return trustAnswer(params, false);
    const granted = new Promise<boolean>(resolve => {
      this.trustWaiter = resolve;
      token.onCancellationRequested(() => resolve(false));
    });
    await vscode.commands.executeCommand('workbench.trust.manage');
    // The trust editor is not modal: wait for the grant (or the prompt's
    // cancellation), re-checking now in case it was granted already.
    const trusted = vscode.workspace.isTrusted || await granted;
    this.trustWaiter = undefined;
    return trustAnswer(params, trusted && vscode.workspace.isTrusted);
  }

  /**
   * VS Code granted workspace trust: a trust request waiting for it is
   * answered; otherwise the agent restarts so it loads the folder's
   * settings in full (workspaceTrusted: true).
   */
  async workspaceTrustGranted(): Promise<void> {
    const waiter = this.trustWaiter;
    if (waiter) {
      this.trustWaiter = undefined;
      waiter(true);
      return;
    }
    if (this.client) {
      for (const c of [...this.chats]) c.connectionEvent({ type: 'notice', level: 'info', text: 'VS Code now trusts this workspace: restarting the agent so the folder\'s settings apply.' });
      await this.restart();
    }
  }

  dispose(): void {
    void this.stop();
    this.disposables.forEach(d => d.dispose());
  }
}

/** An editor diagnostic in LSP's shape (VS Code's severities count from 0). */
function toLspDiagnostic(d: vscode.Diagnostic): LspDiagnostic {
  const code = typeof d.code === 'object' ? d.code.value : d.code;
  return {
    range: { start: { line: d.range.start.line, character: d.range.start.character }, end: { line: d.range.end.line, character: d.range.end.character } },
    severity: (d.severity + 1) as LspDiagnostic['severity'],
    message: d.message,
    ...(d.source ? { source: d.source } : {}),
    ...(code !== undefined ? { code } : {}),
  };
}
