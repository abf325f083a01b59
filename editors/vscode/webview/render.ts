// Transcript items to HTML strings. Pure functions (no DOM), so the unit
// tests check them in plain Node; view.ts puts the strings in the page.

import { alwaysWords, commandOf, descriptionOf, parentToolCallId, type DiffContent, type PermissionOptionKind, type ToolCallContent } from '../src/protocol';
import type { Item, PermissionItem, PlanItem, ToolItem } from '../src/shared/state';
import { diffStat, lineDiff } from './linediff';
import { codeBlock, escapeHtml, highlight, languageOfPath, renderInline, renderMarkdown, type TabSizes, tabSizeFor } from './markdown';

/** Per-item view options that live only in the webview (open/closed rows). */
export interface RenderOptions {
  open?: boolean;
  /** The workspace folder: paths under it are shown relative. */
  root?: string;
  /** editor.tabSize by language id, for code blocks. */
  tabSizes?: TabSizes;
  /** Offer "Rewind to here" on user messages (the chat has a session). */
  rewind?: boolean;
  /** A tool call whose permission request waits for the user. */
  awaitingApproval?: boolean;
}

/** Shows paths under the workspace folder relative to it. */
export function relativize(text: string, root: string | undefined): string {
  if (!root) return text;
  const prefix = root.endsWith('/') ? root : `${root}/`;
  return text.split(prefix).join('');
}

/** A tool call's state in the words of docs/editor-words.md. */
export const STATUS_LABEL: Record<string, string> = {
  pending: 'waiting',
  in_progress: 'running',
  completed: 'done',
  failed: 'failed',
};

const STOP_TEXT: Record<string, string> = {
  cancelled: 'Cancelled.',
  max_tokens: 'Stopped: the model reached its output limit.',
  max_turn_requests: 'Stopped: too many model calls in one turn (maxTurns).',
  refusal: 'The model refused to go on.',
};

export function renderItem(item: Item, opts: RenderOptions = {}): string {
  switch (item.kind) {
    case 'user': {
      const chips = item.attachments.map(a => `<span class="chip">${escapeHtml(a)}</span>`).join('');
      const rewind = opts.rewind ? `<button class="rewind-btn" data-action="rewind" data-id="${escapeHtml(item.id)}" title="Rewind the code, the conversation or both to before this message" aria-label="Rewind to here">Rewind to here</button>` : '';
      const images = (item.images ?? []).filter(u => /^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=]+$/.test(u))
        .map(u => `<img class="thumb" src="${u}" alt="image sent with the message">`).join('');
      return `<div class="msg user">${rewind}<div class="text">${escapeHtml(item.text)}</div>${images ? `<div class="thumbs">${images}</div>` : ''}${chips ? `<div class="chips">${chips}</div>` : ''}</div>`;
    }
    case 'agent':
      return `<div class="msg agent md">${renderMarkdown(item.text, opts.tabSizes)}</div>`;
    case 'thought':
      return `<details class="thought"${opts.open ? ' open' : ''}><summary>Thinking</summary><div class="md">${renderMarkdown(item.text, opts.tabSizes)}</div></details>`;
    case 'tool':
      return renderTool(item, opts);
    case 'plan':
      return renderPlan(item);
    case 'permission':
      return renderPermission(item, opts);
    case 'notice':
      return `<div class="notice notice-${item.level}" role="${item.level === 'error' ? 'alert' : 'status'}">${item.level === 'error' ? '<span class="notice-icon" aria-hidden="true">⚠</span>' : ''}${escapeHtml(item.text)}</div>`;
    case 'stop':
      return `<div class="stop">${escapeHtml(STOP_TEXT[item.reason] ?? `Stopped: ${item.reason}`)}</div>`;
  }
}

function baseName(p: string): string {
  return p.split(/[\\/]/).pop() || p;
}

function renderDiff(d: DiffContent, opts: RenderOptions): string {
  const lines = lineDiff(d.oldText ?? '', d.newText);
  const lang = languageOfPath(d.path);
  const body = lines.map(l => {
    if (l.op === '@') return `<div class="dl skip">⋯ ${escapeHtml(l.text)}</div>`;
    const cls = l.op === '+' ? 'add' : l.op === '-' ? 'del' : 'ctx';
    return `<div class="dl ${cls}"><span class="sign">${l.op}</span>${highlight(l.text, lang) || ' '}</div>`;
  }).join('');
  const what = d.oldText == null ? 'new file' : diffStat(lines);
  return `<div class="diff"><div class="diff-head"><a href="#" class="loc" data-path="${escapeHtml(d.path)}" title="${escapeHtml(d.path)}">${escapeHtml(relativize(d.path, opts.root))}</a> <span class="stat">${escapeHtml(what)}</span></div><div class="diff-body hljs" style="tab-size:${tabSizeFor(lang, opts.tabSizes)}">${body}</div></div>`;
}

function renderContent(c: ToolCallContent, opts: RenderOptions, kind: string): string {
  switch (c.type) {
    case 'diff':
      return renderDiff(c, opts);
    case 'content': {
      const b = c.content;
      // Tool text is markdown (a Bash call's is one console code block);
      // an older agent's bare command output stays preformatted.
      if (b.type === 'text' && kind === 'execute' && !/^\s*(```|~~~)/.test(b.text)) return `<pre class="output">${escapeHtml(b.text)}</pre>`;
      if (b.type === 'text') return `<div class="output md">${renderMarkdown(b.text, opts.tabSizes)}</div>`;
      if (b.type === 'resource_link') {
        const label = b.title || relativize(b.uri.replace(/^file:\/\//, ''), opts.root) || b.name;
        return `<div class="output">${escapeHtml(b.description ?? 'File')}: <a href="#" class="loc" data-path="${escapeHtml(b.uri)}" title="${escapeHtml(b.uri)}">${escapeHtml(label)}</a></div>`;
      }
      if (b.type === 'resource' && b.resource.text !== undefined) return codeBlock(b.resource.text, languageOfPath(b.resource.uri), opts.tabSizes);
      return '';
    }
    case 'terminal':
      return `<div class="output">terminal ${escapeHtml(c.terminalId)}</div>`;
  }
  return '';
}

function renderTool(item: ToolItem, opts: RenderOptions): string {
  const call = item.call;
  const status = call.status ?? 'pending';
  const kind = call.kind ?? 'other';
  const title = call.title || 'Tool call';
  const parts: string[] = [];
  const description = descriptionOf(call);
  if (description) parts.push(`<div class="tdesc muted">${escapeHtml(description)}</div>`);
  // The command alone until the output comes: the output block starts with it.
  const cmd = commandOf(call);
  const hasText = (call.content ?? []).some(c => c.type === 'content' && c.content.type === 'text');
  if (cmd !== undefined && kind === 'execute' && !hasText) parts.push(`<pre class="code cmd"><code class="hljs">${highlight(cmd, 'bash')}</code></pre>`);
  const diffPaths = new Set((call.content ?? []).filter((c): c is DiffContent => c.type === 'diff').map(d => d.path));
  // A command's location is the directory it runs in: said only when it is
  // not the workspace folder, and said as such.
  const locations = (call.locations ?? []).filter(l => !diffPaths.has(l.path) && !(kind === 'execute' && opts.root && l.path.replace(/\/+$/, '') === opts.root.replace(/\/+$/, '')));
  const locs = locations.map(l =>
    `<a href="#" class="loc" data-path="${escapeHtml(l.path)}"${l.line !== undefined ? ` data-line="${l.line}"` : ''} title="${escapeHtml(l.path)}">${escapeHtml(kind === 'execute' ? relativize(l.path, opts.root) : baseName(l.path))}${l.line !== undefined ? `:${l.line + 1}` : ''}</a>`);
  if (locs.length) parts.push(`<div class="locs">${kind === 'execute' ? '<span class="muted">in </span>' : ''}${locs.join(' ')}</div>`);
  for (const c of call.content ?? []) parts.push(renderContent(c, opts, kind));
  const stat = (call.content ?? []).filter((c): c is DiffContent => c.type === 'diff').map(d => d.oldText == null ? 'new' : diffStat(lineDiff(d.oldText ?? '', d.newText))).join(' ');
  // A subagent's call is shown indented under the Agent call it belongs to.
  const nested = parentToolCallId(call._meta) ? ' nested' : '';
  return `<details class="tool status-${escapeHtml(status)} kind-${escapeHtml(kind)}${nested}"${opts.open ? ' open' : ''}>` +
    `<summary><span class="ttitle" title="${escapeHtml(description ?? title)}">${renderInline(relativize(title, opts.root))}</span>` +
    (stat ? `<span class="tstat">${escapeHtml(stat)}</span>` : '') +
    `<span class="tstatus" data-status="${escapeHtml(status)}">${escapeHtml(opts.awaitingApproval && status === 'pending' ? 'waiting for your approval' : STATUS_LABEL[status] ?? status)}</span></summary>` +
    `<div class="tbody">${parts.join('') || '<div class="output muted">no output</div>'}</div></details>`;
}

function renderPlan(item: PlanItem): string {
  const done = item.entries.filter(e => e.status === 'completed').length;
  const rows = item.entries.map(e =>
    `<li class="plan-${escapeHtml(e.status)}"><input type="checkbox" disabled${e.status === 'completed' ? ' checked' : ''}> <span>${escapeHtml(e.content)}</span></li>`).join('');
  return `<div class="plan"><div class="plan-head">Plan <span class="muted">${done}/${item.entries.length}</span></div><ul class="checklist">${rows}</ul></div>`;
}

const VERB: Record<string, string> = { allowed: 'Allowed', rejected: 'Rejected', cancelled: 'Cancelled' };

/** The kind of an option, from the request's options or, on replay, from its id. */
function chosenKind(item: PermissionItem): PermissionOptionKind | undefined {
  const opt = item.options.find(o => o.optionId === item.chosen);
  if (opt) return opt.kind;
  return /^(allow_once|allow_always|reject_once|reject_always)$/.test(item.chosen ?? '') ? item.chosen as PermissionOptionKind : undefined;
}

function renderPermission(item: PermissionItem, opts: RenderOptions): string {
  const title = renderInline(relativize(item.title, opts.root));
  if (item.state !== 'pending') {
    // "Allowed: Edit calc.go", and the standing rule chosen, in the option's words.
    const opt = item.options.find(o => o.optionId === item.chosen);
    const name = item.chosenName ?? opt?.name;
    const kind = chosenKind(item);
    const always = (kind === 'allow_always' || kind === 'reject_always') && name ? ` <span class="muted">· ${renderInline(name)}</span>` : '';
    const words = opt && alwaysWords(opt);
    const rule = words ? ` title="${escapeHtml(words)}"` : '';
    return `<div class="permission resolved perm-${item.state}"${rule}>${escapeHtml(VERB[item.state] ?? item.state)}: ${title}${always}${item.edited ? ' <span class="muted">(with your changes)</span>' : ''}</div>`;
  }
  const parts: string[] = [`<div class="perm-title">${title}</div>`];
  if (item.description) parts.push(`<div class="perm-desc muted">${escapeHtml(item.description)}</div>`);
  // The command or file in full when the title does not already show it.
  const detail = item.detail ? relativize(item.detail, opts.root) : '';
  const shown = detail && (item.title.includes(detail) || relativize(item.title, opts.root).includes(detail));
  if (item.content?.length) for (const text of item.content) parts.push(`<div class="perm-content md">${renderMarkdown(text, opts.tabSizes)}</div>`);
  else if (detail && !shown && item.toolKind === 'execute') parts.push(`<pre class="code cmd"><code class="hljs">${highlight(item.detail!, 'bash')}</code></pre>`);
  else if (detail && !shown && !item.title.includes(baseName(detail))) parts.push(`<div class="perm-detail">${escapeHtml(detail)}</div>`);
  if (item.review === 'diff') parts.push('<div class="muted perm-hint">The proposal is open in a diff editor: you can edit the right side before allowing it.</div>');
  if (item.review === 'plan') parts.push('<div class="muted perm-hint">The plan is open in an editor: change it before approving, and the agent follows the plan as you left it.</div>');
  // One primary button: the first "allow once" (Allow, not "Run outside the sandbox").
  const first = item.options.find(o => o.kind === 'allow_once');
  const buttons = item.options.map(o => {
    const primary = o === first ? ' primary' : '';
    const words = alwaysWords(o);
    return `<button class="perm-btn${primary}" data-action="permission" data-id="${escapeHtml(item.id)}" data-option="${escapeHtml(o.optionId)}" data-kind="${escapeHtml(o.kind)}"${words ? ` title="${escapeHtml(words)}"` : ''}>${renderInline(o.name)}</button>`;
  });
  if (item.review) buttons.push(`<button class="perm-btn link" data-action="review" data-id="${escapeHtml(item.id)}">${item.review === 'plan' ? 'Open plan' : 'Review diff'}</button>`);
  parts.push(`<div class="perm-actions">${buttons.join('')}</div>`);
  return `<div class="permission pending" role="group" aria-label="Permission request">${parts.join('')}</div>`;
}
