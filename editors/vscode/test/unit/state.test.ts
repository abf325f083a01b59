import * as assert from 'assert';
import type { SessionUpdate } from '../../src/protocol';
import {
  contextLeft, currentEffortName, emptyState, matchCommands, modelGroups, pendingPermissions, reduce, toolItemId, usageShort, usageText, type PermissionItem, type ViewEvent, type ViewState,
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

  it('tracks the effort option from session/new, config_option_update and set_config_option', () => {
    const s = emptyState();
    const effort = (current: string) => ({ id: 'effort', name: 'Effort', category: 'thought_level', type: 'select' as const, currentValue: current,
      options: [{ value: 'auto', name: 'Auto', description: 'high (the default)' }, { value: 'low', name: 'Low' }, { value: 'max', name: 'Max' }] });
    const model = { id: 'model', name: 'Model', type: 'select' as const, currentValue: 'm1', options: [{ value: 'm1', name: 'M1' }] };
    apply(s, { type: 'session', sessionId: 's1', configOptions: [model, effort('auto')] });
    assert.strictEqual(currentEffortName(s), 'Auto');
    apply(s, up({ sessionUpdate: 'config_option_update', configOptions: [model, effort('low')] }));
    assert.strictEqual(currentEffortName(s), 'Low');
    apply(s, { type: 'config', configOptions: [model, effort('max')] });
    assert.strictEqual(s.effort?.current, 'max');
    assert.deepStrictEqual(s.effort?.options.map(o => o.value), ['auto', 'low', 'max']);
    assert.strictEqual(s.currentModel, 'm1', 'the model is kept');
    const none = emptyState();
    apply(none, { type: 'session', sessionId: 's2', configOptions: [model] });
    assert.strictEqual(currentEffortName(none), undefined, 'an agent without the option shows no effort picker');
  });

  it('keeps the images of a user message, sent or replayed', () => {
    const s = emptyState();
    apply(s, { type: 'userPrompt', text: 'what is this?', attachments: [], images: ['data:image/png;base64,AAAA'] });
    assert.deepStrictEqual((s.items[0] as { images?: string[] }).images, ['data:image/png;base64,AAAA']);
    const r = emptyState();
    apply(r, up({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'look' } }),
      up({ sessionUpdate: 'user_message_chunk', content: { type: 'image', mimeType: 'image/png', data: 'BBBB' } }));
    assert.strictEqual(r.items.length, 1, 'the image joins the replayed message');
    assert.deepStrictEqual((r.items[0] as { images?: string[] }).images, ['data:image/png;base64,BBBB']);
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
    assert.strictEqual(usageShort(s.usage), '50k / 200k · $0.50', 'the footer keeps the cost in a narrow pane; the meter shows what is left');
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
    const item = { id: 'perm1', toolCallId: 't1', title: 'Bash', toolKind: 'execute', detail: 'ls',
      options: [{ optionId: 'allow_once', name: 'Allow', kind: 'allow_once' as const }] };
    const [c] = apply(s, { type: 'busy', busy: true }, { type: 'permission', item });
    assert.ok(c.header || c.footer);
    assert.deepStrictEqual(pendingPermissions(s).map(p => p.id), ['perm1']);
    apply(s, { type: 'permissionResolved', id: 'perm1', state: 'allowed', chosen: 'allow_once' });
    assert.deepStrictEqual(pendingPermissions(s), []);
    const p = s.items[0];
    assert.ok(p.kind === 'permission' && p.state === 'allowed' && p.chosen === 'allow_once');
  });

  it('records the answer a tool_call_update carries: on the live request, or as a new line on replay', () => {
    const perm = { type: 'update' as const, update: { sessionUpdate: 'tool_call_update' as const, toolCallId: 't1', _meta: { 'agent-lsp': { permission: { outcome: 'allowed', optionId: 'allow_always', name: 'Always allow edits to calc.go' } } } } };
    // Live: the request's item takes the record, no second line.
    const live = emptyState();
    apply(live, up({ sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Edit calc.go', kind: 'edit', _meta: { 'agent-lsp': { description: 'fix it' } } }),
      { type: 'permission', item: { id: 'perm1', toolCallId: 't1', title: 'Edit calc.go', review: 'diff', options: [] } },
      { type: 'permissionResolved', id: 'perm1', state: 'allowed', chosen: 'allow_always' }, perm);
    assert.strictEqual(live.items.filter(i => i.kind === 'permission').length, 1);
    assert.strictEqual((live.items[1] as PermissionItem).chosenName, 'Always allow edits to calc.go');
    const tool = live.items[0];
    assert.ok(tool.kind === 'tool' && tool.call._meta?.['agent-lsp']?.description === 'fix it', 'the update keeps the call\'s description');
    // Replay: a resolved line after the tool row, titled like the row.
    const replay = emptyState();
    apply(replay, up({ sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Edit calc.go', kind: 'edit' }), perm,
      up({ sessionUpdate: 'tool_call_update', toolCallId: 't1', status: 'completed' }));
    assert.deepStrictEqual(replay.items.map(i => i.kind), ['tool', 'permission']);
    const p = replay.items[1] as PermissionItem;
    assert.deepStrictEqual([p.state, p.title, p.chosen, p.chosenName], ['allowed', 'Edit calc.go', 'allow_always', 'Always allow edits to calc.go']);
    // A record for a call the chat does not show (a folder trust request) adds nothing.
    const trust = emptyState();
    apply(trust, up({ sessionUpdate: 'tool_call_update', toolCallId: 'trust-1', _meta: { 'agent-lsp': { permission: { outcome: 'cancelled' } } } }));
    assert.deepStrictEqual(trust.items.map(i => i.kind), []);
  });

  it('groups models by provider, the current one first, with display names', () => {
    const s = emptyState();
    reduce(s, { type: 'session', sessionId: 's', models: { currentModelId: 'gpt-x', availableModels: [
      { modelId: 'claude-opus-4-5', name: 'Claude Opus 4.5', _meta: { 'agent-lsp': { group: 'Anthropic' } } },
      { modelId: 'claude-sonnet-4-5', name: 'Claude Sonnet 4.5', _meta: { 'agent-lsp': { group: 'Anthropic' } } },
      { modelId: 'gpt-x', name: 'GPT X', description: 'local', _meta: { 'agent-lsp': { group: 'OpenAI-compatible' } } },
    ] }, configOptions: [{ id: 'model', name: 'Model', type: 'select', currentValue: 'gpt-x', options: [
      { value: 'claude-opus-4-5', name: 'claude-opus-4-5' }, { value: 'claude-sonnet-4-5', name: 'claude-sonnet-4-5' }, { value: 'gpt-x', name: 'gpt-x' }] }] });
    const g = modelGroups(s);
    assert.deepStrictEqual(g.map(x => x.group), ['OpenAI-compatible', 'Anthropic']);
    assert.deepStrictEqual(g[1].models.map(m => m.name), ['Claude Opus 4.5', 'Claude Sonnet 4.5']);
    assert.strictEqual(g[0].models[0].description, 'local');
  });

  it('keeps the no-model problem until the agent clears it', () => {
    const s = emptyState();
    const ch = reduce(s, { type: 'providerProblem', message: 'No model is configured.' });
    assert.ok(ch.header && ch.footer);
    assert.strictEqual(s.providerProblem, 'No model is configured.');
    reduce(s, { type: 'providerProblem' });
    assert.strictEqual(s.providerProblem, undefined);
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
