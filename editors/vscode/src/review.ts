// Review of a proposed edit in VS Code's diff editor: the left side is the
// file as the editor has it (its live buffer; an empty document for a new
// file), the right side the agent's proposal, held in memory by a small file
// system provider so the user can change it before allowing it. The text
// applied is then the right side as the user left it (`_meta.editedText`).
// A plan (ExitPlanMode) is reviewed the same way, alone, as markdown.

import * as vscode from 'vscode';
import type { DiffContent } from './protocol';

export const PROPOSAL_SCHEME = 'agent-lsp-proposal';
export const EMPTY_SCHEME = 'agent-lsp-empty';

/**
 * In-memory files: one per pending proposal, at the file's path relative to
 * the workspace with the request's id in the query (the breadcrumb and the
 * tab show the file, not the id).
 */
class ProposalFS implements vscode.FileSystemProvider {
  private files = new Map<string, { data: Uint8Array; mtime: number }>();
  private emitter = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.emitter.event;

  private static key(uri: vscode.Uri): string {
    return uri.query ? `${uri.path}?${uri.query}` : uri.path;
  }
  set(uri: vscode.Uri, text: string): void {
    this.files.set(ProposalFS.key(uri), { data: Buffer.from(text, 'utf8'), mtime: Date.now() });
  }
  text(uri: vscode.Uri): string | undefined {
    const f = this.files.get(ProposalFS.key(uri));
    return f ? Buffer.from(f.data).toString('utf8') : undefined;
  }
  delete(uri: vscode.Uri): void {
    this.files.delete(ProposalFS.key(uri));
  }

  watch(): vscode.Disposable { return new vscode.Disposable(() => undefined); }
  stat(uri: vscode.Uri): vscode.FileStat {
    const f = this.files.get(ProposalFS.key(uri));
    if (f) return { type: vscode.FileType.File, ctime: f.mtime, mtime: f.mtime, size: f.data.byteLength };
    if ([...this.files.keys()].some(k => k.startsWith(uri.path.replace(/\/?$/, '/')))) return { type: vscode.FileType.Directory, ctime: 0, mtime: 0, size: 0 };
    throw vscode.FileSystemError.FileNotFound(uri);
  }
  readDirectory(): [string, vscode.FileType][] { return []; }
  createDirectory(): void { /* proposals are flat */ }
  readFile(uri: vscode.Uri): Uint8Array {
    const f = this.files.get(ProposalFS.key(uri));
    if (!f) throw vscode.FileSystemError.FileNotFound(uri);
    return f.data;
  }
  writeFile(uri: vscode.Uri, content: Uint8Array): void {
    this.files.set(ProposalFS.key(uri), { data: content, mtime: Date.now() });
    this.emitter.fire([{ type: vscode.FileChangeType.Changed, uri }]);
  }
  rename(): void { throw vscode.FileSystemError.NoPermissions('proposals cannot be renamed'); }
}
export interface Review {
  id: string;
  /** The proposed edit; unset for a plan, reviewed alone as markdown. */
  diff?: DiffContent;
  proposal: vscode.Uri;
  original?: vscode.Uri;
}

export class EditReviews implements vscode.Disposable {
  private fs = new ProposalFS();
  private reviews = new Map<string, Review>();
  private disposables: vscode.Disposable[] = [];

  constructor() {
    this.disposables.push(
      vscode.workspace.registerFileSystemProvider(PROPOSAL_SCHEME, this.fs, { isCaseSensitive: true }),
      vscode.workspace.registerTextDocumentContentProvider(EMPTY_SCHEME, { provideTextDocumentContent: () => '' }),
    );
  }

  /** Opens (or re-opens) the diff editor for a proposal. */
  async open(id: string, diff: DiffContent): Promise<void> {
    let r = this.reviews.get(id);
    if (!r) {
      const name = diff.path.split(/[\\/]/).pop() || 'file';
      const rel = vscode.workspace.asRelativePath(diff.path, false).replace(/\\/g, '/').replace(/^\/+/, '') || name;
      const proposal = vscode.Uri.from({ scheme: PROPOSAL_SCHEME, path: `/${rel}`, query: `request=${encodeURIComponent(id)}` });
      const original = diff.oldText == null
        ? vscode.Uri.from({ scheme: EMPTY_SCHEME, path: `/${name}` })
        : vscode.Uri.file(diff.path);
      this.fs.set(proposal, diff.newText);
      r = { id, diff, proposal, original };
      this.reviews.set(id, r);
    }
    const name = r.proposal.path.split('/').pop();
    const label = diff.oldText == null ? `${name} (new file) ↔ agent's proposal` : `${name} ↔ agent's proposal (editable)`;
    await vscode.commands.executeCommand('vscode.diff', r.original, r.proposal, label, { preview: false });
  }

  /**
   * Opens (or re-opens) a plan for review: a markdown document the user
   * can change before approving it (the editor's title bar has the
   * request's Allow, Always allow or reject… and Reject, as for an edit).
   */
  async openPlan(id: string, plan: string): Promise<void> {
    let r = this.reviews.get(id);
    if (!r) {
      const proposal = vscode.Uri.from({ scheme: PROPOSAL_SCHEME, path: '/plan.md', query: `request=${encodeURIComponent(id)}` });
      this.fs.set(proposal, plan);
      r = { id, proposal };
      this.reviews.set(id, r);
    }
    await vscode.window.showTextDocument(r.proposal, { preview: false });
  }

  /** The pending review whose proposal is this URI (or shown in this editor). */
  idOf(uri: vscode.Uri | undefined): string | undefined {
    if (!uri) return undefined;
    for (const r of this.reviews.values()) {
      if (r.proposal.toString() === uri.toString()) return r.id;
    }
    return undefined;
  }

  has(id: string): boolean {
    return this.reviews.has(id);
  }

  /** The proposal as the user left it: the open document's text, unsaved changes included. */
  editedText(id: string): string | undefined {
    const r = this.reviews.get(id);
    if (!r) return undefined;
    const doc = vscode.workspace.textDocuments.find(d => d.uri.toString() === r.proposal.toString());
    return doc ? doc.getText() : this.fs.text(r.proposal);
  }

  /** Closes the review's diff editor (without a save prompt) and forgets it. */
  async close(id: string): Promise<void> {
    const r = this.reviews.get(id);
    if (!r) return;
    this.reviews.delete(id);
    const doc = vscode.workspace.textDocuments.find(d => d.uri.toString() === r.proposal.toString());
    if (doc?.isDirty) await doc.save(); // into memory: avoids the "save changes?" prompt
    const tabs: vscode.Tab[] = [];
    for (const g of vscode.window.tabGroups.all) {
      for (const t of g.tabs) {
        const input = t.input;
        if (input instanceof vscode.TabInputTextDiff && input.modified.toString() === r.proposal.toString()) tabs.push(t);
        else if (input instanceof vscode.TabInputText && input.uri.toString() === r.proposal.toString()) tabs.push(t);
      }
    }
    if (tabs.length) await vscode.window.tabGroups.close(tabs, true);
    this.fs.delete(r.proposal);
  }

  dispose(): void {
    this.disposables.forEach(d => d.dispose());
  }
}
