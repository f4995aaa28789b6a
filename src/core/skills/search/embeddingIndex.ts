import type { Disposable } from '../../base/disposableStore';
import { Emitter } from '../../base/emitter';
import type { Event } from '../../base/emitter';
import type { Logger } from '../../base/logger';
import { describeError, nullLogger } from '../../base/logger';
import { ModelError } from '../../llm/chatTypes';
import type { SkillRecord } from '../model/skillTypes';
import { decodeEmbeddingCache, encodeEmbeddingCache } from './embeddingCache';
import { VectorMatrix, normalize } from './embeddingMatrix';
import { embeddingKey, embeddingQuery } from './embeddingText';

/** The embeddings endpoint as the index sees it: one vector per input, in input order. */
export interface Embedder {
  embed(inputs: readonly string[], signal?: AbortSignal): Promise<readonly unknown[]>;
}

/** Where the cache file lives (the host: the extension's global storage). */
export interface EmbeddingStore {
  /** Undefined when there is no file yet. */
  read(): Promise<Uint8Array | undefined>;
  write(bytes: Uint8Array): Promise<void>;
}

/** `off`: switched off or no embedding model; `unavailable`: the endpoint failed (see `reason`). */
export type EmbeddingState = 'off' | 'indexing' | 'ready' | 'unavailable';

export interface EmbeddingStatus {
  readonly state: EmbeddingState;
  /** Why it is off or unavailable, for the log and the status page. */
  readonly reason?: string;
  readonly model?: string;
  /** Skills known / skills with a vector. */
  readonly skills: number;
  readonly embedded: number;
}

export interface EmbeddingIndexOptions {
  readonly embedder: Embedder;
  readonly model: string;
  readonly store?: EmbeddingStore;
  readonly logger?: Logger;
  /** Skill texts per request; default 64. */
  readonly batchSize?: number;
  /** How long a turn waits for its message's embedding; default 1,500 ms. */
  readonly queryDeadlineMs?: number;
  /** After a failure, the next use tries the endpoint again this much later; default 10 minutes. */
  readonly retryAfterMs?: number;
  /** Passed to VectorMatrix.nearest (tests lower it to reach the two-stage scan). */
  readonly exactLimit?: number;
  readonly now?: () => number;
}

/** A skill and the cosine similarity of its embedding to the message's. */
export interface SemanticHit {
  readonly record: SkillRecord;
  readonly score: number;
}

/** What hybrid ranking needs of the embeddings: implemented by EmbeddingIndex and the host's service. */
export interface SemanticSource {
  nearest(message: string, options?: NearestQueryOptions): Promise<readonly SemanticHit[] | undefined>;
}

export interface NearestQueryOptions {
  readonly top?: number;
  readonly deadlineMs?: number;
  readonly signal?: AbortSignal;
}

/** The endpoint answered, but not with usable vectors. */
export class EmbeddingDataError extends Error {}

export const DEFAULT_BATCH_SIZE = 64;
export const DEFAULT_QUERY_DEADLINE_MS = 1_500;
/** Missed deadlines in a row after which the endpoint counts as hanging. */
const SLOW_LIMIT = 3;
const QUERY_CACHE_SIZE = 32;

/** A vector from the endpoint as unit-length float32, or a message saying what is wrong with it. */
export function toVector(raw: unknown, dimensions: number | undefined): Float32Array {
  const isList = Array.isArray(raw) || raw instanceof Float32Array || raw instanceof Float64Array;
  if (!isList) throw new EmbeddingDataError(`The embeddings endpoint answered with ${describeShape(raw)} where a list of numbers belongs.`);
  const list = raw as ArrayLike<unknown>;
  if (list.length === 0) throw new EmbeddingDataError('The embeddings endpoint answered with an empty vector.');
  if (dimensions !== undefined && list.length !== dimensions) {
    throw new EmbeddingDataError(`The embeddings endpoint answered with a vector of ${list.length} dimensions where the others have ${dimensions}.`);
  }
  const vector = new Float32Array(list.length);
  for (let i = 0; i < list.length; i++) {
    const value = list[i];
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      throw new EmbeddingDataError(`The embeddings endpoint answered with a vector holding ${typeof value === 'number' ? String(value) : describeShape(value)}, not a finite number.`);
    }
    vector[i] = value;
  }
  if (!normalize(vector)) throw new EmbeddingDataError('The embeddings endpoint answered with an all-zero vector.');
  return vector;
}

function describeShape(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * 404, a refused key or request, an answer that is not valid JSON or has no vectors (a `server`
 * error without an HTTP status): trying again on the next turn would fail the same way. Timeouts,
 * refused connections and 5xx may pass.
 */
function isLasting(error: unknown): boolean {
  if (error instanceof EmbeddingDataError) return true;
  if (!(error instanceof ModelError)) return false;
  return error.kind === 'not_found' || error.kind === 'auth' || error.kind === 'bad_request' || (error.kind === 'server' && error.status === undefined);
}

/**
 * The skills' embeddings for one model: loaded from the cache, missing ones fetched in batches in
 * the background, re-fetched only for skills whose text changed, and ranked against a message's
 * embedding. Every failure leaves word matching in charge: `nearest` then answers undefined.
 */
export class EmbeddingIndex implements SemanticSource, Disposable {
  private readonly logger: Logger;
  private readonly now: () => number;
  private readonly statusEmitter = new Emitter<EmbeddingStatus>('embedding status');
  readonly onDidChangeStatus: Event<EmbeddingStatus> = this.statusEmitter.event;
  private readonly lifetime = new AbortController();
  /** Vectors by content hash: what the cache held and what the endpoint sent since. */
  private readonly vectors = new Map<string, Float32Array>();
  /** The current skills by file, with their text and its hash. */
  private current = new Map<string, { record: SkillRecord; text: string; hash: string }>();
  /** What each matrix row holds: file → hash (an edited skill keeps its old vector until the new one arrives). */
  private readonly rowHash = new Map<string, string>();
  private matrix: VectorMatrix | undefined;
  private dimensions: number | undefined;
  /** The dimension count was seen from the endpoint in this session, not only read from the cache. */
  private liveDimensions = false;
  private readonly queryVectors = new Map<string, Float32Array>();
  private state: EmbeddingState = 'indexing';
  private reason: string | undefined;
  private retryAt = 0;
  private builtOnce = false;
  private cacheLoaded = false;
  private dirty = false;
  private work: Promise<void> = Promise.resolve();
  private queued = false;
  private slow = 0;
  private readonly noticed = new Set<string>();

  constructor(private readonly options: EmbeddingIndexOptions) {
    this.logger = options.logger ?? nullLogger;
    this.now = options.now ?? Date.now;
  }

  get model(): string {
    return this.options.model;
  }

  get status(): EmbeddingStatus {
    return {
      state: this.state,
      ...(this.reason ? { reason: this.reason } : {}),
      model: this.options.model,
      skills: this.current.size,
      embedded: [...this.current.values()].filter((key) => this.vectors.has(key.hash)).length,
    };
  }

  /** Sets the skills to embed (the active ones); work happens in the background. */
  update(records: readonly SkillRecord[]): void {
    this.current = new Map(records.map((record) => [record.file, { record, ...embeddingKey(record) }]));
    this.schedule();
  }

  /** Resolves when the work scheduled so far is done (tests and the bench wait for it). */
  async idle(): Promise<void> {
    let seen: Promise<void>;
    do {
      seen = this.work;
      await seen;
    } while (seen !== this.work);
  }

  /**
   * The skills nearest a message by meaning, best first, or undefined when embeddings cannot help
   * this time (not built yet, endpoint failing, no answer within the deadline). Never throws.
   */
  async nearest(message: string, options: NearestQueryOptions = {}): Promise<SemanticHit[] | undefined> {
    if (!this.usable()) return undefined;
    const query = embeddingQuery(message);
    if (query === '') return [];
    const vector = this.queryVectors.get(query) ?? (await this.embedQuery(query, options));
    if (!vector || !this.matrix) return undefined;
    if (vector.length !== this.matrix.dimensions) {
      this.fail(new EmbeddingDataError(`The embeddings endpoint answered the message with ${vector.length} dimensions where the skills have ${this.matrix.dimensions}.`));
      return undefined;
    }
    this.queryVectors.delete(query);
    this.queryVectors.set(query, vector);
    if (this.queryVectors.size > QUERY_CACHE_SIZE) this.queryVectors.delete(this.queryVectors.keys().next().value as string);
    const hits = this.matrix.nearest(vector, { top: options.top ?? 20, ...(this.options.exactLimit ? { exactLimit: this.options.exactLimit } : {}) });
    return hits.flatMap((hit) => {
      const record = this.current.get(hit.key)?.record;
      return record ? [{ record, score: hit.score }] : [];
    });
  }

  dispose(): void {
    this.lifetime.abort();
    this.statusEmitter.dispose();
  }

  private usable(): boolean {
    if (this.lifetime.signal.aborted) return false;
    if (this.state === 'unavailable') {
      if (this.now() < this.retryAt) return false;
      this.setState(this.builtOnce ? 'ready' : 'indexing');
      this.schedule();
    }
    return this.builtOnce && this.matrix !== undefined && this.matrix.size > 0;
  }

  private async embedQuery(query: string, options: NearestQueryOptions): Promise<Float32Array | undefined> {
    const deadlineMs = options.deadlineMs ?? this.options.queryDeadlineMs ?? DEFAULT_QUERY_DEADLINE_MS;
    const controller = new AbortController();
    const stop = () => controller.abort();
    options.signal?.addEventListener('abort', stop, { once: true });
    this.lifetime.signal.addEventListener('abort', stop, { once: true });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = Symbol('late');
    // The race, not only the abort, bounds the wait: an embedder that ignores its signal cannot hold the turn.
    const deadline = new Promise<typeof late>((resolve) => {
      timer = setTimeout(() => resolve(late), deadlineMs);
    });
    const request = this.options.embedder.embed([query], controller.signal);
    request.catch(() => undefined);
    try {
      const answer = await Promise.race([request, deadline]);
      if (answer === late) {
        controller.abort();
        this.missedDeadline(deadlineMs);
        return undefined;
      }
      const vector = toVector(answer[0], undefined);
      this.slow = 0;
      return this.acceptDimensions(vector.length) ? vector : undefined;
    } catch (error) {
      if (options.signal?.aborted || this.lifetime.signal.aborted) return undefined;
      if (isLasting(error)) this.fail(error);
      else this.missedDeadline(deadlineMs, error);
      return undefined;
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', stop);
      this.lifetime.signal.removeEventListener('abort', stop);
    }
  }

  /** A slow or failed query embedding: word matching for this turn; a few in a row count as a failing endpoint. */
  private missedDeadline(deadlineMs: number, error?: unknown): void {
    this.slow++;
    const what = error ? `failed (${describeError(error)})` : `took longer than ${deadlineMs} ms`;
    this.notice('slow', `Embedding the message ${what}; this turn ranks skills by words only.`);
    if (this.slow >= SLOW_LIMIT) {
      this.fail(new Error(`The embeddings endpoint ${error ? 'failed' : `did not answer within ${deadlineMs} ms`} ${SLOW_LIMIT} times in a row.`));
    }
  }

  private schedule(): void {
    if (this.queued) return;
    this.queued = true;
    this.work = this.work
      .then(() => {
        this.queued = false;
        return this.process();
      })
      .catch((error: unknown) => this.fail(error));
  }

  private async process(): Promise<void> {
    if (this.lifetime.signal.aborted || this.state === 'unavailable') return;
    if (!this.cacheLoaded) await this.loadCache();
    this.syncRows();
    const missing = new Map<string, string>();
    for (const key of this.current.values()) if (!this.vectors.has(key.hash)) missing.set(key.hash, key.text);
    if (missing.size > 0) this.setState(this.builtOnce ? 'ready' : 'indexing');
    const batchSize = Math.max(1, Math.floor(this.options.batchSize ?? DEFAULT_BATCH_SIZE));
    const pending = [...missing];
    for (let start = 0; start < pending.length; start += batchSize) {
      if (this.lifetime.signal.aborted) return;
      const batch = pending.slice(start, start + batchSize);
      const answer = await this.options.embedder.embed(
        batch.map(([, text]) => text),
        this.lifetime.signal,
      );
      if (!Array.isArray(answer) || answer.length !== batch.length) {
        throw new EmbeddingDataError(`The embeddings endpoint answered ${Array.isArray(answer) ? answer.length : 'no'} vectors for ${batch.length} texts.`);
      }
      const vectors = answer.map((raw) => toVector(raw, this.liveDimensions ? this.dimensions : undefined));
      const first = vectors[0] as Float32Array;
      if (!vectors.every((vector) => vector.length === first.length)) throw new EmbeddingDataError('The embeddings endpoint answered with vectors of different lengths in one batch.');
      if (!this.acceptDimensions(first.length)) return;
      batch.forEach(([hash], i) => this.vectors.set(hash, vectors[i] as Float32Array));
      this.dirty = true;
      this.syncRows();
    }
    this.builtOnce = true;
    this.setState('ready');
    await this.saveCache();
  }

  /**
   * Fixes the dimension count from the endpoint's first answer in this session. A cache of another
   * dimension count (the server's model changed under the same name) is dropped and rebuilt.
   */
  private acceptDimensions(count: number): boolean {
    if (this.liveDimensions) {
      if (count === this.dimensions) return true;
      this.fail(new EmbeddingDataError(`The embeddings endpoint answered with ${count} dimensions where it gave ${this.dimensions} before.`));
      return false;
    }
    this.liveDimensions = true;
    if (this.dimensions !== undefined && this.dimensions !== count) {
      this.logger.info(`The embeddings cache holds ${this.dimensions}-dimension vectors, but ${this.options.model} now gives ${count}; embedding the skills again.`);
      this.vectors.clear();
      this.rowHash.clear();
      this.matrix = undefined;
      this.builtOnce = false;
      this.dimensions = count;
      this.setState('indexing');
      this.schedule();
      return false;
    }
    this.dimensions = count;
    return true;
  }

  /** Matrix rows follow the current skills: a row per skill with a vector, removed skills dropped. */
  private syncRows(): void {
    if (this.dimensions === undefined) return;
    this.matrix ??= new VectorMatrix(this.dimensions);
    for (const file of [...this.rowHash.keys()]) {
      if (!this.current.has(file)) {
        this.matrix.delete(file);
        this.rowHash.delete(file);
      }
    }
    for (const [file, key] of this.current) {
      if (this.rowHash.get(file) === key.hash) continue;
      const vector = this.vectors.get(key.hash);
      if (!vector) continue;
      this.matrix.set(file, vector);
      this.rowHash.set(file, key.hash);
    }
  }

  private async loadCache(): Promise<void> {
    this.cacheLoaded = true;
    const store = this.options.store;
    if (!store) return;
    let bytes: Uint8Array | undefined;
    try {
      bytes = await store.read();
    } catch (error) {
      this.logger.warn(`Could not read the embeddings cache (${describeError(error)}); embedding the skills afresh.`);
      return;
    }
    if (!bytes) return;
    const decoded = decodeEmbeddingCache(bytes);
    if (!decoded.ok) {
      this.logger.warn(`The embeddings cache is unusable: ${decoded.reason}. It is rebuilt from the endpoint.`);
      this.dirty = true;
      return;
    }
    if (decoded.content.model !== this.options.model) {
      this.logger.info(`The embeddings cache was made with ${decoded.content.model}; embedding the skills with ${this.options.model}.`);
      this.dirty = true;
      return;
    }
    this.dimensions = decoded.content.dimensions;
    for (const [hash, vector] of decoded.content.vectors) if (normalize(vector)) this.vectors.set(hash, vector);
    this.logger.debug(`Read ${this.vectors.size} skill embeddings from the cache.`);
  }

  private async saveCache(): Promise<void> {
    const wanted = new Set([...this.current.values()].map((key) => key.hash));
    for (const hash of [...this.vectors.keys()]) {
      if (!wanted.has(hash)) {
        this.vectors.delete(hash);
        this.dirty = true;
      }
    }
    const store = this.options.store;
    if (!store || !this.dirty || this.dimensions === undefined) return;
    this.dirty = false;
    try {
      await store.write(encodeEmbeddingCache({ model: this.options.model, dimensions: this.dimensions, vectors: this.vectors }));
    } catch (error) {
      this.logger.warn(`Could not save the embeddings cache (${describeError(error)}); the skills are embedded again next time.`);
    }
  }

  private fail(error: unknown): void {
    if (this.lifetime.signal.aborted) return;
    const reason = describeError(error);
    this.retryAt = this.now() + (this.options.retryAfterMs ?? 10 * 60_000);
    this.slow = 0;
    this.notice(`fail:${reason}`, `Skill search by meaning is unavailable: ${reason} Skills are ranked by words only; Skillwright tries the endpoint again in a few minutes.`);
    this.setState('unavailable', reason);
  }

  private notice(key: string, message: string): void {
    if (this.noticed.has(key)) return;
    this.noticed.add(key);
    this.logger.warn(message);
  }

  private setState(state: EmbeddingState, reason?: string): void {
    if (state === this.state && reason === this.reason) return;
    this.state = state;
    this.reason = reason;
    this.statusEmitter.fire(this.status);
  }
}
