/**
 * A unified diff of two texts for approval cards and edit results. Common leading and trailing
 * lines are set aside first (an edit usually touches a few lines of a big file); what remains is
 * diffed with a longest-common-subsequence table, or shown as removed-then-added when too large.
 */

export interface UnifiedDiff {
  /** `---`/`+++` headers and `@@` hunks; empty when the texts are equal. */
  readonly text: string;
  readonly added: number;
  readonly removed: number;
}

type Op = { readonly kind: ' ' | '-' | '+'; readonly line: string };

/** Cells of the LCS table at most (about 8 MB); larger middles are shown as a block replacement. */
const MAX_TABLE_CELLS = 2_000_000;

function middleOps(a: readonly string[], b: readonly string[]): Op[] {
  const n = a.length;
  const m = b.length;
  if (n * m > MAX_TABLE_CELLS) {
    return [...a.map((line): Op => ({ kind: '-', line })), ...b.map((line): Op => ({ kind: '+', line }))];
  }
  // lcs[i * (m + 1) + j] = length of the LCS of a[i..] and b[j..].
  const width = m + 1;
  // Every cell read below is inside the table; `?? 0` only satisfies the type checker.
  const lcs = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * width + j] = a[i] === b[j] ? (lcs[(i + 1) * width + j + 1] ?? 0) + 1 : Math.max(lcs[(i + 1) * width + j] ?? 0, lcs[i * width + j + 1] ?? 0);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  for (;;) {
    const lineA = a[i];
    const lineB = b[j];
    if (lineA === undefined || lineB === undefined) break;
    if (lineA === lineB) {
      ops.push({ kind: ' ', line: lineA });
      i++;
      j++;
    } else if ((lcs[(i + 1) * width + j] ?? 0) >= (lcs[i * width + j + 1] ?? 0)) {
      ops.push({ kind: '-', line: lineA });
      i++;
    } else {
      ops.push({ kind: '+', line: lineB });
      j++;
    }
  }
  for (const line of a.slice(i)) ops.push({ kind: '-', line });
  for (const line of b.slice(j)) ops.push({ kind: '+', line });
  return ops;
}

const toLines = (text: string): string[] => (text === '' ? [] : text.replace(/\r\n/g, '\n').replace(/\n$/, '').split('\n'));

/** `before` undefined means the file is new. */
export function unifiedDiff(before: string | undefined, after: string, label: string, context = 3): UnifiedDiff {
  const a = toLines(before ?? '');
  const b = toLines(after);
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (suffix < a.length - prefix && suffix < b.length - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++;
  const ops: Op[] = [
    ...a.slice(0, prefix).map((line): Op => ({ kind: ' ', line })),
    ...middleOps(a.slice(prefix, a.length - suffix), b.slice(prefix, b.length - suffix)),
    ...a.slice(a.length - suffix).map((line): Op => ({ kind: ' ', line })),
  ];
  const added = ops.filter((op) => op.kind === '+').length;
  const removed = ops.filter((op) => op.kind === '-').length;
  if (added === 0 && removed === 0) return { text: '', added, removed };

  const hunks: string[] = [];
  let k = 0;
  // Line numbers (1-based) in a and b of ops[k].
  const lineA: number[] = [];
  const lineB: number[] = [];
  let la = 1;
  let lb = 1;
  for (const op of ops) {
    lineA.push(la);
    lineB.push(lb);
    if (op.kind !== '+') la++;
    if (op.kind !== '-') lb++;
  }
  while (k < ops.length) {
    while (k < ops.length && ops[k]?.kind === ' ') k++;
    if (k >= ops.length) break;
    const start = Math.max(0, k - context);
    let end = k;
    // Extend over changes separated by at most 2 * context unchanged lines.
    for (;;) {
      while (end < ops.length && ops[end]?.kind !== ' ') end++;
      let next = end;
      while (next < ops.length && ops[next]?.kind === ' ') next++;
      if (next < ops.length && next - end <= 2 * context) end = next;
      else break;
    }
    const stop = Math.min(ops.length, end + context);
    const slice = ops.slice(start, stop);
    const countA = slice.filter((op) => op.kind !== '+').length;
    const countB = slice.filter((op) => op.kind !== '-').length;
    // start < ops.length, and both tables have an entry per op; `?? 1` only satisfies the type checker.
    const firstA = lineA[start] ?? 1;
    const firstB = lineB[start] ?? 1;
    const startA = countA === 0 ? firstA - 1 : firstA;
    const startB = countB === 0 ? firstB - 1 : firstB;
    hunks.push(`@@ -${startA},${countA} +${startB},${countB} @@`, ...slice.map((op) => `${op.kind}${op.line}`));
    k = stop;
  }
  const header = [before === undefined ? '--- /dev/null' : `--- a/${label}`, `+++ b/${label}`];
  return { text: [...header, ...hunks].join('\n') + '\n', added, removed };
}

/** Cuts a diff for a tool result, keeping whole lines. */
export function clipDiff(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const cut = text.lastIndexOf('\n', maxChars);
  const kept = text.slice(0, cut > 0 ? cut + 1 : maxChars);
  const droppedLines = text.slice(kept.length).split('\n').length - 1;
  return `${kept}[... ${droppedLines} more diff lines ...]\n`;
}
