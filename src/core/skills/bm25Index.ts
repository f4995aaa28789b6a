/**
 * BM25+ parameters, as minisearch uses them by default (k 1.2, b 0.7, d 0.5): the ranking was
 * tuned with minisearch, and this index computes the same scores (docs/search-and-catalog.md).
 */
const K = 1.2;
const B = 0.7;
const D = 0.5;
/** Weight of a term reached by prefix expansion, before its length discount (minisearch's 0.375). */
const PREFIX_WEIGHT = 0.375;
/** Query terms beyond this are ignored: which terms matched is kept in two 32-bit masks per document. */
export const MAX_BM25_QUERY_TERMS = 64;

export interface Bm25SearchOptions {
  /** Weight per field, in the order of the index's fields. */
  readonly boosts: readonly number[];
  /** Whether a query term also matches the longer terms that start with it. */
  readonly prefix: (term: string) => boolean;
  readonly top: number;
  /** Only documents it accepts are returned; asked only of documents that would make the top. */
  readonly accept?: (id: string) => boolean;
  /** Order of documents with equal scores (the result must not depend on insertion order). */
  readonly tieBreak: (a: string, b: string) => number;
}

export interface Bm25Hit {
  readonly id: string;
  /** Sum of the per-field BM25+ scores, times the number of query terms matched. */
  readonly score: number;
  /** The query terms that matched, in query order. */
  readonly terms: readonly string[];
  /** Indexes of the fields that matched, ascending. */
  readonly fields: readonly number[];
}

/** Documents (by slot) holding a term in one field, with how often. */
interface Postings {
  readonly slots: number[];
  readonly counts: number[];
}

interface Candidate {
  readonly slot: number;
  readonly score: number;
}

/**
 * An inverted index over documents made of fields of terms, ranked by fielded BM25+ the way
 * minisearch ranks an OR query (each document's summed score multiplied by the number of query
 * terms it matched). Written for speed at 10,000 skills: scores are summed in typed arrays and only
 * the top few documents are sorted and explained.
 */
export class Bm25Index {
  private readonly fieldCount: number;
  private readonly slotOf = new Map<string, number>();
  private readonly ids: (string | undefined)[] = [];
  private readonly free: number[] = [];
  /** Per slot and field: the field's distinct terms (what removal has to undo). */
  private readonly docTerms: (readonly string[])[][] = [];
  /** Per slot and field: the number of distinct terms, BM25's field length. */
  private lengths = new Float64Array(0);
  private readonly totalLength: number[];
  private readonly postings = new Map<string, (Postings | undefined)[]>();
  /** Every indexed term, sorted, for prefix expansion; rebuilt when a bulk load left it stale. */
  private vocabulary: string[] | undefined = [];
  // Per slot, reused by every search: the score so far, which query terms and fields matched, and
  // the search that last touched it (so nothing has to be cleared between searches).
  private scores = new Float64Array(0);
  private termCount = new Uint8Array(0);
  private termsLow = new Uint32Array(0);
  private termsHigh = new Uint32Array(0);
  private fieldMask = new Uint32Array(0);
  private seenIn = new Int32Array(0);
  private generation = 0;

  constructor(fields: number) {
    // Matched fields are kept as bits of one 32-bit mask.
    if (!Number.isInteger(fields) || fields < 1 || fields > 32) throw new RangeError(`Bm25Index takes 1 to 32 fields, not ${fields}`);
    this.fieldCount = fields;
    this.totalLength = new Array<number>(fields).fill(0);
  }

  get size(): number {
    return this.slotOf.size;
  }

  /** Adds or replaces the document `id`; `fields[f]` holds the terms of field f, repeats counting. */
  set(id: string, fields: readonly (readonly string[])[]): void {
    this.delete(id);
    const slot = this.free.pop() ?? this.ids.length;
    if (slot >= this.capacity) this.grow(Math.max(64, slot * 2));
    this.slotOf.set(id, slot);
    this.ids[slot] = id;
    const perField: string[][] = [];
    for (let f = 0; f < this.fieldCount; f++) {
      const counts = new Map<string, number>();
      for (const term of fields[f] ?? []) counts.set(term, (counts.get(term) ?? 0) + 1);
      for (const [term, count] of counts) {
        let lists = this.postings.get(term);
        if (!lists) {
          lists = new Array<Postings | undefined>(this.fieldCount);
          this.postings.set(term, lists);
          this.addToVocabulary(term);
        }
        const list = (lists[f] ??= { slots: [], counts: [] });
        list.slots.push(slot);
        list.counts.push(count);
      }
      perField.push([...counts.keys()]);
      this.lengths[slot * this.fieldCount + f] = counts.size;
      this.totalLength[f] = (this.totalLength[f] as number) + counts.size;
    }
    this.docTerms[slot] = perField;
  }

  /** Loads many documents at once: the sorted vocabulary is rebuilt once, on the next prefix search. */
  setAll(docs: Iterable<readonly [string, readonly (readonly string[])[]]>): void {
    this.vocabulary = undefined;
    for (const [id, fields] of docs) this.set(id, fields);
  }

  delete(id: string): boolean {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return false;
    const perField = this.docTerms[slot] as (readonly string[])[];
    for (let f = 0; f < this.fieldCount; f++) {
      for (const term of perField[f] as readonly string[]) {
        const lists = this.postings.get(term) as (Postings | undefined)[];
        const list = lists[f] as Postings;
        // Swap-remove: the order of a posting list never reaches a score.
        const at = list.slots.indexOf(slot);
        const last = list.slots.length - 1;
        list.slots[at] = list.slots[last] as number;
        list.counts[at] = list.counts[last] as number;
        list.slots.pop();
        list.counts.pop();
        if (list.slots.length === 0) {
          lists[f] = undefined;
          if (lists.every((l) => l === undefined)) {
            this.postings.delete(term);
            this.removeFromVocabulary(term);
          }
        }
      }
      this.totalLength[f] = (this.totalLength[f] as number) - this.lengths[slot * this.fieldCount + f];
    }
    this.slotOf.delete(id);
    this.ids[slot] = undefined;
    this.docTerms[slot] = [];
    this.free.push(slot);
    return true;
  }

  /** Documents matching any of the (at most MAX_BM25_QUERY_TERMS) query terms, best first. */
  search(query: readonly string[], options: Bm25SearchOptions): Bm25Hit[] {
    const top = Math.max(0, Math.floor(options.top));
    const n = this.slotOf.size;
    const terms = query.slice(0, MAX_BM25_QUERY_TERMS);
    if (top === 0 || n === 0 || terms.length === 0) return [];
    if (this.generation >= 0x3fffffff) this.resetMarks();
    const generation = ++this.generation;
    const touched: number[] = [];
    for (let q = 0; q < terms.length; q++) {
      const term = terms[q] as string;
      const high = q >= 32;
      const bit = (1 << q % 32) >>> 0;
      for (const [derived, weight] of this.expand(term, options.prefix(term))) {
        const fieldLists = this.postings.get(derived) as (Postings | undefined)[];
        for (let f = 0; f < this.fieldCount; f++) {
          const list = fieldLists[f];
          if (!list) continue;
          const df = list.slots.length;
          const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
          const factor = weight * (options.boosts[f] ?? 1) * idf;
          const averageLength = (this.totalLength[f] as number) / n;
          const { slots, counts } = list;
          for (let i = 0; i < slots.length; i++) {
            const slot = slots[i] as number;
            const tf = counts[i] as number;
            const length = this.lengths[slot * this.fieldCount + f] as number;
            const score = factor * (D + (tf * (K + 1)) / (tf + K * (1 - B + (B * length) / averageLength)));
            if (this.seenIn[slot] !== generation) {
              this.seenIn[slot] = generation;
              this.scores[slot] = 0;
              this.termCount[slot] = 0;
              this.termsLow[slot] = 0;
              this.termsHigh[slot] = 0;
              this.fieldMask[slot] = 0;
              touched.push(slot);
            }
            this.scores[slot] += score;
            this.fieldMask[slot] |= 1 << f;
            const masks = high ? this.termsHigh : this.termsLow;
            if (((masks[slot] as number) & bit) === 0) {
              masks[slot] |= bit;
              this.termCount[slot]++;
            }
          }
        }
      }
    }
    return this.best(touched, top, options).map((c) => this.explain(c, terms));
  }

  private get capacity(): number {
    return this.scores.length;
  }

  /** The term itself (weight 1) and, with `prefix`, each longer indexed term that starts with it. */
  private *expand(term: string, prefix: boolean): Generator<readonly [string, number]> {
    if (this.postings.has(term)) yield [term, 1];
    if (!prefix) return;
    const vocabulary = (this.vocabulary ??= [...this.postings.keys()].sort());
    for (let i = lowerBound(vocabulary, term); i < vocabulary.length; i++) {
      const derived = vocabulary[i] as string;
      if (!derived.startsWith(term)) break;
      if (derived.length === term.length) continue;
      // minisearch's prefix weight: falls slowly with the number of extra characters.
      yield [derived, (PREFIX_WEIGHT * derived.length) / (derived.length + 0.3 * (derived.length - term.length))];
    }
  }

  /** The `top` best candidates, best first: score, then `tieBreak`; `accept` is asked lazily. */
  private best(touched: readonly number[], top: number, options: Bm25SearchOptions): Candidate[] {
    const kept: Candidate[] = [];
    const before = (a: Candidate, b: Candidate) =>
      a.score !== b.score ? a.score > b.score : options.tieBreak(this.ids[a.slot] as string, this.ids[b.slot] as string) < 0;
    for (const slot of touched) {
      const candidate = { slot, score: (this.scores[slot] as number) * (this.termCount[slot] as number) };
      if (kept.length === top && !before(candidate, kept[top - 1] as Candidate)) continue;
      if (options.accept && !options.accept(this.ids[slot] as string)) continue;
      // Binary search for its place: `top` can be a few hundred (skills_list).
      let low = 0;
      let high = kept.length;
      while (low < high) {
        const mid = (low + high) >>> 1;
        if (before(candidate, kept[mid] as Candidate)) high = mid;
        else low = mid + 1;
      }
      kept.splice(low, 0, candidate);
      if (kept.length > top) kept.pop();
    }
    return kept;
  }

  private explain(candidate: Candidate, query: readonly string[]): Bm25Hit {
    const { slot, score } = candidate;
    const terms = query.filter((_, q) => (((q < 32 ? this.termsLow[slot] : this.termsHigh[slot]) as number) >>> q % 32) & 1);
    const fields: number[] = [];
    for (let f = 0; f < this.fieldCount; f++) if (((this.fieldMask[slot] as number) >>> f) & 1) fields.push(f);
    return { id: this.ids[slot] as string, score, terms, fields };
  }

  private grow(capacity: number): void {
    const lengths = new Float64Array(capacity * this.fieldCount);
    lengths.set(this.lengths);
    this.lengths = lengths;
    this.scores = new Float64Array(capacity);
    this.termCount = new Uint8Array(capacity);
    this.termsLow = new Uint32Array(capacity);
    this.termsHigh = new Uint32Array(capacity);
    this.fieldMask = new Uint32Array(capacity);
    this.seenIn = new Int32Array(capacity);
    this.generation = 0;
  }

  private resetMarks(): void {
    this.seenIn.fill(0);
    this.generation = 0;
  }

  private addToVocabulary(term: string): void {
    if (this.vocabulary) this.vocabulary.splice(lowerBound(this.vocabulary, term), 0, term);
  }

  private removeFromVocabulary(term: string): void {
    if (!this.vocabulary) return;
    const at = lowerBound(this.vocabulary, term);
    if (this.vocabulary[at] === term) this.vocabulary.splice(at, 1);
  }
}

/** First index whose term is not below `term` (code-unit order, as Array.prototype.sort uses). */
function lowerBound(sorted: readonly string[], term: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((sorted[mid] as string) < term) low = mid + 1;
    else high = mid;
  }
  return low;
}
