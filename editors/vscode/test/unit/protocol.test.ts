import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import {
  CANCELLED, commandOf, planOf, DEFAULT_MODES, FOLDER_TRUST_KIND, isTrustRequest, Methods, optionOfKind, type PermissionOption, type RequestPermissionParams,
  selectOutcome, singleDiff, type ToolCall, trustAnswer, providerProblemOf, userMessage, NO_PROVIDER_MESSAGE, descriptionOf, permissionOf, ruleOf, alwaysWords,
} from '../../src/protocol';

const doc = fs.readFileSync(path.join(__dirname, '../../../../../docs/protocol.md'), 'utf8');

describe('protocol.ts mirrors docs/protocol.md', () => {
  it('names every session method and notification the doc shows, and no other', () => {
    const inDoc = new Set([...doc.matchAll(/"method":"((?:session|agent|elicitation)\/[a-z_]+)"/g)].map(m => m[1]));
    const named = new Set([...doc.matchAll(/`((?:session|agent|elicitation)\/[a-z_]+)/g)].map(m => m[1]));
    const ours = new Set<string>(Object.values(Methods));
    assert.deepStrictEqual([...inDoc].filter(m => !ours.has(m)).sort(), [], 'methods in the doc missing from protocol.ts');
    assert.deepStrictEqual([...ours].filter(m => !inDoc.has(m) && !named.has(m)).sort(), [], 'methods in protocol.ts missing from the doc');
  });

  it('knows every session/update variant the doc shows', () => {
    const variants = new Set([...doc.matchAll(/"sessionUpdate":"([a-z_]+)"/g)].map(m => m[1]));
    const src = fs.readFileSync(path.join(__dirname, '../../../src/protocol.ts'), 'utf8');
    for (const v of variants) assert.ok(src.includes(`sessionUpdate: '${v}'`), `variant ${v} missing from SessionUpdate`);
  });

  it('falls back to the modes the doc lists', () => {
    for (const m of DEFAULT_MODES) assert.ok(doc.includes(`"id":"${m.id}"`), `mode ${m.id} is in the doc`);
  });
});

describe('permission answers', () => {
  const options: PermissionOption[] = [
    { optionId: 'allow_once', name: 'Allow', kind: 'allow_once' },
    { optionId: 'allow_always', name: 'Always allow Edit', kind: 'allow_always' },
    { optionId: 'reject_once', name: 'Reject', kind: 'reject_once' },
  ];

  it('selects an option without _meta when the proposal was not changed', () => {
    assert.deepStrictEqual(selectOutcome('allow_once', 'new\n', 'new\n'), { outcome: { outcome: 'selected', optionId: 'allow_once' } });
    assert.deepStrictEqual(selectOutcome('reject_once'), { outcome: { outcome: 'selected', optionId: 'reject_once' } });
  });

  it('sends the edited text as _meta.editedText when the user changed it', () => {
    assert.deepStrictEqual(selectOutcome('allow_always', 'a\n', 'b\n'),
      { outcome: { outcome: 'selected', optionId: 'allow_always', _meta: { editedText: 'b\n' } } });
  });

  it('has the cancelled outcome of the doc', () => {
    assert.deepStrictEqual(CANCELLED, { outcome: { outcome: 'cancelled' } });
  });

  it('finds options by kind', () => {
    assert.strictEqual(optionOfKind(options, 'allow_always')?.optionId, 'allow_always');
    assert.strictEqual(optionOfKind(options, 'reject_always'), undefined);
  });

  it('reviews only single-file diffs', () => {
    const diff = { type: 'diff' as const, path: '/p/a.py', oldText: 'x', newText: 'y' };
    const one: ToolCall = { toolCallId: 't', content: [diff, { type: 'content', content: { type: 'text', text: 'hi' } }] };
    assert.strictEqual(singleDiff(one), diff);
    assert.strictEqual(singleDiff({ toolCallId: 't', content: [diff, { ...diff, path: '/p/b.py' }] }), undefined);
    assert.strictEqual(singleDiff({ toolCallId: 't' }), undefined);
  });

  it('reads the issue 26 _meta fields, and does without them', () => {
    assert.strictEqual(providerProblemOf({ capabilities: {}, _meta: { 'agent-lsp': { providerProblem: NO_PROVIDER_MESSAGE } } }), NO_PROVIDER_MESSAGE);
    assert.strictEqual(providerProblemOf({ capabilities: {} }), undefined);
    assert.strictEqual(providerProblemOf(undefined), undefined);
    assert.strictEqual(descriptionOf({ toolCallId: 't', _meta: { 'agent-lsp': { description: 'Run the tests' } } }), 'Run the tests');
    assert.strictEqual(descriptionOf({ toolCallId: 't' }), undefined);
    assert.deepStrictEqual(permissionOf({ toolCallId: 't', _meta: { 'agent-lsp': { permission: { outcome: 'allowed', optionId: 'allow_once', name: 'Allow' } } } }),
      { outcome: 'allowed', optionId: 'allow_once', name: 'Allow' });
    assert.strictEqual(permissionOf({ toolCallId: 't', _meta: { 'agent-lsp': {} } }), undefined);
    assert.strictEqual(ruleOf({ optionId: 'a', name: 'Always allow Edit', kind: 'allow_always', _meta: { 'agent-lsp': { rule: 'Edit' } } }), 'Edit');
    assert.strictEqual(ruleOf({ optionId: 'a', name: 'Allow', kind: 'allow_once' }), undefined);
  });

  it('keeps protocol method names out of error messages', () => {
    assert.strictEqual(userMessage('session/prompt: no model provider configured'), 'No model provider configured');
    assert.strictEqual(userMessage('session/set_config_option: unknown model "x"'), 'Unknown model "x"');
    assert.strictEqual(userMessage(NO_PROVIDER_MESSAGE), NO_PROVIDER_MESSAGE);
    assert.strictEqual(userMessage('reading a/b: not found'), 'reading a/b: not found');
  });

  it('reads the command of a Bash call', () => {
    assert.strictEqual(commandOf({ toolCallId: 't', rawInput: { command: 'go test ./...' } }), 'go test ./...');
    assert.strictEqual(commandOf({ toolCallId: 't', rawInput: { file_path: 'x' } }), undefined);
  });
});

describe('folder trust requests', () => {
  const trust: RequestPermissionParams = {
    sessionId: 's',
    toolCall: { toolCallId: 'trust-1', title: 'Trust the folder /p? Its .claude/settings.json has 3 hooks that run code', kind: 'other', status: 'pending' },
    options: [{ optionId: 'trust', name: 'Trust this folder', kind: 'allow_always' }, { optionId: 'not_now', name: 'Not now', kind: 'reject_once' }],
    _meta: { 'agent-lsp': { kind: 'folderTrust', folder: '/p' } },
  };

  it('are told apart from tool calls by _meta, as docs/protocol.md shows', () => {
    assert.ok(isTrustRequest(trust));
    assert.ok(!isTrustRequest({ ...trust, _meta: undefined }));
    assert.ok(doc.includes(`"_meta":{"agent-lsp":{"kind":"${FOLDER_TRUST_KIND}"`), 'the doc shows the trust request');
  });

  it('are answered with the allow option when VS Code trusts the workspace, else the reject option', () => {
    assert.deepStrictEqual(trustAnswer(trust, true), { outcome: { outcome: 'selected', optionId: 'trust' } });
    assert.deepStrictEqual(trustAnswer(trust, false), { outcome: { outcome: 'selected', optionId: 'not_now' } });
    assert.deepStrictEqual(trustAnswer({ ...trust, options: [] }, true), CANCELLED);
  });
});

describe('planOf', () => {
  it('takes the plan of an ExitPlanMode request only', () => {
    const call = (kind: string, rawInput: unknown) => ({ toolCallId: 't', title: 'Ready to code?', kind, rawInput } as unknown as ToolCall);
    assert.strictEqual(planOf(call('switch_mode', { plan: '1. Do it.' })), '1. Do it.');
    assert.strictEqual(planOf(call('switch_mode', { plan: 3 })), undefined);
    assert.strictEqual(planOf(call('edit', { plan: '1. Do it.' })), undefined);
    assert.strictEqual(planOf(call('switch_mode', undefined)), undefined);
  });
});

describe('alwaysWords', () => {
  const opt = (kind: PermissionOption['kind'], name: string, rule?: string): PermissionOption =>
    ({ optionId: kind, name, kind, ...(rule ? { _meta: { 'agent-lsp': { rule } } } : {}) });
  const cases: { name: string; o: PermissionOption; want: string | undefined }[] = [
    { name: 'an edit allowed always lasts for the chat', o: opt('allow_always', 'Always allow edits to calc.go', 'Edit(/calc.go)'), want: 'Edits to calc.go will not ask again in this chat' },
    { name: 'an edit rejected always', o: opt('reject_always', 'Always reject edits to calc.go', 'Edit(/calc.go)'), want: 'Edits to calc.go will be rejected without asking in this chat' },
    { name: 'a Bash rule is saved, so it is named', o: opt('allow_always', 'Always allow `go test …` commands', 'Bash(go test:*)'), want: '“go test …” commands will run without asking in this folder (saved to its local settings as Bash(go test:*))' },
    { name: 'a rejected command', o: opt('reject_always', 'Always reject `rm …` commands', 'Bash(rm:*)'), want: '“rm …” commands will be rejected without asking in this chat' },
    { name: 'a whole tool', o: opt('reject_always', 'Always reject WebFetch', 'WebFetch'), want: 'All WebFetch calls will be rejected without asking in this chat' },
    { name: 'no rule: nothing to say', o: opt('allow_always', 'Always allow example.com'), want: undefined },
    { name: 'not a standing answer', o: opt('allow_once', 'Allow', 'Edit(/calc.go)'), want: undefined },
    { name: 'another name', o: opt('allow_always', 'Trust this folder', 'x'), want: undefined },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = alwaysWords(c.o);
      assert.strictEqual(got, c.want);
      if (got) assert.doesNotMatch(got, /Adds the|^\w+\(/, 'no rule syntax as the words');
    });
  }
});
