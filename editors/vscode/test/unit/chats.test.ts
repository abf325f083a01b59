// Several chats on one agent (src/shared/chats.ts): which chat gets a
// session's messages, where New Chat and a history pick open, questions one
// at a time, the tab title and the status bar over all chats.
import * as assert from 'assert';
import { isRunning, loadPlacement, newChatPlacement, SerialQueue, SessionRoutes, statusText, tabTitle } from '../../src/shared/chats';
import { emptyState, reduce, type ViewEvent, type ViewState } from '../../src/shared/state';

function chat(...events: ViewEvent[]): ViewState {
  const s = emptyState();
  for (const e of [{ type: 'connection', state: 'ready' } as ViewEvent, { type: 'session', sessionId: 's1' } as ViewEvent, ...events]) reduce(s, e);
  return s;
}

const permission: ViewEvent = {
  type: 'permission',
  item: { id: 'perm1', toolCallId: 't1', title: 'Edit calc.py', options: [{ optionId: 'allow', name: 'Allow', kind: 'allow_once' }] },
};

describe('several chats', () => {
  describe('SessionRoutes', () => {
    it('routes each session to the chat showing it', () => {
      const r = new SessionRoutes<string>();
      assert.strictEqual(r.move('panel', undefined, 's1'), undefined);
      assert.strictEqual(r.move('tab', undefined, 's2'), undefined);
      assert.strictEqual(r.owner('s1'), 'panel');
      assert.strictEqual(r.owner('s2'), 'tab');
      assert.strictEqual(r.owner('s3'), undefined);
      assert.strictEqual(r.owner(undefined), undefined);
    });

    it('a chat that moves to a new session stops getting the old one\'s messages', () => {
      const r = new SessionRoutes<string>();
      r.move('panel', undefined, 's1');
      r.move('panel', 's1', 's2');
      assert.strictEqual(r.owner('s1'), undefined);
      assert.strictEqual(r.owner('s2'), 'panel');
      assert.deepStrictEqual(r.sessions(), ['s2']);
    });

    it('never gives one session to two chats', () => {
      const r = new SessionRoutes<string>();
      r.move('panel', undefined, 's1');
      assert.strictEqual(r.move('tab', undefined, 's1'), 'panel');
      assert.strictEqual(r.owner('s1'), 'panel');
      // Leaving a session another chat owns does not take it from that chat.
      r.move('tab', 's1', 's2');
      assert.strictEqual(r.owner('s1'), 'panel');
      assert.strictEqual(r.owner('s2'), 'tab');
    });

    it('forgets a closed chat\'s sessions', () => {
      const r = new SessionRoutes<string>();
      r.move('panel', undefined, 's1');
      r.move('tab', undefined, 's2');
      r.releaseAll('tab');
      assert.strictEqual(r.owner('s2'), undefined);
      assert.strictEqual(r.owner('s1'), 'panel');
    });
  });

  describe('New Chat and the history never discard a running turn', () => {
    const idle = chat();
    const busy = chat({ type: 'busy', busy: true });
    const waiting = chat(permission);

    it('a running or waiting chat counts as running; an idle one does not', () => {
      assert.strictEqual(isRunning(idle), false);
      assert.strictEqual(isRunning(busy), true);
      assert.strictEqual(isRunning(waiting), true);
      assert.strictEqual(isRunning(chat(permission, { type: 'permissionResolved', id: 'perm1', state: 'allowed' })), false);
    });

    const cases: Array<{ name: string; state: ViewState; want: string }> = [
      { name: 'idle: in place', state: idle, want: 'here' },
      { name: 'turn running: a new tab', state: busy, want: 'newTab' },
      { name: 'waiting for an approval: a new tab', state: waiting, want: 'newTab' },
    ];
    for (const c of cases) {
      it(`New Chat, ${c.name}`, () => assert.strictEqual(newChatPlacement(c.state).kind, c.want));
      it(`a history pick, ${c.name}`, () => assert.strictEqual(loadPlacement(c.state, undefined).kind, c.want));
    }

    it('a history pick open in a chat already reveals that chat, running or not', () => {
      assert.deepStrictEqual(loadPlacement(idle, 'tab'), { kind: 'reveal', owner: 'tab' });
      assert.deepStrictEqual(loadPlacement(busy, 'panel'), { kind: 'reveal', owner: 'panel' });
    });
  });

  describe('SerialQueue', () => {
    it('asks one question at a time, in order, and goes on after a failure', async () => {
      const q = new SerialQueue();
      const log: string[] = [];
      let release!: () => void;
      const first = q.run(() => new Promise<string>(resolve => { log.push('first asked'); release = () => resolve('a'); }));
      const second = q.run(async () => { log.push('second asked'); throw new Error('escaped'); });
      const third = q.run(async () => { log.push('third asked'); return 'c'; });
      await new Promise(r => setTimeout(r, 10));
      assert.deepStrictEqual(log, ['first asked']);
      release();
      assert.strictEqual(await first, 'a');
      await assert.rejects(second, /escaped/);
      assert.strictEqual(await third, 'c');
      assert.deepStrictEqual(log, ['first asked', 'second asked', 'third asked']);
    });
  });

  describe('statusText over all chats', () => {
    it('says an approval is needed when any chat waits, the panel\'s or a tab\'s', () => {
      const t = statusText([chat(), chat(permission)]);
      assert.match(t.text, /Waiting for your approval \(\d+\)/);
      assert.strictEqual(t.waiting, 1);
      assert.match(t.tooltip, /in 1 chat\b/);
    });

    it('says working when any chat\'s turn runs, idle when none does', () => {
      assert.match(statusText([chat(), chat({ type: 'busy', busy: true })]).text, /Working…/);
      assert.doesNotMatch(statusText([chat(), chat()]).text, /working|approval/);
      assert.match(statusText([chat({ type: 'busy', busy: true })]).tooltip, /^The agent is working;/);
    });

    it('puts the connection first', () => {
      const down = chat(permission, { type: 'connection', state: 'stopped' });
      assert.match(statusText([down]).text, /disconnect/);
      assert.match(statusText([]).text, /error/);
    });
  });

  describe('tabTitle', () => {
    it('is the chat\'s title, shortened, or "Agent Chat"', () => {
      assert.strictEqual(tabTitle(chat()), 'Agent Chat');
      assert.strictEqual(tabTitle(chat({ type: 'userPrompt', text: 'Fix  average', attachments: [] })), 'Fix average');
      assert.strictEqual(tabTitle(chat({ type: 'userPrompt', text: 'x'.repeat(50), attachments: [] })), `${'x'.repeat(29)}…`);
    });
  });
});
