// workspace/applyEdit from the agent: languageclient applies it to the
// editor's buffers (undoable there); this middleware then saves the files that
// had no unsaved changes before the edit, so builds and tests the agent runs
// see them, and never saves a file holding the user's unsaved work
// (docs/protocol.md, "workspace/applyEdit").

import * as vscode from 'vscode';
import type { ApplyWorkspaceEditParams, ApplyWorkspaceEditResult } from 'vscode-languageclient';
import { urisOfEdit } from './shared/edits';

type Next = (params: ApplyWorkspaceEditParams) => Thenable<ApplyWorkspaceEditResult> | ApplyWorkspaceEditResult | Promise<ApplyWorkspaceEditResult>;

export interface EditLogger { info(msg: string): void; warn(msg: string): void }

function openDocument(uri: string): vscode.TextDocument | undefined {
  const key = vscode.Uri.parse(uri).toString();
  return vscode.workspace.textDocuments.find(d => d.uri.toString() === key);
}

/** The applyEdit middleware: apply, then save what was clean before. */
export async function applyEditAndSave(params: ApplyWorkspaceEditParams, next: Next, log?: EditLogger): Promise<ApplyWorkspaceEditResult> {
  const uris = urisOfEdit(params.edit);
  const wasDirty = new Map(uris.map(u => [u, openDocument(u)?.isDirty ?? false]));
  const res = await next(params);
  if (!res || !res.applied) {
    return {
      applied: false,
      failureReason: res?.failureReason ?? 'the editor refused the edit: the document changed since the agent read it, or it could not be opened',
    };
  }
  for (const u of uris) {
    const doc = openDocument(u);
    if (!doc || !doc.isDirty) continue;
    if (wasDirty.get(u)) {
      log?.info(`applied ${params.label ?? 'agent edit'} to ${doc.uri.fsPath}; left unsaved (it had unsaved changes before)`);
      continue;
    }
    if (!(await doc.save())) log?.warn(`could not save ${doc.uri.fsPath} after the agent's edit`);
  }
  return res;
}
