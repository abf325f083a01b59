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
    const answer = answerDiagnostics(t, { uriToKey: u => u.replace('file://', ''), currentVersion: () => 2, getDiagnostics: () => current }, { uri: 'file:///a.go', version: 2, timeoutMs: 60_000 });
    current = [err];
    t.diagnosticsChanged('/a.go');
    assert.deepStrictEqual(await answer, [err]);
  });

  it('waits for the version the editor has, past the one asked for', async () => {
    const t = new DiagnosticsTracker();
    t.diagnosticsChanged('/a.go');
    t.documentChanged('/a.go', 3);
    t.diagnosticsChanged('/a.go');
    t.documentChanged('/a.go', 4);
    let done = false;
    const answer = answerDiagnostics(t, { uriToKey: u => u.replace('file://', ''), currentVersion: () => 4, getDiagnostics: () => [err] }, { uri: 'file:///a.go', version: 3, timeoutMs: 60_000 })
      .then(r => { done = true; return r; });
    await new Promise(r => setTimeout(r, 5));
    assert.strictEqual(done, false, 'diagnostics of version 3 do not answer once the editor has version 4');
    t.diagnosticsChanged('/a.go');
    assert.deepStrictEqual(await answer, [err]);
  });

  it('gives up after timeoutMs and answers with what it has', async () => {
    const t = new DiagnosticsTracker();
    t.diagnosticsChanged('/a.go');
    t.documentChanged('/a.go', 5);
    const got = await answerDiagnostics(t, { uriToKey: u => u.replace('file://', ''), currentVersion: () => undefined, getDiagnostics: () => [err] }, { uri: 'file:///a.go', version: 5, timeoutMs: 1 });
    assert.deepStrictEqual(got, [err]);
  });

  it('answers without waiting when no version is given', async () => {
    const t = new DiagnosticsTracker();
    t.diagnosticsChanged('/a.go');
    t.documentChanged('/a.go', 9);
    const got = await answerDiagnostics(t, { uriToKey: u => u, currentVersion: () => 9, getDiagnostics: () => [] }, { uri: 'file:///a.go', timeoutMs: 60_000 });
    assert.deepStrictEqual(got, []);
  });
});
