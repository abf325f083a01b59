// Several chats on one agent: which chat owns which session (the sidecar's
// notifications and requests carry the sessionId and go to its chat),
// where "New Chat" and a chat from the history open (never over a running
// turn), the questions asked one at a time, and the status bar over all
// chats. No VS Code here, so the rules are tested without it.

import { pendingPermissions, turnWords, type UserItem, type ViewState } from './state';

/**
 * SessionRoutes maps each session to the one chat showing it. A session is
 * never shown by two chats: claiming one another chat owns fails.
 */
export class SessionRoutes<C> {
  private bySession = new Map<string, C>();

  /** The chat showing sessionId, if any. */
  owner(sessionId: string | undefined): C | undefined {
    return sessionId === undefined ? undefined : this.bySession.get(sessionId);
  }

  /**
   * Moves chat from the session it showed (from) to another (to). A session
   * another chat owns stays that chat's: the other owner is returned and
   * chat owns nothing.
   */
  move(chat: C, from: string | undefined, to: string | undefined): C | undefined {
    if (from !== undefined && this.bySession.get(from) === chat) this.bySession.delete(from);
    if (to === undefined) return undefined;
    const other = this.bySession.get(to);
    if (other !== undefined && other !== chat) return other;
    this.bySession.set(to, chat);
    return undefined;
  }

  /** Forgets every session of chat (the chat closed). */
  releaseAll(chat: C): void {
    for (const [id, c] of [...this.bySession]) if (c === chat) this.bySession.delete(id);
  }

  /** The sessions routed, for tests and the log. */
  sessions(): string[] {
    return [...this.bySession.keys()];
  }
}

/** A chat whose turn runs or waits for the user: New Chat or a history pick must not replace it. */
export function isRunning(s: ViewState): boolean {
  return s.busy || pendingPermissions(s).length > 0;
}

/** Where a chat opens: in the chat asked (it is idle), in a new editor tab (it is running), or in the chat already showing it. */
export type Placement<C = unknown> = { kind: 'here' } | { kind: 'newTab' } | { kind: 'reveal'; owner: C };

/** "New Chat" in a chat: in place when idle, else in a new editor tab. */
export function newChatPlacement(s: ViewState): Placement {
  return isRunning(s) ? { kind: 'newTab' } : { kind: 'here' };
}

/**
 * A chat picked from the history, asked for in a chat: the chat already
 * showing that session (maybe this one) is revealed; a running chat keeps its turn and the
 * pick opens in a new editor tab; an idle chat loads it in place.
 */
export function loadPlacement<C>(s: ViewState, owner: C | undefined): Placement<C> {
  if (owner !== undefined) return { kind: 'reveal', owner };
  return isRunning(s) ? { kind: 'newTab' } : { kind: 'here' };
}

/**
 * SerialQueue runs tasks one after another: VS Code shows one quick pick
 * at a time, and a second one would close (and so decline) the first, so
 * two chats' questions wait their turn.
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const next = this.tail.then(task, task);
    this.tail = next.then(() => undefined, () => undefined);
    return next;
  }
}

/** The status bar item over every chat: the connection, then any approval waited for, then any turn running. */
export function statusText(states: ViewState[]): { text: string; tooltip: string; waiting: number } {
  const s = states[0];
  if (!s || s.connection === 'error') return { text: '$(error) Agent', tooltip: `agent-lsp: ${s?.connectionMessage ?? 'not running'}`, waiting: 0 };
  if (s.connection === 'starting') return { text: '$(loading~spin) Agent', tooltip: 'agent-lsp is starting', waiting: 0 };
  if (s.connection === 'stopped') return { text: '$(debug-disconnect) Agent', tooltip: 'agent-lsp stopped', waiting: 0 };
  const waiting = states.reduce((n, c) => n + pendingPermissions(c).length, 0);
  const chatsWaiting = states.filter(c => pendingPermissions(c).length > 0).length;
  const busy = states.filter(c => c.busy).length;
  const where = (n: number) => states.length > 1 ? ` in ${n} chat${n === 1 ? '' : 's'}` : '';
  if (waiting) return { text: `$(bell-dot) Agent: ${turnWords(true, waiting)}`, tooltip: `The agent waits for your approval (${waiting})${where(chatsWaiting)}`, waiting };
  if (busy) return { text: `$(sync~spin) Agent: ${turnWords(true, 0)}`, tooltip: `The agent is working${where(busy)}; click to open the chat`, waiting };
  return { text: '$(comment-discussion) Agent', tooltip: 'agent-lsp is idle; click to open the chat', waiting };
}

/** An editor tab's title: the chat's title, else its first prompt, shortened. */
export function tabTitle(s: ViewState): string {
  const first = s.items.find((i): i is UserItem => i.kind === 'user');
  const text = (s.title || first?.text || '').replace(/\s+/g, ' ').trim();
  if (!text) return 'Agent Chat';
  return text.length > 30 ? `${text.slice(0, 29)}…` : text;
}
