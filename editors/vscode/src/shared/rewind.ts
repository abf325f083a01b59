// The rewind confirmation's text (session/rewind with preview: true).
//
// No `vscode` imports: the unit tests run this in plain Node.

import type { RewindRestore, RewindResult } from '../protocol';

/** A path under the workspace folder, relative to it. */
export function relPath(root: string, p: string): string {
  return root && p.startsWith(root + '/') ? p.slice(root.length + 1) : p;
}

/** The rewind confirmation's text: the files it will change and the conflicts. */
export function rewindPreviewText(root: string, restore: RewindRestore, preview: RewindResult): string {
  const lines: string[] = [];
  if (restore !== 'conversation') {
    if (!preview.changes.length) lines.push('No file changes.');
    else {
      lines.push('Files it will change:');
      for (const c of preview.changes) lines.push(`  ${c.action === 'write' ? 'restore' : c.action === 'create' ? 'bring back' : 'delete'}  ${relPath(root, c.path)}`);
    }
  }
  if (restore !== 'code') lines.push('The conversation goes back to before this message.');
  const conflicts = preview.conflicts ?? [];
  if (conflicts.length) {
    lines.push('', 'Changed since by you or another program (the rewind overwrites them):');
    for (const p of conflicts) lines.push(`  ${relPath(root, p)}`);
  }
  return lines.join('\n');
}
