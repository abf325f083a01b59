// What the end-to-end test (e2e.cjs) and the screenshots (screenshots.cjs)
// share: the browser, the workbench, files and commands, and the run's
// ending. Env: PLAYWRIGHT_DIR, CHROMIUM, E2E_URL, E2E_PROFILE, E2E_ARTIFACTS.
'use strict';
const path = require('path');
const { chromium } = require(process.env.PLAYWRIGHT_DIR);

/** A logger whose lines start with the script's name. */
function stepper(name) {
  return msg => process.stderr.write(`${name}: ${msg}\n`);
}

/** Starts chromium on a fresh profile with a viewport of the given size. */
async function launch(viewport, extra = {}) {
  const ctx = await chromium.launchPersistentContext(process.env.E2E_PROFILE, {
    executablePath: process.env.CHROMIUM,
    headless: true,
    viewport,
    ...extra,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--disable-quic'],
  });
  return { ctx, page: ctx.pages()[0] || await ctx.newPage() };
}

/** Loads code-server's workbench and waits until the extensions are active. */
async function loadWorkbench(page) {
  await page.goto(process.env.E2E_URL, { waitUntil: 'domcontentloaded', timeout: 60000 });
  await page.waitForSelector('.monaco-workbench', { timeout: 120000 });
  await page.waitForSelector('.part.statusbar', { timeout: 60000 });
  await page.waitForFunction(() => {
    const sb = document.querySelector('.part.statusbar');
    return sb && !/Activating Extensions/.test(sb.textContent);
  }, null, { timeout: 90000 });
}

/** Runs a command from the command palette by its title. */
async function runCommand(page, title) {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 15000 });
  await input.fill(`>${title}`);
  // The row whose label is exactly the title, with or without its
  // category ("Agent: Ask Agent about Selection"): a recently used command
  // whose title starts with it ("Agent: Open Chat in Editor" for "Agent:
  // Open Chat") may be listed first.
  const exact = new RegExp(`^\\s*(?:[\\w ]+:\\s*)?${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`);
  const row = page.locator('.quick-input-list .monaco-list-row')
    .filter({ has: page.locator('.label-name', { hasText: exact }) }).first();
  await row.waitFor({ timeout: 15000 });
  await row.click();
}

/** Opens a workspace file with Quick Open and waits until its text matches. */
async function openFile(page, name, text) {
  await page.keyboard.press('Control+P');
  const qi = page.locator('.quick-input-widget input');
  await qi.waitFor({ state: 'visible', timeout: 15000 });
  await qi.fill(name);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor({ timeout: 60000 }); // the file search is slow on a busy machine
  await page.keyboard.press('Enter');
  await page.waitForFunction(src => {
    const ed = document.querySelector('.editor-instance .monaco-editor .view-lines');
    return ed && new RegExp(src).test(ed.textContent);
  }, text.source, { timeout: 30000 });
}

/** Opens the agent's chat view and returns its webview frame. */
async function openChat(page) {
  await runCommand(page, 'Agent: Open Chat');
  return page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
}

// Marks the visible chat webviews by where they are: data-e2e-chat="panel"
// (the side bar's view) or "tab" (an editor tab); waits until both show.
// A webview hidden and shown again is a new iframe: mark again after that.
async function markChats(page) {
  await page.waitForFunction(() => {
    const box = sel => document.querySelector(sel)?.getBoundingClientRect();
    const side = box('.part.sidebar');
    const editor = box('.part.editor');
    const inside = (r, b) => b && r.width > 0 && r.height > 0 && r.x + r.width / 2 >= b.left && r.x + r.width / 2 <= b.right &&
      r.y + r.height / 2 >= b.top && r.y + r.height / 2 <= b.bottom;
    const found = new Set();
    for (const f of document.querySelectorAll('iframe.webview.ready')) {
      const r = f.getBoundingClientRect();
      const where = inside(r, side) ? 'panel' : inside(r, editor) ? 'tab' : '';
      if (where) f.setAttribute('data-e2e-chat', where);
      else f.removeAttribute('data-e2e-chat');
      found.add(where);
    }
    return found.has('panel') && found.has('tab');
  }, null, { timeout: 30000 });
}

/** The chat webview marked "panel" or "tab" by markChats. */
function chatFrame(page, where) {
  return page.frameLocator(`iframe.webview.ready[data-e2e-chat="${where}"]`).frameLocator('iframe#active-frame');
}

/**
 * Runs body(page) in a browser and exits 0 when it returns, 1 when it
 * throws, after a screenshot of where it failed (failureShot in
 * E2E_ARTIFACTS).
 */
function run(step, viewport, extra, failureShot, body) {
  (async () => {
    const { ctx, page } = await launch(viewport, extra);
    let ok = false;
    try {
      await body(page);
      ok = true;
    } catch (e) {
      step(`FAILED: ${e && e.stack || e}`);
      try { await page.screenshot({ path: path.join(process.env.E2E_ARTIFACTS, failureShot) }); } catch { /* ignore */ }
    } finally {
      await ctx.close();
    }
    process.exit(ok ? 0 : 1);
  })().catch(e => { console.error(e && e.stack || String(e)); process.exit(1); });
}

/**
 * Types @ in the chat's input, picks the file `name` in the mention picker
 * and waits for its chip above the input.
 */
async function mentionFile(page, chat, name) {
  await chat.locator('#prompt').fill('');
  await chat.locator('#prompt').press('@');
  await page.locator('.quick-input-list .monaco-list-row').first().waitFor({ timeout: 15000 });
  await page.keyboard.type(name);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().click();
  await chat.locator('#attachments .chip', { hasText: name }).waitFor({ timeout: 10000 });
}

module.exports = { stepper, loadWorkbench, runCommand, openFile, openChat, markChats, chatFrame, mentionFile, run };
