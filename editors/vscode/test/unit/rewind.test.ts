import * as assert from 'assert';
import type { Checkpoint } from '../../src/protocol';
import { isFromWebview } from '../../src/shared/messages';
import { rewindPreviewText } from '../../src/shared/rewind';
import { checkpointOf, emptyState, reduce, type ViewEvent, type ViewState } from '../../src/shared/state';
import { renderItem } from '../../webview/render';

function apply(s: ViewState, ...events: ViewEvent[]) {
  return events.map(e => reduce(s, e));
}
const chunk = (text: string): ViewEvent => ({ type: 'update', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } });
const cp = (checkpoint: number, prompt: string): Checkpoint => ({ checkpoint, prompt, time: '2026-11-28T13:00:00Z' });

/** A chat of three prompts, each answered. */
function threeTurns(): ViewState {
  const s = emptyState();
  apply(s,
    { type: 'session', sessionId: 's1' },
    { type: 'userPrompt', text: 'edit a', attachments: [] }, chunk('Edited a.'),
    { type: 'userPrompt', text: '/compact', attachments: [] }, chunk('Compacted.'),
    { type: 'userPrompt', text: 'run the shell', attachments: ['calc.py:1-2'] }, chunk('Ran it.'),
    { type: 'userPrompt', text: 'and again', attachments: [] }, chunk('Again.'));
  return s;
}

describe('rewind', () => {
  it('a conversation rewind drops the user message and everything after it', () => {
    const s = threeTurns();
    const run = s.items.find(i => i.kind === 'user' && i.text === 'run the shell')!;
    const [ch] = apply(s, { type: 'rewound', itemId: run.id });
    assert.deepStrictEqual(s.items.map(i => i.kind === 'user' || i.kind === 'agent' ? i.text : i.kind), ['edit a', 'Edited a.', '/compact', 'Compacted.']);
    assert.ok(ch.structure, 'items were removed');
    // New items go on with fresh ids.
    apply(s, { type: 'userPrompt', text: 'next', attachments: [] });
    assert.strictEqual(new Set(s.items.map(i => i.id)).size, s.items.length);
  });

  it('a rewind to an unknown or non-user item changes nothing', () => {
    const s = threeTurns();
    const before = s.items.length;
    const agent = s.items.find(i => i.kind === 'agent')!;
    const [a, b] = apply(s, { type: 'rewound', itemId: 'nope' }, { type: 'rewound', itemId: agent.id });
    assert.strictEqual(s.items.length, before);
    assert.ok(!a.structure && !b.structure);
  });

  it('pairs user messages with checkpoints in order, skipping those that took none', () => {
    const s = threeTurns();
    const users = s.items.filter(i => i.kind === 'user');
    // /compact took no checkpoint; checkpoints come in any order.
    const cps = [cp(3, 'and again'), cp(1, 'edit a'), cp(2, 'run the shell')];
    assert.deepStrictEqual(users.map(u => checkpointOf(s.items, u.id, cps)?.checkpoint), [1, undefined, 2, 3]);
    // A replayed message holds its attachments after the text.
    const replay = emptyState();
    apply(replay, { type: 'update', update: { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'fix it\n```\ncode\n```\n' } } });
    assert.strictEqual(checkpointOf(replay.items, replay.items[0].id, [cp(1, 'fix it')])?.checkpoint, 1);
    // Rewound or compacted since: no checkpoint left for the message.
    assert.strictEqual(checkpointOf(s.items, users[3].id, [cp(1, 'edit a')]), undefined);
  });

  it('the webview offers "Rewind to here" on user messages and may send it', () => {
    const html = renderItem({ kind: 'user', id: 'u1', text: 'hi', attachments: [] }, { rewind: true });
    assert.match(html, /<button class="rewind-btn" data-action="rewind" data-id="u1"/);
    assert.ok(!renderItem({ kind: 'user', id: 'u1', text: 'hi', attachments: [] }).includes('rewind-btn'), 'not without a session');
    assert.ok(isFromWebview({ type: 'rewind', id: 'u1' }));
    assert.ok(!isFromWebview({ type: 'rewind' }));
  });

  it('the preview lists the files it will change and the conflicts, relative to the folder', () => {
    const preview = {
      applied: false,
      changes: [{ path: '/p/a.txt', action: 'write' as const }, { path: '/p/b.txt', action: 'create' as const }, { path: '/p/c.txt', action: 'delete' as const }],
      conflicts: ['/p/a.txt'],
    };
    assert.strictEqual(rewindPreviewText('/p', 'both', preview), [
      'Files it will change:', '  restore  a.txt', '  bring back  b.txt', '  delete  c.txt',
      'The conversation goes back to before this message.',
      '', 'Changed since by you or another program (the rewind overwrites them):', '  a.txt',
    ].join('\n'));
    assert.strictEqual(rewindPreviewText('/p', 'code', { applied: false, changes: [] }), 'No file changes.');
    assert.strictEqual(rewindPreviewText('/p', 'conversation', { applied: false, changes: [] }), 'The conversation goes back to before this message.');
  });
});
