import * as assert from 'assert';
import type { PermissionItem, ToolItem } from '../../src/shared/state';
import { diffStat, lineDiff } from '../../webview/linediff';
import { renderInline, renderMarkdown } from '../../webview/markdown';
import { relativize, renderItem } from '../../webview/render';

describe('webview rendering', () => {
  it('renders markdown with highlighted code blocks', () => {
    const html = renderMarkdown('Use **this**:\n\n```python\ndef f(x):\n    return x\n```\n');
    assert.match(html, /<strong>this<\/strong>/);
    assert.match(html, /<pre class="code" style="tab-size:4"><code class="hljs language-python">/);
    assert.match(html, /<span class="hljs-keyword">def<\/span>/);
  });

  it('never passes the model\'s HTML through', () => {
    const html = renderItem({ kind: 'agent', id: 'a1', text: '<img src=x onerror=alert(1)> <script>alert(1)</script>' });
    assert.ok(!/<img|<script/i.test(html), html);
    assert.match(html, /&lt;script&gt;/);
    const user = renderItem({ kind: 'user', id: 'u1', text: '<b>hi</b>', attachments: ['a<b>.py'] });
    assert.ok(!user.includes('<b>hi'), user);
  });

  it('marks links so the click handler can open them', () => {
    assert.match(renderMarkdown('[calc](file:///p/calc.py)'), /<a href="file:\/\/\/p\/calc.py" data-link="1">/);
  });

  it('renders thinking collapsed unless opened', () => {
    const item = { kind: 'thought' as const, id: 't1', text: 'pondering' };
    assert.match(renderItem(item), /^<details class="thought"><summary>Thinking<\/summary>/);
    assert.match(renderItem(item, { open: true }), /^<details class="thought" open>/);
  });

  it('indents a subagent\'s tool call under its Agent call', () => {
    const child: ToolItem = { kind: 'tool', id: 'tool:c1', call: { toolCallId: 'c1', title: 'Read a.txt', kind: 'read', status: 'completed', _meta: { 'agent-lsp': { parentToolCallId: 'a1', agent: 'general-purpose' } } } };
    assert.match(renderItem(child), /^<details class="tool status-completed kind-read nested"/);
    const top: ToolItem = { kind: 'tool', id: 'tool:a1', call: { toolCallId: 'a1', title: 'general-purpose: look', kind: 'think', status: 'in_progress' } };
    assert.doesNotMatch(renderItem(top), /nested/);
  });

  it('renders a tool call as a collapsible row with its status, command and diff', () => {
    const item: ToolItem = { kind: 'tool', id: 'tool:t1', call: {
      toolCallId: 't1', title: 'Edit /ws/calc.py', kind: 'edit', status: 'in_progress',
      locations: [{ path: '/ws/calc.py', line: 9 }],
      content: [{ type: 'diff', path: '/ws/calc.py', oldText: 'a\nb\nc\n', newText: 'a\nB\nc\n' }],
    } };
    const html = renderItem(item, { root: '/ws' });
    assert.match(html, /^<details class="tool status-in_progress kind-edit">/);
    assert.match(html, /<span class="ttitle" title="Edit \/ws\/calc.py">Edit calc.py<\/span>/);
    assert.match(html, /<span class="tstatus" data-status="in_progress">running<\/span>/);
    assert.ok(!html.includes('calc.py:10'), 'a location that has its diff is not repeated');
    const read = renderItem({ kind: 'tool', id: 'tool:t3', call: { toolCallId: 't3', title: 'Read', kind: 'read', locations: [{ path: '/ws/a.py', line: 9 }] } });
    assert.match(read, /data-path="\/ws\/a.py" data-line="9" title="\/ws\/a.py">a.py:10</);
    assert.match(html, /<div class="dl del"><span class="sign">-<\/span>b<\/div>/);
    assert.match(html, /<div class="dl add"><span class="sign">\+<\/span>B<\/div>/);
    assert.match(html, /\+1 −1/);
    const bash = renderItem({ kind: 'tool', id: 'tool:t2', call: { toolCallId: 't2', title: 'Bash', kind: 'execute', status: 'failed', rawInput: { command: 'ls -la' } } });
    assert.match(bash, /status-failed/);
    assert.match(bash, /<pre class="code cmd">/);
    assert.match(bash, />failed</);
  });

  it('renders the plan as a checklist', () => {
    const html = renderItem({ kind: 'plan', id: 'p1', entries: [
      { content: 'Read', priority: 'high', status: 'completed' },
      { content: 'Fix', priority: 'high', status: 'in_progress' },
    ] });
    assert.match(html, /Plan <span class="muted">1\/2<\/span>/);
    assert.match(html, /<li class="plan-completed"><input type="checkbox" disabled checked> <span>Read<\/span><\/li>/);
    assert.match(html, /<li class="plan-in_progress"><input type="checkbox" disabled> <span>Fix<\/span><\/li>/);
  });

  it('renders a pending permission with one button per option, and a review button for edits', () => {
    const item: PermissionItem = {
      kind: 'permission', id: 'perm1', toolCallId: 't1', title: 'Bash', toolKind: 'execute', detail: 'rm -rf build', state: 'pending',
      options: [{ optionId: 'allow_once', name: 'Allow', kind: 'allow_once' }, { optionId: 'reject_once', name: 'Reject', kind: 'reject_once' }],
    };
    const html = renderItem(item);
    assert.match(html, /data-action="permission" data-id="perm1" data-option="allow_once"/);
    assert.match(html, /data-option="reject_once"/);
    assert.match(html.replace(/<[^>]+>/g, ''), /rm -rf build/);
    assert.ok(!html.includes('Review diff'));
    assert.match(renderItem({ ...item, review: 'diff', toolKind: 'edit' }), /data-action="review" data-id="perm1">Review diff/);
    const done = renderItem({ ...item, state: 'allowed', chosen: 'allow_once', edited: true });
    assert.match(done, /Allowed: Bash <span class="muted">\(with your changes\)<\/span>/);
    assert.ok(!done.includes('<button'));
  });

  it('shows a message\'s images as thumbnails, and only well-formed image data', () => {
    const html = renderItem({ kind: 'user', id: 'u1', text: 'what is this?', attachments: [], images: ['data:image/png;base64,AAAA', 'javascript:alert(1)', 'data:image/svg+xml;base64,AAAA'] });
    assert.strictEqual((html.match(/<img class="thumb"/g) ?? []).length, 1);
    assert.match(html, /src="data:image\/png;base64,AAAA"/);
  });

  it('renders a plan to approve with an "Open plan" button and says the plan can be changed', () => {
    const item: PermissionItem = {
      kind: 'permission', id: 'perm9', toolCallId: 't9', title: 'Ready to code?', toolKind: 'switch_mode', state: 'pending', review: 'plan',
      content: ['1. Add the flag.\n2. Test it.'],
      options: [
        { optionId: 'acceptEdits', name: 'Yes, and auto-accept edits', kind: 'allow_always' },
        { optionId: 'default', name: 'Yes, and manually approve edits', kind: 'allow_once' },
        { optionId: 'plan', name: 'No, keep planning', kind: 'reject_once' },
      ],
    };
    const html = renderItem(item);
    assert.match(html, /data-action="review" data-id="perm9">Open plan/);
    assert.match(html, /The plan is open in an editor/);
    assert.match(html, /<ol>/, 'the plan is rendered as markdown');
    assert.match(html, /class="perm-btn primary"[^>]*data-option="default"/);
    assert.ok(!html.includes('Review diff'));
  });

  it('shows the request\'s content instead of the raw command, and every option with one primary', () => {
    const item: PermissionItem = {
      kind: 'permission', id: 'perm3', toolCallId: 't3', title: 'Run `make …` (+1 line)', toolKind: 'execute',
      detail: 'make\nrm -rf ~', content: ['```sh\nmake\nrm -rf ~ \\u202e\n```', '**Allow** runs it in the write sandbox'], state: 'pending',
      options: [
        { optionId: 'allow_once', name: 'Allow', kind: 'allow_once' },
        { optionId: 'allow_outside', name: 'Run outside the sandbox', kind: 'allow_once' },
        { optionId: 'reject_once', name: 'Reject', kind: 'reject_once' },
      ],
    };
    const html = renderItem(item);
    assert.match(html.replace(/<[^>]+>/g, ''), /make\nrm -rf ~ \\u202e/);
    assert.match(html, /<strong>Allow<\/strong> runs it in the write sandbox/);
    assert.ok(!html.includes('<pre class="code cmd">'), 'the content replaces the raw command');
    assert.match(html, /data-option="allow_outside" data-kind="allow_once">Run outside the sandbox<\/button>/);
    assert.equal(html.match(/perm-btn primary/g)?.length, 1);
  });

  it('names the action with the option names as labels, the rule as tooltip and the model\'s description as secondary text', () => {
    const item: PermissionItem = {
      kind: 'permission', id: 'perm2', toolCallId: 't2', title: 'Run `go test ./...`', description: 'Run the Go tests', toolKind: 'execute',
      detail: 'go test ./...', state: 'pending',
      options: [
        { optionId: 'allow_once', name: 'Allow', kind: 'allow_once' },
        { optionId: 'allow_always', name: 'Always allow `go test …` commands', kind: 'allow_always', _meta: { 'agent-lsp': { rule: 'Bash(go test:*)' } } },
        { optionId: 'reject_once', name: 'Reject', kind: 'reject_once' },
      ],
    };
    const html = renderItem(item);
    assert.match(html, /<div class="perm-title">Run <code>go test \.\/\.\.\.<\/code><\/div>/);
    assert.match(html, /<div class="perm-desc muted">Run the Go tests<\/div>/);
    assert.ok(!html.includes('<pre class="code cmd">'), 'the title already shows the command');
    assert.match(html, /title="“go test …” commands will run without asking in this folder \(saved to its local settings as Bash\(go test:\*\)\)">Always allow <code>go test …<\/code> commands<\/button>/);
    assert.doesNotMatch(html, /Allow <b>|\?<\/div>/, 'no "Allow … ?" around the title');
    // An older agent's title (the description) keeps the command visible.
    assert.match(renderItem({ ...item, title: 'Run the Go tests', description: undefined }), /<pre class="code cmd">/);
    const done = renderItem({ ...item, state: 'allowed', chosen: 'allow_always' });
    assert.match(done, /Allowed: Run <code>go test \.\/\.\.\.<\/code> <span class="muted">· Always allow <code>go test …<\/code> commands<\/span>/);
    assert.match(done, /title="“go test …” commands will run without asking in this folder/);
    // Replayed: no options, the recorded name.
    const replayed = renderItem({ ...item, options: [], state: 'rejected', chosen: 'reject_once', chosenName: 'Reject' });
    assert.match(replayed, /perm-rejected">Rejected: Run <code>/);
  });

  it('renders tool text as markdown: one console block, no literal fences, no links made of file names', () => {
    const bash: ToolItem = { kind: 'tool', id: 'tool:b', call: {
      toolCallId: 'b', title: 'Run `go test ./...`', kind: 'execute', status: 'completed', rawInput: { command: 'go test ./...' },
      content: [{ type: 'content', content: { type: 'text', text: '```console\n$ go test ./...\nok  \tcalc\t0.01s (calc.go)\n```' } }],
      _meta: { 'agent-lsp': { description: 'Run the Go tests' } },
    } };
    const html = renderItem(bash);
    assert.match(html, /<div class="output md"><div class="codeblock"><div class="code-head"><span class="code-lang">console<\/span><button class="copy-btn" data-action="copyCode"[^>]*>Copy<\/button><\/div><pre class="code" style="tab-size:4"><code class="hljs language-console">/, 'the language and a Copy button above the block');
    assert.ok(!html.includes('```'), html);
    assert.ok(!/<a /.test(html), 'calc.go is not a link to a web site: ' + html);
    assert.ok(!html.includes('class="code cmd"'), 'the command shows once, in the output block');
    assert.match(html, /<div class="tdesc muted">Run the Go tests<\/div>/);
    assert.match(renderMarkdown('see calc.go and https://example.com'), /calc.go and <a href="https:\/\/example.com"/);
    // The directory a command ran in: not shown when it is the workspace.
    const inWs = renderItem({ ...bash, call: { ...bash.call, locations: [{ path: '/ws' }] } }, { root: '/ws' });
    assert.ok(!inWs.includes('class="locs"'), inWs);
    assert.match(renderItem({ ...bash, call: { ...bash.call, locations: [{ path: '/ws/sub' }] } }, { root: '/ws' }), /<span class="muted">in <\/span><a [^>]*>sub<\/a>/);
    // An older agent's bare output stays preformatted.
    const old = renderItem({ ...bash, call: { ...bash.call, content: [{ type: 'content', content: { type: 'text', text: 'ok  \tcalc\t0.01s' } }] } });
    assert.match(old, /<pre class="output">ok  \tcalc\t0.01s<\/pre>/);
  });

  it('renders only code spans in titles and labels', () => {
    assert.strictEqual(renderInline('Run `go test ./...`'), 'Run <code>go test ./...</code>');
    assert.strictEqual(renderInline('Find **/*.go in <src>'), 'Find **/*.go in &lt;src&gt;');
    assert.strictEqual(renderInline('Run `` echo `date` ``'), 'Run <code>echo `date`</code>');
    assert.strictEqual(renderInline('a ` lone tick'), 'a ` lone tick');
  });

  it('gives code blocks the editor\'s tab width for their language', () => {
    assert.match(renderMarkdown('```go\nfunc f() {\n\treturn\n}\n```', { go: 2, '': 8 }), /style="tab-size:2"><code class="hljs language-go">.*\t<span class="hljs-keyword">return<\/span>/s);
    assert.match(renderMarkdown('```\nx\n```', { go: 2, '': 8 }), /tab-size:8/);
    assert.match(renderMarkdown('```sh\nls\n```', { shellscript: 3 }), /tab-size:3/);
  });

  it('shows paths under the workspace relative', () => {
    assert.strictEqual(relativize('Edit /ws/a/b.py and /other/c.py', '/ws'), 'Edit a/b.py and /other/c.py');
    assert.strictEqual(relativize('x', undefined), 'x');
  });
});

describe('line diff', () => {
  it('keeps context around changes and folds the rest', () => {
    const old = Array.from({ length: 20 }, (_, i) => `line ${i}`).join('\n') + '\n';
    const neu = old.replace('line 10\n', 'line ten\n');
    const d = lineDiff(old, neu, 1);
    assert.deepStrictEqual(d.map(l => l.op + l.text), ['@9 unchanged lines', ' line 9', '-line 10', '+line ten', ' line 11', '@8 unchanged lines']);
    assert.strictEqual(diffStat(d), '+1 −1');
  });
  it('shows a new file as additions', () => {
    assert.deepStrictEqual(lineDiff('', 'a\nb\n').map(l => l.op), ['+', '+']);
  });
});
