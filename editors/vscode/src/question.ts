// The model's questions (AskUserQuestion), which come as elicitation/create:
// each question is a quick pick of its options plus "Other…" (an input box
// for the user's own answer); a multiple choice is one quick pick with
// check boxes. Escaping any of them declines the questions: the agent tells
// the model the user declined and the turn goes on. The VS Code calls are
// behind QuestionUI so the flow is tested without VS Code.

import { type CreateElicitationParams, type CreateElicitationResult, DECLINED, type FormAnswer, formAnswer, formQuestions, type FormQuestion } from './protocol';

/** The entry that asks for the user's own answer. */
export const OTHER_LABEL = 'Other…';

/** An entry of a quick pick: an option (by its label) or "Other…". */
export interface QuestionItem { label: string; description?: string; other?: boolean }

/** The quick pick and input box, as the controller gives them (vscode.window's). */
export interface QuestionUI {
  /** One entry, or with many several; undefined when the user escaped. */
  pick(items: QuestionItem[], opts: { title: string; placeHolder: string; many: boolean }): Promise<QuestionItem[] | undefined>;
  /** The text typed; undefined when the user escaped. */
  input(opts: { title: string; prompt: string }): Promise<string | undefined>;
}

/** A question's title, in the words of docs/editor-words.md: "The agent asks: <header> (n/m)". */
function titleOf(q: FormQuestion, i: number, n: number): string {
  const head = q.header ? `The agent asks: ${q.header}` : 'The agent asks';
  return n > 1 ? `${head} (${i + 1}/${n})` : head;
}

/** Asks one question; undefined when the user escaped. */
async function askOne(ui: QuestionUI, q: FormQuestion, title: string): Promise<FormAnswer | undefined> {
  const items: QuestionItem[] = q.options.map(o => ({ label: o.const, description: o.description }));
  if (q.customField) items.push({ label: OTHER_LABEL, description: q.multiSelect ? 'add your own answer' : 'type your own answer', other: true });
  const picked = await ui.pick(items, { title, placeHolder: q.question, many: q.multiSelect });
  if (!picked) return undefined;
  const answer: FormAnswer = { picks: picked.filter(p => !p.other).map(p => p.label) };
  if (picked.some(p => p.other)) {
    const text = await ui.input({ title, prompt: q.question });
    if (text === undefined) return undefined;
    answer.other = text;
  }
  return answer;
}

/** Answers elicitation/create: each question in turn, then the form. */
export async function askQuestions(ui: QuestionUI, p: CreateElicitationParams): Promise<CreateElicitationResult> {
  if (p.mode !== 'form') return DECLINED;
  const questions = formQuestions(p);
  const answers: Record<string, FormAnswer> = {};
  for (const [i, q] of questions.entries()) {
    const a = await askOne(ui, q, titleOf(q, i, questions.length));
    if (!a) return DECLINED;
    answers[q.field] = a;
  }
  return formAnswer(questions, answers);
}
