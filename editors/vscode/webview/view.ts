// The chat view's DOM. It keeps a copy of the extension's state, applies
// event batches with the shared reducer, and re-renders what changed once per
// animation frame, so a long stream of small chunks costs one DOM update per
// frame, not one per chunk.

import type { FromWebview, ToWebview } from '../src/shared/messages';
import {
  type Attachment, type Changes, type ViewState, awaitsApproval, contextLeft, currentEffortName, currentModelName, emptyState, matchCommands, mergeChanges, noChanges, reduce, turnWords, usageShort, usageText,
} from '../src/shared/state';
import { escapeHtml, renderInline } from './markdown';
import { renderItem } from './render';

export interface ViewHost {
  post(msg: FromWebview): void;
  requestFrame(cb: () => void): void;
  now(): number;
  /** Saved draft of the prompt box (survives the webview being destroyed). */
  loadDraft(): string;
  saveDraft(text: string): void;
}

/** Long messages re-render at most this often while they stream (ms). */
const idlePlaceholder = 'Ask the agent… (/ for commands, @ for files, Enter to send, Shift+Enter for a new line)';
const LONG_TEXT = 20_000;
const LONG_TEXT_INTERVAL = 200;

export class ChatView {
  state: ViewState = emptyState();
  private pending: Changes = noChanges();
  private frameRequested = false;
  /** Frames rendered so far (the tests count them). */
  frames = 0;
  private nodes = new Map<string, HTMLElement>();
  private open = new Map<string, boolean>();
  private lastRender = new Map<string, number>();
  private completionIndex = 0;

  readonly header: HTMLElement;
  private readonly banner: HTMLElement;
  readonly transcript: HTMLElement;
  readonly footer: HTMLElement;
  readonly input: HTMLTextAreaElement;
  private readonly completions: HTMLElement;
  private readonly sendBtn: HTMLButtonElement;
  private readonly cancelBtn: HTMLButtonElement;

  constructor(private readonly doc: Document, root: HTMLElement, private readonly host: ViewHost) {
    root.innerHTML = `
      <header class="bar" id="header"></header>
      <div id="banner"></div>
      <main class="transcript" id="transcript" aria-live="polite"></main>
      <footer class="footer">
        <div id="status-line" class="status-line"></div>
        <div id="attachments" class="chips"></div>
        <div class="prompt">
          <ul id="completions" class="completions" role="listbox" hidden></ul>
          <textarea id="prompt" rows="3" placeholder="${idlePlaceholder}" aria-label="Prompt"></textarea>
          <div class="prompt-actions">
            <button id="attach-diag" class="icon-btn" title="Attach diagnostics at the cursor">⚠ diagnostics</button>
            <span class="spacer"></span>
            <button id="cancel" class="secondary" title="Cancel the running turn" hidden>Cancel</button>
            <button id="send" class="primary" title="Send (Enter)">Send</button>
          </div>
        </div>
      </footer>`;
    const q = <T extends HTMLElement>(sel: string) => root.querySelector(sel) as T;
    this.header = q('#header');
    this.banner = q('#banner');
    this.transcript = q('#transcript');
    this.footer = q('.footer');
    this.input = q('#prompt');
    this.completions = q('#completions');
    this.sendBtn = q('#send');
    this.cancelBtn = q('#cancel');
    this.input.value = host.loadDraft();

    this.sendBtn.addEventListener('click', () => this.send());
    this.cancelBtn.addEventListener('click', () => host.post({ type: 'cancel' }));
    q('#attach-diag').addEventListener('click', () => host.post({ type: 'attachDiagnostics' }));
    this.input.addEventListener('keydown', e => this.onKey(e));
    // Images pasted or dropped into the prompt become attachments.
    const takeImages = (e: Event, list: FileList | undefined) => {
      const files = [...(list ?? [])].filter(f => f.type.startsWith('image/'));
      if (files.length) {
        e.preventDefault();
        this.attachImages(files);
      }
    };
    this.input.addEventListener('paste', e => takeImages(e, e.clipboardData?.files));
    this.input.addEventListener('dragover', e => e.preventDefault());
    this.input.addEventListener('drop', e => takeImages(e, e.dataTransfer?.files));
    this.input.addEventListener('input', () => { host.saveDraft(this.input.value); this.completionIndex = 0; this.renderCompletions(); });
    root.addEventListener('click', e => this.onClick(e));
    // <details> toggles do not bubble: listen while capturing.
    root.addEventListener('toggle', e => {
      const d = e.target as HTMLElement;
      const id = d.closest('[data-item]')?.getAttribute('data-item');
      if (id && d.tagName === 'DETAILS') this.open.set(id, d.hasAttribute('open'));
    }, true);
  }

  /** Handles a message from the extension. */
  receive(msg: ToWebview): void {
    switch (msg.type) {
      case 'snapshot':
        this.state = msg.state;
        this.nodes.clear();
        this.transcript.innerHTML = '';
        this.pending = { items: new Set(this.state.items.map(i => i.id)), structure: true, header: true, footer: true };
        this.schedule();
        break;
      case 'events':
        for (const e of msg.events) mergeChanges(this.pending, reduce(this.state, e));
        this.schedule();
        break;
      case 'focusPrompt':
        this.input.focus();
        break;
    }
  }

  private schedule(): void {
    if (this.frameRequested) return;
    this.frameRequested = true;
    this.host.requestFrame(() => {
      this.frameRequested = false;
      this.render();
    });
  }

  /** Renders the pending changes; the tests call it directly too. */
  render(): void {
    const ch = this.pending;
    this.pending = noChanges();
    this.frames++;
    const t = this.transcript;
    const atBottom = t.scrollTop + t.clientHeight >= t.scrollHeight - 40;
    const created = ch.structure || (ch.header && !this.state.items.length) ? this.reconcile() : new Set<string>();
    const now = this.host.now();
    const byId = new Map(this.state.items.map(i => [i.id, i]));
    for (const id of ch.items) {
      const item = byId.get(id);
      const node = this.nodes.get(id);
      if (!item || !node || created.has(id)) continue;
      if ((item.kind === 'agent' || item.kind === 'thought') && item.text.length > LONG_TEXT) {
        const last = this.lastRender.get(id) ?? 0;
        if (now - last < LONG_TEXT_INTERVAL) {
          this.pending.items.add(id);
          continue;
        }
        this.lastRender.set(id, now);
      }
      node.innerHTML = renderItem(item, this.renderOptions(id));
    }
    if (ch.header) this.renderHeader();
    if (ch.footer) this.renderFooter();
    if (atBottom) t.scrollTop = t.scrollHeight;
    if (this.pending.items.size) this.schedule();
  }

  /** Makes the transcript's children match the items, in order; returns the ids of new nodes. */
  private reconcile(): Set<string> {
    const created = new Set<string>();
    const ids = new Set(this.state.items.map(i => i.id));
    for (const [id, node] of this.nodes) {
      if (!ids.has(id)) { node.remove(); this.nodes.delete(id); }
    }
    let prev: HTMLElement | null = null;
    for (const item of this.state.items) {
      let node = this.nodes.get(item.id);
      if (!node) {
        node = this.doc.createElement('div');
        node.className = `item item-${item.kind}`;
        node.setAttribute('data-item', item.id);
        node.innerHTML = renderItem(item, this.renderOptions(item.id));
        this.nodes.set(item.id, node);
        created.add(item.id);
      }
      const want: ChildNode | null = prev ? prev.nextSibling : this.transcript.firstChild;
      if (want !== node) this.transcript.insertBefore(node, want);
      prev = node;
    }
    if (!this.state.items.length) {
      this.transcript.innerHTML = `<div class="empty">${this.emptyText()}</div>`;
    } else {
      for (const el of Array.from(this.transcript.children)) if (el.classList.contains('empty')) el.remove();
    }
    return created;
  }

  private renderOptions(id: string) {
    return { open: this.open.get(id), root: this.state.cwd, tabSizes: this.state.tabSizes, rewind: Boolean(this.state.sessionId), awaitingApproval: awaitsApproval(this.state, id) };
  }

  private emptyText(): string {
    const s = this.state;
    if (s.connection === 'error') return `<p><b>agent-lsp is not running.</b></p><p>${escapeHtml(s.connectionMessage ?? '')}</p><p><button data-action="restart">Restart</button> <button data-action="showLog">Show log</button></p>`;
    if (s.connection === 'starting') return '<p>Starting agent-lsp…</p>';
    return '<p>Ask the agent to explain, fix or change code. It proposes edits as diffs you review in the editor.</p><p class="muted">Select code and run <b>Ask Agent about Selection</b>, or <b>Add File to Agent Chat</b> from the editor\'s context menu.</p>';
  }

  private renderHeader(): void {
    const s = this.state;
    const mode = s.modes.find(m => m.id === s.currentModeId);
    const model = currentModelName(s);
    const disabled = s.connection !== 'ready' || !s.sessionId ? ' disabled' : '';
    this.header.innerHTML =
      `<button id="mode" class="picker" aria-label="Mode" data-action="pickMode" data-value="${escapeHtml(s.currentModeId ?? '')}" title="${escapeHtml(mode?.description ? `Mode: ${mode.description}` : 'Permission mode')}"${disabled}>${escapeHtml(mode?.name ?? s.currentModeId ?? 'Mode')}<span class="chevron" aria-hidden="true">▾</span></button>` +
      `<button id="model" class="picker" aria-label="Model" data-action="pickModel" data-value="${escapeHtml(s.currentModel ?? '')}" title="${escapeHtml(model ? `Model: ${model}` : 'Model')}"${disabled || (model ? '' : ' disabled')}>${escapeHtml(model ?? 'Model')}<span class="chevron" aria-hidden="true">▾</span></button>` +
      (s.effort
        ? `<button id="effort" class="picker" aria-label="Effort" data-action="pickEffort" data-value="${escapeHtml(s.effort.current)}" title="${escapeHtml(`Effort: ${currentEffortName(s)}${s.effort.current === 'auto' ? ` (${s.effort.options.find(o => o.value === 'auto')?.description ?? 'the settings'})` : ''}`)}"${disabled}>${escapeHtml(currentEffortName(s) ?? 'Effort')}<span class="chevron" aria-hidden="true">▾</span></button>`
        : '') +
      `<span class="spacer"></span>` +
      (s.providerProblem && s.connection === 'ready'
        ? `<span class="conn conn-problem" title="agent-lsp runs, but no model is configured"></span>`
        : `<span class="conn conn-${s.connection}" title="agent-lsp: ${escapeHtml(s.connectionMessage ?? s.connection)}"></span>`);
    for (const el of [this.header, this.transcript]) {
      if (s.busy) el.setAttribute('data-busy', '1'); else el.removeAttribute('data-busy');
    }
    // No model configured: say so at once, with the two ways to fix it.
    this.banner.innerHTML = s.providerProblem
      ? `<div class="notice notice-error problem" role="alert"><div><span class="notice-icon" aria-hidden="true">⚠</span>${renderInline(s.providerProblem)}</div>` +
        `<div class="problem-actions"><button class="primary" data-action="setApiKey">Set API key</button><button data-action="openSettings">Open settings</button></div></div>`
      : '';
  }

  private renderFooter(): void {
    const s = this.state;
    // While a turn runs, Send steers it: the agent gives the message to
    // the model at its next step (docs/protocol.md, "Steering a running turn").
    this.sendBtn.disabled = s.connection !== 'ready' || !!s.providerProblem;
    this.sendBtn.title = s.providerProblem ? 'No model is configured: set an API key first'
      : s.busy ? 'Send to the running turn (the agent reads it at its next step)' : 'Send (Enter)';
    this.input.placeholder = s.providerProblem ? 'No model is configured: set an API key above to start.'
      : s.busy ? 'Add to the running turn… (Enter to send)' : idlePlaceholder;
    this.cancelBtn.hidden = !s.busy;
    const pending = s.items.filter(i => i.kind === 'permission' && i.state === 'pending').length;
    const status = this.root('#status-line');
    const left = contextLeft(s.usage);
    const usage = usageText(s.usage);
    status.innerHTML =
      (s.busy ? `<span class="working">${turnWords(s.busy, pending)}</span>` : '') +
      `<span class="spacer"></span>` +
      (usage ? `<span class="usage" title="${escapeHtml(`Context window used by this session: ${usage}`)}">${escapeHtml(usageShort(s.usage))}</span><span class="meter${left < 0.15 ? ' low' : ''}" aria-hidden="true"><span style="width:${Math.round((1 - left) * 100)}%"></span></span>` : '');
    const thumb = (a: Attachment) => a.block.type === 'image' && /^[A-Za-z0-9+/=]+$/.test(a.block.data) ? `<img class="thumb" src="data:${escapeHtml(a.block.mimeType)};base64,${a.block.data}" alt="">` : '';
    const chip = (a: Attachment, ambient: boolean) => `<span class="chip${ambient ? ' ambient' : ''}"${ambient ? ' title="Sent with your prompt because it is open in the editor (agentLsp.editorContext)"' : ''}>${thumb(a)}${escapeHtml(a.label)}<button class="chip-x" data-action="removeAttachment" data-id="${escapeHtml(a.id)}" title="${ambient ? 'Leave out of this prompt' : 'Remove'}" aria-label="Remove ${escapeHtml(a.label)}">×</button></span>`;
    const chips = s.ambient.map(a => chip(a, true)).join('') + s.attachments.map(a => chip(a, false)).join('');
    this.root('#attachments').innerHTML = chips;
    this.renderCompletions();
  }

  private root(sel: string): HTMLElement {
    return this.footer.querySelector(sel) as HTMLElement;
  }

  private matches() {
    return matchCommands(this.state.commands, this.input.value);
  }

  private renderCompletions(): void {
    const m = this.matches();
    if (!m.length) {
      this.completions.hidden = true;
      this.completions.innerHTML = '';
      return;
    }
    this.completionIndex = Math.min(this.completionIndex, m.length - 1);
    this.completions.hidden = false;
    this.completions.innerHTML = m.map((c, i) =>
      `<li role="option" data-action="complete" data-name="${escapeHtml(c.name)}" class="${i === this.completionIndex ? 'selected' : ''}" aria-selected="${i === this.completionIndex}"><b>/${escapeHtml(c.name)}</b> <span class="muted">${escapeHtml(c.description)}</span></li>`).join('');
  }

  private complete(name: string): void {
    this.input.value = `/${name} `;
    this.host.saveDraft(this.input.value);
    this.renderCompletions();
    this.input.focus();
  }

  /** Reads image files and hands them to the extension, which checks them. */
  private attachImages(files: File[]): void {
    for (const f of files) {
      const reader = new FileReader();
      reader.onload = () => {
        const url = String(reader.result ?? '');
        const data = url.slice(url.indexOf(',') + 1);
        this.host.post({ type: 'attachImage', name: f.name || 'pasted image', mimeType: f.type, data });
      };
      reader.readAsDataURL(f);
    }
  }

  private onKey(e: KeyboardEvent): void {
    const m = this.matches();
    if (m.length && !this.completions.hidden) {
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        this.completionIndex = (this.completionIndex + (e.key === 'ArrowDown' ? 1 : m.length - 1)) % m.length;
        this.renderCompletions();
        return;
      }
      if (e.key === 'Tab' || (e.key === 'Enter' && !e.shiftKey && this.input.value !== `/${m[this.completionIndex].name}`)) {
        e.preventDefault();
        this.complete(m[this.completionIndex].name);
        return;
      }
      if (e.key === 'Escape') {
        this.completions.hidden = true;
        return;
      }
    }
    if (e.key === '@' && !e.isComposing && /(^|\s)$/.test(this.input.value.slice(0, this.input.selectionStart ?? 0))) {
      // A mention: the extension's picker of files, folders and lines.
      e.preventDefault();
      this.host.post({ type: 'mention' });
      return;
    }
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      this.send();
    }
  }

  send(): void {
    const text = this.input.value.trim();
    if (!text || this.state.connection !== 'ready' || this.state.providerProblem) return;
    // Commands need the session idle; other text steers a running turn.
    if (this.state.busy && text.startsWith('/')) return;
    this.host.post({ type: 'prompt', text });
    this.input.value = '';
    this.host.saveDraft('');
    this.renderCompletions();
  }

  private onClick(e: Event): void {
    const target = e.target as HTMLElement;
    const el = target.closest('[data-action], a.loc, a[data-link]') as HTMLElement | null;
    if (!el) return;
    if (el.tagName === 'A') {
      e.preventDefault();
      const path = el.getAttribute('data-path') ?? el.getAttribute('href') ?? '';
      const line = el.getAttribute('data-line');
      if (path && path !== '#') this.host.post({ type: 'openLocation', path, line: line !== null ? Number(line) : undefined });
      return;
    }
    const id = el.getAttribute('data-id') ?? '';
    switch (el.getAttribute('data-action')) {
      case 'permission':
        this.host.post({ type: 'permission', id, optionId: el.getAttribute('data-option') ?? '' });
        el.closest('.perm-actions')?.querySelectorAll('button').forEach(b => ((b as HTMLButtonElement).disabled = true));
        break;
      case 'review': this.host.post({ type: 'review', id }); break;
      case 'rewind': this.host.post({ type: 'rewind', id }); break;
      case 'removeAttachment': this.host.post({ type: 'removeAttachment', id }); break;
      case 'history': this.host.post({ type: 'history' }); break;
      case 'newSession': this.host.post({ type: 'newSession' }); break;
      case 'restart': this.host.post({ type: 'restart' }); break;
      case 'showLog': this.host.post({ type: 'showLog' }); break;
      case 'pickMode': this.host.post({ type: 'pickMode' }); break;
      case 'pickModel': this.host.post({ type: 'pickModel' }); break;
      case 'pickEffort': this.host.post({ type: 'pickEffort' }); break;
      case 'setApiKey': this.host.post({ type: 'setApiKey' }); break;
      case 'openSettings': this.host.post({ type: 'openSettings' }); break;
      case 'complete': this.complete(el.getAttribute('data-name') ?? ''); break;
      case 'copyCode': {
        const code = el.closest('.codeblock')?.querySelector('pre code')?.textContent ?? '';
        this.host.post({ type: 'copy', text: code });
        el.textContent = 'Copied';
        setTimeout(() => { el.textContent = 'Copy'; }, 1500);
        break;
      }
    }
  }
}
