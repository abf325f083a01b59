// A small line diff for showing an edit inside a tool row. The real review
// happens in VS Code's diff editor; this is the compact summary in the chat.

export type DiffLine = { op: ' ' | '-' | '+'; text: string } | { op: '@'; text: string };

/** Cells of the LCS table above which the diff is summarized instead. */
const MAX_CELLS = 250_000;

/**
 * Lines removed and added between two texts, with `context` unchanged
 * lines around each change; '@' lines stand for skipped unchanged runs.
 */
export function lineDiff(oldText: string, newText: string, context = 2): DiffLine[] {
  const a = oldText === '' ? [] : oldText.replace(/\n$/, '').split('\n');
  const b = newText === '' ? [] : newText.replace(/\n$/, '').split('\n');
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const am = a.slice(pre, a.length - suf);
  const bm = b.slice(pre, b.length - suf);

  const middle: DiffLine[] = [];
  if (am.length * bm.length > MAX_CELLS) {
    am.forEach(t => middle.push({ op: '-', text: t }));
    bm.forEach(t => middle.push({ op: '+', text: t }));
  } else {
    // LCS lengths from the end, then walk forward.
    const n = am.length, m = bm.length;
    const w = m + 1;
    const L = new Uint32Array((n + 1) * w);
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        L[i * w + j] = am[i] === bm[j] ? L[(i + 1) * w + j + 1] + 1 : Math.max(L[(i + 1) * w + j], L[i * w + j + 1]);
      }
    }
    let i = 0, j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && am[i] === bm[j]) { middle.push({ op: ' ', text: am[i] }); i++; j++; }
      else if (i < n && (j === m || L[(i + 1) * w + j] >= L[i * w + j + 1])) { middle.push({ op: '-', text: am[i] }); i++; }
      else { middle.push({ op: '+', text: bm[j] }); j++; }
    }
  }
  const all: DiffLine[] = [
    ...a.slice(0, pre).map(t => ({ op: ' ' as const, text: t })),
    ...middle,
    ...a.slice(a.length - suf).map(t => ({ op: ' ' as const, text: t })),
  ];
  // Keep only context lines near changes.
  const keep = new Array<boolean>(all.length).fill(false);
  all.forEach((l, k) => {
    if (l.op !== ' ') for (let d = -context; d <= context; d++) if (k + d >= 0 && k + d < all.length) keep[k + d] = true;
  });
  const out: DiffLine[] = [];
  let skipped = 0;
  all.forEach((l, k) => {
    if (keep[k]) {
      if (skipped) out.push({ op: '@', text: `${skipped} unchanged line${skipped === 1 ? '' : 's'}` });
      skipped = 0;
      out.push(l);
    } else skipped++;
  });
  if (skipped && out.length) out.push({ op: '@', text: `${skipped} unchanged line${skipped === 1 ? '' : 's'}` });
  return out;
}

/** "+3 −1" */
export function diffStat(lines: DiffLine[]): string {
  const add = lines.filter(l => l.op === '+').length;
  const del = lines.filter(l => l.op === '-').length;
  return `+${add} −${del}`;
}
