// The chat's webview, in either of its hosts: the panel's view in the
// activity bar (ChatViewProvider) or an editor tab (ChatTab); both run the
// same webview code. The state lives in the chat's controller; a
// (re)loaded webview gets a snapshot and then event batches, sent at most
// every 16 ms so a fast stream is a few messages per frame.

import * as vscode from 'vscode';
import type { AgentController, ViewSink } from './controller';
import { type FromWebview, isFromWebview, type ToWebview } from './shared/messages';
import { tabTitle } from './shared/chats';
import type { ViewEvent } from './shared/state';

export const CHAT_VIEW_ID = 'agentLsp.chat';
/** The webview panels of chats in editor tabs. */
export const CHAT_TAB_TYPE = 'agentLsp.chatTab';
const FLUSH_MS = 16;

/** What a chat's webview asks of the extension; chat is the chat it shows. */
export interface ChatActions {
  attachDiagnostics(chat: AgentController): void;
  /** The `@` mention picker (mentions.ts). */
  mention(chat: AgentController): Promise<void>;
  openLocation(path: string, line?: number): void;
  setApiKey(): Promise<void>;
  openSettings(): Thenable<unknown>;
  /** "New Chat": in place, or in a new tab while this chat's turn runs. */
  newChat(chat: AgentController): void;
  /** The history picker: the pick opens here, in a new tab, or where it is open already. */
  history(chat: AgentController): void;
  restart(): void;
  /** The user acted in this chat: the commands without a chat go to it. */
  focused(chat: AgentController): void;
}

/** A chat's webview, whichever host shows it. */
export class ChatWebview implements ViewSink {
  private webview: vscode.Webview | undefined;
  private ready = false;
  private queue: ViewEvent[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** A message for the webview once it is ready (focus the prompt, fill it). */
  private deferred: ToWebview | undefined;
  private listener: vscode.Disposable | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    readonly chat: AgentController,
    private readonly actions: ChatActions,
    private readonly log: vscode.LogOutputChannel,
    private readonly host: { readonly visible: boolean; reveal(): Promise<void> },
  ) {
    chat.addSink(this);
  }

  get visible(): boolean {
    return this.host.visible;
  }

  reveal(): Promise<void> {
    return this.host.reveal();
  }

  /** The options a chat's webview needs (scripts, the bundle's folders). */
  static options(extensionUri: vscode.Uri): vscode.WebviewOptions {
    return { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist'), vscode.Uri.joinPath(extensionUri, 'media')] };
  }

  /** Shows the chat in webview (a new one, or the same one re-created). */
  attach(webview: vscode.Webview): void {
    this.listener?.dispose();
    this.webview = webview;
    this.ready = false;
    webview.options = ChatWebview.options(this.extensionUri);
    webview.html = this.html(webview);
    this.listener = webview.onDidReceiveMessage(m => this.onMessage(m));
  }

  /** The webview was hidden (its page is destroyed; it says "ready" again when shown). */
  hidden(): void {
    this.ready = false;
  }

  /** The webview is gone. */
  detach(webview?: vscode.Webview): void {
    if (webview && webview !== this.webview) return;
    this.listener?.dispose();
    this.listener = undefined;
    this.webview = undefined;
    this.ready = false;
  }

  /** Reveals the chat and focuses its prompt box. */
  async focusPrompt(): Promise<void> {
    await this.reveal();
    const msg: ToWebview = { type: 'focusPrompt' };
    if (this.ready) this.post(msg);
    else this.deferred = msg;
  }

  push(e: ViewEvent): void {
    if (!this.ready) return; // the snapshot at "ready" will carry it
    this.queue.push(e);
    this.timer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }

  private flush(): void {
    this.timer = undefined;
    if (!this.queue.length || !this.ready) {
      this.queue = [];
      return;
    }
    const events = this.queue;
    this.queue = [];
    this.post({ type: 'events', events });
  }

  private post(msg: ToWebview): void {
    void this.webview?.postMessage(msg).then(undefined, e => this.log.debug(`postMessage: ${e}`));
  }

  private onMessage(m: unknown): void {
    if (!isFromWebview(m)) {
      this.log.warn(`ignoring a malformed message from the chat view: ${JSON.stringify(m)}`);
      return;
    }
    const msg: FromWebview = m;
    const c = this.chat;
    if (msg.type !== 'ready') this.actions.focused(c);
    switch (msg.type) {
      case 'ready':
        this.ready = true;
        this.queue = [];
        if (this.timer) clearTimeout(this.timer);
        this.timer = undefined;
        this.post({ type: 'snapshot', state: c.state });
        if (this.deferred) { this.post(this.deferred); this.deferred = undefined; }
        break;
      case 'prompt': void c.prompt(msg.text); break;
      case 'cancel': c.cancel(); break;
      case 'setMode': void c.setMode(msg.modeId); break;
      case 'setModel': void c.setModel(msg.model); break;
      case 'permission': c.decide(msg.id, msg.optionId); break;
      case 'review': void c.review(msg.id); break;
      case 'removeAttachment': c.removeAttachment(msg.id); break;
      case 'attachDiagnostics': this.actions.attachDiagnostics(c); break;
      case 'newSession': this.actions.newChat(c); break;
      case 'history': this.actions.history(c); break;
      case 'rewind': void c.rewind(msg.id); break;
      case 'openLocation': this.actions.openLocation(msg.path, msg.line); break;
      case 'showLog': this.log.show(); break;
      case 'restart': this.actions.restart(); break;
      case 'pickMode': void c.pickMode(); break;
      case 'pickModel': void c.pickModel(); break;
      case 'pickEffort': void c.pickEffort(); break;
      case 'mention': void this.actions.mention(c); break;
      case 'attachImage': c.attachImage(msg.name, msg.mimeType, msg.data); break;
      case 'copy': void vscode.env.clipboard.writeText(msg.text); break;
      case 'setApiKey': void this.actions.setApiKey(); break;
      case 'openSettings': void this.actions.openSettings(); break;
    }
  }

  private html(webview: vscode.Webview): string {
    const nonce = [...Array(32)].map(() => Math.floor(Math.random() * 36).toString(36)).join('');
    const js = webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview.js'));
    const css = webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview.css'));
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${webview.cspSource} 'unsafe-inline'; img-src ${webview.cspSource} data:; font-src ${webview.cspSource}; script-src 'nonce-${nonce}';">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${css}">
<title>Agent</title>
</head>
<body>
<div id="root" class="root"></div>
<script nonce="${nonce}" src="${js}"></script>
</body>
</html>`;
  }
}

/** The panel's chat: a webview view in the activity bar. */
export class ChatViewProvider implements vscode.WebviewViewProvider {
  private view: vscode.WebviewView | undefined;
  readonly webview: ChatWebview;

  constructor(extensionUri: vscode.Uri, readonly chat: AgentController, actions: ChatActions, log: vscode.LogOutputChannel) {
    const self = this;
    this.webview = new ChatWebview(extensionUri, chat, actions, log, {
      get visible() { return !!self.view?.visible; },
      reveal: async () => { await vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`); },
    });
  }

  get visible(): boolean {
    return !!this.view?.visible;
  }

  focusPrompt(): Promise<void> {
    return this.webview.focusPrompt();
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    this.webview.attach(view.webview);
    view.onDidChangeVisibility(() => {
      // A hidden webview view is destroyed; it says "ready" again when shown.
      if (!view.visible) this.webview.hidden();
    });
    view.onDidDispose(() => {
      if (this.view === view) {
        this.view = undefined;
        this.webview.detach(view.webview);
      }
    });
  }
}

/** A chat in an editor tab: a webview panel of its own. */
export class ChatTab implements vscode.Disposable {
  readonly webview: ChatWebview;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(extensionUri: vscode.Uri, readonly panel: vscode.WebviewPanel, readonly chat: AgentController, actions: ChatActions, log: vscode.LogOutputChannel) {
    this.webview = new ChatWebview(extensionUri, chat, actions, log, {
      get visible() { return panel.visible; },
      reveal: async () => panel.reveal(panel.viewColumn, false),
    });
    panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'agent.svg');
    this.webview.attach(panel.webview);
    panel.title = tabTitle(chat.state);
    this.disposables.push(
      panel.onDidChangeViewState(() => {
        if (!panel.visible) this.webview.hidden();
        if (panel.active) actions.focused(chat);
      }),
      chat.onDidChange(s => {
        const t = tabTitle(s);
        if (panel.title !== t) panel.title = t;
      }),
    );
  }

  focusPrompt(): Promise<void> {
    return this.webview.focusPrompt();
  }

  dispose(): void {
    this.webview.detach();
    this.disposables.forEach(d => d.dispose());
  }
}
