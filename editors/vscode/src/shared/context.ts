// Prompt attachments built from editor context: a selection, a file,
// diagnostics at the cursor. Plain data in, ACP content blocks out (no
// `vscode` import, so the unit tests run them).

import type { ContentBlock, MCPResource } from '../protocol';
import type { Attachment } from './state';

export interface Span { startLine: number; endLine: number } // 0-based, inclusive

/**
 * The lines a selection covers (0-based positions in, a Span out): one
 * ending at the start of a line does not take that line.
 */
export function selectionSpan(start: { line: number }, end: { line: number; character: number }): Span {
  return { startLine: start.line, endLine: end.character === 0 && end.line > start.line ? end.line - 1 : end.line };
}

export interface DiagnosticInfo {
  line: number; // 0-based
  character: number; // 0-based
  severity: 'error' | 'warning' | 'info' | 'hint';
  message: string;
  source?: string;
  code?: string | number;
}

export function baseName(uriOrPath: string): string {
  const p = uriOrPath.replace(/[?#].*$/, '');
  return decodeURIComponent(p.split(/[\\/]/).pop() || p);
}

export function mimeTypeOf(languageId: string): string {
  const known: Record<string, string> = {
    python: 'text/x-python', go: 'text/x-go', typescript: 'text/x-typescript', javascript: 'text/javascript',
    json: 'application/json', markdown: 'text/markdown', rust: 'text/x-rust', plaintext: 'text/plain',
  };
  return known[languageId] ?? `text/x-${languageId}`;
}

let counter = 0;
function newId(prefix: string): string {
  counter += 1;
  return `${prefix}${Date.now().toString(36)}${counter}`;
}

/** A selection as an embedded resource, its URI naming the lines (#L8-L11). */
export function selectionAttachment(uri: string, languageId: string, span: Span, text: string): Attachment {
  const lines = span.startLine === span.endLine ? `L${span.startLine + 1}` : `L${span.startLine + 1}-L${span.endLine + 1}`;
  const label = `${baseName(uri)}:${span.startLine + 1}${span.endLine !== span.startLine ? `-${span.endLine + 1}` : ''}`;
  const block: ContentBlock = { type: 'resource', resource: { uri: `${uri}#${lines}`, mimeType: mimeTypeOf(languageId), text } };
  return { id: newId('sel'), label, block };
}

/**
 * The editor's own context for a prompt (docs/protocol.md, "Editor
 * context"): the active file, and its selection when there is one, as
 * blocks marked ambient. Their ids are stable ("ambient-open",
 * "ambient-selection") so a chip the user removed stays removed while it
 * is the same.
 */
export function ambientAttachments(uri: string, languageId: string, selection?: { span: Span; text: string }): Attachment[] {
  const out: Attachment[] = [];
  const name = baseName(uri);
  out.push({ id: 'ambient-open', label: name, block: { type: 'resource_link', uri, name, _meta: { 'agent-lsp': { ambient: 'open' } } } });
  if (selection && selection.text !== '') {
    const sel = selectionAttachment(uri, languageId, selection.span, selection.text);
    out.push({ id: 'ambient-selection', label: sel.label, block: { ...sel.block, _meta: { 'agent-lsp': { ambient: 'selection' } } } });
  }
  return out;
}

/** A whole file as a link the model may Read. */
export function fileAttachment(uri: string): Attachment {
  const name = baseName(uri);
  return { id: newId('file'), label: name, block: { type: 'resource_link', uri, name } };
}

/** Diagnostics as text, one per line: "calc.py:10:5: error: msg [source code]". */
export function formatDiagnostics(uri: string, diags: DiagnosticInfo[], lineText?: (line: number) => string): string {
  const name = baseName(uri);
  const out: string[] = [];
  for (const d of diags) {
    const tag = [d.source, d.code !== undefined ? String(d.code) : ''].filter(Boolean).join(' ');
    out.push(`${name}:${d.line + 1}:${d.character + 1}: ${d.severity}: ${d.message}${tag ? ` [${tag}]` : ''}`);
    const src = lineText?.(d.line);
    if (src !== undefined) out.push(`    ${src}`);
  }
  return out.join('\n');
}

/** Diagnostics at the cursor as an embedded resource; undefined when there are none. */
export function diagnosticsAttachment(uri: string, diags: DiagnosticInfo[], lineText?: (line: number) => string): Attachment | undefined {
  if (!diags.length) return undefined;
  const first = Math.min(...diags.map(d => d.line));
  const text = formatDiagnostics(uri, diags, lineText);
  const label = `${diags.length} diagnostic${diags.length === 1 ? '' : 's'} at ${baseName(uri)}:${first + 1}`;
  return { id: newId('diag'), label, block: { type: 'resource', resource: { uri: `${uri}#L${first + 1}`, mimeType: 'text/plain', text: `Diagnostics reported by the editor:\n${text}` } } };
}

/** A folder as a link the model may list and Read from ("src/"). */
export function folderAttachment(uri: string): Attachment {
  const name = `${baseName(uri.replace(/\/+$/, ''))}/`;
  return { id: newId('dir'), label: name, block: { type: 'resource_link', uri, name } };
}

/**
 * A line range typed in the mention picker: "calc.py:10", "calc.py:10-20"
 * or "calc.py#L10-L20" (1-based lines); undefined when the text is none.
 */
export function parseLineRange(text: string): { path: string; start: number; end: number } | undefined {
  const m = /^(.+?)(?::(\d+)(?:-(\d+))?|#L(\d+)(?:-L?(\d+))?)$/.exec(text.trim());
  if (!m) return undefined;
  const start = Number(m[2] ?? m[4]);
  const end = Number(m[3] ?? m[5] ?? start);
  if (!(start >= 1) || end < start) return undefined;
  return { path: m[1], start, end };
}

/** The folders that hold the given relative file paths, each once, sorted ("src/", "src/lib/"). */
export function foldersOf(paths: string[]): string[] {
  const out = new Set<string>();
  for (const p of paths) {
    const parts = p.split('/');
    for (let i = 1; i < parts.length; i++) out.add(`${parts.slice(0, i).join('/')}/`);
  }
  return [...out].sort();
}

/** The image types the model takes (docs/protocol.md, session/prompt). */
export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

/** The largest image the model takes. */
export const MAX_IMAGE_BYTES = 5 << 20;

/**
 * A pasted or dropped image as an image block, or why it cannot be sent
 * (a type the model does not take, too large).
 */
export function imageAttachment(name: string, mimeType: string, base64: string): Attachment | string {
  if (!IMAGE_TYPES.includes(mimeType)) return `${name}: the model takes PNG, JPEG, GIF and WebP images, not ${mimeType || 'this file'}`;
  const bytes = Math.floor(base64.length * 3 / 4);
  if (bytes > MAX_IMAGE_BYTES) return `${name}: ${Math.round(bytes / 1024)} KB is more than the model takes (5 MB)`;
  return { id: newId('img'), label: `${name} (${Math.max(1, Math.round(bytes / 1024))} KB)`, block: { type: 'image', mimeType, data: base64 } };
}

/**
 * An MCP resource as a mention: the text `@server:uri`, which the agent
 * finds in the prompt and attaches the resource for (docs/protocol.md, MCP
 * resources), as Claude Code does.
 */
export function mcpResourceAttachment(r: MCPResource): Attachment {
  return { id: newId('mcp'), label: `${r.server}:${r.uri}`, block: { type: 'text', text: `@${r.server}:${r.uri}` } };
}

/** The `@` picker's entry for an MCP resource: the mention, its name and its description. */
export function mcpResourcePick(r: MCPResource): { label: string; description?: string; detail?: string } {
  const name = r.name && r.name !== r.uri ? r.name : undefined;
  return { label: `$(plug) @${r.server}:${r.uri}`, description: name ?? (r.mimeType || undefined), detail: r.description || undefined };
}
