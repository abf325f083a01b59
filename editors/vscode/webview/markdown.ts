// Markdown to HTML for the chat: markdown-it with raw HTML off (the model's
// text never becomes markup), code blocks highlighted by highlight.js with a
// small set of languages to keep the bundle small.

import MarkdownIt from 'markdown-it';
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import csharp from 'highlight.js/lib/languages/csharp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import lua from 'highlight.js/lib/languages/lua';
import markdown from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import ruby from 'highlight.js/lib/languages/ruby';
import rust from 'highlight.js/lib/languages/rust';
import shell from 'highlight.js/lib/languages/shell';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';

const languages: Record<string, Parameters<typeof hljs.registerLanguage>[1]> = {
  bash, c, cpp, csharp, css, diff, go, java, javascript, json, lua, markdown, python, ruby, rust, shell, sql, typescript, xml, yaml,
};
for (const [name, lang] of Object.entries(languages)) hljs.registerLanguage(name, lang);

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, ch => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);
}

/** Highlights code in a language highlight.js knows (by name or alias); else escapes it. */
export function highlight(code: string, lang: string): string {
  const name = lang.trim().split(/\s+/)[0]?.toLowerCase() ?? '';
  if (name && hljs.getLanguage(name)) {
    try {
      return hljs.highlight(code, { language: name, ignoreIllegals: true }).value;
    } catch {
      // fall through to plain text
    }
  }
  return escapeHtml(code);
}

/** The highlight.js language for a file name, from its extension. */
export function languageOfPath(path: string): string {
  const ext = /\.([^./\\]+)$/.exec(path)?.[1]?.toLowerCase() ?? '';
  const map: Record<string, string> = {
    py: 'python', go: 'go', rs: 'rust', ts: 'typescript', tsx: 'typescript', js: 'javascript', jsx: 'javascript',
    mjs: 'javascript', cjs: 'javascript', json: 'json', sh: 'bash', bash: 'bash', c: 'c', h: 'c', cc: 'cpp',
    cpp: 'cpp', hpp: 'cpp', cs: 'csharp', java: 'java', rb: 'ruby', lua: 'lua', md: 'markdown', css: 'css',
    html: 'xml', xml: 'xml', yml: 'yaml', yaml: 'yaml', sql: 'sql',
  };
  return map[ext] ?? '';
}

/** editor.tabSize by VS Code language id, "" for the default. */
export type TabSizes = Record<string, number>;

/** VS Code's language id for a code block's language name (by highlight.js name or alias). */
export function vscodeLanguage(lang: string): string {
  const name = hljs.getLanguage(lang)?.name?.toLowerCase() ?? lang;
  const ids: Record<string, string> = {
    bash: 'shellscript', shell: 'shellscript', sh: 'shellscript', console: 'shellscript', zsh: 'shellscript',
    'shell session': 'shellscript', 'c#': 'csharp', 'c++': 'cpp', html: 'html', 'html, xml': 'html', xml: 'xml',
    js: 'javascript', ts: 'typescript', py: 'python', golang: 'go', rs: 'rust', yml: 'yaml',
  };
  return ids[lang] ?? ids[name] ?? lang;
}

/** The tab width for a code block: the editor's for the language, else its default, else 4. */
export function tabSizeFor(lang: string, sizes: TabSizes | undefined): number {
  const n = sizes?.[vscodeLanguage(lang)] ?? sizes?.[''];
  return typeof n === 'number' && n > 0 && n <= 16 ? Math.floor(n) : 4;
}

/** A highlighted code block; tabs as wide as the editor's; its language and a copy button above it. */
export function codeBlock(code: string, lang: string, sizes?: TabSizes): string {
  const name = lang.trim().split(/\s+/)[0]?.toLowerCase() ?? '';
  const cls = name && hljs.getLanguage(name) ? ` language-${escapeHtml(name)}` : '';
  const head = `<div class="code-head"><span class="code-lang">${escapeHtml(name)}</span><button class="copy-btn" data-action="copyCode" title="Copy the code">Copy</button></div>`;
  return `<div class="codeblock">${head}<pre class="code" style="tab-size:${tabSizeFor(name, sizes)}"><code class="hljs${cls}">${highlight(code, name)}</code></pre></div>`;
}

const md: MarkdownIt = new MarkdownIt({
  html: false,
  linkify: true,
  breaks: false,
});

// Only links with a scheme or www.: file names like calc.go and calc.py
// end in top-level domains, and would become links to web sites.
md.linkify.set({ fuzzyLink: false, fuzzyEmail: false });

// Code blocks: highlighted, with the editor's tab width (markdown-it's
// highlight option has no access to the render env, the fence rule does).
md.renderer.rules.fence = (tokens, idx, _options, env: { tabSizes?: TabSizes } | undefined) => {
  const t = tokens[idx];
  return codeBlock(t.content, md.utils.unescapeAll(t.info).trim(), env?.tabSizes);
};
md.renderer.rules.code_block = (tokens, idx, _options, env: { tabSizes?: TabSizes } | undefined) =>
  codeBlock(tokens[idx].content, '', env?.tabSizes);

// markdown-it refuses file: links; the agent names files with them. Script
// and data URLs stay refused.
md.validateLink = url => !/^\s*(javascript|vbscript|data):/i.test(url);

// Links open through the extension (files in the editor, web pages in the
// browser); mark them so the click handler can find them.
const defaultLinkOpen = md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  tokens[idx].attrSet('data-link', '1');
  return defaultLinkOpen(tokens, idx, options, env, self);
};

export function renderMarkdown(text: string, tabSizes?: TabSizes): string {
  return md.render(text, { tabSizes });
}

/**
 * A title or label with its code spans rendered ("Run `go test ./...`") and
 * every other character literal: a Glob title's "**\/*.go" is not bold.
 * A span opens and closes with backtick runs of the same length, as in
 * CommonMark; one space of padding on each side is dropped.
 */
export function renderInline(text: string): string {
  let out = '';
  let i = 0;
  const re = /(`+)([\s\S]*?[^`])\1(?!`)/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m.index > 0 && text[m.index - 1] === '`') continue;
    out += escapeHtml(text.slice(i, m.index));
    let code = m[2];
    if (code.length > 2 && code.startsWith(' ') && code.endsWith(' ') && code.trim()) code = code.slice(1, -1);
    out += `<code>${escapeHtml(code)}</code>`;
    i = m.index + m[0].length;
  }
  return out + escapeHtml(text.slice(i));
}
