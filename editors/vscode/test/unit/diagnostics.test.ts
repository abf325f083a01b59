import * as assert from 'assert';
import { answerDiagnostics, DiagnosticsTracker } from '../../src/diagnostics';
import type { LspDiagnostic } from '../../src/protocol';

const err: LspDiagnostic = { range: { start: { line: 8, character: 13 }, end: { line: 8, character: 20 } }, severity: 1, message: 'cannot use x', source: 'compiler' };

describe('agent/diagnostics', () => {
  it('answers at once for a document no diagnostic source ever reported on', async () => {
    const t = new DiagnosticsTracker();
    t.documentChanged('/a.md', 2);
    assert.strictEqual(t.ready('/a.md', 2), true);
  });

  it('waits for diagnostics newer than the version asked for', async () => {
    const t = new DiagnosticsTracker();
    t.documentChanged('/a.go', 1);
    t.diagnosticsChanged('/a.go');
    assert.strictEqual(t.ready('/a.go', 1), true);
    t.documentChanged('/a.go', 2);
    assert.strictEqual(t.ready('/a.go', 2), false, 'diagnostics of version 1 do not answer for version 2');
    let current: LspDiagnostic[] = [];
    const answer = answerDiagnostics(t, { uriToKey: u => u.replace('file://', ''), getDiagnostics: () => current }, { uri: 'file:///a.go', version: 2, timeoutMs: 60_000 });
    current = [err];
    t.diagnosticsChanged('/a.go');
    assert.deepStrictEqual(await answer, [err]);
  });

  it('gives up after timeoutMs and answers with what it has', async () => {
    const t = new DiagnosticsTracker();
    t.diagnosticsChanged('/a.go');
    t.documentChanged('/a.go', 5);
    const got = await answerDiagnostics(t, { uriToKey: u => u.replace('file://', ''), getDiagnostics: () => [err] }, { uri: 'file:///a.go', version: 5, timeoutMs: 1 });
    assert.deepStrictEqual(got, [err]);
  });

  it('answers without waiting when no version is given', async () => {
    const t = new DiagnosticsTracker();
    t.diagnosticsChanged('/a.go');
    t.documentChanged('/a.go', 9);
    const got = await answerDiagnostics(t, { uriToKey: u => u, getDiagnostics: () => [] }, { uri: 'file:///a.go', timeoutMs: 60_000 });
    assert.deepStrictEqual(got, []);
  });
});
