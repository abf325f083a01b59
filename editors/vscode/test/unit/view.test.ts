// The chat webview's DOM layer, in linkedom (no browser): batching into
// animation frames, keyed re-rendering, and the prompt box's behaviour.
import * as assert from 'assert';
// linkedom ships types for its ES module only; its CommonJS build is what runs here.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { parseHTML } = require('linkedom') as typeof import('linkedom', { with: { 'resolution-mode': 'import' } });
import type { FromWebview } from '../../src/shared/messages';
import { emptyState, type ViewEvent, type ViewState } from '../../src/shared/state';
import { ChatView } from '../../webview/view';

function setup(state?: ViewState) {
  const { document, window } = parseHTML('<!DOCTYPE html><html><body><div id="root"></div></body></html>');
  const frames: Array<() => void> = [];
  const posted: FromWebview[] = [];
  let now = 0;
  let draft = '';
  const view = new ChatView(document as unknown as Document, document.getElementById('root') as unknown as HTMLElement, {
    post: m => posted.push(m),
    requestFrame: cb => frames.push(cb),
    now: () => now,
    loadDraft: () => draft,
    saveDraft: d => { draft = d; },
  });
  const s = state ?? { ...emptyState(), connection: 'ready' as const, sessionId: 's1' };
  view.receive({ type: 'snapshot', state: s });
  const flush = () => { const fs = frames.splice(0); fs.forEach(f => f()); return fs.length; };
  flush();
  const key = (el: Element, k: string, extra: Record<string, unknown> = {}) => {
    const e = new (window as unknown as { Event: typeof Event }).Event('keydown', { bubbles: true, cancelable: true });
    Object.assign(e, { key: k, shiftKey: false, isComposing: false, ...extra });
    el.dispatchEvent(e);
  };
  return { view, document, window, frames, posted, flush, key, tick: (ms: number) => { now += ms; }, draft: () => draft };
}

const chunk = (text: string): ViewEvent => ({ type: 'update', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } });

describe('chat webview DOM', () => {
  it('renders a snapshot: items, pickers, usage', () => {
    const s: ViewState = {
      ...emptyState(), connection: 'ready', sessionId: 's1', currentModeId: 'plan',
      modes: [{ id: 'default', name: 'Default' }, { id: 'plan', name: 'Plan' }],
      models: [{ value: 'm1', name: 'Model One' }], currentModel: 'm1',
      usage: { used: 150_000, size: 200_000 },
      items: [{ kind: 'user', id: 'u1', text: 'hi', attachments: [] }, { kind: 'agent', id: 'a2', text: '**bold**' }], seq: 2,
    };
    const { document } = setup(s);
    assert.strictEqual(document.querySelectorAll('#transcript > .item').length, 2);
    assert.match(document.querySelector('[data-item="a2"]')!.innerHTML, /<strong>bold<\/strong>/);
    assert.strictEqual(document.querySelector('#mode')!.getAttribute('data-value'), 'plan');
    assert.match(document.querySelector('#mode')!.textContent!, /^Plan/);
    assert.match(document.querySelector('#model')!.textContent!, /^Model One/);
    assert.match(document.querySelector('#status-line')!.textContent!, /150k \/ 200k/);
    assert.match(document.querySelector('#status-line .usage')!.getAttribute('title')!, /150k \/ 200k tokens · 25% left/, 'the whole usage in the tooltip');
  });

  it('applies many streamed chunks in one frame, updating only the message node', () => {
    const { view, document, frames, flush } = setup();
    view.receive({ type: 'events', events: [chunk('start ')] });
    flush();
    const node = document.querySelector('[data-item="a1"]');
    const before = view.frames;
    for (let b = 0; b < 10; b++) view.receive({ type: 'events', events: Array.from({ length: 100 }, (_, i) => chunk(`w${b * 100 + i} `)) });
    assert.strictEqual(frames.length, 1, 'one frame requested for ten batches');
    flush();
    assert.strictEqual(view.frames - before, 1, 'one render pass');
    assert.strictEqual(document.querySelector('[data-item="a1"]'), node, 'the node is reused');
    assert.match(node!.textContent!, /start w0 w1 .* w999/);
  });

  it('throttles re-rendering of a very long message while it streams', () => {
    const { view, document, flush, tick } = setup();
    view.receive({ type: 'events', events: [chunk('x'.repeat(25_000))] });
    flush();
    tick(300);
    view.receive({ type: 'events', events: [chunk('END1')] });
    flush();
    assert.match(document.querySelector('[data-item="a1"]')!.textContent!, /END1/);
    tick(10);
    view.receive({ type: 'events', events: [chunk('END2')] });
    flush();
    assert.ok(!/END2/.test(document.querySelector('[data-item="a1"]')!.textContent!), 'too soon: deferred');
    tick(300);
    flush();
    assert.match(document.querySelector('[data-item="a1"]')!.textContent!, /END2/, 'rendered on a later frame');
  });

  it('keeps a tool row open across updates', () => {
    const { view, document, window, flush } = setup();
    view.receive({ type: 'events', events: [{ type: 'update', update: { sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Bash', kind: 'execute', status: 'in_progress' } }] });
    flush();
    const details = document.querySelector('[data-item="tool:t1"] details')!;
    details.setAttribute('open', '');
    // Browsers do not bubble toggle (the view listens while capturing); linkedom
    // has no capture phase, so let it bubble here.
    details.dispatchEvent(new (window as unknown as { Event: typeof Event }).Event('toggle', { bubbles: true }));
    view.receive({ type: 'events', events: [{ type: 'update', update: { sessionUpdate: 'tool_call_update', toolCallId: 't1', status: 'completed' } }] });
    flush();
    const after = document.querySelector('[data-item="tool:t1"] details')!;
    assert.ok(after.hasAttribute('open'), 'still open');
    assert.match(after.outerHTML, /status-completed/);
  });

  it('opens the mention picker on @ at the start of a word, and types @ inside one', () => {
    const { document, posted, key } = setup();
    const input = document.querySelector('#prompt') as unknown as HTMLTextAreaElement;
    input.value = 'look at ';
    input.selectionStart = input.selectionEnd = input.value.length;
    key(input as unknown as Element, '@');
    assert.deepStrictEqual(posted.slice(-1), [{ type: 'mention' }]);
    input.value = 'me';
    input.selectionStart = input.selectionEnd = 2;
    const before = posted.length;
    key(input as unknown as Element, '@');
    assert.strictEqual(posted.length, before, 'an @ inside a word (an e-mail address) is text');
  });

  it('sends the prompt on Enter, not on Shift+Enter, and while busy to steer the turn (not commands)', () => {
    const { view, document, posted, key, flush } = setup();
    const input = document.querySelector('#prompt') as unknown as HTMLTextAreaElement;
    input.value = 'hello';
    key(input as unknown as Element, 'Enter', { shiftKey: true });
    assert.deepStrictEqual(posted, [{ type: 'ready' }].slice(1));
    key(input as unknown as Element, 'Enter');
    assert.deepStrictEqual(posted, [{ type: 'prompt', text: 'hello' }]);
    assert.strictEqual(input.value, '');
    view.receive({ type: 'events', events: [{ type: 'busy', busy: true }] });
    flush();
    assert.strictEqual((document.querySelector('#send') as unknown as HTMLButtonElement).disabled, false, 'send stays enabled while busy');
    input.value = '/compact';
    key(input as unknown as Element, 'Enter');
    assert.strictEqual(posted.length, 1, 'a command waits for the turn to end');
    input.value = 'again';
    key(input as unknown as Element, 'Enter');
    assert.deepStrictEqual(posted[1], { type: 'prompt', text: 'again' }, 'text steers the running turn');
    assert.strictEqual((document.querySelector('#cancel') as unknown as HTMLButtonElement).hidden, false, 'cancel shows while busy');
    (document.querySelector('#cancel') as unknown as HTMLButtonElement).click();
    assert.deepStrictEqual(posted[2], { type: 'cancel' });
  });

  it('completes slash commands from available_commands_update', () => {
    const { view, document, window, key, flush, draft } = setup();
    view.receive({ type: 'events', events: [{ type: 'update', update: { sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'compact', description: 'Summarize' }, { name: 'clear', description: 'Start over' }] } }] });
    flush();
    const input = document.querySelector('#prompt') as unknown as HTMLTextAreaElement;
    input.value = '/c';
    input.dispatchEvent(new (window as unknown as { Event: typeof Event }).Event('input'));
    const list = document.querySelector('#completions') as unknown as HTMLElement;
    assert.strictEqual(list.hidden, false);
    assert.strictEqual(list.querySelectorAll('li').length, 2);
    key(input as unknown as Element, 'ArrowDown');
    key(input as unknown as Element, 'Tab');
    assert.strictEqual(input.value, '/clear ');
    assert.strictEqual(draft(), '/clear ', 'the draft is saved');
    assert.strictEqual(list.hidden, true);
  });

  it('posts permission answers and disables the buttons', () => {
    const { view, document, posted, flush } = setup();
    view.receive({ type: 'events', events: [{ type: 'permission', item: { id: 'perm1', toolCallId: 't', title: 'Bash', toolKind: 'execute', detail: 'ls',
      options: [{ optionId: 'allow_once', name: 'Allow', kind: 'allow_once' }, { optionId: 'reject_once', name: 'Reject', kind: 'reject_once' }] } }] });
    flush();
    const btn = document.querySelector('button[data-option="reject_once"]') as unknown as HTMLButtonElement;
    btn.click();
    assert.deepStrictEqual(posted, [{ type: 'permission', id: 'perm1', optionId: 'reject_once' }]);
    assert.ok(btn.disabled);
  });

  it('shows the no-model state at start: the agent\'s words, Set API key and Open settings, Send disabled', () => {
    const { view, document, posted, flush } = setup();
    view.receive({ type: 'events', events: [{ type: 'providerProblem', message: 'No model is configured. Set ANTHROPIC_API_KEY.' }] });
    flush();
    const banner = document.querySelector('#banner .notice-error')!;
    assert.match(banner.textContent!, /No model is configured\. Set ANTHROPIC_API_KEY\./);
    const send = document.querySelector('#send') as unknown as HTMLButtonElement;
    assert.ok(send.disabled);
    assert.match(send.title, /set an API key/);
    assert.ok(document.querySelector('#header .conn-problem'), 'the status dot is not green');
    (document.querySelector('#banner [data-action="setApiKey"]') as unknown as HTMLButtonElement).click();
    (document.querySelector('#banner [data-action="openSettings"]') as unknown as HTMLButtonElement).click();
    assert.deepStrictEqual(posted, [{ type: 'setApiKey' }, { type: 'openSettings' }]);
    view.receive({ type: 'events', events: [{ type: 'providerProblem' }] });
    flush();
    assert.strictEqual(document.querySelector('#banner')!.innerHTML, '');
    assert.ok(!send.disabled);
  });

  it('opens the pickers from the header', () => {
    const { document, posted } = setup({ ...emptyState(), connection: 'ready', sessionId: 's1', modes: [{ id: 'default', name: 'Default', description: 'Ask first' }], currentModeId: 'default',
      models: [{ value: 'm1', name: 'Model One' }], currentModel: 'm1' });
    assert.strictEqual(document.querySelector('#mode')!.getAttribute('title'), 'Mode: Ask first');
    (document.querySelector('#mode') as unknown as HTMLButtonElement).click();
    (document.querySelector('#model') as unknown as HTMLButtonElement).click();
    assert.deepStrictEqual(posted.slice(-2), [{ type: 'pickMode' }, { type: 'pickModel' }]);
    assert.strictEqual(document.querySelector('#effort'), null, 'no effort picker when the agent offers none');
  });

  it('shows the editor\'s context as outlined chips the user can remove', () => {
    const { view, document, posted, flush } = setup({ ...emptyState(), connection: 'ready', sessionId: 's1' });
    view.receive({ type: 'events', events: [{ type: 'ambient', ambient: [
      { id: 'ambient-open', label: 'calc.py', block: { type: 'resource_link', uri: 'file:///w/calc.py', name: 'calc.py' } },
      { id: 'ambient-selection', label: 'calc.py:3-4', block: { type: 'resource', resource: { uri: 'file:///w/calc.py#L3-L4', text: 'x' } } },
    ] }] });
    flush();
    const chips = [...document.querySelectorAll('#attachments .chip.ambient')] as unknown as HTMLElement[];
    assert.deepStrictEqual(chips.map(c => c.textContent?.replace('×', '')), ['calc.py', 'calc.py:3-4']);
    assert.match(chips[0].getAttribute('title') ?? '', /open in the editor/);
    (chips[1].querySelector('.chip-x') as unknown as HTMLButtonElement).click();
    assert.deepStrictEqual(posted.slice(-1), [{ type: 'removeAttachment', id: 'ambient-selection' }]);
  });

  it('copies a code block with its Copy button', () => {
    const { view, document, posted, flush } = setup({ ...emptyState(), connection: 'ready', sessionId: 's1' });
    view.receive({ type: 'events', events: [{ type: 'update', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Here:\n\n```go\nx := 1\n```\n' } } }] });
    flush();
    assert.strictEqual(document.querySelector('.codeblock .code-lang')?.textContent, 'go');
    (document.querySelector('.codeblock .copy-btn') as unknown as HTMLButtonElement).click();
    assert.deepStrictEqual(posted.slice(-1), [{ type: 'copy', text: 'x := 1\n' }]);
  });

  it('shows the effort beside the model and opens its picker', () => {
    const { document, posted } = setup({ ...emptyState(), connection: 'ready', sessionId: 's1', models: [{ value: 'm1', name: 'Model One' }], currentModel: 'm1',
      effort: { current: 'auto', options: [{ value: 'auto', name: 'Auto', description: 'medium (the settings\' effortLevel)' }, { value: 'high', name: 'High' }] } });
    const button = document.querySelector('#effort') as unknown as HTMLButtonElement;
    assert.match(button.textContent ?? '', /^Auto/);
    assert.strictEqual(button.getAttribute('title'), 'Effort: Auto (medium (the settings\' effortLevel))');
    assert.ok(document.querySelector('#model + #effort'), 'the effort sits beside the model');
    button.click();
    assert.deepStrictEqual(posted.slice(-1), [{ type: 'pickEffort' }]);
  });

  it('explains a missing binary with restart and log buttons', () => {
    const { view, document, posted, flush } = setup({ ...emptyState(), connection: 'starting' });
    view.receive({ type: 'events', events: [{ type: 'connection', state: 'error', message: 'agent-lsp was not found on PATH' }] });
    flush();
    assert.match(document.querySelector('.empty')!.textContent!, /not found on PATH/);
    (document.querySelector('[data-action="restart"]') as unknown as HTMLButtonElement).click();
    assert.deepStrictEqual(posted, [{ type: 'restart' }]);
    assert.ok((document.querySelector('#send') as unknown as HTMLButtonElement).disabled);
  });

  it('"Rewind to here" on a user message asks the extension; a conversation rewind drops the message and after', () => {
    const { view, document, window, posted, flush } = setup();
    view.receive({ type: 'events', events: [
      { type: 'userPrompt', text: 'first', attachments: [] }, chunk('One.'),
      { type: 'userPrompt', text: 'second', attachments: [] }, chunk('Two.'),
    ] });
    flush();
    const btn = document.querySelector('[data-item="u3"] .rewind-btn')!;
    assert.ok(btn, 'the second message has the button');
    btn.dispatchEvent(new (window as unknown as { Event: typeof Event }).Event('click', { bubbles: true }));
    assert.deepStrictEqual(posted, [{ type: 'rewind', id: 'u3' }]);
    view.receive({ type: 'events', events: [{ type: 'rewound', itemId: 'u3' }] });
    flush();
    assert.deepStrictEqual([...document.querySelectorAll('#transcript > .item')].map(n => n.getAttribute('data-item')), ['u1', 'a2']);
  });
});
