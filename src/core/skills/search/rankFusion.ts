/**
 * Reciprocal rank fusion (Cormack, Clarke and Büttcher, SIGIR 2009): each list gives an item
 * 1 / (k + rank), rank counted from 1, and an item's fused score is the sum over the lists it is
 * in. Only ranks count, so a BM25 score (unbounded) and a cosine (−1…1) need no common scale, and
 * an item high in both lists beats one that tops only one of them.
 */

/** The constant of the original paper; it damps the difference between the first few ranks. */
export const RRF_K = 60;

export interface FusedRank {
  readonly key: string;
  readonly score: number;
  /** The item's rank (from 1) in each input list, in list order; undefined where it is absent. */
  readonly ranks: readonly (number | undefined)[];
}

export interface FusionOptions {
  /** Default RRF_K; must be ≥ 0. */
  readonly k?: number;
  /** Most results; default all. */
  readonly top?: number;
}

/**
 * Fuses ranked lists of keys, best first. A key repeated within one list counts at its first
 * place only. Ties are broken by the best single rank, then by the earlier list (the first list
 * is the tie-breaker of record: callers put the lexical ranking first), then by key, so the result
 * depends only on the input.
 */
export function fuseRanks(lists: readonly (readonly string[])[], options: FusionOptions = {}): FusedRank[] {
  const k = options.k ?? RRF_K;
  if (!Number.isFinite(k) || k < 0) throw new RangeError(`The fusion constant k must be a finite number ≥ 0, got ${k}.`);
  const fused = new Map<string, { score: number; ranks: (number | undefined)[] }>();
  lists.forEach((list, listIndex) => {
    list.forEach((key, index) => {
      let entry = fused.get(key);
      if (!entry) {
        entry = { score: 0, ranks: new Array<number | undefined>(lists.length).fill(undefined) };
        fused.set(key, entry);
      }
      if (entry.ranks[listIndex] !== undefined) return;
      entry.ranks[listIndex] = index + 1;
      entry.score += 1 / (k + index + 1);
    });
  });
  const out: FusedRank[] = [...fused].map(([key, entry]) => ({ key, score: entry.score, ranks: entry.ranks }));
  out.sort(byFusedScore);
  const top = options.top;
  return top === undefined || !Number.isFinite(top) ? out : out.slice(0, Math.max(0, Math.floor(top)));
}

function bestRank(ranks: readonly (number | undefined)[]): { rank: number; list: number } {
  let best = { rank: Number.POSITIVE_INFINITY, list: ranks.length };
  ranks.forEach((rank, list) => {
    if (rank !== undefined && rank < best.rank) best = { rank, list };
  });
  return best;
}

function byFusedScore(a: FusedRank, b: FusedRank): number {
  if (a.score !== b.score) return b.score - a.score;
  const bestA = bestRank(a.ranks);
  const bestB = bestRank(b.ranks);
  if (bestA.rank !== bestB.rank) return bestA.rank - bestB.rank;
  if (bestA.list !== bestB.list) return bestA.list - bestB.list;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}
