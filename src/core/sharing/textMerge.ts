/**
 * A two-way merge of a locally edited file and its upstream version. The lock keeps a hash, not the
 * version both started from, so a changed region cannot be attributed to one side: the lines both
 * share are kept and every region where they differ becomes a conflict block, as git writes them.
 */

export const MARKER_MINE = '<<<<<<< mine (local)';
export const MARKER_SPLIT = '=======';
export const MARKER_THEIRS = '>>>>>>> theirs (upstream)';

/** Lines with their terminators, so the merge gives back the bytes it was given where nothing differs. */
function linesOf(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

const MAX_CELLS = 4_000_000;

/** Pairs of indexes (i in a, j in b) of a longest common subsequence of lines. */
function commonLines(a: readonly string[], b: readonly string[]): [number, number][] {
  const n = a.length;
  const m = b.length;
  if (n * m > MAX_CELLS) return [];
  const width = m + 1;
  const table = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i * width + j] = a[i] === b[j] ? (table[(i + 1) * width + j + 1] ?? 0) + 1 : Math.max(table[(i + 1) * width + j] ?? 0, table[i * width + j + 1] ?? 0);
    }
  }
  const pairs: [number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      pairs.push([i, j]);
      i++;
      j++;
    } else if ((table[(i + 1) * width + j] ?? 0) >= (table[i * width + j + 1] ?? 0)) i++;
    else j++;
  }
  return pairs;
}

function block(mine: readonly string[], theirs: readonly string[]): string {
  const side = (lines: readonly string[]): string => {
    const text = lines.join('');
    return text === '' || text.endsWith('\n') ? text : `${text}\n`;
  };
  return `${MARKER_MINE}\n${side(mine)}${MARKER_SPLIT}\n${side(theirs)}${MARKER_THEIRS}\n`;
}

/** The merged text and how many conflict blocks it has (0 when the texts are equal). */
export function mergeTexts(mine: string, theirs: string): { readonly text: string; readonly conflicts: number } {
  if (mine === theirs) return { text: mine, conflicts: 0 };
  const a = linesOf(mine);
  const b = linesOf(theirs);
  let out = '';
  let conflicts = 0;
  let i = 0;
  let j = 0;
  for (const [ci, cj] of [...commonLines(a, b), [a.length, b.length] as [number, number]]) {
    if (ci > i || cj > j) {
      out += block(a.slice(i, ci), b.slice(j, cj));
      conflicts++;
    }
    if (ci < a.length) out += a[ci] ?? '';
    i = ci + 1;
    j = cj + 1;
  }
  return { text: out, conflicts };
}

/** True when a text still holds a conflict block. */
export function hasConflictMarkers(text: string): boolean {
  return text.includes(`${MARKER_MINE}\n`) && text.includes(`\n${MARKER_THEIRS}`);
}
