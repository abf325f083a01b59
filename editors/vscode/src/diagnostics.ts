// agent/diagnostics: the editor's own diagnostics of a document, for the
// agent's edit results (docs/protocol.md, "agent/diagnostics").
//
// DiagnosticsTracker imports nothing at run time (the unit tests drive it):
// it remembers when each document reached each version and when its
// diagnostics last changed, and tells whether the diagnostics reflect a
// version. bindDiagnostics wires it to VS Code.

import type { AgentDiagnosticsParams, LspDiagnostic } from './protocol';

interface Waiter { key: string; version: number; resolve: () => void; timer: ReturnType<typeof setTimeout> }

export class DiagnosticsTracker {
  private seq = 0;
  /** key -> event number of the last diagnostics change. */
  private readonly diagnosed = new Map<string, number>();
  /** key -> [version, event number when the document reached it], the last few. */
  private readonly versions = new Map<string, [number, number][]>();
  private readonly waiters = new Set<Waiter>();

  documentChanged(key: string, version: number): void {
    const list = this.versions.get(key) ?? [];
    list.push([version, ++this.seq]);
    if (list.length > 16) list.shift();
    this.versions.set(key, list);
    this.wake(key);
  }

  documentClosed(key: string): void {
    this.versions.delete(key);
    this.diagnosed.delete(key);
  }

  diagnosticsChanged(key: string): void {
    this.diagnosed.set(key, ++this.seq);
    this.wake(key);
  }

  /**
   * Whether the diagnostics of key reflect version: they changed after the
   * document reached it, or no diagnostic source ever reported on it.
   */
  ready(key: string, version: number): boolean {
    const d = this.diagnosed.get(key);
    if (d === undefined) return true;
    const reached = (this.versions.get(key) ?? []).find(([v]) => v >= version);
    return reached !== undefined && d > reached[1];
  }

  /** Resolves when ready(key, version), or after timeoutMs. */
  wait(key: string, version: number, timeoutMs: number): Promise<void> {
    if (this.ready(key, version)) return Promise.resolve();
    return new Promise(resolve => {
      const w: Waiter = {
        key, version, resolve: () => { clearTimeout(w.timer); this.waiters.delete(w); resolve(); },
        timer: setTimeout(() => w.resolve(), Math.max(0, timeoutMs)),
      };
      this.waiters.add(w);
    });
  }

  dispose(): void {
    for (const w of [...this.waiters]) w.resolve();
  }

  private wake(key: string): void {
    for (const w of [...this.waiters]) if (w.key === key && this.ready(key, w.version)) w.resolve();
  }
}

/** The subset of vscode this module needs, so tests can fake it. */
export interface DiagnosticsHost {
  uriToKey(uri: string): string;
  /** The document's version now, if it is open. */
  currentVersion(uri: string): number | undefined;
  getDiagnostics(uri: string): LspDiagnostic[];
}

/** Answers agent/diagnostics. */
export async function answerDiagnostics(tracker: DiagnosticsTracker, host: DiagnosticsHost, p: AgentDiagnosticsParams): Promise<LspDiagnostic[]> {
  if (p.version !== undefined && p.version !== null) {
    // The edit is applied when the request arrives: wait for the text as it
    // is now, which may be past the version the agent knew of.
    const version = Math.max(p.version, host.currentVersion(p.uri) ?? p.version);
    await tracker.wait(host.uriToKey(p.uri), version, p.timeoutMs ?? 1500);
  }
  return host.getDiagnostics(p.uri);
}
