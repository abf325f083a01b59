// Chats: the panel's chat and any number of chats in editor tabs, all on
// the one agent connection. It opens tabs ("Agent: Open Chat in Editor"),
// knows which chat the commands without one go to (the one the user last
// acted in), and puts "New Chat" and a chat from the history where they
// discard nothing: a chat whose turn runs keeps it, and the new chat opens
// in a new tab (shared/chats.ts has the rules). The tabs' sessions are
// remembered per workspace, so the tabs VS Code restores after a reload
// reopen their chats.

import * as vscode from 'vscode';
import { CHAT_TAB_TYPE, type ChatActions, ChatTab, ChatViewProvider, ChatWebview } from './chatView';
import type { AgentConnection } from './connection';
import { AgentController } from './controller';
import { isRunning, loadPlacement, newChatPlacement } from './shared/chats';
import { pendingPermissions } from './shared/state';

/** Where the sessions of the open tabs are remembered (the workspace's state). */
const TAB_SESSIONS_KEY = 'agentLsp.tabSessions';

/** What a tab opens with: a stored chat to load, a notice to show once it has its session. */
export interface OpenOptions {
  load?: { sessionId: string; title?: string };
  notice?: string;
  /** Leave the focus where it is (a tab restored after a reload). */
  quiet?: boolean;
}

export class Chats implements vscode.Disposable {
  readonly panel: AgentController;
  readonly panelView: ChatViewProvider;
  private readonly tabs = new Map<AgentController, ChatTab>();
  private last: AgentController;
  private readonly actions: ChatActions;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly conn: AgentConnection,
    actions: Omit<ChatActions, 'newChat' | 'history' | 'focused'>,
    private readonly log: vscode.LogOutputChannel,
    private readonly store?: vscode.Memento,
  ) {
    this.actions = {
      ...actions,
      newChat: chat => { void this.newChat(chat); },
      history: chat => { void this.history(chat); },
      focused: chat => { this.last = chat; },
    };
    this.panel = new AgentController(conn);
    this.panelView = new ChatViewProvider(extensionUri, this.panel, this.actions, log);
    this.last = this.panel;
    this.toRestore = [...(store?.get<string[]>(TAB_SESSIONS_KEY) ?? [])];
  }

  /** Sessions of the tabs open before the reload, not yet restored. */
  private toRestore: string[];

  /**
   * A tab VS Code restored after a reload (the WebviewPanelSerializer):
   * it reopens one of the chats the tabs showed before (loaded, its
   * history replayed), or starts a new one.
   */
  restoreTab(panel: vscode.WebviewPanel): Promise<AgentController> {
    const sessionId = this.toRestore.shift();
    // Not focused: VS Code restores the tabs where they were.
    return this.adopt(panel, sessionId ? { load: { sessionId }, quiet: true } : { quiet: true });
  }

  /** Remembers the open tabs' sessions for the next window. */
  private saveTabs(): void {
    if (!this.store) return;
    const ids = [...this.tabs.keys()].flatMap(c => c.state.sessionId ? [c.state.sessionId] : []);
    const old = this.store.get<string[]>(TAB_SESSIONS_KEY) ?? [];
    if (ids.length === old.length && ids.every((id, i) => id === old[i])) return;
    void this.store.update(TAB_SESSIONS_KEY, ids);
  }

  /** The chat the commands without one go to: the one the user last acted in. */
  active(): AgentController {
    return this.last;
  }

  /** The chat of the active editor tab, if a chat is the active editor. */
  activeTab(): AgentController | undefined {
    for (const [chat, tab] of this.tabs) if (tab.panel.active) return chat;
    return undefined;
  }

  /** The chat that waits for an approval, else one whose turn runs, if any. */
  waiting(): AgentController | undefined {
    const all = this.all();
    return all.find(c => pendingPermissions(c.state).length > 0) ?? all.find(c => c.state.busy);
  }

  /** Every chat, the panel's first. */
  all(): AgentController[] {
    return [this.panel, ...this.tabs.keys()];
  }

  /** The chat showing a session, if any. */
  ownerOf(sessionId: string): AgentController | undefined {
    return this.all().find(c => c.state.sessionId === sessionId);
  }

  /** The chat with the pending request id (a diff or plan under review). */
  chatOfPending(id: string | undefined): AgentController | undefined {
    return id === undefined ? undefined : this.all().find(c => c.hasPending(id));
  }

  /** The request a diff editor's command answers: by proposal URI, else the active diff, else the oldest of the active chat, else of any. */
  pendingFor(uri?: vscode.Uri): { chat: AgentController; id: string } | undefined {
    const byUri = this.conn.reviews.idOf(uri) ?? this.conn.reviews.idOf(vscode.window.activeTextEditor?.document.uri);
    const owner = this.chatOfPending(byUri);
    if (owner && byUri) return { chat: owner, id: byUri };
    for (const chat of [this.active(), ...this.all()]) {
      const id = pendingPermissions(chat.state)[0]?.id;
      if (id) return { chat, id };
    }
    return undefined;
  }

  /** Reveals a chat and focuses its prompt box. */
  focusPrompt(chat: AgentController): Promise<void> {
    this.last = chat;
    const tab = this.tabs.get(chat);
    return tab ? tab.focusPrompt() : this.panelView.focusPrompt();
  }

  /** Opens a chat in a new editor tab, beside the code, with its own session. */
  async openTab(opts: OpenOptions = {}): Promise<AgentController> {
    const existing = [...this.tabs.values()][0]?.panel.viewColumn;
    const column = existing ?? (vscode.window.activeTextEditor ? vscode.ViewColumn.Beside : vscode.ViewColumn.Active);
    const panel = vscode.window.createWebviewPanel(CHAT_TAB_TYPE, 'Agent Chat', { viewColumn: column, preserveFocus: false }, { ...ChatWebview.options(this.extensionUri), enableFindWidget: true });
    return this.adopt(panel, opts);
  }

  /** Makes a webview panel a chat (a new tab). */
  private async adopt(panel: vscode.WebviewPanel, opts: OpenOptions): Promise<AgentController> {
    const chat = new AgentController(this.conn);
    const tab = new ChatTab(this.extensionUri, panel, chat, this.actions, this.log);
    this.tabs.set(chat, tab);
    if (!opts.quiet) this.last = chat;
    panel.onDidDispose(() => this.closed(chat));
    let session = chat.state.sessionId;
    chat.onDidChange(s => {
      if (s.sessionId === session) return;
      session = s.sessionId;
      this.saveTabs();
    });
    await chat.open(opts.load);
    if (opts.notice) chat.notice('info', opts.notice);
    if (!opts.quiet) void tab.focusPrompt();
    return chat;
  }

  /**
   * A tab closed. A running turn is cancelled (and pending approvals with
   * it); the session file keeps everything, so the history reopens it.
   */
  private closed(chat: AgentController): void {
    const tab = this.tabs.get(chat);
    if (!tab) return;
    this.tabs.delete(chat);
    if (this.last === chat) this.last = this.panel;
    const running = isRunning(chat.state);
    const title = chat.state.title;
    chat.close();
    tab.dispose();
    this.saveTabs();
    if (running) {
      void vscode.window.showInformationMessage(`The closed chat's turn was cancelled${title ? ` ("${title.slice(0, 40)}")` : ''}. It is kept in the chat history.`);
    }
  }

  /** "New Chat" in a chat: a fresh session in place, or a new tab while its turn runs. */
  async newChat(chat: AgentController): Promise<void> {
    if (newChatPlacement(chat.state).kind === 'newTab') {
      await this.openTab({ notice: 'A turn is running in the other chat, so this new chat opened in its own tab; the other one goes on.' });
      return;
    }
    try {
      await chat.newSession();
      this.last = chat;
    } catch (e) {
      void vscode.window.showErrorMessage(`New chat: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /** The history picker of a chat: the pick opens there, in a new tab while its turn runs, or where it is open already. */
  async history(chat: AgentController): Promise<void> {
    const chosen = await chat.pickHistory();
    if (!chosen) return;
    const place = loadPlacement(chat.state, this.ownerOf(chosen.sessionId));
    switch (place.kind) {
      case 'reveal':
        await this.focusPrompt(place.owner);
        return;
      case 'newTab':
        await this.openTab({ load: chosen, notice: 'A turn is running in the other chat, so this chat opened in its own tab; the other one goes on.' });
        return;
      case 'here':
        await chat.loadSession(chosen.sessionId, chosen.title);
    }
  }

  /** The extension stops: the tabs stay for VS Code to restore in the next window. */
  dispose(): void {
    for (const [chat, tab] of [...this.tabs]) {
      this.tabs.delete(chat);
      tab.dispose();
      chat.dispose();
    }
    this.panel.dispose();
  }
}
