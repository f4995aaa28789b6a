/**
 * The skills' embedding vectors, unit length, in one Float32Array, ranked by cosine similarity to a
 * query vector. At 10,000 skills of 768 dimensions an exact scan is ~7.7 million multiply-adds,
 * 5–7 ms in V8, over the 5 ms a hybrid suggestion may take; so past EXACT_LIMIT the scan runs in
 * two stages: a count sketch of every vector (SKETCH_DIMENSIONS numbers, an unbiased estimate of
 * the dot product) picks the candidates, and only those are scored exactly. See
 * docs/search-and-catalog.md, "Meaning as well as words".
 */

/** Rows × dimensions up to which every row is scored exactly (~2 ms). */
export const EXACT_LIMIT = 3_000_000;
export const SKETCH_DIMENSIONS = 128;
/** Candidates the sketch passes on to the exact stage, at least. */
export const SKETCH_CANDIDATES = 400;

export interface VectorHit {
  readonly key: string;
  /** Cosine similarity, −1…1. */
  readonly score: number;
}

export interface NearestOptions {
  /** Most hits; default 20. */
  readonly top?: number;
  /** Rows × dimensions up to which the scan is exact; default EXACT_LIMIT (tests lower it). */
  readonly exactLimit?: number;
}

/** Scales to unit length in place; false when the vector has no length or holds a non-finite number. */
export function normalize(vector: Float32Array): boolean {
  let sum = 0;
  for (const value of vector) sum += value * value;
  if (!Number.isFinite(sum) || sum === 0) return false;
  const scale = 1 / Math.sqrt(sum);
  for (let i = 0; i < vector.length; i++) vector[i] = (vector[i] as number) * scale;
  return true;
}

interface SketchPlan {
  readonly bucket: Uint8Array;
  readonly sign: Float32Array;
}

const plans = new Map<number, SketchPlan>();

/** Which sketch slot and sign each dimension goes to: fixed per dimension count (a seeded generator). */
function sketchPlan(dimensions: number): SketchPlan {
  let plan = plans.get(dimensions);
  if (!plan) {
    let state = (0x9e3779b9 ^ dimensions) >>> 0;
    const next = () => {
      // mulberry32
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return (t ^ (t >>> 14)) >>> 0;
    };
    const bucket = new Uint8Array(dimensions);
    const sign = new Float32Array(dimensions);
    for (let i = 0; i < dimensions; i++) {
      const r = next();
      bucket[i] = r % SKETCH_DIMENSIONS;
      sign[i] = r & 0x80000000 ? -1 : 1;
    }
    plan = { bucket, sign };
    plans.set(dimensions, plan);
  }
  return plan;
}

function sketchInto(vector: Float32Array, out: Float32Array, offset: number): void {
  const { bucket, sign } = sketchPlan(vector.length);
  out.fill(0, offset, offset + SKETCH_DIMENSIONS);
  for (let i = 0; i < vector.length; i++) {
    const slot = offset + (bucket[i] as number);
    out[slot] = (out[slot] as number) + (vector[i] as number) * (sign[i] as number);
  }
}

export class VectorMatrix {
  private rows = new Float32Array(0);
  private sketches = new Float32Array(0);
  private keys: string[] = [];
  private readonly rowOf = new Map<string, number>();

  constructor(readonly dimensions: number) {
    if (!Number.isInteger(dimensions) || dimensions <= 0) throw new RangeError(`Embedding dimensions must be a positive integer, got ${dimensions}.`);
  }

  get size(): number {
    return this.keys.length;
  }

  has(key: string): boolean {
    return this.rowOf.has(key);
  }

  /** Adds or replaces the vector of `key`; it must already be unit length (see `normalize`). */
  set(key: string, vector: Float32Array): void {
    if (vector.length !== this.dimensions) throw new RangeError(`Expected ${this.dimensions} dimensions, got ${vector.length}.`);
    let row = this.rowOf.get(key);
    if (row === undefined) {
      row = this.keys.length;
      this.grow(row + 1);
      this.keys.push(key);
      this.rowOf.set(key, row);
    }
    this.rows.set(vector, row * this.dimensions);
    sketchInto(vector, this.sketches, row * SKETCH_DIMENSIONS);
  }

  /** Removes `key` (unknown keys are ignored); the last row moves into its place. */
  delete(key: string): void {
    const row = this.rowOf.get(key);
    if (row === undefined) return;
    const last = this.keys.length - 1;
    if (row !== last) {
      const lastKey = this.keys[last] as string;
      this.rows.copyWithin(row * this.dimensions, last * this.dimensions, (last + 1) * this.dimensions);
      this.sketches.copyWithin(row * SKETCH_DIMENSIONS, last * SKETCH_DIMENSIONS, (last + 1) * SKETCH_DIMENSIONS);
      this.keys[row] = lastKey;
      this.rowOf.set(lastKey, row);
    }
    this.keys.pop();
    this.rowOf.delete(key);
  }

  /** The rows nearest a unit-length query, best first; ties by key. */
  nearest(query: Float32Array, options: NearestOptions = {}): VectorHit[] {
    const top = Math.max(0, Math.floor(options.top ?? 20));
    const count = this.keys.length;
    if (query.length !== this.dimensions) throw new RangeError(`The query has ${query.length} dimensions, the skills ${this.dimensions}.`);
    if (top === 0 || count === 0) return [];
    const exact = count * this.dimensions <= (options.exactLimit ?? EXACT_LIMIT);
    const candidates = exact ? undefined : this.sketchCandidates(query, Math.max(SKETCH_CANDIDATES, top * 8));
    const best = new TopList(top);
    if (candidates) for (const row of candidates) best.offer(row, this.dot(query, row));
    else for (let row = 0; row < count; row++) best.offer(row, this.dot(query, row));
    return best.rows().map(({ row, score }) => ({ key: this.keys[row] as string, score })).sort((a, b) => b.score - a.score || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  private dot(query: Float32Array, row: number): number {
    const rows = this.rows;
    const d = this.dimensions;
    let offset = row * d;
    let a = 0;
    let b = 0;
    let c = 0;
    let e = 0;
    let j = 0;
    // Four sums in flight instead of one: about twice as fast in V8.
    for (; j + 3 < d; j += 4, offset += 4) {
      a += (rows[offset] as number) * (query[j] as number);
      b += (rows[offset + 1] as number) * (query[j + 1] as number);
      c += (rows[offset + 2] as number) * (query[j + 2] as number);
      e += (rows[offset + 3] as number) * (query[j + 3] as number);
    }
    for (; j < d; j++, offset++) a += (rows[offset] as number) * (query[j] as number);
    return a + b + c + e;
  }

  private sketchCandidates(query: Float32Array, wanted: number): number[] {
    const sketch = new Float32Array(SKETCH_DIMENSIONS);
    sketchInto(query, sketch, 0);
    const count = this.keys.length;
    const estimates = new Float32Array(count);
    const sketches = this.sketches;
    for (let row = 0, offset = 0; row < count; row++) {
      let a = 0;
      let b = 0;
      for (let j = 0; j < SKETCH_DIMENSIONS; j += 2, offset += 2) {
        a += (sketches[offset] as number) * (sketch[j] as number);
        b += (sketches[offset + 1] as number) * (sketch[j + 1] as number);
      }
      estimates[row] = a + b;
    }
    if (wanted >= count) return Array.from({ length: count }, (_, row) => row);
    // A selection, not a sorted list: keeping 400 candidates in order cost more than the scan itself.
    const threshold = kthLargest(estimates.slice(), wanted);
    const rows: number[] = [];
    for (let row = 0; row < count && rows.length < wanted; row++) if ((estimates[row] as number) > threshold) rows.push(row);
    for (let row = 0; row < count && rows.length < wanted; row++) if (estimates[row] === threshold) rows.push(row);
    return rows;
  }

  private grow(rows: number): void {
    if (rows * this.dimensions <= this.rows.length) return;
    const capacity = Math.max(rows, Math.ceil(this.keys.length * 1.5), 64);
    const grown = new Float32Array(capacity * this.dimensions);
    grown.set(this.rows.subarray(0, this.keys.length * this.dimensions));
    this.rows = grown;
    const sketches = new Float32Array(capacity * SKETCH_DIMENSIONS);
    sketches.set(this.sketches.subarray(0, this.keys.length * SKETCH_DIMENSIONS));
    this.sketches = sketches;
  }
}

/** The k-th largest value (k from 1), by quickselect; reorders `values`. */
function kthLargest(values: Float32Array, k: number): number {
  let lo = 0;
  let hi = values.length - 1;
  const target = k - 1;
  while (lo < hi) {
    const pivot = values[(lo + hi) >>> 1] as number;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while ((values[i] as number) > pivot) i++;
      while ((values[j] as number) < pivot) j--;
      if (i <= j) {
        const swap = values[i] as number;
        values[i] = values[j] as number;
        values[j] = swap;
        i++;
        j--;
      }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else break;
  }
  return values[target] as number;
}

/** The `size` best (row, score) pairs offered, kept in a sorted array: cheap when size is small. */
class TopList {
  private readonly scores: Float64Array;
  private readonly rowIds: Int32Array;
  private count = 0;

  constructor(private readonly size: number) {
    this.scores = new Float64Array(size);
    this.rowIds = new Int32Array(size);
  }

  offer(row: number, score: number): void {
    if (this.size === 0) return;
    if (this.count === this.size && score <= (this.scores[this.size - 1] as number)) return;
    let i = this.count < this.size ? this.count++ : this.size - 1;
    while (i > 0 && (this.scores[i - 1] as number) < score) {
      this.scores[i] = this.scores[i - 1] as number;
      this.rowIds[i] = this.rowIds[i - 1] as number;
      i--;
    }
    this.scores[i] = score;
    this.rowIds[i] = row;
  }

  rows(): { row: number; score: number }[] {
    const out: { row: number; score: number }[] = [];
    for (let i = 0; i < this.count; i++) out.push({ row: this.rowIds[i] as number, score: this.scores[i] as number });
    return out;
  }
}
