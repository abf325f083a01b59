// The chat panel: a webview view in the activity bar. The state lives in the
// controller; a (re)loaded webview gets a snapshot and then event batches,
// sent at most every 16 ms so a fast stream is a few messages per frame.

import * as vscode from 'vscode';
import type { AgentController, ViewSink } from './controller';
import { type FromWebview, isFromWebview, type ToWebview } from './shared/messages';
import type { ViewEvent } from './shared/state';

export const CHAT_VIEW_ID = 'agentLsp.chat';
const FLUSH_MS = 16;

export interface ChatActions {
  attachDiagnostics(): void;
  /** The `@` mention picker (mentions.ts). */
  mention(): Promise<void>;
  openLocation(path: string, line?: number): void;
  setApiKey(): Promise<void>;
  openSettings(): Thenable<unknown>;
}

export class ChatViewProvider implements vscode.WebviewViewProvider, ViewSink {
  private view: vscode.WebviewView | undefined;
  private ready = false;
  private queue: ViewEvent[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** A message for the webview once it is ready (focus the prompt, fill it). */
  private deferred: ToWebview | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly controller: AgentController,
    private readonly actions: ChatActions,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  get visible(): boolean {
    return !!this.view?.visible;
  }

  async reveal(): Promise<void> {
    await vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`);
  }

  /** Reveals the view and focuses the prompt box. */
  async focusPrompt(): Promise<void> {
    await this.reveal();
    const msg: ToWebview = { type: 'focusPrompt' };
    if (this.ready) this.post(msg);
    else this.deferred = msg;
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    this.ready = false;
    view.webview.options = { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(this.extensionUri, 'dist'), vscode.Uri.joinPath(this.extensionUri, 'media')] };
    view.webview.html = this.html(view.webview);
    view.webview.onDidReceiveMessage(m => this.onMessage(m));
    view.onDidChangeVisibility(() => {
      // A hidden webview view is destroyed; it says "ready" again when shown.
      if (!view.visible) this.ready = false;
    });
    view.onDidDispose(() => {
      if (this.view === view) {
        this.view = undefined;
        this.ready = false;
      }
    });
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
    void this.view?.webview.postMessage(msg).then(undefined, e => this.log.debug(`postMessage: ${e}`));
  }

  private onMessage(m: unknown): void {
    if (!isFromWebview(m)) {
      this.log.warn(`ignoring a malformed message from the chat view: ${JSON.stringify(m)}`);
      return;
    }
    const msg: FromWebview = m;
    const c = this.controller;
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
      case 'attachDiagnostics': this.actions.attachDiagnostics(); break;
      case 'newSession':
        c.newSession().catch(e => void vscode.window.showErrorMessage(`New chat: ${e instanceof Error ? e.message : e}`));
        break;
      case 'history': void c.showHistory(); break;
      case 'rewind': void c.rewind(msg.id); break;
      case 'openLocation': this.actions.openLocation(msg.path, msg.line); break;
      case 'showLog': this.log.show(); break;
      case 'restart': void c.restart(); break;
      case 'pickMode': void c.pickMode(); break;
      case 'pickModel': void c.pickModel(); break;
      case 'pickEffort': void c.pickEffort(); break;
      case 'mention': void this.actions.mention(); break;
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
