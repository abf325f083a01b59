// Pure helpers about LSP workspace edits (no `vscode` import).

import type { WorkspaceEdit } from 'vscode-languageserver-protocol';

/** The URIs (as sent) of the documents an LSP workspace edit touches. */
export function urisOfEdit(edit: WorkspaceEdit): string[] {
  const out = new Set<string>();
  for (const u of Object.keys(edit.changes ?? {})) out.add(u);
  for (const c of edit.documentChanges ?? []) {
    if ('textDocument' in c) out.add(c.textDocument.uri);
    else if (c.kind === 'create' || c.kind === 'delete') out.add(c.uri);
    else if (c.kind === 'rename') out.add(c.newUri);
  }
  return [...out];
}
