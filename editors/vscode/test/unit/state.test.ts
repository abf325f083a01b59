import * as assert from 'assert';
import type { SessionUpdate } from '../../src/protocol';
import {
  contextLeft, emptyState, matchCommands, pendingPermissions, reduce, toolItemId, usageText, type ViewEvent, type ViewState,
} from '../../src/shared/state';

function apply(s: ViewState, ...events: ViewEvent[]) {
  return events.map(e => reduce(s, e));
}
const up = (update: SessionUpdate): ViewEvent => ({ type: 'update', update });
const chunk = (text: string): ViewEvent => up({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });

describe('view state reducer', () => {
  it('joins streamed chunks into one message and reports only that item changed', () => {
    const s = emptyState();
    const [first, second] = apply(s, chunk('Hel'), chunk('lo'));
    assert.strictEqual(s.items.length, 1);
    assert.deepStrictEqual(s.items[0], { kind: 'agent', id: 'a1', text: 'Hello' });
    assert.ok(first.structure, 'a new item changes the structure');
    assert.ok(!second.structure, 'a chunk does not');
    assert.deepStrictEqual([...second.items], ['a1']);
  });

  it('starts a new message after a tool call, and keeps thoughts apart', () => {
    const s = emptyState();
    apply(s,
      up({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'hmm' } }),
      chunk('A'),
      up({ sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Read', kind: 'read', status: 'pending' }),
      chunk('B'));
    assert.deepStrictEqual(s.items.map(i => i.kind), ['thought', 'agent', 'tool', 'agent']);
  });

  it('merges tool_call_update fields into the tool call', () => {
    const s = emptyState();
    apply(s,
      up({ sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Edit', kind: 'edit', status: 'pending' }),
      up({ sessionUpdate: 'tool_call_update', toolCallId: 't1', title: 'Edit calc.py', content: [{ type: 'diff', path: '/p/calc.py', oldText: 'a', newText: 'b' }] }),
      up({ sessionUpdate: 'tool_call_update', toolCallId: 't1', status: 'completed' }));
    const t = s.items.find(i => i.id === toolItemId('t1'));
    assert.ok(t && t.kind === 'tool');
    assert.strictEqual(t.call.title, 'Edit calc.py');
    assert.strictEqual(t.call.kind, 'edit');
    assert.strictEqual(t.call.status, 'completed');
    assert.strictEqual(t.call.content?.length, 1);
  });

  it('keeps one plan per turn, replaced in place', () => {
    const s = emptyState();
    const plan = (status: 'pending' | 'completed'): ViewEvent => up({ sessionUpdate: 'plan', entries: [{ content: 'Fix', priority: 'high', status }] });
    apply(s, { type: 'userPrompt', text: 'go', attachments: [] }, plan('pending'), chunk('x'), plan('completed'));
    const plans = s.items.filter(i => i.kind === 'plan');
    assert.strictEqual(plans.length, 1);
    assert.strictEqual(plans[0].kind === 'plan' && plans[0].entries[0].status, 'completed');
    apply(s, { type: 'userPrompt', text: 'again', attachments: [] }, plan('pending'));
    assert.strictEqual(s.items.filter(i => i.kind === 'plan').length, 2, 'a new turn gets a new plan');
  });

  it('tracks commands, mode, usage, model', () => {
    const s = emptyState();
    apply(s,
      { type: 'session', sessionId: 's1', modes: [{ id: 'default', name: 'Default' }, { id: 'plan', name: 'Plan' }], currentModeId: 'default',
        configOptions: [{ id: 'model', name: 'Model', type: 'select', currentValue: 'm1', options: [{ value: 'm1', name: 'M1' }, { value: 'm2', name: 'M2' }] }] },
      up({ sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'compact', description: 'Summarize' }] }),
      up({ sessionUpdate: 'current_mode_update', currentModeId: 'plan' }),
      up({ sessionUpdate: 'usage_update', used: 50_000, size: 200_000, cost: { amount: 0.5, currency: 'USD' } }),
      { type: 'model', currentModel: 'm2' });
    assert.strictEqual(s.sessionId, 's1');
    assert.strictEqual(s.currentModeId, 'plan');
    assert.strictEqual(s.currentModel, 'm2');
    assert.deepStrictEqual(s.models.map(m => m.value), ['m1', 'm2']);
    assert.strictEqual(s.commands[0].name, 'compact');
    assert.strictEqual(usageText(s.usage), '50k / 200k tokens · 75% left · $0.50');
    assert.strictEqual(contextLeft(s.usage), 0.75);
  });

  it('a new session clears the transcript; a loaded one keeps what was replayed', () => {
    const s = emptyState();
    apply(s, chunk('old'), { type: 'session', sessionId: 's2' });
    assert.strictEqual(s.items.length, 0);
    apply(s,
      up({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'question' } }),
      chunk('answer'),
      { type: 'session', sessionId: 's2', keepItems: true });
    assert.deepStrictEqual(s.items.map(i => i.kind), ['user', 'agent']);
  });

  it('permission requests stay pending until resolved', () => {
    const s = emptyState();
    const item = { id: 'perm1', toolCallId: 't1', title: 'Bash', toolKind: 'execute', detail: 'ls', review: false,
      options: [{ optionId: 'allow_once', name: 'Allow', kind: 'allow_once' as const }] };
    const [c] = apply(s, { type: 'busy', busy: true }, { type: 'permission', item });
    assert.ok(c.header || c.footer);
    assert.deepStrictEqual(pendingPermissions(s).map(p => p.id), ['perm1']);
    apply(s, { type: 'permissionResolved', id: 'perm1', state: 'allowed', chosen: 'allow_once' });
    assert.deepStrictEqual(pendingPermissions(s), []);
    const p = s.items[0];
    assert.ok(p.kind === 'permission' && p.state === 'allowed' && p.chosen === 'allow_once');
  });

  it('adds a stop item unless the turn ended normally', () => {
    const s = emptyState();
    apply(s, { type: 'turnEnded', stopReason: 'end_turn' }, { type: 'turnEnded', stopReason: 'cancelled' });
    assert.deepStrictEqual(s.items.map(i => i.kind), ['stop']);
  });

  it('replays to the same state from a snapshot copy (what the webview does)', () => {
    const s = emptyState();
    const events: ViewEvent[] = [chunk('a'), up({ sessionUpdate: 'tool_call', toolCallId: 't', title: 'Read' }), chunk('b')];
    apply(s, events[0]);
    const copy: ViewState = JSON.parse(JSON.stringify(s));
    apply(s, ...events.slice(1));
    apply(copy, ...events.slice(1));
    assert.deepStrictEqual(copy, s);
  });
});

describe('slash command completion', () => {
  const cmds = [{ name: 'compact', description: '' }, { name: 'clear', description: '' }];
  it('matches by prefix while the box holds only "/word"', () => {
    assert.deepStrictEqual(matchCommands(cmds, '/').map(c => c.name), ['compact', 'clear']);
    assert.deepStrictEqual(matchCommands(cmds, '/co').map(c => c.name), ['compact']);
    assert.deepStrictEqual(matchCommands(cmds, '/compact now'), []);
    assert.deepStrictEqual(matchCommands(cmds, 'hello /co'), []);
  });
});
