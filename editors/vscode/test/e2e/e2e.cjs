// End to end in a real VS Code (code-server) in a real browser (Debian's
// chromium under playwright-core): open calc.py, send a prompt from the chat
// view, change the agent's proposal in the diff editor, click "Allow",
// and check the editor's text changed to the edited proposal; then the
// pickers, history, cancel, a rewind of what a Bash turn changed, a plan
// changed in its editor and approved, two chats (the panel's and an editor
// tab's) running at once, and the no-key state with "Set API key".
//
// Run by test/e2e/run-e2e.sh, which starts code-server and the fake model.
// Env: PLAYWRIGHT_DIR, CHROMIUM, E2E_URL, E2E_PROFILE, E2E_ARTIFACTS.
'use strict';
const fs = require('fs');
const path = require('path');
const { stepper, loadWorkbench, runCommand, openFile, openChat, markChats, chatFrame, mentionFile, run } = require('./harness.cjs');

const artifacts = process.env.E2E_ARTIFACTS;
const EDIT_MARK = '# reviewed in the diff editor';
const UNSAVED = '# my unsaved note';

const step = stepper('e2e');

// Opens a header picker of the chat (a VS Code quick pick), checks a row's
// description and picks the row labelled `label`.
async function pickFromHeader(page, chat, selector, label, detail) {
  await chat.locator(selector).click();
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: label }).first();
  await row.waitFor({ timeout: 15000 });
  const text = await row.textContent();
  if (detail && !detail.test(text)) throw new Error(`picker row ${label} lacks ${detail}: ${text}`);
  await row.click();
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 10000 });
}

async function editorText(page, selector) {
  return page.evaluate(sel => {
    const el = document.querySelector(sel);
    return el ? el.innerText.replace(/\u00a0/g, ' ') : '';
  }, selector);
}

// Closes an editor tab with its close button.
async function closeTab(page, title) {
  const t = page.locator('.tab', { hasText: title }).first();
  await t.hover();
  await t.locator('.tab-actions .action-label').first().click();
  await page.locator('.tab', { hasText: title }).waitFor({ state: 'detached', timeout: 15000 });
}

// Two chats at once: the panel's turn streams slowly while the tab's waits
// for an approval; New Chat in the waiting tab opens another tab and keeps
// the waiting turn; each answer lands in its own chat. Ends with the tab
// closed, one chat left.
async function twoChats(page) {
  await runCommand(page, 'Agent: Open Chat in Editor');
  await markChats(page);
  const panel = chatFrame(page, 'panel');
  const tab = chatFrame(page, 'tab');
  await tab.locator('#mode:not([disabled])').waitFor({ timeout: 60000 });
  await tab.locator('.empty').waitFor({ timeout: 15000 });
  await panel.locator('#send:not([disabled])').waitFor({ timeout: 30000 });

  step('two chats: the panel streams');
  await panel.locator('#prompt').fill('Answer slowly in the panel');
  await panel.locator('#prompt').press('Enter');
  await panel.locator('.msg.agent', { hasText: 'Panel answer' }).waitFor({ timeout: 30000 });

  step('two chats: the tab asks for an approval while the panel still streams');
  await tab.locator('#prompt').fill('Make a file from the tab');
  await tab.locator('#prompt').press('Enter');
  await tab.locator('.permission.pending', { hasText: 'tab.txt' }).waitFor({ timeout: 30000 });
  if (await panel.locator('.msg.agent', { hasText: 'Panel answer done' }).count()) throw new Error('the panel\'s turn ended before the tab\'s started: not both at once');
  if (await panel.locator('#cancel[hidden]').count()) throw new Error('the panel\'s turn is not running');
  if (await panel.locator('.permission.pending').count()) throw new Error('the tab\'s approval shows in the panel');
  await page.locator('.part.statusbar', { hasText: 'Waiting for your approval' }).waitFor({ timeout: 10000 });
  await page.screenshot({ path: path.join(artifacts, 'e2e-two-chats-running.png') });

  step('two chats: New Chat in the waiting tab opens another tab and keeps the waiting turn');
  await runCommand(page, 'Agent: New Chat');
  await page.locator('.tab', { hasText: 'Agent Chat' }).waitFor({ timeout: 15000 });
  await markChats(page);
  await tab.locator('.notice', { hasText: 'A turn is running in the other chat' }).waitFor({ timeout: 30000 });
  await page.locator('.tab', { hasText: 'Make a file from the tab' }).waitFor({ timeout: 10000 });
  await closeTab(page, 'Agent Chat');
  await markChats(page);
  // The first tab again, its webview re-created: the approval still waits.
  await tab.locator('.msg.user', { hasText: 'Make a file from the tab' }).waitFor({ timeout: 30000 });
  const tabAllow = tab.locator('.permission.pending button[data-option="allow_once"]');
  await tabAllow.waitFor({ timeout: 15000 });

  step('two chats: each answer in its own chat');
  await panel.locator('.msg.agent', { hasText: 'Panel answer done' }).waitFor({ timeout: 60000 });
  await tabAllow.click();
  await tab.locator('.msg.agent', { hasText: 'Tab turn done' }).waitFor({ timeout: 60000 });
  await tab.locator('#send:not([disabled])').waitFor({ timeout: 30000 });
  if (!fs.existsSync(path.join(process.env.E2E_WORKSPACE, 'tab.txt'))) throw new Error('the tab\'s approved Bash did not run');
  if (await tab.locator('.msg.agent', { hasText: 'Panel answer' }).count()) throw new Error('the panel\'s answer shows in the tab');
  if (await panel.locator('.msg.agent', { hasText: 'Tab turn done' }).count()) throw new Error('the tab\'s answer shows in the panel');
  if (await panel.locator('.msg.user', { hasText: 'Make a file from the tab' }).count()) throw new Error('the tab\'s prompt shows in the panel');
  await page.screenshot({ path: path.join(artifacts, 'e2e-two-chats.png') });

  step('two chats: closing the idle tab leaves the panel\'s chat');
  await closeTab(page, 'Make a file from the tab');
  await page.waitForFunction(() => document.querySelectorAll('iframe.webview.ready').length === 1, null, { timeout: 15000 });
}

run(step, { width: 1400, height: 860 }, {}, 'e2e-failure.png', async page => {
  const errors = [];
  page.on('pageerror', e => errors.push(String(e)));
  step('loading the workbench');
  await loadWorkbench(page);
  const body = await page.evaluate(() => document.body.innerText);
  if (/Restricted Mode/.test(body)) throw new Error('workbench is in Restricted Mode');

  step('opening calc.py');
  await openFile(page, 'calc.py', /average/);

  step('opening the chat view');
  const chat = await openChat(page);
  await chat.locator('#prompt').waitFor({ timeout: 60000 });
  // The sidecar is up and the session exists: the mode picker is enabled.
  await chat.locator('#mode:not([disabled])').waitFor({ timeout: 60000 });
  await chat.locator('#send:not([disabled])').waitFor({ timeout: 30000 });
  // Slash-command completion from available_commands_update.
  await chat.locator('#prompt').fill('/com');
  await chat.locator('#completions li', { hasText: '/compact' }).waitFor({ timeout: 10000 });
  await chat.locator('#prompt').fill('');

  step('mode picker: a quick pick with each mode\'s description');
  await pickFromHeader(page, chat, '#mode', 'Plan', /Plan.*\S{3,}.*\S{3,}/);
  await chat.locator('#mode[data-value="plan"]').waitFor({ timeout: 10000 });
  await pickFromHeader(page, chat, '#mode', 'Default', /Default.*Ask/);
  await chat.locator('#mode[data-value="default"]').waitFor({ timeout: 10000 });

  step('sending the prompt');
  await chat.locator('#prompt').fill('Fix average: it divides by 2');
  await chat.locator('#prompt').press('Enter');
  await chat.locator('.msg.user', { hasText: 'Fix average' }).waitFor({ timeout: 15000 });

  step('waiting for the diff editor');
  await page.waitForSelector('.monaco-diff-editor .editor.modified .view-lines', { timeout: 60000 });
  await chat.locator('.permission.pending').waitFor({ timeout: 15000 });
  await page.waitForFunction(() => {
    const m = document.querySelector('.monaco-diff-editor .editor.modified .view-lines');
    return m && /len\(values\)/.test(m.textContent);
  }, null, { timeout: 30000 });
  await page.screenshot({ path: path.join(artifacts, 'e2e-diff.png') });

  step('hiding and showing the chat: the pending approval survives');
  await runCommand(page, 'View: Toggle Primary Side Bar Visibility');
  await page.waitForFunction(() => !document.querySelector('.part.sidebar') || document.querySelector('.part.sidebar').offsetParent === null ||
    getComputedStyle(document.querySelector('.part.sidebar')).display === 'none', null, { timeout: 10000 });
  await runCommand(page, 'Agent: Open Chat');
  await chat.locator('.permission.pending', { hasText: 'calc.py' }).waitFor({ timeout: 30000 });
  await chat.locator('.permission.pending button[data-action="review"]').waitFor({ timeout: 5000 });

  step('editing the proposal');
  const modified = page.locator('.monaco-diff-editor .editor.modified .view-lines');
  await modified.click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type(EDIT_MARK);
  await page.waitForFunction(mark => {
    const m = document.querySelector('.monaco-diff-editor .editor.modified .view-lines');
    return m && m.textContent.replace(/\u00a0/g, ' ').includes(mark);
  }, EDIT_MARK, { timeout: 10000 });

  step('the diff editor: text actions named like the chat\'s buttons, no internal id in the breadcrumb');
  for (const label of ['Allow', 'Always allow or reject…', 'Reject']) {
    await page.locator('.editor-actions .action-label', { hasText: new RegExp(`^${label}$`) }).first().waitFor({ timeout: 10000 });
  }
  const crumbs = await page.evaluate(() => [...document.querySelectorAll('.breadcrumbs-control')].map(e => e.textContent).join(' | '));
  if (/perm\d|request=/.test(crumbs)) throw new Error(`breadcrumb shows an internal id: ${crumbs}`);

  step('allowing from the editor title bar');
  await page.locator('.editor-actions .action-label', { hasText: /^Allow$/ }).first().click();

  step('waiting for the end of the turn');
  await chat.locator('.msg.agent', { hasText: 'Fixed' }).waitFor({ timeout: 60000 });
  await chat.locator('.permission.resolved', { hasText: 'with your changes' }).waitFor({ timeout: 10000 });
  if (await chat.locator('.permission.resolved').count() !== 1) throw new Error('one approval, one "Allowed" line');
  await chat.locator('#send:not([disabled])').waitFor({ timeout: 30000 });
  // The diff editor closed; the editor shows the applied, user-edited text.
  await page.waitForFunction(() => !document.querySelector('.monaco-diff-editor .editor.modified'), null, { timeout: 15000 });
  await page.waitForFunction(mark => {
    const ed = document.querySelector('.editor-instance .monaco-editor .view-lines');
    const t = ed ? ed.textContent.replace(/\u00a0/g, ' ') : '';
    return /len\(values\)/.test(t) && t.includes(mark) && !/\/ 2/.test(t);
  }, EDIT_MARK, { timeout: 30000 });
  // Code blocks take the editor's tab width (editor.tabSize, 4 here).
  await chat.locator('.msg.agent pre.code[style*="tab-size:4"]').first().waitFor({ timeout: 5000 });
  const text = await editorText(page, '.editor-instance .monaco-editor .view-lines');
  step(`editor text now:\n${text}`);
  // Expand the tool rows for the screenshot.
  await chat.locator('details.tool.kind-edit summary').first().click();
  await page.waitForTimeout(500);
  await page.screenshot({ path: path.join(artifacts, 'e2e-after.png') });

  step('second turn on a file with unsaved changes, approved from the chat');
  await page.locator('.editor-instance .monaco-editor .view-lines').click();
  await page.keyboard.press('Control+Home');
  await page.keyboard.type(`${UNSAVED}\n`);
  await page.locator('.tab.dirty', { hasText: 'calc.py' }).waitFor({ timeout: 10000 });
  await chat.locator('#prompt').fill('Make total start from 0');
  await chat.locator('#prompt').press('Enter');
  const allow = chat.locator('.permission.pending button[data-option="allow_once"]');
  await allow.waitFor({ timeout: 60000 });
  await allow.click();
  await chat.locator('.msg.agent', { hasText: 'starts from 0' }).waitFor({ timeout: 60000 });
  await page.waitForFunction(mark => {
    const ed = document.querySelector('.editor-instance .monaco-editor .view-lines');
    const t = ed ? ed.textContent.replace(/\u00a0/g, ' ') : '';
    return t.includes('sum(values, 0)') && t.includes(mark);
  }, UNSAVED, { timeout: 30000 });
  // The user's unsaved work stays unsaved (run-e2e.sh checks the disk).
  await page.locator('.tab.dirty', { hasText: 'calc.py' }).waitFor({ timeout: 5000 });

  step('history: a new chat, then load the old one');
  await runCommand(page, 'Agent: New Chat');
  await chat.locator('.empty').waitFor({ timeout: 15000 });
  await runCommand(page, 'Agent: Show Chat History');
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Fix average' }).first();
  await row.waitFor({ timeout: 15000 });
  // The date on its own line, under the title.
  const rowText = await row.innerText();
  // (docs/editor-words.md: "today 14:05", else "2026-11-28 14:05").
  if (!/Fix average[^\n]*\n[\s\S]*(today \d\d:\d\d|\d{4}-\d\d-\d\d \d\d:\d\d)/.test(rowText)) throw new Error(`history row has no date line: ${rowText}`);
  await row.click();
  await chat.locator('.msg.user', { hasText: 'Make total start from 0' }).waitFor({ timeout: 15000 });
  await chat.locator('.msg.agent', { hasText: 'Fixed' }).waitFor({ timeout: 5000 });

  step('context: ask about the selection');
  await page.locator('.editor-instance .monaco-editor .view-lines').click();
  await page.keyboard.press('Control+A');
  await runCommand(page, 'Ask Agent about Selection');
  await chat.locator('#attachments .chip', { hasText: 'calc.py:1-' }).waitFor({ timeout: 10000 });
  await page.screenshot({ path: path.join(artifacts, 'e2e-history.png') });

  step('an @ mention: a file picked in the mention picker goes with the prompt');
  await mentionFile(page, chat, 'data.txt');

  step('a pasted image goes with the prompt, shown as a thumbnail');
  await chat.locator('#prompt').evaluate(el => {
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
    const dt = new DataTransfer();
    dt.items.add(new File([Uint8Array.from(atob(png), c => c.charCodeAt(0))], 'shot.png', { type: 'image/png' }));
    el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
  });
  await chat.locator('#attachments .chip', { hasText: 'shot.png' }).waitFor({ timeout: 10000 });

  step('cancel a running turn');
  await chat.locator('#prompt').fill('Explain this, take your time');
  await chat.locator('#prompt').press('Enter');
  await chat.locator('.msg.agent', { hasText: 'Working on it' }).waitFor({ timeout: 30000 });
  await chat.locator('.msg.user img.thumb').first().waitFor({ timeout: 5000 });
  await chat.locator('#cancel').click();
  await chat.locator('.stop', { hasText: 'Cancelled' }).waitFor({ timeout: 30000 });
  await chat.locator('#send:not([disabled])').waitFor({ timeout: 10000 });
  const status = await page.evaluate(() => document.querySelector('.part.statusbar').innerText);
  if (!/Agent/.test(status)) throw new Error(`status bar has no agent item: ${status}`);

  step('rewind: a Bash turn changes, removes and makes files; "Rewind to here" brings them back');
  await chat.locator('#prompt').fill('Tidy the data files');
  await chat.locator('#prompt').press('Enter');
  const allowBash = chat.locator('.permission.pending button[data-option="allow_once"]').first();
  await allowBash.waitFor({ timeout: 60000 });
  await allowBash.click();
  await chat.locator('.msg.agent', { hasText: 'Tidied the data files' }).waitFor({ timeout: 60000 });
  await chat.locator('#send:not([disabled])').waitFor({ timeout: 30000 });
  const ws = process.env.E2E_WORKSPACE;
  if (fs.existsSync(path.join(ws, 'notes.txt')) || !fs.existsSync(path.join(ws, 'made.txt'))) throw new Error('the Bash turn did not run');
  const tidy = chat.locator('.msg.user', { hasText: 'Tidy the data files' }).last();
  await tidy.hover();
  await tidy.locator('.rewind-btn').click();
  const both = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Code and conversation' }).first();
  await both.waitFor({ timeout: 15000 });
  await page.screenshot({ path: path.join(artifacts, 'e2e-rewind-picker.png') });
  await both.click();
  const dialog = page.locator('.monaco-dialog-box');
  await dialog.waitFor({ timeout: 15000 });
  const detail = await dialog.innerText();
  for (const name of ['data.txt', 'notes.txt', 'made.txt']) {
    if (!detail.includes(name)) throw new Error(`the rewind preview does not name ${name}: ${detail}`);
  }
  await page.screenshot({ path: path.join(artifacts, 'e2e-rewind-preview.png') });
  await dialog.locator('.monaco-button', { hasText: /^Rewind$/ }).click();
  await chat.locator('.msg.user', { hasText: 'Tidy the data files' }).waitFor({ state: 'detached', timeout: 15000 });
  await chat.locator('.notice', { hasText: /3 files restored/ }).waitFor({ timeout: 15000 });
  if (fs.readFileSync(path.join(ws, 'data.txt'), 'utf8') !== 'old value\n') throw new Error('data.txt was not restored');
  if (fs.readFileSync(path.join(ws, 'notes.txt'), 'utf8') !== 'keep me\n') throw new Error('notes.txt did not come back');
  if (fs.existsSync(path.join(ws, 'made.txt'))) throw new Error('made.txt is still there');
  await page.screenshot({ path: path.join(artifacts, 'e2e-rewound.png') });

  step('plan review: the plan opens in an editor, the user changes it and approves it');
  await pickFromHeader(page, chat, '#mode', 'Plan', /Plan/);
  await chat.locator('#mode[data-value="plan"]').waitFor({ timeout: 10000 });
  await chat.locator('#prompt').fill('Plan the rename of total');
  await chat.locator('#prompt').press('Enter');
  const planCard = chat.locator('.permission.pending', { hasText: 'Ready to code' });
  await planCard.waitFor({ timeout: 60000 });
  await planCard.locator('button[data-action="review"]', { hasText: 'Open plan' }).waitFor({ timeout: 5000 });
  await page.locator('.tab', { hasText: 'plan.md' }).waitFor({ timeout: 15000 });
  await page.waitForFunction(() => /Rename total/.test((document.querySelector('.editor-instance .monaco-editor .view-lines')?.textContent ?? '').replace(/\u00a0/g, ' ')), null, { timeout: 15000 });
  await page.locator('.editor-instance .monaco-editor .view-lines').click();
  await page.keyboard.press('Control+End');
  await page.keyboard.press('Enter');
  await page.keyboard.type('Also: USER ADDED STEP');
  await page.waitForFunction(() => /USER ADDED STEP/.test((document.querySelector('.editor-instance .monaco-editor .view-lines')?.textContent ?? '').replace(/\u00a0/g, ' ')), null, { timeout: 10000 });
  await page.screenshot({ path: path.join(artifacts, 'e2e-plan-review.png') });
  await planCard.locator('button[data-option="default"]').click();
  await chat.locator('.msg.agent', { hasText: 'Following your plan' }).waitFor({ timeout: 60000 });
  await chat.locator('#mode[data-value="default"]').waitFor({ timeout: 10000 });
  await chat.locator('.permission.resolved', { hasText: 'with your changes' }).last().waitFor({ timeout: 10000 });
  await page.locator('.tab', { hasText: 'plan.md' }).waitFor({ state: 'detached', timeout: 15000 });

  step('two chats: the panel\'s and one in an editor tab, both turns running at once');
  await twoChats(page);

  step('no key: the chat says so with its two fixes, Send is off');
  fs.copyFileSync(process.env.E2E_NOKEY_SETTINGS, process.env.E2E_MACHINE_SETTINGS);
  await page.waitForTimeout(1500);
  await runCommand(page, 'Agent: New Chat');
  await runCommand(page, 'Agent: Restart agent-lsp');
  const banner = chat.locator('#banner .problem');
  try {
    await banner.waitFor({ timeout: 30000 });
  } catch {
    // An agent without initialize's providerProblem says it at the first prompt.
    step('the agent reported no providerProblem at start: sending a prompt');
    await chat.locator('#prompt').fill('Hello');
    await chat.locator('#prompt').press('Enter');
    await banner.waitFor({ timeout: 30000 });
  }
  const problem = await banner.innerText();
  if (/^\W*(session|agent)\//m.test(problem)) throw new Error(`the error starts with a method name: ${problem}`);
  if (!/model/i.test(problem)) throw new Error(`the no-key notice does not speak of a model: ${problem}`);
  await banner.locator('button', { hasText: 'Open settings' }).waitFor({ timeout: 5000 });
  await chat.locator('#send[disabled]').waitFor({ timeout: 5000 });

  step('Set API key: stored in secret storage, the agent restarts with it, the notice goes');
  await banner.locator('button', { hasText: 'Set API key' }).click();
  const keyBox = page.locator('.quick-input-widget input[type="password"]');
  await keyBox.waitFor({ timeout: 15000 });
  await keyBox.fill('sk-e2e-test');
  await page.keyboard.press('Enter');
  await banner.waitFor({ state: 'detached', timeout: 60000 });
  await chat.locator('#send:not([disabled])').waitFor({ timeout: 30000 });
  if (errors.length) step(`page errors (not fatal): ${errors.join(' | ')}`);
});
