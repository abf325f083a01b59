// The words of docs/editor-words.md, as the VS Code screens say them: the
// same table is checked in Neovim's tests.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { chatTime, HISTORY_TITLE, noChatsText } from '../../src/shared/history';
import { awaitsApproval, emptyState, reduce, toolItemId, turnWords, usageShort, usageText, type ViewEvent, type ViewState } from '../../src/shared/state';
import { renderItem, STATUS_LABEL } from '../../webview/render';

const doc = fs.readFileSync(path.join(__dirname, '../../../../../docs/editor-words.md'), 'utf8');

describe('the words both editors use (docs/editor-words.md)', () => {
  it('names a tool call\'s states waiting, running, done, failed', () => {
    assert.deepStrictEqual(STATUS_LABEL, { pending: 'waiting', in_progress: 'running', completed: 'done', failed: 'failed' });
    for (const w of Object.values(STATUS_LABEL)) assert.ok(doc.includes(`\`${w}\``), `${w} is in the doc`);
    const html = renderItem({ kind: 'tool', id: 'tool:t1', call: { toolCallId: 't1', title: 'Read calc.go', kind: 'read', status: 'pending' } });
    assert.match(html, /<span class="tstatus" data-status="pending">waiting<\/span>/);
    assert.doesNotMatch(html, /pending</);
  });

  it('says a call waits for your approval while its request is open, and updates its row', () => {
    const s: ViewState = emptyState();
    const ev = (e: ViewEvent) => reduce(s, e);
    ev({ type: 'update', update: { sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Edit calc.go', kind: 'edit', status: 'pending' } });
    const asked = ev({ type: 'permission', item: { id: 'p1', toolCallId: 't1', title: 'Edit calc.go', options: [{ optionId: 'allow_once', name: 'Allow', kind: 'allow_once' }] } });
    assert.ok(asked.items.has(toolItemId('t1')), 'the tool row is redrawn when the request comes');
    assert.ok(awaitsApproval(s, toolItemId('t1')));
    const tool = s.items.find(i => i.id === toolItemId('t1'))!;
    assert.match(renderItem(tool, { awaitingApproval: true }), />waiting for your approval<\/span>/);
    assert.ok(doc.includes('`waiting for your approval`'));
    const answered = ev({ type: 'permissionResolved', id: 'p1', state: 'allowed', chosen: 'allow_once' });
    assert.ok(answered.items.has(toolItemId('t1')), 'and when it is answered');
    assert.ok(!awaitsApproval(s, toolItemId('t1')));
  });

  it('says the turn\'s state as Working… and Waiting for your approval (N)', () => {
    assert.strictEqual(turnWords(true, 0), 'Working…');
    assert.strictEqual(turnWords(true, 2), 'Waiting for your approval (2)');
    assert.strictEqual(turnWords(false, 0), '');
    assert.ok(doc.includes('`Working…`') && doc.includes('`Waiting for your approval (N)`'));
  });

  it('titles the history Chat history and says when a folder has none', () => {
    assert.strictEqual(HISTORY_TITLE, 'Chat history');
    assert.strictEqual(noChatsText('/home/me/calc'), 'No saved chats for calc yet');
    assert.strictEqual(noChatsText('/home/me/calc/'), 'No saved chats for calc yet');
    assert.ok(doc.includes('`Chat history`') && doc.includes('`No saved chats for <folder> yet`'));
  });

  it('gives a chat\'s time as 2026-11-28 14:05 in local time, or today 14:05', () => {
    const now = new Date(2026, 10, 28, 18, 30);
    const cases: [Date | string, string][] = [
      [new Date(2026, 10, 28, 14, 5), 'today 14:05'],
      [new Date(2026, 10, 28, 0, 0), 'today 00:00'],
      [new Date(2026, 10, 27, 23, 59), '2026-11-27 23:59'],
      [new Date(2025, 0, 3, 9, 7), '2025-01-03 09:07'],
      [new Date(2026, 10, 28, 14, 5).toISOString(), 'today 14:05'],
      ['not a time', ''],
    ];
    for (const [when, want] of cases) assert.strictEqual(chatTime(when, now), want, String(when));
    assert.ok(doc.includes('`2026-11-28 14:05`') && doc.includes('`today 14:05`'));
  });

  it('gives the usage as 53k / 200k tokens · 73% left · $0.05, and <$0.01, and narrow', () => {
    const u = (used: number, amount?: number) => ({ used, size: 200000, ...(amount !== undefined ? { cost: { amount, currency: 'USD' } } : {}) });
    assert.strictEqual(usageText(u(53400, 0.05)), '53k / 200k tokens · 73% left · $0.05');
    assert.strictEqual(usageText(u(53400, 0.003)), '53k / 200k tokens · 73% left · <$0.01');
    assert.strictEqual(usageShort(u(53400, 0.05)), '53k / 200k · $0.05');
    for (const w of ['53k / 200k tokens · 73% left · $0.05', '<$0.01', '53k / 200k · $0.05']) assert.ok(doc.includes(w), w);
  });
});
