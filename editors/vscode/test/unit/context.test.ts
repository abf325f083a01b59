import * as assert from 'assert';
import { ambientAttachments, imageAttachment, diagnosticsAttachment, fileAttachment, folderAttachment, foldersOf, parseLineRange, formatDiagnostics, selectionAttachment } from '../../src/shared/context';
import { urisOfEdit } from '../../src/shared/edits';
import { isFromWebview } from '../../src/shared/messages';

describe('prompt context', () => {
  it('embeds a selection with its line range in the URI, as docs/protocol.md shows', () => {
    const a = selectionAttachment('file:///p/calc.py', 'python', { startLine: 7, endLine: 10 }, 'def average(values):\n    return total(values) / 2');
    assert.strictEqual(a.label, 'calc.py:8-11');
    assert.deepStrictEqual(a.block, { type: 'resource', resource: { uri: 'file:///p/calc.py#L8-L11', mimeType: 'text/x-python', text: 'def average(values):\n    return total(values) / 2' } });
    assert.strictEqual(selectionAttachment('file:///p/a.go', 'go', { startLine: 0, endLine: 0 }, 'x').block.type, 'resource');
  });

  it('marks the editor\'s own context as ambient: the open file, and the selection when there is one', () => {
    const uri = 'file:///w/calc.py';
    const [open, sel] = ambientAttachments(uri, 'python', { span: { startLine: 2, endLine: 3 }, text: 'x = 1\ny = 2' });
    assert.deepStrictEqual(open, { id: 'ambient-open', label: 'calc.py', block: { type: 'resource_link', uri, name: 'calc.py', _meta: { 'agent-lsp': { ambient: 'open' } } } });
    assert.strictEqual(sel.id, 'ambient-selection');
    assert.strictEqual(sel.label, 'calc.py:3-4');
    assert.deepStrictEqual(sel.block, { type: 'resource', resource: { uri: `${uri}#L3-L4`, mimeType: 'text/x-python', text: 'x = 1\ny = 2' }, _meta: { 'agent-lsp': { ambient: 'selection' } } });
    assert.strictEqual(ambientAttachments(uri, 'python').length, 1, 'no selection, no selection chip');
    assert.strictEqual(ambientAttachments(uri, 'python', { span: { startLine: 0, endLine: 0 }, text: '' }).length, 1, 'an empty selection is none');
  });

  it('reads a line range typed in the mention picker', () => {
    assert.deepStrictEqual(parseLineRange('src/calc.py:10-20'), { path: 'src/calc.py', start: 10, end: 20 });
    assert.deepStrictEqual(parseLineRange('calc.py:7'), { path: 'calc.py', start: 7, end: 7 });
    assert.deepStrictEqual(parseLineRange('calc.py#L3-L4'), { path: 'calc.py', start: 3, end: 4 });
    for (const bad of ['calc.py', 'calc.py:0', 'calc.py:9-3', ':5', 'calc.py:x']) assert.strictEqual(parseLineRange(bad), undefined, bad);
  });

  it('lists the folders of the workspace files and links a folder', () => {
    assert.deepStrictEqual(foldersOf(['a.txt', 'src/b.go', 'src/lib/c.go']), ['src/', 'src/lib/']);
    const f = folderAttachment('file:///w/src/lib');
    assert.strictEqual(f.label, 'lib/');
    assert.deepStrictEqual(f.block, { type: 'resource_link', uri: 'file:///w/src/lib', name: 'lib/' });
  });

  it('attaches a pasted image the model takes, and says why not otherwise', () => {
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
    const a = imageAttachment('shot.png', 'image/png', png);
    assert.ok(typeof a !== 'string');
    assert.strictEqual(a.label, 'shot.png (1 KB)');
    assert.deepStrictEqual(a.block, { type: 'image', mimeType: 'image/png', data: png });
    assert.match(imageAttachment('x.bmp', 'image/bmp', png) as string, /PNG, JPEG, GIF and WebP.*image\/bmp/);
    assert.match(imageAttachment('big.png', 'image/png', 'A'.repeat(8 << 20)) as string, /more than the model takes/);
  });

  it('links a file for the model to Read', () => {
    const a = fileAttachment('file:///p/My%20Notes.md');
    assert.strictEqual(a.label, 'My Notes.md');
    assert.deepStrictEqual(a.block, { type: 'resource_link', uri: 'file:///p/My%20Notes.md', name: 'My Notes.md' });
  });

  it('formats diagnostics at the cursor with their source line', () => {
    const diags = [{ line: 9, character: 4, severity: 'error' as const, message: 'undefined: tota', source: 'compiler', code: 'UndeclaredName' }];
    assert.strictEqual(formatDiagnostics('file:///p/main.go', diags, () => 'x := tota(v)'),
      'main.go:10:5: error: undefined: tota [compiler UndeclaredName]\n    x := tota(v)');
    const a = diagnosticsAttachment('file:///p/main.go', diags);
    assert.ok(a);
    assert.strictEqual(a.label, '1 diagnostic at main.go:10');
    assert.ok(a.block.type === 'resource' && a.block.resource.uri === 'file:///p/main.go#L10');
    assert.strictEqual(diagnosticsAttachment('file:///p/main.go', []), undefined);
  });
});

describe('workspace edits', () => {
  it('lists the documents an edit touches, so clean ones are saved after it', () => {
    assert.deepStrictEqual(urisOfEdit({
      changes: { 'file:///p/a.py': [] },
      documentChanges: [
        { textDocument: { uri: 'file:///p/b.py', version: 3 }, edits: [] },
        { kind: 'create', uri: 'file:///p/new.py' },
        { textDocument: { uri: 'file:///p/b.py', version: null }, edits: [] },
      ],
    }), ['file:///p/a.py', 'file:///p/b.py', 'file:///p/new.py']);
  });
});

describe('webview messages', () => {
  it('accepts well-formed messages and refuses the rest', () => {
    assert.ok(isFromWebview({ type: 'prompt', text: 'hi' }));
    assert.ok(isFromWebview({ type: 'permission', id: 'perm1', optionId: 'allow_once' }));
    assert.ok(isFromWebview({ type: 'openLocation', path: '/p/a.py', line: 3 }));
    assert.ok(!isFromWebview({ type: 'prompt' }));
    assert.ok(!isFromWebview({ type: 'permission', id: 1, optionId: 'x' }));
    assert.ok(!isFromWebview({ type: 'rm -rf' }));
    assert.ok(!isFromWebview(null));
  });
});
