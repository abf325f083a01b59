import * as assert from 'assert';
import { type CreateElicitationParams, formQuestions } from '../../src/protocol';
import { askQuestions, OTHER_LABEL, type QuestionItem, type QuestionUI } from '../../src/question';

// The form the agent sends for a single and a multiple choice (docs/protocol.md).
const form: CreateElicitationParams = {
  sessionId: 's1', toolCallId: 'toolu_ask', mode: 'form', message: 'Please answer the following questions.',
  requestedSchema: {
    type: 'object',
    properties: {
      question_1_custom: { type: 'string', title: 'Other', description: 'Type your own answer to add to your selection above (optional).' },
      question_0: { type: 'string', title: 'Database', description: 'Which database?', oneOf: [{ const: 'Postgres', title: 'Postgres', description: 'Relational' }, { const: 'Redis', title: 'Redis', description: 'Key-value' }] },
      question_1: { type: 'array', title: 'Features', description: 'Which features?', items: { anyOf: [{ const: 'Auth', title: 'Auth', description: 'Log in' }, { const: 'Search', title: 'Search' }, { const: 'Export', title: 'Export' }] } },
      question_0_custom: { type: 'string', title: 'Other', description: 'Type your own answer, or add a note to the option you chose above (optional).' },
    },
  },
};

/** A user who answers from a script: the labels to pick per quick pick (undefined escapes), the texts to type. */
function scripted(picks: (string[] | undefined)[], texts: (string | undefined)[] = []) {
  const seen: { title: string; placeHolder: string; many: boolean; items: QuestionItem[] }[] = [];
  const prompts: string[] = [];
  const ui: QuestionUI = {
    async pick(items, opts) {
      seen.push({ ...opts, items });
      const want = picks.shift();
      if (!want) return undefined;
      return want.map(l => {
        const item = items.find(i => i.label === l);
        assert.ok(item, `no entry ${l} in ${items.map(i => i.label)}`);
        return item;
      });
    },
    async input(opts) {
      prompts.push(opts.prompt);
      return texts.shift();
    },
  };
  return { ui, seen, prompts };
}

describe('the model\'s questions', () => {
  it('reads the questions in order with their header, text and options', () => {
    const qs = formQuestions(form);
    assert.deepStrictEqual(qs.map(q => [q.field, q.customField, q.header, q.question, q.multiSelect, q.options.length]), [
      ['question_0', 'question_0_custom', 'Database', 'Which database?', false, 2],
      ['question_1', 'question_1_custom', 'Features', 'Which features?', true, 3],
    ]);
    const one = formQuestions({ ...form, message: 'Which database?', requestedSchema: { type: 'object', properties: { question_0: { ...form.requestedSchema.properties.question_0, description: undefined } } } });
    assert.strictEqual(one[0].question, 'Which database?', 'a single question is the message');
  });

  it('answers a single choice, several picks and an Other text', async () => {
    const { ui, seen, prompts } = scripted([['Redis'], ['Auth', 'Export', OTHER_LABEL]], ['Dark mode']);
    const res = await askQuestions(ui, form);
    assert.deepStrictEqual(res, { action: 'accept', content: { question_0: 'Redis', question_1: ['Auth', 'Export'], question_1_custom: 'Dark mode' } });
    assert.deepStrictEqual(seen.map(s => [s.title, s.placeHolder, s.many]), [
      ['The agent asks: Database (1/2)', 'Which database?', false],
      ['The agent asks: Features (2/2)', 'Which features?', true],
    ]);
    assert.deepStrictEqual(seen[0].items.map(i => [i.label, i.description]), [['Postgres', 'Relational'], ['Redis', 'Key-value'], [OTHER_LABEL, 'type your own answer']]);
    assert.deepStrictEqual(prompts, ['Which features?']);
  });

  it('answers with Other alone', async () => {
    const { ui } = scripted([[OTHER_LABEL], []], ['SQLite']);
    assert.deepStrictEqual(await askQuestions(ui, form), { action: 'accept', content: { question_0_custom: 'SQLite', question_1: [] } });
  });

  it('declines when the user escapes a pick or the Other box', async () => {
    assert.deepStrictEqual(await askQuestions(scripted([['Postgres'], undefined]).ui, form), { action: 'decline' });
    assert.deepStrictEqual(await askQuestions(scripted([[OTHER_LABEL]], [undefined]).ui, form), { action: 'decline' });
  });

  it('declines a form of another mode', async () => {
    assert.deepStrictEqual(await askQuestions(scripted([]).ui, { ...form, mode: 'url' }), { action: 'decline' });
  });
});
