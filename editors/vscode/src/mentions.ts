// The `@` mention picker: typing `@` in the chat opens a quick pick of the
// workspace's files and folders (VS Code's fuzzy matching), the active
// selection, any line range typed as `path:10-20`, and the resources the
// session's MCP servers offer (`@server:uri`); the pick becomes an
// attachment chip of the next prompt (a file or folder link the model may
// Read, the lines themselves, or the mention the agent attaches the
// resource for).

import * as vscode from 'vscode';
import type { MCPResource } from './protocol';
import { fileAttachment, folderAttachment, foldersOf, mcpResourceAttachment, mcpResourcePick, parseLineRange, selectionAttachment, selectionSpan } from './shared/context';
import type { Attachment } from './shared/state';

/** How many workspace files the picker lists at most. */
const MAX_FILES = 5000;

type Item = vscode.QuickPickItem & { attach?: () => Promise<Attachment | undefined> };

/**
 * Opens the picker; resolves with the attachment chosen, if any.
 * resources lists the session's MCP resources ([] when it has none).
 */
export async function pickMention(resources: () => Promise<MCPResource[]> = async () => []): Promise<Attachment | undefined> {
  const qp = vscode.window.createQuickPick<Item>();
  qp.title = 'Mention a file, folder, lines or MCP resource';
  qp.placeholder = 'Type to filter; path:10-20 for lines';
  qp.matchOnDescription = true;
  qp.busy = true;
  const base: Item[] = [];
  const ed = vscode.window.activeTextEditor;
  if (ed && ed.document.uri.scheme === 'file' && !ed.selection.isEmpty) {
    const sel = ed.selection;
    const { endLine } = selectionSpan(sel.start, sel.end);
    const rel = vscode.workspace.asRelativePath(ed.document.uri, false);
    base.push({
      label: `$(selection) ${rel}:${sel.start.line + 1}-${endLine + 1}`, description: 'the selection',
      attach: async () => selectionAttachment(ed.document.uri.toString(), ed.document.languageId,
        { startLine: sel.start.line, endLine }, ed.document.getText(new vscode.Range(sel.start.line, 0, endLine, ed.document.lineAt(endLine).text.length))),
    });
  }
  qp.items = base;
  qp.show();
  const listed = resources().catch(() => [] as MCPResource[]);
  const files = await vscode.workspace.findFiles('**/*', undefined, MAX_FILES);
  const byRel = new Map(files.map(u => [vscode.workspace.asRelativePath(u, false), u]));
  const rels = [...byRel.keys()].sort();
  const folderItems: Item[] = foldersOf(rels).map(rel => ({
    label: `$(folder) ${rel}`,
    attach: async () => {
      const anyFile = byRel.get(rels.find(r => r.startsWith(rel))!)!;
      const root = vscode.workspace.getWorkspaceFolder(anyFile)?.uri ?? anyFile;
      return folderAttachment(vscode.Uri.joinPath(root, rel).toString());
    },
  }));
  const fileItems: Item[] = rels.map(rel => ({ label: `$(file) ${rel}`, attach: async () => fileAttachment(byRel.get(rel)!.toString()) }));
  const resourceItems: Item[] = (await listed).map(r => ({ ...mcpResourcePick(r), attach: async () => mcpResourceAttachment(r) }));
  const all = [...base, ...fileItems, ...folderItems, ...resourceItems];
  qp.items = all;
  qp.busy = false;
  qp.onDidChangeValue(value => {
    // A line range of a known file leads the list while it is typed.
    const r = parseLineRange(value);
    const uri = r && byRel.get(r.path.replace(/^\.\//, ''));
    if (!r || !uri) {
      qp.items = all;
      return;
    }
    qp.items = [{
      label: `$(list-flat) ${r.path}:${r.start}-${r.end}`, description: 'these lines', alwaysShow: true,
      attach: async () => {
        const doc = await vscode.workspace.openTextDocument(uri);
        const last = Math.min(r.end, doc.lineCount) - 1;
        if (r.start - 1 > last) return undefined;
        return selectionAttachment(uri.toString(), doc.languageId, { startLine: r.start - 1, endLine: last },
          doc.getText(new vscode.Range(r.start - 1, 0, last, doc.lineAt(last).text.length)));
      },
    }, ...all];
  });
  const chosen = await new Promise<Item | undefined>(resolve => {
    qp.onDidAccept(() => resolve(qp.selectedItems[0]));
    qp.onDidHide(() => resolve(undefined));
  });
  qp.dispose();
  return chosen?.attach?.();
}
